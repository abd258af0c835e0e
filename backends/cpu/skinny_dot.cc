// The skinny dot kernels (skinny_dot.h), written once with GCC vector types
// and compiled per instruction set, as conv_tiles.cc is: each entry point
// carries its target attribute and force-inlines the shared body.
//
// Free-major (b rows are columns of c): NB columns at a time (2 for 8 rows
// or more, else 1), each a row of b converted a vector at a time,
// multiplied into R rows of a: R * NB accumulators (times U for fewer than
// 4 rows), R + NB loads per R * NB multiply-adds. Rows of a come in chunks
// of 8, 4, 2 and 1 (so every chunk's accumulators stay in registers); the
// NB rows of b stay in the L1 cache from one chunk to the next. k runs in
// blocks whose rows of a stay in the L1 cache, every column's sums of one
// block before the next.
//
// Contracting-major (b rows run along k): blocks of 64 columns (k rows of a
// block stay in the L2 cache), each cut into tiles of NV vectors of
// columns, each k adding b's row k times a[r, k] (broadcast from a
// transposed copy) into R rows of accumulators, as the convolution tiles
// do; fewer rows take wider tiles, so that enough sums are in flight to
// cover the multiply-add's latency. With AVX-512 all rows are one chunk
// (up to 16, padded with zero rows), so b is read once.
//
// Both sum in f32 lanes for a block of k, then in double (kSumBlock,
// kRowsSumBlock).
#include "backends/cpu/skinny_dot.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backends/cpu/vector_of.h"
#include "hlo/float_formats.h"

