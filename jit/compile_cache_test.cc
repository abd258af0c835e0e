// The compile cache's disk entries: found when whole, refused (and deleted)
// when damaged, and whole after concurrent writers.
#include "jit/compile_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

namespace hlo::jit {
namespace {

// A fresh folder per test; each test uses its own keys too, since the
// in-memory cache is shared by the process.
std::string freshDir(const std::string& name) {
  std::string dir = std::filesystem::temp_directory_path().string() + "/hlo-cache-test-" + name + "-" +
                    std::to_string(getpid());
  std::filesystem::remove_all(dir);
  return dir;
}

CacheKey keyOf(uint8_t seed) {
  CacheKey key{};
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(seed + 7 * i);
  return key;
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(CompileCacheTest, StoresAndFindsOnDisk) {
  std::string dir = freshDir("hit");
  CacheKey key = keyOf(1);
  CompileCache(dir).store(key, "object bytes");
  ASSERT_TRUE(std::filesystem::exists(CompileCache(dir).pathFor(key)));
  // The entry's layout: magic first, the payload last. (This process finds
  // the key in memory; DamagedEntryTest reads entries from disk.)
  std::string bytes = readAll(CompileCache(dir).pathFor(key));
  EXPECT_EQ(bytes.substr(0, 8), "HLOCACHE");
  EXPECT_EQ(bytes.substr(bytes.size() - 12), "object bytes");
  EXPECT_EQ(CompileCache(dir).lookup(key).value_or(""), "object bytes");
  std::filesystem::remove_all(dir);
}

TEST(CompileCacheTest, MissesAnUnknownKey) {
  std::string dir = freshDir("miss");
  EXPECT_FALSE(CompileCache(dir).lookup(keyOf(2)).has_value());
}

// Damaged entries for keys the memory cache has not seen: written by hand
// from a good entry of another key, with the key bytes replaced.
class DamagedEntryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = freshDir("damaged-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    CompileCache(dir_).store(keyOf(3), "payload that is long enough");
    good_ = readAll(CompileCache(dir_).pathFor(keyOf(3)));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The good entry as if written for `key`.
  std::string entryFor(const CacheKey& key) {
    std::string bytes = good_;
    std::copy(key.begin(), key.end(), bytes.begin() + 12);
    return bytes;
  }
  // Writes `bytes` as the entry of `key`, looks it up, returns the problem reported.
  std::string problemWith(const CacheKey& key, const std::string& bytes) {
    std::string path = CompileCache(dir_).pathFor(key);
    writeAll(path, bytes);
    std::string problem;
    EXPECT_FALSE(CompileCache(dir_).lookup(key, &problem).has_value());
    EXPECT_FALSE(std::filesystem::exists(path)) << "a damaged entry is deleted";
    return problem;
  }
  std::string dir_, good_;
};

TEST_F(DamagedEntryTest, ARewrittenKeyIsAccepted) {
  std::string path = CompileCache(dir_).pathFor(keyOf(4));
  writeAll(path, entryFor(keyOf(4)));
  EXPECT_EQ(CompileCache(dir_).lookup(keyOf(4)).value_or(""), "payload that is long enough");
}

TEST_F(DamagedEntryTest, Truncated) {
  std::string bytes = entryFor(keyOf(5));
  EXPECT_NE(problemWith(keyOf(5), bytes.substr(0, bytes.size() - 3)).find("truncated payload"), std::string::npos);
  EXPECT_NE(problemWith(keyOf(6), bytes.substr(0, 20)).find("truncated header"), std::string::npos);
}

TEST_F(DamagedEntryTest, FlippedPayloadByte) {
  std::string bytes = entryFor(keyOf(7));
  bytes.back() ^= 1;
  EXPECT_NE(problemWith(keyOf(7), bytes).find("checksum"), std::string::npos);
}

TEST_F(DamagedEntryTest, OtherVersion) {
  std::string bytes = entryFor(keyOf(8));
  bytes[8] = static_cast<char>(kCacheVersion + 1);
  EXPECT_NE(problemWith(keyOf(8), bytes).find("another version"), std::string::npos);
}

TEST_F(DamagedEntryTest, OtherKeyOrMagic) {
  EXPECT_NE(problemWith(keyOf(9), entryFor(keyOf(10))).find("another key"), std::string::npos);
  std::string bytes = entryFor(keyOf(11));
  bytes[0] = 'X';
  EXPECT_NE(problemWith(keyOf(11), bytes).find("not a cache entry"), std::string::npos);
}

TEST(CompileCacheTest, ConcurrentWritersLeaveOneWholeEntry) {
  std::string dir = freshDir("concurrent");
  CacheKey key = keyOf(12);
  std::string object(1 << 20, 'x');
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) writers.emplace_back([&] { CompileCache(dir).store(key, object); });
  for (std::thread& t : writers) t.join();
  std::string bytes = readAll(CompileCache(dir).pathFor(key));
  EXPECT_EQ(bytes.size(), object.size() + 84);
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1) << "no temporary files are left";
  std::filesystem::remove_all(dir);
}

TEST(CompileCacheTest, KeepsTheFolderUnderItsLimitDroppingTheLeastRecentlyUsed) {
  const std::string dir = freshDir("prune");
  const std::string object(1000, 'x');  // an entry is this plus its header
  // Four entries written without a limit to speak of, the k-th used k
  // minutes into the last hour, except the first, used at minute 30.
  CompileCache roomy(dir, uint64_t{1} << 30);
  auto past = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  for (uint8_t k = 0; k < 4; ++k) {
    ASSERT_FALSE(roomy.store(keyOf(200 + k), object).has_value());
    std::filesystem::last_write_time(roomy.pathFor(keyOf(200 + k)), past + std::chrono::minutes(k == 0 ? 30 : k));
  }
  // A fifth through a cache with room for three.
  CompileCache cache(dir, 3500);
  ASSERT_FALSE(cache.store(keyOf(204), object).has_value());
  // 5 entries of ~1,080 bytes are over 3,500: the oldest go until at most
  // 3/4 of it (2,625 bytes) is held, which leaves two: the newest (204) and
  // the one used at minute 30 (200).
  uint64_t total = 0;
  int files = 0;
  for (const auto& file : std::filesystem::directory_iterator(dir)) {
    total += file.file_size();
    ++files;
  }
  EXPECT_EQ(files, 2);
  EXPECT_LE(total, 3500u);
  EXPECT_TRUE(std::filesystem::exists(cache.pathFor(keyOf(204))));
  EXPECT_TRUE(std::filesystem::exists(cache.pathFor(keyOf(200))));
  EXPECT_FALSE(std::filesystem::exists(cache.pathFor(keyOf(201))));
  std::filesystem::remove_all(dir);
}

TEST(CompileCacheTest, TheLimitComesFromTheEnvironment) {
  setenv("HLO_CACHE_MAX_BYTES", "64M", 1);
  EXPECT_EQ(cacheLimitFromEnvironment(), uint64_t{64} << 20);
  setenv("HLO_CACHE_MAX_BYTES", "lots", 1);
  EXPECT_EQ(cacheLimitFromEnvironment(), kDefaultCacheLimit);
  unsetenv("HLO_CACHE_MAX_BYTES");
  EXPECT_EQ(cacheLimitFromEnvironment(), kDefaultCacheLimit);
}

}  // namespace
}  // namespace hlo::jit
