// libdevice, the CUDA toolkit's bitcode math library (__nv_expf, ...):
// where it is and how it joins a module.
#pragma once

#include <string>

#include "hlo/status.h"

namespace llvm {
class Module;
}  // namespace llvm

namespace hlo::gpu {

// True when the module calls a libdevice function (a declared __nv_*).
bool usesLibdevice(const llvm::Module& module);

// The path of libdevice.10.bc: $HLO_LIBDEVICE when set (and then only it),
// else $CUDA_HOME/nvvm/libdevice/, else ../nvvm/libdevice/ beside the ptxas
// found on PATH, else /usr/local/cuda/nvvm/libdevice/. The error names every
// place it looked.
StatusOr<std::string> findLibdevice();

// Links the libdevice functions the module calls (nothing when it calls
// none), keeps them internal so the optimizer inlines and drops them, and
// asks for IEEE results: nvvm-reflect-ftz = 0, so no flush-to-zero.
Status linkLibdevice(llvm::Module& module);

}  // namespace hlo::gpu
