// LLVM IR to PTX for NVIDIA GPUs: the NVPTX target, kernel entry points and
// the optimize-then-emit pipeline. Codegen only: nothing here needs a GPU.
#pragma once

#include <string>

#include "hlo/status.h"

namespace llvm {
class Function;
class Module;
}  // namespace llvm

namespace hlo::gpu {

// Which GPU the PTX is for. LLVM 19 knows sm_20 .. sm_90a and PTX ISA up to
// 8.5; CUDA 13's ptxas no longer accepts sm_70, so sm_80 is the oldest worth
// asking for.
struct PtxTarget {
  std::string sm = "sm_90";
  // A subtarget feature such as "+ptx85". Empty lets LLVM pick the lowest
  // ISA version the sm allows (7.8 for sm_90, 7.0 for sm_80), so the oldest
  // driver that knows the GPU can still load the PTX.
  std::string ptxVersion;
};

// Sets the module's triple (nvptx64-nvidia-cuda) and the data layout of the
// target machine. Fails only for an sm LLVM does not know.
Status configureForNvptx(llvm::Module& module, const PtxTarget& target);

// Makes `function` a launchable `.entry` with at most `maxThreadsPerBlock`
// threads per block (`.maxntid`; 0 leaves the bound out).
void markKernel(llvm::Function& function, int maxThreadsPerBlock);

// The module's text before and after optimization, for --dump-to
// (module.ll, module.opt.ll).
struct PtxDumps {
  std::string ir;
  std::string optimizedIr;
};

// Configures the module for `target`, links libdevice when the module calls
// __nv_* functions (backends/gpu/libdevice.h), verifies it, optimizes it at
// O3 and returns the PTX text. The module is changed in place.
StatusOr<std::string> compileToPtx(llvm::Module& module, const PtxTarget& target, PtxDumps* dumps = nullptr);

}  // namespace hlo::gpu
