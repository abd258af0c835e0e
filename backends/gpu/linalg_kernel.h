// triangular-solve and cholesky as kernels of a thread per independent
// problem, in the interpreter's order of operations (interp/linalg.cc),
// each step's arithmetic in double (complex double for complex types):
//
//   triangular-solve: a thread per right-hand side (a column of b for
//     left_side, a row otherwise) of each batch matrix substitutes down or
//     up its elements: element i is (b_i - sum over the solved j, in
//     increasing order, of M[i][j] x_j) / M[i][i], M the triangle of a
//     (transposed, conjugated, unit diagonal as asked);
//   cholesky: a thread per batch matrix computes L column by column
//     (Cholesky-Banachiewicz), the other triangle zero.
//
// A solve keeps its solved elements in double in the thread's own array,
// as the interpreter does, up to 256 of them; beyond that, and in cholesky,
// the later steps read them back from the result, rounded to its type, so
// f32 results may differ from the interpreter's in the last bits. Large
// matrices want the blocked library calls (cuBLAS trsm, cuSOLVER potrf);
// these kernels are exact in form and take any size.
#pragma once
#include <vector>

#include "backends/gpu/thread_block.h"
#include "hlo/instruction.h"

namespace hlo::gpu {

// Whether the kernel takes `instr` (a triangular-solve or cholesky of real
// or complex floats, shaped as XLA requires), else why not.
Status checkLinalgKernel(const Instruction& instr);

// The threads the kernel needs: right-hand sides, or batch matrices.
int64_t linalgThreads(const Instruction& instr);

// Emits the kernel's body into `output` (the result's array); the
// operands are bound in the emitter.
Status emitLinalgKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                        const Instruction& instr, llvm::Value* output);

}  // namespace hlo::gpu
