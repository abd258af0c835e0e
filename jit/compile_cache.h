// The compile cache, shared by the backends: the code of compiled modules
// (a CPU's object files, a GPU's PTX), kept in memory for this process and on
// disk for later ones, so a module compiled before skips LLVM's optimization
// and code generation.
//
// Entries are keyed by a SHA-256 fingerprint the backend computes of
// everything its code depends on: the LLVM IR emitted for the optimized
// module (which covers the module, the pass pipeline and the emitters), the
// target (triple, CPU and features; the GPU's sm), and kCacheVersion. An
// entry on disk is one file, <dir>/<key in hex>.hlocache:
//   magic "HLOCACHE" | format u32 | key [32] | payload length u64 |
//   payload SHA-256 [32] | payload (the code)
// A file that is short, has another magic, format or key, or whose payload
// does not hash to the recorded value is reported, deleted and rebuilt —
// never loaded. Writers write a temporary file in the same folder and rename
// it into place, so a reader sees a whole entry or none, and concurrent
// writers of one key leave one whole entry.
//
// The folder is kept under a size limit (kDefaultCacheLimit, or
// $HLO_CACHE_MAX_BYTES: "512M", "2G"): after each store, while its entries
// hold more, the least recently used go (a lookup that finds an entry marks
// it used), down to three quarters of the limit.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace hlo::jit {

using CacheKey = std::array<uint8_t, 32>;

// Bumped whenever the entry format or anything the key does not cover changes.
inline constexpr uint32_t kCacheVersion = 6;

std::string toHex(const CacheKey& key);

// The SHA-256 key of `items`, each followed by a NUL so that no two lists
// of items hash alike by running into each other.
CacheKey cacheKeyOf(std::initializer_list<std::string_view> items);

inline constexpr uint64_t kDefaultCacheLimit = uint64_t{1} << 30;

// The limit $HLO_CACHE_MAX_BYTES sets, else kDefaultCacheLimit.
uint64_t cacheLimitFromEnvironment();

class CompileCache {
 public:
  // `dir` empty: memory only.
  explicit CompileCache(std::string dir, uint64_t limitBytes = cacheLimitFromEnvironment())
      : dir_(std::move(dir)), limitBytes_(limitBytes) {}

  // The cached object for `key`, from memory or from disk. `problem` is set
  // when a disk entry was found unusable (and deleted).
  std::optional<std::string> lookup(const CacheKey& key, std::string* problem = nullptr);
  // Remembers `object` in memory and, with a folder, on disk. Failing to
  // write is not an error (the cache is an optimization); it is returned as
  // a message for --verbose.
  std::optional<std::string> store(const CacheKey& key, const std::string& object);

  std::string pathFor(const CacheKey& key) const;

  // Removes the least recently used entries while the folder's entries hold
  // more than the limit, down to three quarters of it; returns how many.
  int prune() const;

 private:
  std::string dir_;
  uint64_t limitBytes_;
};

}  // namespace hlo::jit
