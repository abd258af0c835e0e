// One LLVM function per kernel: a fusion, or an elementwise / data-movement /
// reduce instruction left unfused, as a loop over its output index space.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hlo/instruction.h"
#include "hlo/status.h"
#include "jit/emitter_target.h"

// Declared only, so the runtime and the driver that include this header
// compile without LLVM's headers.
namespace llvm {
class Module;
}

namespace hlo::cpu {

// The emitted function is
//   void name(const char* const* inputs, char* const* outputs, int64_t begin, int64_t end)
// and computes work units [begin, end): the runtime splits [0, units) across
// threads. inputs[i] is operand i of the instruction; outputs[k] is result k
// (one, or one per tuple element of a multi-output fusion).
using KernelFn = void (*)(const char* const*, char* const*, int64_t, int64_t);

// The elemental emitter's hooks on a CPU: libm's math functions, and exp of
// f32 inline, where the loop vectorizer widens it (vector_math.h).
inline const jit::EmitterTarget kCpuEmitterTarget{
    .mathPrefix = "", .inlineExpF32 = true, .unrollLoops = true, .hostRuntime = true};

// A dot of at most this many multiply-adds is computed by a kernel's plain
// loop (jit::emitsDot), which costs less than a library call's setup;
// larger ones call OpenBLAS (runtime_dot.cc).
inline constexpr int64_t kElementDotProducts = 8192;

struct KernelInfo {
  int64_t units = 0;         // work units (elements, or rows of the output)
  int64_t workPerUnit = 1;   // elements read per unit, roughly, for the thread split
  bool alignedOutputs = false;  // its outputs must start on 64-byte lines (streamed rows)
};

// Outputs of this many bytes or more are written with non-temporal
// (streaming) stores, by kernels and by the transpose library op. 32 MiB is
// the L3 cache one core complex shares on current x86 servers (an AMD CCD; a
// dozen Intel cores): an output that size or larger is mostly gone from the
// cache before another kernel reads it. (sysconf's L3 size is no guide:
// under KVM it reports the host socket's, 320 MiB here.)
inline constexpr int64_t kStreamingBytes = int64_t{32} << 20;

// Emits the kernel of `instr` into `module`; on failure nothing is left behind.
StatusOr<KernelInfo> emitKernel(llvm::Module& module, const Instruction& instr, const std::string& name);

// After LLVM's optimization of a module of kernels: the vector stores into
// the outputs of kernels that stream them (outputs of 32 MiB or more) that
// are known to be aligned become non-temporal stores.
void markStreamingStores(llvm::Module& module);

// After LLVM's optimization: in kernels that pass over each row of a large
// input several times, every vector load of that input is preceded by a
// prefetch of its next row.
void prefetchNextRows(llvm::Module& module);

}  // namespace hlo::cpu
