// The GPU backend's executable form: per computation, one step per
// instruction — a kernel launched on the device, or a step the host takes
// (parameters, constants, tuples, control flow, the shared semantics of
// hlo/shared_semantics.h) — run in order on one stream, the values of a
// run in one device arena laid out by the memory plan (jit/memory_plan.h).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/gpu/cublas.h"
#include "backends/gpu/gpu_kernel_emitter.h"
#include "hlo/engine_hooks.h"
#include "jit/executable.h"
#include "jit/memory_plan.h"

namespace hlo::gpu {

struct GpuProgram;

struct GpuStep {
  enum class Kind {
    kParameter, kConstant, kTuple, kGetTupleElement, kForward, kToken,  // bookkeeping
    kKernel,                                                    // launched on the device
    kGemm,                                                      // dot through cuBLAS (cublas.h)
    kWhile, kConditional, kCall,                                // run sub-programs, deciding on the host
    kHost,         // hlo/shared_semantics.h, on the host: operands copied back, the result up
    kInterpreter,  // --allow-interpreter-fallback, the same way
  };
  Kind kind = Kind::kKernel;
  const Instruction* instr = nullptr;
  std::vector<int> operands;  // value slots (positions in the computation)
  std::string kernelName;
  GpuKernelInfo kernel;
  GemmPlan gemm;  // kGemm
  SharedSemantics shared = nullptr;
  std::vector<const GpuProgram*> callees;  // while: {condition, body}; conditional: branches; call: {callee}
};

struct GpuProgram {
  const Computation* computation = nullptr;
  std::vector<GpuStep> steps;  // step i defines slot i
  int root = 0;
  // Where its values live when it runs in the arena; null: each in a buffer of its own.
  std::unique_ptr<jit::ProgramMemory> memory;
};

// What a compile produced, before any device is touched: --compile-only
// and the checks stop here.
struct GpuCompiled {
  std::unique_ptr<Module> module;  // after the pipeline; steps point into it
  std::vector<std::unique_ptr<GpuProgram>> programs;
  const GpuProgram* entry = nullptr;
  jit::MemoryPlan memory;  // the arena: its size, and the programs' places in it
  std::string ptx;
  std::string sm;
  int kernels = 0;
  int gemms = 0;  // kGemm steps
  int fallbacks = 0;
};

// The trace's track of the kernels that ran on the GPU (--profile).
inline constexpr int kGpuTraceTrack = 1000;

// Runs a GpuCompiled on the device (gpu_runtime.cc). The driver is opened
// by the first run, so compiling needs none. With CompileOptions::profile,
// every run adds its kernels, timed by CUDA events, to trace().
class GpuExecutable final : public jit::Executable {
 public:
  GpuExecutable(GpuCompiled compiled, const jit::CompileOptions& options);
  ~GpuExecutable() override;
  using jit::Executable::run;
  StatusOr<Literal> run(std::span<const Literal> args, collectives::Participant* device) override;
  int fallbackCount() const override { return compiled_.fallbacks; }
  jit::MemoryStats memoryStats() const override;
  const std::string& ptx() const { return compiled_.ptx; }

  // The runtime's own (gpu_runtime.cc).
  struct Device;    // the driver's module, its functions and the uploaded constants
  struct Value;     // a device array, or a tuple of values
  struct RunState;  // one run's device and byte counts
  struct ProgramRun;  // one run of one program (jit/step_walk.h)

 private:
  // Device `index`'s state (0 on one device), made by its first run.
  StatusOr<Device*> device(int64_t index);
  // Runs `program` with its values in the arena from `base` (its own or a
  // scratch range of its caller's), or each in a buffer of its own (base 0).
  StatusOr<std::shared_ptr<const Value>> runProgram(const GpuProgram& program,
                                                    std::span<const std::shared_ptr<const Value>> args,
                                                    RunState& run, CUdeviceptr base);

  GpuCompiled compiled_;
  jit::CompileOptions options_;
  // A run on several devices (threads of this process, one GPU) gives each
  // its own state: module, arena, constants, staging buffers. One
  // device's runs are one at a time; different devices' run together,
  // meeting at their collectives (host steps), so no lock is held while a
  // device waits for another.
  std::mutex devicesMutex_;
  std::map<int64_t, std::unique_ptr<Device>> devices_;
  mutable std::mutex statsMutex_;  // lastStats_ and the trace, written by every device's run
  jit::MemoryStats lastStats_;
};

}  // namespace hlo::gpu
