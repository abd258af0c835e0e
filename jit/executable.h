// The JIT's public seam: compile a module for a target once, run it many times.
//
// This header is free of LLVM so tools and tests that only drive the JIT
// compile quickly; the LLVM types stay inside jit/*.cc and backends/.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/status.h"
#include "jit/trace.h"

namespace hlo::collectives {
struct Participant;
}

namespace hlo::jit {

// Options only one backend reads: a plain struct T that names its backend
// as T::kBackend (backends/cpu/cpu_options.h, ...), held as
// BackendOptionsOf<T> (jit/backend.h's withBackendOptions).
struct BackendOptions {
  virtual ~BackendOptions() = default;
  virtual std::string_view backend() const = 0;
};

template <typename T>
struct BackendOptionsOf final : BackendOptions {
  explicit BackendOptionsOf(T v) : value(std::move(v)) {}
  std::string_view backend() const override { return T::kBackend; }
  T value;
};


struct CompileOptions {
  // An instruction the backend cannot compile is evaluated by the reference
  // interpreter (each one is logged to stderr) instead of failing the compile.
  bool allowInterpreterFallback = false;
  // Print the time spent in the pass pipeline and in LLVM to stderr.
  bool verbose = false;
  // A run whose results and temporaries would exceed this many bytes is refused.
  int64_t maxMemoryBytes = int64_t{8} << 30;
  // Stop a while loop after this many iterations (0: no limit).
  int64_t maxWhileIterations = 0;
  // When set, this folder gets the optimized HLO module (module.after-passes.hlo),
  // the LLVM IR before and after optimization (module.ll, module.opt.ll) and
  // the assembly (module.s); per part (module.0.ll, ...) for a module
  // compiled in parts (llvmParts).
  std::string dumpDir;
  // The compile cache (jit/compile_cache.h): code of modules
  // compiled before, in this process's memory and, when cacheDir is set, on
  // disk. hlo-run sets cacheDir to $HLO_CACHE_DIR or ~/.cache/hlo. Every
  // backend that keeps code keeps it there, so these are shared options.
  bool useCache = true;
  std::string cacheDir;
  // false: the pipeline without fusion, every op its own kernel (the
  // unfused baseline the benchmarks compare with).
  bool fuse = true;
  // Record a trace event per compile phase and, on every run, per kernel,
  // library op and runtime step (Executable::trace()).
  bool profile = false;
  // The chosen backend's own options (jit/backend.h's backendOptionsFor);
  // null: its defaults.
  std::shared_ptr<const BackendOptions> backendOptions;
  // Where the notes of the compile and of the runs go, a line each: the
  // verbose reports, instructions run on the interpreter, compile cache
  // problems ("cpu: 3 kernels; ..."). The caller adds its program's name
  // (hlo-run prints "hlo-run: " + line). Unset: standard error as they are.
  std::function<void(const std::string& line)> report;
};

// Hands `line` to options.report, or writes it to standard error.
void report(const CompileOptions& options, const std::string& line);
// printf's formatting, into a string (for report's lines).
std::string formatted(const char* format, ...) __attribute__((format(printf, 1, 2)));

// `options` with a backend's own options set to `own`.
template <typename T>
CompileOptions withBackendOptions(CompileOptions options, T own) {
  options.backendOptions = std::make_shared<BackendOptionsOf<T>>(std::move(own));
  return options;
}

// Where a compiled module's values live (hlo-run --stats).
struct MemoryStats {
  int64_t arenaBytes = 0;           // the arena one execution uses (0: none, values on the heap)
  int64_t plannedPeakBytes = 0;     // buffer assignment's peak of live bytes
  int64_t plannedNoReuseBytes = 0;  // and its total were no buffer reused
  // The most recent run: bytes of values it wrote into the arena, into the
  // result buffers, and onto the heap (values the arena cannot hold).
  int64_t runArenaBytes = 0, runOutputBytes = 0, runHeapBytes = 0;
  // An executable that runs on a device (--engine=gpu): the device memory
  // it holds, the pinned host memory it copies large arrays through, and
  // the most recent run's copies each way (arguments up, the result and
  // the host's reads, such as a loop's predicate, down).
  bool onDevice = false;
  int64_t deviceBytes = 0, pinnedBytes = 0;
  int64_t uploadBytes = 0, downloadBytes = 0;
  double uploadSeconds = 0, downloadSeconds = 0;
  // The last run's steps on the device, from before the first to after the
  // last, by the device's clock (CUDA events): arguments up and the result
  // down not included.
  double deviceSeconds = 0;
};

class Executable {
 public:
  virtual ~Executable() = default;
  // Runs the entry computation; `args` are its parameters in order. A tuple-
  // shaped entry gives a tuple literal.
  StatusOr<Literal> run(std::span<const Literal> args) { return run(args, nullptr); }
  // The same as device `device` of a multi-device run (hlo/transport.h):
  // its collectives exchange values with the other devices. Null: one device.
  virtual StatusOr<Literal> run(std::span<const Literal> args, collectives::Participant* device) = 0;
  // How many instructions run on the interpreter (with --allow-interpreter-fallback).
  virtual int fallbackCount() const = 0;
  virtual MemoryStats memoryStats() const = 0;
  // The compile phases and, with CompileOptions::profile, the steps of every run so far.
  const std::vector<TraceEvent>& trace() const { return trace_; }
  std::vector<TraceEvent>& mutableTrace() { return trace_; }

 private:
  std::vector<TraceEvent> trace_;
};

// The compile cache's folder for tools: $HLO_CACHE_DIR, else ~/.cache/hlo
// (empty when neither HLO_CACHE_DIR nor HOME is set).
std::string defaultCacheDir();

// Runs the pass pipeline of the backend registered as `backend`
// (jit/backend.h) on a copy of `module`, then has the backend compile it. An
// instruction the backend cannot compile is an error naming its opcode and
// name ("cpu: cannot compile sort (%sort.3)") unless the options allow the
// interpreter fallback.
StatusOr<std::unique_ptr<Executable>> compile(const Module& module, std::string_view backend = "cpu",
                                              const CompileOptions& options = {});

}  // namespace hlo::jit
