// The GPU backend's own compile options (jit::CompileOptions::backendOptions).
// Free of LLVM, so tools set them without LLVM's headers.
#pragma once
#include <string>
#include <string_view>

#include "jit/executable.h"

namespace hlo::gpu {

struct GpuOptions {
  static constexpr std::string_view kBackend = "gpu";
  // The GPU the PTX is for ("sm_90", "sm_80"). Empty: the device's own
  // compute capability when a driver is present (sm_90 for anything newer,
  // whose driver compiles sm_90 PTX forward), else sm_90.
  std::string sm;
  // After emitting the PTX, assemble it with the CUDA toolkit's ptxas for
  // this arch ("sm_90"): a check of the code that needs the toolkit, not a
  // GPU (the GPU compile corpus). Empty: no check.
  std::string assembleFor;
};

// `options` with the GPU backend's own options set to `gpu`.
inline jit::CompileOptions withGpuOptions(jit::CompileOptions options, GpuOptions gpu) {
  return jit::withBackendOptions(std::move(options), std::move(gpu));
}

}  // namespace hlo::gpu
