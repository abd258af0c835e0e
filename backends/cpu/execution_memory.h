// Where the CPU runtime keeps the values of one execution: one arena per
// execution, laid out by buffer assignment (hlo/passes/buffer_assignment.h),
// instead of one heap allocation per value.
//
// Why: the memory of a run is known before it starts — sized and laid out
// once, at compile time, and allocated once per Executable; later runs write
// into pages that are already mapped, with no allocator calls per value, and
// values whose live ranges do not overlap share bytes, so a run needs about
// the peak of its live values, not their sum. (With one heap block per value,
// only a process-wide malloc setting kept large blocks from being mapped and
// faulted in afresh on every run.)
//
// What goes where (the plan is made once, at compile time):
//   - a kernel's or library op's result, and the result of a while,
//     conditional or call, is written at the arena offset assignment gave its
//     buffer; an in-place dynamic-update-slice writes over its operand's
//     buffer, as assignment decided;
//   - tuples, get-tuple-element, optimization barriers and row-major bitcasts
//     are views of their operands (assignment gives them no buffers either);
//   - parameters stay the caller's and constants the program's (read only);
//   - the ENTRY's results get memory of their own each run, which the caller
//     takes: the next run must not overwrite what the last one returned (so,
//     unlike heap blocks, a result cannot reuse a dead intermediate's bytes);
//   - the computations a while, conditional or call runs (and the fused
//     computation of a fusion that is not one kernel, run as a call) use the
//     scratch range assignment reserved in the caller's arena for that step,
//     one at a time;
//   - a bitcast that reorders elements (between layouts) is a kernel writing
//     a buffer of its own;
//   - everything else is a heap allocation, as before the arena: values of
//     ops whose semantics return a fresh Literal (the single-device
//     collectives, async wrappers, scan, random numbers, interpreter
//     fallbacks), the values of the computations those ops run (an async
//     wrapper's or a scan's body), the buffers library ops allocate inside
//     themselves, and every value of a program whose steps do not match
//     assignment's schedule step for step (checked here; today they always
//     do).
//
// A run holds one arena for its whole duration; runs of the same Executable
// from several threads at once each take their own (ArenaPool), and each
// arena is kept for later runs.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hlo/module.h"
#include "hlo/passes/buffer_assignment.h"

namespace hlo::cpu {

struct Program;

// Where one array leaf of a step's result is stored when its program runs in
// an arena.
struct LeafPlace {
  enum class Where : uint8_t {
    kHeap,    // a heap allocation of its own (see above for when)
    kArena,   // `offset` bytes from the program's arena base
    kOutput,  // ENTRY result buffer number `offset`, allocated per run
  };
  Where where = Where::kHeap;
  int64_t offset = 0;
  int64_t bytes = 0;
};

// The plan of one Program that has a buffer assignment.
struct ProgramMemory {
  int64_t arenaBytes = 0;  // its arena, nested scratch ranges included
  // By step: the places of the array leaves of its result, in leaf order
  // (depth first through tuples; tokens have none).
  std::vector<std::vector<LeafPlace>> leaves;
  // By step: where the computations a while, conditional or call runs have
  // their arenas (an offset into this program's arena), or -1.
  std::vector<int64_t> scratch;
};

// The plan of a whole executable.
struct MemoryPlan {
  std::unique_ptr<BufferAssignment> assignment;  // null when it failed
  int64_t arenaBytes = 0;                        // one execution's arena; 0: none
  int64_t peakBytes = 0;                         // assignment's peak of live bytes
  int64_t noReuseBytes = 0;                      // assignment's total without reuse
  std::vector<Shape> outputs;                    // ENTRY result buffers, by number
  std::vector<std::string> notes;                // why some program runs on the heap
};

// Runs buffer assignment on `module` (the module the programs were built
// from) and gives each program that matches it a ProgramMemory. Programs
// without one, or an entry without one, run with heap values.
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
