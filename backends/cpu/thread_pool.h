// A small fixed thread pool for splitting a kernel's work units.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace hlo::cpu {

class ThreadPool {
 public:
  // `threads` workers besides the caller (0: run everything on the caller).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int workers() const { return static_cast<int>(threads_.size()); }
  // Splits [0, n) into `chunks` contiguous ranges and calls fn(begin, end) on
  // each, on the workers and the calling thread; returns when all are done.
  void parallelFor(int64_t n, int chunks, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void work();
  void runChunks();

  std::vector<std::thread> threads_;
  std::mutex callers_;  // one parallelFor at a time
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  uint64_t generation_ = 0;
  bool stop_ = false;
  // The current job.
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  int chunks_ = 0, next_ = 0, finished_ = 0;
};

}  // namespace hlo::cpu