namespace hlo::cpu {
namespace {

#if defined(__x86_64__)

// Sums run in f32 vector lanes for kSumBlock terms of k (contracting-major:
// kSumBlock / Lanes, one term per lane per k; free-major: kRowsSumBlock, 32
// or 64 terms per lane), then join a total in double: a lane's f32 rounding
// error grows with the terms it adds, and dots of thousands of terms that
// cancel would drift past the f32 tolerance. Free-major joins each of its
// accumulators' lanes into its total, which costs it 5% of a run of 512
// terms (8 rows by a bf16 [8192, 4096]: 1.66 -> 1.58 ms with 1024).
constexpr int64_t kSumBlock = 512;
constexpr int64_t kRowsSumBlock = 1024;

// Lanes elements of b from element `at`, as floats, into `out`. bf16 is the
// high half of an f32; f16 is rebiased (15 -> 127) in the exponent field
// when normal, is its mantissa times 2^-24 when subnormal, and keeps an
// all-ones exponent (inf, NaN): decodeF16ToF32 lane by lane.
template <int Lanes, WideType W>
[[gnu::always_inline]] inline void loadWide(const void* b, int64_t at, typename VectorOf<Lanes>::Value& out) {
  using Value = typename VectorOf<Lanes>::Value;
  using Bits = typename VectorOf<Lanes>::Bits;
  if constexpr (W == WideType::kF32) {
    out = *reinterpret_cast<const typename VectorOf<Lanes>::Memory*>(static_cast<const float*>(b) + at);
  } else {
    Bits h = __builtin_convertvector(
        *reinterpret_cast<const typename VectorOf<Lanes>::HalfMemory*>(static_cast<const uint16_t*>(b) + at), Bits);
    Bits bits;
    if constexpr (W == WideType::kBF16) {
      bits = h << 16;
    } else {
      Bits sign = (h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
      Bits normal = ((exponent + 112) << 23) | (mantissa << 13);
      Bits special = 0x7f800000 | (mantissa << 13);
      Value small = __builtin_convertvector(mantissa, Value) * 0x1p-24f;
      Bits smallBits;
      std::memcpy(&smallBits, &small, sizeof smallBits);
      bits = sign | (exponent == 0x1f ? special : exponent == 0 ? smallBits : normal);
    }
    std::memcpy(&out, &bits, sizeof out);
  }
}

// One element of b as a float.
template <WideType W>
[[gnu::always_inline]] inline float loadOne(const void* b, int64_t at) {
  if constexpr (W == WideType::kF32) return static_cast<const float*>(b)[at];
  else if constexpr (W == WideType::kBF16) return decodeBf16ToF32(static_cast<const uint16_t*>(b)[at]);
  else return decodeF16ToF32(static_cast<const uint16_t*>(b)[at]);
}

// The sum of v's lanes, as a tree: halves added, then their halves.
template <int Lanes>
[[gnu::always_inline]] inline float lanesSum(const typename VectorOf<Lanes>::Value& v) {
  typename VectorOf<Lanes>::Value t = v;
  if constexpr (Lanes == 16) {
    t += __builtin_shufflevector(t, t, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    t += __builtin_shufflevector(t, t, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3);
    t += __builtin_shufflevector(t, t, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1);
    t += __builtin_shufflevector(t, t, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0);
  } else {
    static_assert(Lanes == 8);
    t += __builtin_shufflevector(t, t, 4, 5, 6, 7, 0, 1, 2, 3);
    t += __builtin_shufflevector(t, t, 2, 3, 0, 1, 2, 3, 0, 1);
    t += __builtin_shufflevector(t, t, 1, 0, 1, 0, 1, 0, 1, 0);
  }
  return t[0];
}

// A free-major row of b is read a chunk at a time: Lanes * kSplit<W>
// elements, decoded into kSplit<W> vectors. bf16 loads a whole vector's
// bytes, 2 * Lanes elements, and splits them into the even ones (each 32-bit
// lane's low half, shifted up) and the odd ones (its high half, masked): no
// shuffle, where widening Lanes elements to 32 bits takes one. The rows of a
// are packed to match (packRows).
template <WideType W>
inline constexpr int kSplit = W == WideType::kBF16 ? 2 : 1;

template <int Lanes, WideType W>
[[gnu::always_inline]] inline void loadChunk(const void* b, int64_t at,
                                             typename VectorOf<Lanes>::Value (&out)[kSplit<W>]) {
  if constexpr (W == WideType::kBF16) {
    using Bits = typename VectorOf<Lanes>::Bits;
    Bits bits = *reinterpret_cast<const typename VectorOf<Lanes>::BitsMemory*>(static_cast<const uint16_t*>(b) + at);
    Bits even = bits << 16, odd = bits & 0xffff0000u;
    std::memcpy(&out[0], &even, sizeof even);
    std::memcpy(&out[1], &odd, sizeof odd);
  } else {
    loadWide<Lanes, W>(b, at, out[0]);
  }
}

// The rows of a are multiplied in chunks of R rows whose accumulators stay
// in registers.
//
// Free-major: chunks of 8, 4, 2 and 1 rows. Its loop is bound by loads, the
// chunks find b's rows in the L1 cache, and a larger chunk would load more
// rows of a per multiply-add (16 rows as one chunk: 30% slower than two).
template <typename F>
[[gnu::always_inline]] inline void inRowChunks(int64_t rows, F&& f) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) f(std::integral_constant<int, 8>{}, r);
  if (r + 4 <= rows) f(std::integral_constant<int, 4>{}, r), r += 4;
  if (r + 2 <= rows) f(std::integral_constant<int, 2>{}, r), r += 2;
  if (r < rows) f(std::integral_constant<int, 1>{}, r);
}

// Contracting-major: with AVX-512's 32 vector registers, one chunk of 1, 2,
// 4, 8, 12 or 16 rows (3 rows as 4, 11 as 12), which reads b once where
// chunks of 8, 2 and 1 would read it three times (11 rows by a cold bf16
// [6912, 18432]: 42 -> 28 ms on two cores); with AVX2's 16, chunks of 8 for
// more than 8 rows. packColumns pads a to paddedRows rows with zeros, whose
// sums are not stored.
template <int Lanes>
inline constexpr int64_t kMaxChunk = Lanes == 16 ? 16 : 8;

template <int Lanes>
int64_t paddedRows(int64_t rows) {
  if (rows > kMaxChunk<Lanes>) return (rows + 7) / 8 * 8;
  return rows <= 2 ? rows : rows <= 4 ? 4 : rows <= 8 ? 8 : rows <= 12 ? 12 : 16;
}

// Calls f(R, r0) for each chunk (R a std::integral_constant).
template <int Lanes, typename F>
[[gnu::always_inline]] inline void inPaddedRowChunks(int64_t rows, F&& f) {
  const int64_t padded = paddedRows<Lanes>(rows);
  if constexpr (Lanes == 16) {
    if (padded == 16) return f(std::integral_constant<int, 16>{}, 0);
    if (padded == 12) return f(std::integral_constant<int, 12>{}, 0);
  }
  if (padded >= 8) {
    for (int64_t r = 0; r < padded; r += 8) f(std::integral_constant<int, 8>{}, r);
  } else if (padded == 4) {
    f(std::integral_constant<int, 4>{}, 0);
  } else if (padded == 2) {
    f(std::integral_constant<int, 2>{}, 0);
  } else {
    f(std::integral_constant<int, 1>{}, 0);
  }
}

// a packed for one of the kernels, `rows` rows.
struct PackedA {
  const float* data;
  int64_t rows;
};

// a's rows for the free-major kernel, over the first `whole` elements of k
// (a multiple of the chunk): chunk by chunk, each row's chunk in the order
// loadChunk decodes b's (for bf16, the even elements, then the odd). A
// chunk's rows are side by side, so one pointer with constant offsets
// reaches all of them (R row pointers would not fit the registers).
template <int Lanes, WideType W>
PackedA packRows(const SkinnyDotArgs& s, int64_t whole, std::vector<float>& buffer) {
  constexpr int kChunk = Lanes * kSplit<W>;
  // Aligned to 64 bytes: a vector load that crosses a cache line costs two.
  buffer.resize(static_cast<size_t>(s.rows * whole + 16));
  float* const start = buffer.data() + (-reinterpret_cast<uintptr_t>(buffer.data()) / sizeof(float) & 15);
  float* out = start;
  for (int64_t c = 0; c < whole; c += kChunk)
    for (int64_t r = 0; r < s.rows; ++r) {
      const float* row = s.a + r * s.k + c;
      for (int p = 0; p < kSplit<W>; ++p)
        for (int i = 0; i < Lanes; ++i) *out++ = row[i * kSplit<W> + p];
    }
  return {start, s.rows};
}

// a transposed for the contracting-major kernel, [k, rows], so that one
// pointer with constant offsets reaches a[r, kk] for every row of a chunk.
template <int Lanes>
PackedA packColumns(const SkinnyDotArgs& s, std::vector<float>& buffer) {
  const int64_t padded = paddedRows<Lanes>(s.rows);
  buffer.assign(static_cast<size_t>(padded * s.k), 0.0f);
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t kk = 0; kk < s.k; ++kk) buffer[kk * padded + r] = s.a[r * s.k + kk];
  return {buffer.data(), padded};
}

// Rows [r0, r0 + R) of a times columns [j, j + NB) of a free-major b over
// k in [k0, k1) (whole chunks), each sum in U
// accumulators (U chunks of k at a time), so that enough multiply-adds are
// independent of each other; added to total[r * totalRow + q].
template <int Lanes, WideType W, int R, int NB, int U>
[[gnu::always_inline]] inline void rowsByRows(const SkinnyDotArgs& s, PackedA packed, int64_t r0, int64_t j,
                                              int64_t k0, int64_t k1, double* total, int64_t totalRow) {
  using Value = typename VectorOf<Lanes>::Value;
  using Memory = typename VectorOf<Lanes>::Memory;
  constexpr int kChunk = Lanes * kSplit<W>;
  for (int64_t s0 = k0; s0 < k1; s0 += kRowsSumBlock) {
    const int64_t s1 = std::min(s0 + kRowsSumBlock, k1);
    Value acc[R][NB][U];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NB; ++q)
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u) acc[r][q][u] = Value{};
    // The chunk at kk into accumulators u.
    auto multiplyAdd = [&](int64_t kk, int u) __attribute__((always_inline)) {
      Value bv[NB][kSplit<W>];
#pragma GCC unroll 4
      for (int q = 0; q < NB; ++q) loadChunk<Lanes, W>(s.b, (j + q) * s.k + kk, bv[q]);
      const float* at = packed.data + (kk / kChunk * packed.rows + r0) * kChunk;
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int p = 0; p < kSplit<W>; ++p) {
          Value av = *reinterpret_cast<const Memory*>(at + r * kChunk + p * Lanes);
          // One load of a per row: left alone, GCC loads it again into
          // each column's multiply-add, and the loop is bound by its loads.
          if constexpr (NB > 1) asm("" : "+v"(av));
#pragma GCC unroll 4
          for (int q = 0; q < NB; ++q) acc[r][q][u] += av * bv[q][p];  // contracted to one FMA
        }
    };
    int64_t kk = s0;
    for (; kk + U * kChunk <= s1; kk += U * kChunk) {
      if (r0 == 0) {
        // The rows of b two steps on, on their way while these are summed.
        constexpr int bytes = W == WideType::kF32 ? 4 : 2;
#pragma GCC unroll 4
        for (int q = 0; q < NB; ++q)
          __builtin_prefetch(static_cast<const char*>(s.b) + ((j + q + 2 * NB) * s.k + kk) * bytes);
      }
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) multiplyAdd(kk + u * kChunk, u);
    }
    for (; kk < s1; kk += kChunk) multiplyAdd(kk, 0);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NB; ++q) {
        Value sum = acc[r][q][0];
#pragma GCC unroll 4
        for (int u = 1; u < U; ++u) sum += acc[r][q][u];
        total[r * totalRow + q] += lanesSum<Lanes>(sum);
      }
  }
}

