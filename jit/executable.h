// The JIT's public seam: compile a module for a target once, run it many times.
//
// This header is free of LLVM so tools and tests that only drive the JIT
// compile quickly; the LLVM types stay inside jit/*.cc and backends/.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo::jit {

enum class Target : uint8_t { kCpu };

struct CompileOptions {
  // An instruction the backend cannot compile is evaluated by the reference
  // interpreter (each one is logged to stderr) instead of failing the compile.
  bool allowInterpreterFallback = false;
  // Print the time spent in the pass pipeline and in LLVM to stderr.
  bool verbose = false;
  // Worker threads for large kernels; 0 picks the number of cores.
  int threads = 0;
  // A run whose results and temporaries would exceed this many bytes is refused.
  int64_t maxMemoryBytes = int64_t{8} << 30;
  // Stop a while loop after this many iterations (0: no limit).
  int64_t maxWhileIterations = 0;
  // When set, the optimized LLVM IR of the kernels is written to this file.
  std::string llvmIrPath;
};

class Executable {
 public:
  virtual ~Executable() = default;
  // Runs the entry computation; `args` are its parameters in order. A tuple-
  // shaped entry gives a tuple literal.
  virtual StatusOr<Literal> run(std::span<const Literal> args) = 0;
  // How many instructions run on the interpreter (with --allow-interpreter-fallback).
  virtual int fallbackCount() const = 0;
};

// Runs the target's pass pipeline on a copy of `module`, then compiles it.
// An instruction the target cannot compile is an error naming its opcode and
// name ("cpu: cannot compile sort (%sort.3)") unless the options allow the
// interpreter fallback.
StatusOr<std::unique_ptr<Executable>> compile(const Module& module, Target target = Target::kCpu,
                                              const CompileOptions& options = {});

}  // namespace hlo::jit
