// Row kernels: reductions along rows, folded by threads together.
//
// A kernel whose reductions fold the last dimensions of their operand
// (rows of `length` elements, one result per row) gives each row a group
// of threads: a warp for rows of up to kWarpRowLimit elements (a block
// then holds kThreadsPerBlock / kWarpSize rows), a whole block for longer
// ones. A row is folded in four steps:
//   1. each thread folds the elements lane, lane + group, ... of the row
//      (neighbouring threads read neighbouring elements: coalesced);
//   2. the warp's lanes combine their partials by recursive halving over
//      shuffles (ThreadBlock::butterfly), so each lane holds the warp's sum;
//   3. in a block-wide group, lane 0 of each warp leaves its warp's sum in
//      shared memory; after a barrier every thread folds the warps' sums in
//      warp order;
//   4. every thread joins the fold to the reduce's init value and keeps the
//      row's value in a register.
// The order of combining is fixed by the row length and the group alone,
// never by timing: no atomics, the same bits every run. Partials are
// ElementalEmitter::folding's total type (f64 for an f32 sum, rounded once
// at the end, as the CPU kernels do). Reductions of f16, bf16, f8 and f4,
// which round after every step in the interpreter's order, stay serial.
//
// Two kinds of kernel use this:
//   reduce rows  the outputs are reductions (a reduce, or a fusion of
//                reduces of the same rows); lane 0 of each row writes them;
//   row fusion   the outputs have the rows' shape and read the reductions
//                through row broadcasts (softmax, layer norm: see
//                hlo/passes/fusion_rules.h); after the reductions, every
//                thread computes the elements lane, lane + group, ... of
//                its row, reading the row's values from its registers. One
//                kernel reads each row from memory and writes the output.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/gpu/thread_block.h"
#include "hlo/instruction.h"

namespace hlo::gpu {

// Rows of at most this many elements are folded by a warp, longer ones by
// a block.
inline constexpr int64_t kWarpRowLimit = 512;

struct RowPlan {
  int64_t rows = 0;
  int64_t length = 0;  // elements a row
  int group = 0;       // threads folding one row: kWarpSize or kThreadsPerBlock
  // The reductions folded by a row's threads, operands first.
  std::vector<const Instruction*> folds;
  bool outputsAreFolds = false;  // reduce rows; else a row fusion
  int64_t blocks() const {
    int64_t perBlock = kThreadsPerBlock / group;
    return (rows + perBlock - 1) / perBlock;
  }
};

// The row plan of `instr` (a reduce or a fusion) whose kernel writes
// `outputs`, or nullopt when its reductions are not folded by rows.
std::optional<RowPlan> rowPlanOf(const Instruction& instr, const std::vector<const Instruction*>& outputs);

// Emits the kernel's body for `plan`: `outputBases[k]` is where outputs[k]
// is written; the emitter has the kernel's inputs bound.
Status emitRowKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const RowPlan& plan,
                     const std::vector<const Instruction*>& outputs, const std::vector<llvm::Value*>& outputBases);

}  // namespace hlo::gpu
