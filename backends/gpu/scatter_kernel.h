// A scatter as one kernel of one block: its threads copy the operands into
// the results, and after a barrier combine the updates into them in the
// interpreter's order (hlo/gather_indices.h's ScatterGeometry: scatter
// positions in row-major order, each window's elements in row-major order;
// a window not wholly inside the operand is skipped), so duplicate indices
// combine in a defined order and the result never depends on timing.
//
// Where the windows can only meet at the same offset inside them (every
// operand dimension an index vector moves the window in has a window
// extent of 1: rows of an embedding, single elements), thread t takes the
// window offsets t, t + 256, ... and walks every scatter position in order
// for each: no two threads touch the same element. Otherwise thread 0
// walks them all. One block keeps the copy and the updates ordered by a
// barrier (the runtime has no step between kernels to copy in); a grid of
// blocks over the window offsets is the next step for large scatters.
#pragma once
#include <vector>

#include "backends/gpu/thread_block.h"
#include "hlo/instruction.h"

namespace hlo::gpu {

// Checks that the scatter fits the kernel: N operands, indices, N updates,
// a combiner of 2N parameters of the operands' types returning N values.
Status checkScatterKernel(const Instruction& scatter);

// Emits the kernel's body; `outputBases[i]` is result i's array. The
// kernel's inputs are the scatter's operands, bound in the emitter.
Status emitScatterKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                         const Instruction& scatter, const std::vector<llvm::Value*>& outputBases);

}  // namespace hlo::gpu
