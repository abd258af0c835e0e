// The CPU backend's executable form: per computation, one step per
// instruction — a compiled kernel, or a small runtime action (parameters,
// constants, tuples, while loops, conditionals) — run in order, with the
// values of a run in one arena (execution_memory.h).
#pragma once
#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backends/cpu/execution_memory.h"
#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/run_scratch.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/engine_hooks.h"
#include "jit/executable.h"

namespace hlo::cpu {

class OrcJit;
struct Program;

// --allow-interpreter-fallback's evaluation of one instruction
// (jit::interpretStep), which the compiler gives the steps that need it.
using InterpretFn = StatusOr<Literal> (*)(const Instruction& instr, std::span<const Literal* const> operands,
                                         const jit::CompileOptions& options);

struct Step {
  enum class Kind {
    kParameter, kConstant, kTuple, kGetTupleElement, kForward, kToken,  // runtime bookkeeping
    kView,                                                      // a bitcast that renames its operand
    kKernel,                                                    // compiled code
    kRuntime,                                                   // a library op (runtime_ops.h)
    kShared,                                                    // semantics shared with the interpreter
    kWhile, kConditional, kCall,                                // run sub-programs
    kInterpreter,                                               // --allow-interpreter-fallback
    kIllTyped,                                                  // refused when it runs
  };
  Kind kind = Kind::kKernel;
  const Instruction* instr = nullptr;
  std::vector<int> operands;          // value slots (positions in the computation)
  std::string kernelName;
  KernelFn kernel = nullptr;
  KernelInfo info;
  RuntimeFn runtime = nullptr;          // kRuntime: the library op
  std::shared_ptr<const void> runtimeState;  // kRuntime: its plan's state (RuntimePlan::state)
  SharedSemantics shared = nullptr;     // kShared: hlo/single_device.h, hlo/scan.h
  std::string helperPrefix;             // kRuntime: what its helpers' names start with
  std::vector<std::string> helperNames; // kRuntime: its compiled helpers, by name
  std::vector<void*> helpers;           //   and by address once compiled
  std::vector<const Program*> callees;  // while: {condition, body}; conditional: branches;
                                        // call, async-start/-update, scan: {callee}
  std::vector<int> freeAfter;           // slots whose last reader is this step
  // A dynamic-update-slice of an element of the computation's parameter
  // that nothing else reads and the root returns at the same place: run as
  // a loop body (whose parameter is the loop's own state), it may update
  // that element where it is (cpu_compiler.cc, updatesParameterElement).
  bool updatesParameterElement = false;
  Status refusal = okStatus();          // kIllTyped: why it cannot run
  InterpretFn interpret = nullptr;      // kInterpreter
};

struct Program {
  const Computation* computation = nullptr;
  std::vector<Step> steps;  // in the computation's order; step i defines slot i
  int root = 0;
  // Where its values live when it runs in an arena; null: on the heap.
  std::unique_ptr<ProgramMemory> memory;
};

// Bytes of array values a run placed, by where (execution_memory.h).
struct RunMemoryStats {
  int64_t arenaBytes = 0;   // written into the arena
  int64_t outputBytes = 0;  // written into the ENTRY's own result buffers
  int64_t heapBytes = 0;    // allocated on the heap (values the arena cannot hold)
};

// Where the kernels and library ops of a compiled module come from: the
// CPU's own (cpuKernelSource), or another backend's kernels run on the host
// by this runtime (the GPU's grid runner, backends/gpu/gpu_host.cc).
struct KernelSource {
  std::string backend;  // names its errors: "cpu: cannot compile ..."
  // Emits the kernel of `instr` into `module` as a KernelFn named `name`.
  StatusOr<KernelInfo> (*emitKernel)(llvm::Module& module, const Instruction& instr, const std::string& name);
  // Whether a fusion is one kernel; else it runs as a call of its computation.
  bool (*oneKernel)(const Instruction& fusion);
  // The library op of `instr` (planRuntimeOp's contract).
  StatusOr<RuntimePlan> (*planLibraryOp)(llvm::Module& module, const Instruction& instr, const std::string& prefix);
};
const KernelSource& cpuKernelSource();

class CpuExecutable : public jit::Executable {
 public:
  // `backend` names it in messages ("cpu", or the backend whose kernels it runs).
  CpuExecutable(std::unique_ptr<Module> module, const jit::CompileOptions& options, std::string backend = "cpu");
  ~CpuExecutable() override;
  using jit::Executable::run;
  StatusOr<Literal> run(std::span<const Literal> args, collectives::Participant* device) override;
  // Memory a caller gives a run (an ahead-of-time library's). `arena`:
  // arenaBytes() bytes aligned to kBufferAlignment that no other run uses
  // meanwhile; null, one of the executable's own. `results`: one buffer per
  // array of the ENTRY's result (its bytes, aligned to kBufferAlignment,
  // overlapping no argument), which the kernels write directly when each
  // array of the result has an output buffer of its own; the arrays of the
  // returned result that lie elsewhere are the caller's to copy.
  struct CallerMemory {
    uint8_t* arena = nullptr;
    std::span<void* const> results;
  };
  StatusOr<Literal> runWith(std::span<const Literal> args, const CallerMemory& memory);
  int fallbackCount() const override { return fallbacks_; }
  jit::MemoryStats memoryStats() const override;

