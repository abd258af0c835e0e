// The two counter-based generators behind rng-bit-generator, as XLA defines
// them (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011):
// Threefry-2x32 with 20 rounds and Philox-4x32 with 10 rounds. Pure
// functions of (key, counter); the known-answer vectors of the Random123
// reference implementation hold for both.
#pragma once

#include <array>
#include <cstdint>

namespace hlo {

inline uint32_t rotateLeft(uint32_t v, int distance) { return (v << distance) | (v >> (32 - distance)); }

// Threefry-2x32, 20 rounds: five groups of four rounds, a key injection
// after each group (the extra key word is 0x1BD11BDA ^ key0 ^ key1).
inline std::array<uint32_t, 2> threeFry2x32(std::array<uint32_t, 2> key, std::array<uint32_t, 2> counter) {
  static constexpr int kRotations[2][4] = {{13, 15, 26, 6}, {17, 29, 16, 24}};
  uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = counter[0] + ks[0];
  uint32_t x1 = counter[1] + ks[1];
  for (uint32_t group = 0; group < 5; ++group) {
    for (int r : kRotations[group % 2]) {
      x0 += x1;
      x1 = rotateLeft(x1, r);
      x1 ^= x0;
    }
    // Injection i = group + 1 adds ks[i % 3] and ks[(i + 1) % 3] + i.
    x0 += ks[(group + 1) % 3];
    x1 += ks[(group + 2) % 3] + group + 1;
  }
  return {x0, x1};
}

// Philox-4x32, 10 rounds; the key is bumped by the Weyl constants after
// each round.
inline std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t{0xD2511F53u} * x[0];
    uint64_t p1 = uint64_t{0xCD9E8D57u} * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += 0x9E3779B9u;
    key[1] += 0xBB67AE85u;
  }
  return x;
}

inline std::array<uint32_t, 2> splitU64(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

inline uint64_t joinU32(uint32_t low, uint32_t high) { return uint64_t{low} | (uint64_t{high} << 32); }

}  // namespace hlo
