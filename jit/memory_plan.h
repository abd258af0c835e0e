// The memory plan of a compiled module, for every backend: where each value
// a run makes is kept, decided once at compile time from buffer assignment
// (hlo/passes/buffer_assignment.h), so that a run needs one arena of about
// the peak of its live values instead of one allocation per value.
//
// What goes where:
//   - a step's result that it writes itself (a kernel's, a library op's, a
//     while's, conditional's or call's) is written at the arena offset
//     assignment gave its buffer; where a backend allows it
//     (StepMemory::kWritesInPlace), a dynamic-update-slice writes over its
//     operand's buffer, as assignment decided;
//   - tuples, get-tuple-element, optimization barriers and row-major bitcasts
//     are views of their operands (assignment gives them no buffers either);
//   - parameters stay the caller's and constants the program's (read only);
//   - the ENTRY's results get memory of their own each run (kOutput): the
//     next run must not overwrite what the last one returned;
//   - the computations a while, conditional or call runs (and the fused
//     computation of a fusion that is not one kernel, run as a call) use the
//     scratch range assignment reserved in the caller's arena for that step,
//     one at a time;
//   - everything else is a value of its own, outside the arena (kHeap):
//     values of steps whose semantics make a fresh value (host steps, the
//     interpreter fallback), the values of the computations those run, and
//     every value of a program whose steps do not match assignment's
//     schedule step for step (checked here; today they always do).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hlo/module.h"
#include "hlo/passes/buffer_assignment.h"

namespace hlo::jit {

// Where one array leaf of a step's result is stored when its program runs in
// an arena.
struct LeafPlace {
  enum class Where : uint8_t {
    kHeap,    // memory of its own (see above for when)
    kArena,   // `offset` bytes from the program's arena base
    kOutput,  // ENTRY result buffer number `offset`, allocated per run
  };
  Where where = Where::kHeap;
  int64_t offset = 0;
  int64_t bytes = 0;
};

// The plan of one program that has a buffer assignment.
struct ProgramMemory {
  int64_t arenaBytes = 0;  // its arena, nested scratch ranges included
  // By step: the places of the array leaves of its result, in leaf order
  // (depth first through tuples; tokens have none).
  std::vector<std::vector<LeafPlace>> leaves;
  // By step: where the computations a while, conditional or call runs have
  // their arenas (an offset into this program's arena), or -1.
  std::vector<int64_t> scratch;
};

// What a backend's step does with memory, as far as the plan cares.
enum class StepMemory : uint8_t {
  kNone,            // its value is not the run's to place (parameter, constant, host step)
  kWrites,          // writes its result into memory given to it
  kWritesInPlace,   // the same, and may update its operand's buffer in place when
                    // assignment decided so (updatesOperandInPlace)
  kRunsCallees,     // a while, conditional or call (or a fusion run as one):
                    // writes its result; its callees run in its scratch range
  kForwards,        // its value is a view of its operand's (tuple, get-tuple-element, ...)
};

// A backend's program as the planner sees it: its computation's
// instructions in the order the program runs them, each with its role.
struct PlannedProgram {
  const Computation* computation = nullptr;
  std::vector<const Instruction*> steps;
  std::vector<StepMemory> memory;                // by step
  std::unique_ptr<ProgramMemory> plan;           // set by planMemory where assignment matches
};

// The plan of a whole executable.
struct MemoryPlan {
  std::unique_ptr<BufferAssignment> assignment;  // null when it failed
  int64_t arenaBytes = 0;                        // one execution's arena; 0: none
  int64_t peakBytes = 0;                         // assignment's peak of live bytes
  int64_t noReuseBytes = 0;                      // assignment's total without reuse
  std::vector<Shape> outputs;                    // ENTRY result buffers, by number
  std::vector<std::string> notes;                // why some program runs outside the arena
};

// Runs buffer assignment on `module` (the module the programs were built
// from) and sets the plan of each program that matches it. Programs
// without one, or an entry (programs[entry]) without one, keep every value
// outside the arena.
MemoryPlan planMemory(const Module& module, std::vector<PlannedProgram>& programs, size_t entry);

}  // namespace hlo::jit
