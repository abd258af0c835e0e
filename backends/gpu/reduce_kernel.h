// Reductions the elemental emitter does not fold itself: variadic ones
// (argmax: a value and its index folded together) and reducers of more than
// one op or of mixed types. A thread per output element folds its elements
// in the interpreter's order (row-major over the reduced dimensions), each
// step the reducer computation applied to the accumulators and the
// elements (ElementalEmitter::callScalar): exactly the interpreter's
// result, without the speed of a group fold (row_kernel.h).
#pragma once
#include <vector>

#include "backends/gpu/thread_block.h"
#include "hlo/instruction.h"

namespace hlo::gpu {

// Whether `instr` is a reduce that this kernel folds.
bool isSerialReduce(const Instruction& instr);

// Emits the kernel's body: thread t of block b folds output element
// b * kThreadsPerBlock + t of every result; `outputBases[i]` is result i's
// array. The kernel's inputs are the reduce's operands, bound in the
// emitter.
Status emitSerialReduceKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                              const Instruction& reduce, const std::vector<llvm::Value*>& outputBases);

}  // namespace hlo::gpu