  // The arena one execution uses (0: the values of a run are on the heap), and
  // buffer assignment's figures for the module.
  int64_t arenaBytes() const { return memory_.arenaBytes; }
  const MemoryPlan& memoryPlan() const { return memory_; }
  // How many arenas exist (one per run that was in progress at one time).
  int arenasAllocated() const { return arenas_ ? arenas_->allocated() : 0; }
  // Where the values of the most recent run went.
  RunMemoryStats lastRunMemory() const;
  // The module after the pipeline, its programs and the entry's.
  const Module& module() const { return *module_; }
  const std::vector<std::unique_ptr<Program>>& programs() const { return programs_; }
  const Program& entryProgram() const { return *entry_; }

 private:
  friend StatusOr<std::unique_ptr<jit::Executable>> compileModule(std::unique_ptr<Module>,
                                                                   const jit::CompileOptions&, const KernelSource&);
  friend class AotLoader;
  struct Frame;
  struct RunState;
  struct ProgramRun;  // one run of one program (jit/step_walk.h)
  // `ownArgs`: the program may write its arguments' arrays (a while body's
  // argument is the loop state, which the loop owns). With `rootParts`, a
  // root that is a tuple (the last step) is not built: its elements' values
  // go to rootParts and the result is null.
  StatusOr<std::shared_ptr<const Literal>> runProgram(const Program& program, std::span<const Literal* const> args,
                                                      const Frame* frame, RunState& run, bool ownArgs = false,
                                                      std::vector<std::shared_ptr<const Literal>>* rootParts = nullptr);
  Status runKernel(const Step& step, std::span<const Literal* const> operands, Literal& result);
  StatusOr<Literal> runWithMemory(std::span<const Literal> args, collectives::Participant* device,
                                  const CallerMemory& caller);
  // Whether the run may write the result's arrays into `results` (runWith).
  bool writesCallerResults(std::span<void* const> results) const;

  std::unique_ptr<Module> module_;  // after the pipeline; steps point into it
  jit::CompileOptions options_;
  std::string backend_;
  std::shared_ptr<OrcJit> jit_;  // owns the kernels' code; null for an ahead-of-time library's
  std::vector<std::unique_ptr<Program>> programs_;
  const Program* entry_ = nullptr;
  std::unique_ptr<ThreadPool> pool_;
  int fallbacks_ = 0;
  MemoryPlan memory_;
  std::unique_ptr<ArenaPool> arenas_;  // null when no arena is used
  RunScratchPool scratch_;             // one per run in progress with an arena
  mutable std::mutex statsMutex_;
  RunMemoryStats lastRun_;
  std::atomic<bool> reported_{false};  // --verbose: the first run's figures are printed
};


// Compiles a module the backend's pipeline has already run on.
StatusOr<std::unique_ptr<jit::Executable>> compileModule(std::unique_ptr<Module> module,
                                                         const jit::CompileOptions& options,
                                                         const KernelSource& source = cpuKernelSource());

}  // namespace hlo::cpu
