// The thread pool covers every index of the range exactly once.
#include "backends/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace hlo::cpu {
namespace {

void expectEachIndexOnce(ThreadPool& pool, int64_t n, int chunks) {
  std::vector<std::atomic<int>> hits(n);
  pool.parallelFor(n, chunks, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) hits[i]++;
  });
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << "index " << i << " of " << n;
}

TEST(ThreadPool, CoversTheRangeOnce) {
  ThreadPool pool(3);
  expectEachIndexOnce(pool, 1000, 16);
  expectEachIndexOnce(pool, 5, 16);  // fewer units than chunks
  expectEachIndexOnce(pool, 1, 4);
  expectEachIndexOnce(pool, 0, 4);
  for (int round = 0; round < 50; ++round) expectEachIndexOnce(pool, 777, 7);  // reuse
}

TEST(ThreadPool, NoWorkersRunsOnTheCaller) {
  ThreadPool pool(0);
  EXPECT_EQ(pool.workers(), 0);
  expectEachIndexOnce(pool, 100, 8);
}

}  // namespace
}  // namespace hlo::cpu