// How many rows of a contracting-major b ahead a tile prefetches its
// columns.
constexpr int64_t kPrefetchRows = 24;

// Rows [r0, r0 + R) of a times the NV * Lanes columns at j of a
// contracting-major b.
template <int Lanes, WideType W, int R, int NV>
[[gnu::always_inline]] inline void rowsByColumns(const SkinnyDotArgs& s, PackedA packed, int64_t r0, int64_t j) {
  using Value = typename VectorOf<Lanes>::Value;
  // The totals as vectors of doubles, each accumulator widened and added in
  // one go: added lane by lane, they cost as much as the block's
  // multiply-adds (11 rows by a bf16 [6912, 1152]: 2.0 -> 1.7 ms).
  typedef double Wide __attribute__((vector_size(Lanes * sizeof(double))));
  Wide total[R][NV] = {};
  for (int64_t k0 = 0; k0 < s.k; k0 += kSumBlock / Lanes) {
    const int64_t k1 = std::min(k0 + kSumBlock / Lanes, s.k);
    Value acc[R][NV];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NV; ++q) acc[r][q] = Value{};
    for (int64_t kk = k0; kk < k1; ++kk) {
      Value bv[NV];
      {
        // The tile's columns kPrefetchRows rows of b on: the rows are a
        // row of b apart, a stride the hardware prefetchers follow too
        // slowly, and the loop waited on them (11 rows by a bf16 [6912,
        // 1152]: 1.7 -> 1.0 ms).
        constexpr int bytes = W == WideType::kF32 ? 4 : 2;
        const char* ahead = static_cast<const char*>(s.b) + ((kk + kPrefetchRows) * s.cols + j) * bytes;
#pragma GCC unroll 4
        for (int line = 0; line < NV * Lanes * bytes; line += 64) __builtin_prefetch(ahead + line);
      }
#pragma GCC unroll 4
      for (int q = 0; q < NV; ++q) loadWide<Lanes, W>(s.b, kk * s.cols + j + q * Lanes, bv[q]);
      const float* at = packed.data + kk * packed.rows + r0;
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        float av = at[r];
#pragma GCC unroll 4
        for (int q = 0; q < NV; ++q) acc[r][q] += av * bv[q];
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NV; ++q) total[r][q] += __builtin_convertvector(acc[r][q], Wide);
  }
  for (int r = 0; r < R && r0 + r < s.rows; ++r)
    for (int q = 0; q < NV; ++q)
      for (int l = 0; l < Lanes; ++l)
        s.c[(r0 + r) * s.cRow + (j + q * Lanes + l) * s.cCol] = static_cast<float>(total[r][q][l]);
}

