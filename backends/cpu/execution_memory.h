// Where the CPU runtime keeps the values of one execution: one arena per
// execution, laid out by the shared memory plan (jit/memory_plan.h, from
// buffer assignment), instead of one heap allocation per value.
//
// Why: the memory of a run is known before it starts — sized and laid out
// once, at compile time, and allocated once per Executable; later runs write
// into pages that are already mapped, with no allocator calls per value, and
// values whose live ranges do not overlap share bytes, so a run needs about
// the peak of its live values, not their sum. (With one heap block per value,
// only a process-wide malloc setting kept large blocks from being mapped and
// faulted in afresh on every run.)
//
// The CPU's steps in the plan's terms: kernels write their results and may
// update a dynamic-update-slice's operand in place; library ops and a tuple's
// copy write theirs; while, conditional and call (and a fusion that is not
// one kernel, run as a call) run their callees in their scratch range; tuple,
// get-tuple-element, the forwarding ops and row-major bitcasts are views; a
// bitcast that reorders elements (between layouts) is a kernel writing a
// buffer of its own. Values the plan leaves outside the arena are heap
// allocations, as are the buffers library ops allocate inside themselves.
//
// A run holds one arena for its whole duration; runs of the same Executable
// from several threads at once each take their own (ArenaPool), and each
// arena is kept for later runs.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "hlo/module.h"
#include "jit/memory_plan.h"

namespace hlo::cpu {

struct Program;

using jit::LeafPlace;
using jit::MemoryPlan;
using jit::ProgramMemory;

// The shared plan for the CPU's programs: sets each matching program's
// `memory`.
MemoryPlan planMemory(const Module& module, std::vector<std::unique_ptr<Program>>& programs, const Program& entry);

// Arenas of one size, one per concurrent run, kept for reuse.
class ArenaPool {
 public:
  explicit ArenaPool(int64_t bytes) : bytes_(bytes) {}
  ~ArenaPool();
  ArenaPool(const ArenaPool&) = delete;
  ArenaPool& operator=(const ArenaPool&) = delete;

  // An arena no other run holds, returned to the pool when the lease ends.
  class Lease {
   public:
    Lease(ArenaPool* pool, uint8_t* data) : pool_(pool), data_(data) {}
    Lease(Lease&& other) noexcept : pool_(other.pool_), data_(other.data_) { other.data_ = nullptr; }
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    uint8_t* data() const { return data_; }

   private:
    ArenaPool* pool_;
    uint8_t* data_;
  };
  // Fails (null data) only when the memory cannot be allocated.
  Lease acquire();

  int64_t bytes() const { return bytes_; }
  // How many arenas were allocated so far (the most runs at one time).
  int allocated() const;

 private:
  void giveBack(uint8_t* data);

  const int64_t bytes_;
  mutable std::mutex mutex_;
  std::vector<uint8_t*> all_, free_;
};

}  // namespace hlo::cpu
