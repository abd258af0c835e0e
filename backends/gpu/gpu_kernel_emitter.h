// One GPU kernel per fusion or remaining array instruction, from the shared
// elemental emitter (jit/elemental_emitter.h), in blocks of
// kThreadsPerBlock: a thread per output element (or per 2 or 4
// neighbouring ones, 128 bits of them), a warp or a block per
// row where reductions fold rows (row_kernel.h), or a block per tile of
// columns where they fold leading dimensions (column_kernel.h).
//
// The same kernel is emitted in two forms (thread_block.h):
//   kNvptx: void name(ptr in0, ..., ptr out0, ...)
//           an .entry whose thread and block come from the PTX special
//           registers (%tid.x, %ctaid.x);
//   kHost:  void name.block(ptr in0, ..., ptr out0, ..., i32 block)
//           for the host grid runner (gpu_host.cc), which calls it once
//           for every block; it runs the block's threads phase by phase.
// So the host grid runner checks the very indexing, bounds, launch
// geometry, exchanges between threads and order of combining the GPU runs.
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
  int64_t blocks = 0;  // of kThreadsPerBlock threads
  // How threads share the work, for --verbose: "4 elements a thread",
  // "warp rows" or "block rows" (row_kernel.h), "column tiles"
  // (column_kernel.h).
  std::string shape;
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
// hlo/shared_semantics.h), no reduce that other fused ops read, unless
// it is a row fusion (row_kernel.h; one thread per element would fold it
// again for each), and a reduce of reduce_kernel.h only as its root.
// Otherwise its
// computation runs as a call, one kernel per instruction. (The fusion pass
// fuses only what the emitter computes: library ops stay outside fusions.)
bool gpuOneKernel(const Instruction& fusion);

}  // namespace hlo::gpu