// Every row of a times the NB columns at j of a free-major b, over k in
// [k0, k1), added to total (the sum of row r and column j + q at
// total[r * totalRow + q]). Chunks of fewer than 4 rows split their sums
// into 4 / R accumulators.
template <int Lanes, WideType W, int NB>
[[gnu::always_inline]] inline void allRowsByRows(const SkinnyDotArgs& s, PackedA packed, int64_t j, int64_t k0,
                                                 int64_t k1, double* total, int64_t totalRow) {
  inRowChunks(s.rows, [&](auto R, int64_t r) __attribute__((always_inline)) {
    constexpr int kRows = decltype(R)::value;
    rowsByRows<Lanes, W, kRows, NB, (kRows >= 4 ? 1 : 4 / kRows)>(s, packed, r, j, k0, k1, total + r * totalRow,
                                                                   totalRow);
  });
}

// Rows [r0, r0 + R) of a times columns [c0, c1) of a contracting-major b, in
// tiles of NV vectors of columns: R * NV accumulators, 16 to 24 for 8 rows
// and more; fewer rows take wider tiles, so that enough independent sums are
// in flight to cover the multiply-add's latency.
template <int Lanes, WideType W, int R>
[[gnu::always_inline]] inline void rowsByColumnRange(const SkinnyDotArgs& s, PackedA packed, int64_t r0, int64_t c0,
                                                     int64_t c1) {
  constexpr int kWide = R >= 16 ? 1 : R >= 8 ? 2 : 4;
  int64_t j = c0;
  for (; j + kWide * Lanes <= c1; j += kWide * Lanes) rowsByColumns<Lanes, W, R, kWide>(s, packed, r0, j);
  // The last columns, fewer than a tile: one at a time, summed in double
  // (one f32 chain of k terms would drift as the vector lanes are kept from).
  for (; j < c1; ++j)
    for (int64_t r = r0; r < std::min<int64_t>(r0 + R, s.rows); ++r) {
      double sum = 0;
      for (int64_t kk = 0; kk < s.k; ++kk) sum += s.a[r * s.k + kk] * loadOne<W>(s.b, kk * s.cols + j);
      s.c[r * s.cRow + j * s.cCol] = static_cast<float>(sum);
    }
}

