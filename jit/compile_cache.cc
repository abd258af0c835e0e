#include "jit/compile_cache.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <vector>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SHA256.h>

#include "hlo/file_io.h"

namespace hlo::jit {
namespace {

constexpr char kMagic[8] = {'H', 'L', 'O', 'C', 'A', 'C', 'H', 'E'};
constexpr size_t kHeaderBytes = sizeof(kMagic) + 4 + 32 + 8 + 32;

// The process-wide in-memory cache.
std::mutex& memoryMutex() {
  static std::mutex m;
  return m;
}
std::map<CacheKey, std::string>& memory() {
  static std::map<CacheKey, std::string> m;
  return m;
}

CacheKey sha256(const std::string& data) {
  llvm::SHA256 hash;
  hash.update(llvm::StringRef(data));
  return hash.final();
}

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
T get(const std::string& in, size_t at) {
  T value;
  std::memcpy(&value, in.data() + at, sizeof value);
  return value;
}

// Why the entry file's bytes are not a usable entry for `key`, if they are not.
std::optional<std::string> invalid(const std::string& bytes, const CacheKey& key) {
  if (bytes.size() < kHeaderBytes) return "truncated header";
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) return "not a cache entry";
  size_t at = sizeof kMagic;
  if (get<uint32_t>(bytes, at) != kCacheVersion) return "written by another version";
  at += 4;
  if (std::memcmp(bytes.data() + at, key.data(), key.size()) != 0) return "another key";
  at += 32;
  uint64_t length = get<uint64_t>(bytes, at);
  at += 8;
  if (bytes.size() != kHeaderBytes + length) return "truncated payload";
  CacheKey recorded;
  std::memcpy(recorded.data(), bytes.data() + at, recorded.size());
  if (sha256(bytes.substr(kHeaderBytes)) != recorded) return "payload checksum mismatch";
  return std::nullopt;
}

}  // namespace

CacheKey cacheKeyOf(std::initializer_list<std::string_view> items) {
  llvm::SHA256 hash;
  for (std::string_view item : items) {
    hash.update(llvm::StringRef(item.data(), item.size()));
    hash.update(llvm::StringRef("\0", 1));
  }
  return hash.final();
}

std::string toHex(const CacheKey& key) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : key) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

uint64_t cacheLimitFromEnvironment() {
  const char* text = std::getenv("HLO_CACHE_MAX_BYTES");
  if (!text || !*text) return kDefaultCacheLimit;
  std::optional<int64_t> bytes = parseByteCount(text);
  return bytes && *bytes > 0 ? static_cast<uint64_t>(*bytes) : kDefaultCacheLimit;
}

int CompileCache::prune() const {
  if (dir_.empty()) return 0;
  struct Entry {
    std::filesystem::path path;
    std::filesystem::file_time_type used;
    uint64_t bytes;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code error;
  for (const auto& file : std::filesystem::directory_iterator(dir_, error)) {
    if (file.path().extension() != ".hlocache") continue;
    std::error_code e1, e2;
    uint64_t bytes = file.file_size(e1);
    auto used = file.last_write_time(e2);
    if (e1 || e2) continue;  // gone meanwhile (another process pruned it)
    entries.push_back({file.path(), used, bytes});
    total += bytes;
  }
  if (total <= limitBytes_) return 0;
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  int removed = 0;
  for (const Entry& e : entries) {
    if (total <= limitBytes_ / 4 * 3) break;
    std::error_code ignored;
    if (std::filesystem::remove(e.path, ignored)) ++removed;
    total -= e.bytes;
  }
  return removed;
}

std::string CompileCache::pathFor(const CacheKey& key) const { return dir_ + "/" + toHex(key) + ".hlocache"; }

std::optional<std::string> CompileCache::lookup(const CacheKey& key, std::string* problem) {
  {
    std::lock_guard<std::mutex> lock(memoryMutex());
    if (auto it = memory().find(key); it != memory().end()) return it->second;
  }
  if (dir_.empty()) return std::nullopt;
  std::string path = pathFor(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  if (std::optional<std::string> why = invalid(bytes, key)) {
    if (problem) *problem = path + ": " + *why + "; rebuilt";
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return std::nullopt;
  }
  std::string object = bytes.substr(kHeaderBytes);
  std::error_code ignored;  // marks the entry used, for prune()
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now(), ignored);
  std::lock_guard<std::mutex> lock(memoryMutex());
  memory()[key] = object;
  return object;
}

std::optional<std::string> CompileCache::store(const CacheKey& key, const std::string& object) {
  {
    std::lock_guard<std::mutex> lock(memoryMutex());
    memory()[key] = object;
  }
  if (dir_.empty()) return std::nullopt;
  std::error_code error;
  std::filesystem::create_directories(dir_, error);
  if (error) return "cannot create " + dir_ + ": " + error.message();
  std::string entry(kMagic, sizeof kMagic);
  put<uint32_t>(entry, kCacheVersion);
  entry.append(reinterpret_cast<const char*>(key.data()), key.size());
  put<uint64_t>(entry, object.size());
  CacheKey sum = sha256(object);
  entry.append(reinterpret_cast<const char*>(sum.data()), sum.size());
  entry += object;
  // A name no other writer uses: process id, a per-process counter and a random number.
  static std::atomic<uint64_t> counter{0};
  std::random_device random;
  std::string temp = pathFor(key) + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++) + "." +
                     std::to_string(random());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(entry.data(), static_cast<std::streamsize>(entry.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(temp, error);
      return "cannot write " + temp;
    }
  }
  std::filesystem::rename(temp, pathFor(key), error);
  if (error) {
    std::filesystem::remove(temp, error);
    return "cannot rename the entry into " + pathFor(key);
  }
  prune();
  return std::nullopt;
}

}  // namespace hlo::jit
