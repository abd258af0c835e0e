// One GPU kernel per fusion or remaining array instruction, from the shared
// elemental emitter (jit/elemental_emitter.h): one thread per output
// element, in blocks of kThreadsPerBlock.
//
// The same kernel body is emitted in two forms, which differ only in where
// a thread learns its place in the grid:
//   kNvptx: void name(ptr in0, ..., ptr out0, ...)
//           an .entry whose thread and block come from the PTX special
//           registers (%tid.x, %ctaid.x);
//   kHost:  void name.grid(ptr in0, ..., ptr out0, ..., i32 thread, i32 block)
//           for the host grid runner (gpu_host.cc), which calls it for
//           every thread of every block.
// So the host grid runner checks the very indexing, bounds and launch
// geometry the GPU runs.
#pragma once
#include <cstdint>
#include <string>

#include "hlo/instruction.h"
#include "hlo/status.h"
#include "jit/emitter_target.h"

namespace llvm {
class Module;
}

namespace hlo::gpu {

// The elemental emitter's hooks on an NVIDIA GPU: libdevice's math
// functions (__nv_expf, ...), exp included; loops left rolled; the small
// float codecs as IR, no host runtime.
inline const jit::EmitterTarget kGpuEmitterTarget{
    .mathPrefix = "__nv_", .inlineExpF32 = false, .unrollLoops = false, .hostRuntime = false};

// Threads per block of every kernel (a multiple of the warp size that keeps
// several blocks resident per SM).
inline constexpr int kThreadsPerBlock = 256;

enum class GridForm { kNvptx, kHost };

struct GpuKernelInfo {
  int64_t threads = 0;  // threads that compute an element: the largest output's element count
  int64_t blocks = 0;   // ceil(threads / kThreadsPerBlock)
  int inputs = 0, outputs = 0;
};

// Emits `instr` (a fusion, or an instruction the elemental emitter
// computes) as the kernel `name` in `form`. An instruction the emitter
// cannot compute, or whose code would call the host runtime (f8/f4 codecs,
// complex functions beyond arithmetic, reduce-precision, stochastic
// rounding), is an error "cannot compile <opcode> (%name): ..."; nothing is
// left in the module then.
StatusOr<GpuKernelInfo> emitGpuKernel(llvm::Module& module, const Instruction& instr, const std::string& name,
                                      GridForm form);

// Whether the fusion `fusion` is one kernel: a loop or input fusion holding
// nothing that runs outside kernels (a loop, a call, an op of
// hlo/shared_semantics.h) and no reduce that other fused ops read (one
// thread per element would fold it again for each). Otherwise its
// computation runs as a call, one kernel per instruction. (The fusion pass
// fuses only what the emitter computes: library ops stay outside fusions.)
bool gpuOneKernel(const Instruction& fusion);

}  // namespace hlo::gpu