// Columns [col0, col1) of a free-major product, in blocks of k whose
// packed rows of a fit the L1 cache (kFreeMajorABytes): every multiply-add
// loads a vector of a, and from the L2 cache those loads, not b's stream
// from memory, would bound the loop (8 rows by a bf16 [8192, 4096]: 128 KiB
// of a per two rows of b; 2.8 -> 1.6 ms on two cores; 4 rows 6.6 -> 2.7
// ms). Blocks are whole kSumBlocks (512 for 16 rows, 1024 for 8, 2048 for
// 4), and each adds its sums to a total in double per output; the elements
// of k past the last whole chunk are added at the end.
template <int Lanes, WideType W>
[[gnu::always_inline]] inline void freeMajor(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  constexpr int64_t kChunk = Lanes * kSplit<W>;
  constexpr int64_t kFreeMajorABytes = 32 << 10;
  thread_local std::vector<float> buffer;
  thread_local std::vector<double> totals;
  const int64_t whole = s.k / kChunk * kChunk, width = col1 - col0;
  const PackedA packed = packRows<Lanes, W>(s, whole, buffer);
  totals.assign(static_cast<size_t>(s.rows * width), 0.0);
  const int64_t aBytesPerK = s.rows * static_cast<int64_t>(sizeof(float));
  const int64_t block = std::max(kSumBlock, kFreeMajorABytes / aBytesPerK / kSumBlock * kSumBlock);
  for (int64_t k0 = 0; k0 < whole; k0 += block) {
    const int64_t k1 = std::min(k0 + block, whole);
    // Fewer than 8 rows read b one row at a time: one sequential stream,
    // which the hardware prefetchers follow at twice the speed they follow
    // two rows read side by side (bf16, 1 row by [262144, 1152]: 23 -> 16
    // ms on two cores). 8 rows and more are bound by their loads, and two
    // rows of b at a time load fewer rows of a per multiply-add.
    int64_t j = col0;
    if (s.rows >= 8)
      for (; j + 2 <= col1; j += 2) allRowsByRows<Lanes, W, 2>(s, packed, j, k0, k1, &totals[j - col0], width);
    for (; j < col1; ++j) allRowsByRows<Lanes, W, 1>(s, packed, j, k0, k1, &totals[j - col0], width);
  }
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t j = col0; j < col1; ++j) {
      double total = totals[r * width + (j - col0)];
      for (int64_t t = whole; t < s.k; ++t) total += s.a[r * s.k + t] * loadOne<W>(s.b, j * s.k + t);
      s.c[r * s.cRow + j * s.cCol] = static_cast<float>(total);
    }
}

