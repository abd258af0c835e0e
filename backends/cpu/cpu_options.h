// The CPU backend's own compile options (jit::CompileOptions::backendOptions).
// Free of LLVM, so tools set them without LLVM's headers.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "jit/executable.h"

namespace hlo::cpu {

struct CpuOptions {
  static constexpr std::string_view kBackend = "cpu";
  // Worker threads for large kernels; 0 picks the number of cores.
  int threads = 0;
  // LLVM modules the kernels are split into and compiled side by side; 0
  // picks by the module's size, up to `threads` (one for small modules).
  int llvmParts = 0;
  // When set, the optimized LLVM IR of the kernels is written to this file.
  std::string llvmIrPath;
  // When set, the kernels' LLVM modules as bitcode, before optimization
  // (hlo-aot compiles them again into an object file of its own).
  std::vector<std::string>* llvmBitcode = nullptr;
};

// CpuOptions with `threads` worker threads, the rest as default.
inline CpuOptions cpuThreads(int threads) {
  CpuOptions o;
  o.threads = threads;
  return o;
}

// `options` with the CPU backend's own options set to `cpu`.
inline jit::CompileOptions withCpuOptions(jit::CompileOptions options, CpuOptions cpu) {
  return jit::withBackendOptions(std::move(options), std::move(cpu));
}

}  // namespace hlo::cpu
