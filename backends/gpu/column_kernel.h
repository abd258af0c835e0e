// Column kernels: reductions over leading dimensions, folded by a tile of
// threads.
//
// A reduce whose reduced dimensions are consecutive and followed by kept
// ones views its operand as [outer, rows, columns] (outer and columns kept,
// rows reduced) and computes outer x columns results. Giving each result a
// thread (an element kernel) has neighbouring threads read neighbouring
// columns, but leaves a GPU nearly idle when there are few columns (a
// bias's gradient: [batch, 64] to [64]). Here a block takes a tile of
// kWarpSize columns of one outer index: its 8 warps each fold the rows w,
// w + 8, ... of the tile (a warp reads 32 neighbouring columns of a row:
// coalesced), leave their partials in shared memory, and after a barrier
// the first warp folds the 8 partials of its column in warp order, joins
// the init value and writes the result. The order depends on the shapes
// alone (deterministic); f32 sums keep f64 partials, as row kernels do.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "backends/gpu/thread_block.h"
#include "hlo/instruction.h"

namespace hlo::gpu {

// Reductions of fewer rows than this stay element kernels: a thread folds
// them as fast.
inline constexpr int64_t kColumnKernelMinRows = 64;

struct ColumnPlan {
  int64_t outer = 1, rows = 0, columns = 0;
  std::vector<const Instruction*> folds;  // the outputs, each a reduce of this view
  int64_t tiles() const { return (columns + kWarpSize - 1) / kWarpSize; }
  int64_t blocks() const { return outer * tiles(); }
};

// The column plan of `instr` (a reduce, or a fusion of reduces of one view)
// writing `outputs`, or nullopt.
std::optional<ColumnPlan> columnPlanOf(const Instruction& instr, const std::vector<const Instruction*>& outputs);

// Emits the kernel's body for `plan`; `outputBases[k]` is where outputs[k]
// is written.
Status emitColumnKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                        const ColumnPlan& plan, const std::vector<llvm::Value*>& outputBases);

}  // namespace hlo::gpu
