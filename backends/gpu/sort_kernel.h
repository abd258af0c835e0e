// A sort as one kernel: a block per slice (the elements along the sort
// dimension at one position of the others) sorts the slice's positions in
// shared memory by a bitonic network, then writes every operand's
// elements in that order.
//
// The network compares positions, not values: position x goes before y
// when the comparator says x's elements are less than y's, or when
// neither is less than the other and x < y. That order is total, so the
// network's result is the stable sort's, the interpreter's, whatever the
// network's own order of exchanges. The slice is padded to a power of two
// P with positions past its end, which go after every real one. Each of
// the log2(P) (log2(P) + 1) / 2 steps is one phase of the block: thread t
// takes the pairs t, t + 256, ... of the step's P / 2 disjoint pairs, and a
// barrier ends the step.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/gpu/thread_block.h"
#include "hlo/instruction.h"

namespace hlo::gpu {

// The longest slice a block sorts: its positions fill 32 KiB of shared
// memory.
inline constexpr int64_t kMaxSortSlice = 8192;

struct SortPlan {
  int dimension = 0;    // the sort dimension
  int64_t length = 0;   // the slice's elements
  int64_t padded = 1;   // the network's width: the least power of two >= length
  int64_t slices = 0;   // blocks
};

// The plan of a sort instruction, or an error "cannot compile sort ..."
// saying what does not fit.
StatusOr<SortPlan> sortPlanOf(const Instruction& sort);

// Emits the kernel's body; `outputBases[i]` is result i's array. The
// kernel's inputs are the sort's operands, bound in the emitter.
Status emitSortKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                      const Instruction& sort, const SortPlan& plan, const std::vector<llvm::Value*>& outputBases);

}  // namespace hlo::gpu
