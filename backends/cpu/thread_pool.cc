// The thread pool: workers sleep until a job arrives, then take chunks from a
// shared counter until none is left; the caller takes chunks too.
#include "backends/cpu/thread_pool.h"

#include <algorithm>

namespace hlo::cpu {

ThreadPool::ThreadPool(int threads) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::runChunks() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (next_ < chunks_) {
    int c = next_++;
    int64_t begin = n_ * c / chunks_, end = n_ * (c + 1) / chunks_;
    const auto* fn = fn_;
    lock.unlock();
    (*fn)(begin, end);
    lock.lock();
    if (++finished_ == chunks_) done_.notify_all();
  }
}

void ThreadPool::work() {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    runChunks();
  }
}

void ThreadPool::parallelFor(int64_t n, int chunks, const std::function<void(int64_t, int64_t)>& fn) {
  if (chunks <= 1 || threads_.empty() || n <= 1) {
    if (n > 0) fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> caller(callers_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    fn_ = &fn;
    n_ = n;
    chunks_ = static_cast<int>(std::min<int64_t>(chunks, n));
    next_ = finished_ = 0;
    ++generation_;
  }
  wake_.notify_all();
  runChunks();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return finished_ == chunks_; });
  fn_ = nullptr;
}

}  // namespace hlo::cpu