// Columns [col0, col1) of a contracting-major product: blocks of kBlock
// columns (a block of b, k rows of it, stays in the L2 cache for the next
// chunk of rows), each times every row of a.
template <int Lanes, WideType W>
[[gnu::always_inline]] inline void contractingMajor(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  constexpr int64_t kBlock = 64;
  thread_local std::vector<float> buffer;
  const PackedA packed = packColumns<Lanes>(s, buffer);
  for (int64_t c0 = col0; c0 < col1; c0 += kBlock) {
    int64_t c1 = std::min(c0 + kBlock, col1);
    inPaddedRowChunks<Lanes>(s.rows, [&](auto R, int64_t r) __attribute__((always_inline)) {
      rowsByColumnRange<Lanes, W, decltype(R)::value>(s, packed, r, c0, c1);
    });
  }
}

// The entry points: one function per instruction set, storage order and
// type, each compiled (and its registers allocated) on its own; all in one
// function, the free-major loops ran 15% slower.
template <WideType W>
[[gnu::target("avx512f,fma"), gnu::noinline]] void avx512Rows(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  freeMajor<16, W>(s, col0, col1);
}
template <WideType W>
[[gnu::target("avx512f,fma"), gnu::noinline]] void avx512Columns(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  contractingMajor<16, W>(s, col0, col1);
}
template <WideType W>
[[gnu::target("avx2,fma,f16c"), gnu::noinline]] void avx2Rows(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  freeMajor<8, W>(s, col0, col1);
}
template <WideType W>
[[gnu::target("avx2,fma,f16c"), gnu::noinline]] void avx2Columns(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  contractingMajor<8, W>(s, col0, col1);
}

template <WideType W>
void avx512Of(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  s.freeMajor ? avx512Rows<W>(s, col0, col1) : avx512Columns<W>(s, col0, col1);
}
template <WideType W>
void avx2Of(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  s.freeMajor ? avx2Rows<W>(s, col0, col1) : avx2Columns<W>(s, col0, col1);
}

void avx512(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  switch (s.type) {
    case WideType::kF32: return avx512Of<WideType::kF32>(s, col0, col1);
    case WideType::kBF16: return avx512Of<WideType::kBF16>(s, col0, col1);
    case WideType::kF16: return avx512Of<WideType::kF16>(s, col0, col1);
  }
}
void avx2(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  switch (s.type) {
    case WideType::kF32: return avx2Of<WideType::kF32>(s, col0, col1);
    case WideType::kBF16: return avx2Of<WideType::kBF16>(s, col0, col1);
    case WideType::kF16: return avx2Of<WideType::kF16>(s, col0, col1);
  }
}

#endif

}  // namespace

SkinnyDotFn skinnyDotNamed(const char* name) {
#if defined(__x86_64__)
  if (std::strcmp(name, "avx512") == 0)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma") ? avx512 : nullptr;
  if (std::strcmp(name, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c") ? avx2
                                                                                                             : nullptr;
#else
  (void)name;
#endif
  return nullptr;
}

SkinnyDotFn skinnyDotForThisCpu() {
  static const SkinnyDotFn best = [] {
    SkinnyDotFn fn = skinnyDotNamed("avx512");
    return fn ? fn : skinnyDotNamed("avx2");
  }();
  return best;
}

}  // namespace hlo::cpu
