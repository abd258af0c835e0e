// Compiling a module for an NVIDIA GPU, registered as the "gpu" backend.
//
//   1. Walk the entry computation, and the computations its while loops,
//      conditionals and calls run, one step per instruction (gpu_program.h).
//   2. Bookkeeping (parameter, constant, tuple, get-tuple-element, the ops
//      that pass a value on) and control flow become host steps, and so do
//      the ops of hlo/shared_semantics.h (single-device collectives, async
//      wrappers, scan); a fusion that cannot be one kernel runs its
//      computation as a call; a large dot is a cuBLAS call (cublas.h);
//      everything else is one kernel
//      (gpu_kernel_emitter.h, GridForm::kNvptx) in a single LLVM module.
//      What no kernel computes yet (sort, scatter, convolution, ...) is an
//      error naming it, or with --allow-interpreter-fallback a logged step
//      the interpreter takes.
//   3. The memory plan (jit/memory_plan.h) places the values of a run in
//      one device arena: a kernel's, a cuBLAS call's and a tuple copy's
//      results where buffer assignment put them, a while's, conditional's
//      or call's in buffers of their own that the callee's result is copied
//      into, the callees in the step's scratch range. Kernels never update
//      their operand in place: their arrays are marked apart.
//   4. LLVM optimizes the module and emits PTX for the GPU's compute
//      capability (nvptx.h), which the driver loads at the first run. The
//      compile cache (jit/compile_cache.h) keeps the PTX of modules
//      compiled before, keyed by the emitted IR and the target.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_options.h"
#include "backends/gpu/gpu_program.h"
#include "backends/gpu/libdevice.h"
#include "backends/gpu/nvptx.h"
#include "backends/gpu/ptxas.h"
#include "hlo/computation.h"
#include "hlo/shared_semantics.h"
#include "jit/backend.h"
#include "jit/compile_cache.h"
#include "jit/elemental_emitter.h"
#include "jit/host_steps.h"
#include "jit/kernel_reuse.h"

namespace hlo::gpu {

namespace {

// The PTX target: the options', else the device's (capped at sm_90, what
// LLVM 19 emits; the driver compiles sm_90 PTX forward for newer GPUs),
// else sm_90.
std::string chooseSm(const GpuOptions& options) {
  if (!options.sm.empty()) return options.sm;
  StatusOr<CudaDriver*> driver = cudaDriver();
  if (!driver.ok()) return "sm_90";
  int cc = (*driver)->properties().computeMajor * 10 + (*driver)->properties().computeMinor;
  if (cc >= 90) return "sm_90";
  for (int known : {89, 87, 86, 80, 75})
    if (cc >= known) return "sm_" + std::to_string(known);
  return "sm_75";
}

// The step of a host step (jit/host_steps.h).
GpuStep::Kind hostKind(jit::HostStep host) {
  using Kind = GpuStep::Kind;
  switch (host) {
    case jit::HostStep::kParameter: return Kind::kParameter;
    case jit::HostStep::kConstant: return Kind::kConstant;
    case jit::HostStep::kTuple: return Kind::kTuple;
    case jit::HostStep::kGetTupleElement: return Kind::kGetTupleElement;
    case jit::HostStep::kForward: return Kind::kForward;
    case jit::HostStep::kToken: return Kind::kToken;
    case jit::HostStep::kWhile: return Kind::kWhile;
    case jit::HostStep::kCall: return Kind::kCall;
    case jit::HostStep::kConditional: return Kind::kConditional;
    case jit::HostStep::kNone: break;
  }
  return Kind::kKernel;  // not a host step: the caller plans it
}

class ProgramBuilder {
 public:
  ProgramBuilder(GpuCompiled& out, llvm::Module& module, const jit::CompileOptions& options)
      : out_(out), module_(module), options_(options) {}

  StatusOr<const GpuProgram*> build(const Computation& computation) {
    if (auto it = built_.find(&computation); it != built_.end()) return it->second;
    auto program = std::make_unique<GpuProgram>();
    program->computation = &computation;
    std::unordered_map<const Instruction*, int> slot;
    for (const auto& owned : computation.instructions()) {
      GpuStep step;
      step.instr = owned.get();
      for (const Instruction* op : owned->operands()) step.operands.push_back(slot.at(op));
      HLO_RETURN_IF_ERROR(plan(*owned, step));
      slot[owned.get()] = static_cast<int>(program->steps.size());
      program->steps.push_back(std::move(step));
    }
    program->root = slot.at(computation.root());
    const GpuProgram* result = program.get();
    out_.programs.push_back(std::move(program));
    built_[&computation] = result;
    return result;
  }

 private:
  Status callee(GpuStep& step, const Computation* c) {
    if (!c) return errorStatus("gpu: %" + step.instr->name() + " calls no computation", step.instr->loc());
    HLO_ASSIGN_OR_RETURN(const GpuProgram* p, build(*c));
    step.callees.push_back(p);
    return okStatus();
  }

  Status plan(const Instruction& instr, GpuStep& step) {
    using Kind = GpuStep::Kind;
    if (jit::HostStep host = jit::hostStepOf(instr.opcode()); host != jit::HostStep::kNone) {
      step.kind = hostKind(host);
      HLO_ASSIGN_OR_RETURN(std::vector<const Computation*> callees, jit::controlFlowCallees(instr, "gpu"));
      for (const Computation* c : callees) HLO_RETURN_IF_ERROR(callee(step, c));
      return okStatus();
    }
    if (instr.opcode() == Opcode::kCopy && !instr.shape().isArray()) {
      step.kind = Kind::kForward;  // a tuple's copy: values are never written after they are made
      return okStatus();
    }
    if (SharedSemantics shared = sharedSemanticsOf(instr)) {
      step.kind = Kind::kHost;
      step.shared = shared;
      const Computation* runs = jit::sharedSemanticsCallee(instr);
      return runs ? callee(step, runs) : okStatus();
    }
    if (instr.opcode() == Opcode::kFusion && !gpuOneKernel(instr)) {
      step.kind = Kind::kCall;
      return callee(step, instr.calledComputations().empty() ? nullptr : instr.calledComputations()[0]);
    }
    if (std::optional<GemmPlan> gemm = cublasDotOf(instr)) {
      step.kind = Kind::kGemm;
      step.gemm = *gemm;
      ++out_.gemms;
      if (options_.verbose)
        jit::report(options_, jit::formatted("gpu: %%%s: cuBLAS, [%lld, %lld, %lld] x [%lld, %lld, %lld]%s%s",
                     instr.name().c_str(), static_cast<long long>(gemm->batch), static_cast<long long>(gemm->m),
                     static_cast<long long>(gemm->k), static_cast<long long>(gemm->batch),
                     static_cast<long long>(gemm->k), static_cast<long long>(gemm->n),
                     gemm->lhsTransposed ? ", lhs transposed" : "", gemm->rhsTransposed ? ", rhs transposed" : ""));
      return okStatus();
    }
    if (const std::string* same = reuse_.find(instr)) {
      step.kind = Kind::kKernel;
      step.kernelName = *same;
      step.kernel = infoOf_.at(*same);
      return okStatus();
    }
    std::string name = "kernel_" + std::to_string(out_.kernels);
    StatusOr<GpuKernelInfo> kernel = emitGpuKernel(module_, instr, name, GridForm::kNvptx);
    if (kernel.ok()) {
      step.kind = Kind::kKernel;
      step.kernelName = name;
      step.kernel = *kernel;
      reuse_.add(instr, name);
      infoOf_[name] = *kernel;
      ++out_.kernels;
      if (options_.verbose)
        jit::report(options_, jit::formatted("gpu: %s for %%%s: %s, %lld blocks", name.c_str(), instr.name().c_str(),
                     kernel->shape.c_str(), static_cast<long long>(kernel->blocks)));
      return okStatus();
    }
    if (!options_.allowInterpreterFallback)
      return errorStatus("gpu: " + kernel.status().message(), kernel.status().loc());
    jit::report(options_, jit::formatted("gpu: %s; running %s (%%%s) on the interpreter", kernel.status().message().c_str(),
                 std::string(opcodeName(instr.opcode())).c_str(), instr.name().c_str()));
    step.kind = Kind::kInterpreter;
    ++out_.fallbacks;
    return okStatus();
  }

  GpuCompiled& out_;
  llvm::Module& module_;
  const jit::CompileOptions& options_;
  std::unordered_map<const Computation*, const GpuProgram*> built_;
  jit::KernelReuse reuse_;  // a kernel reused by instructions of its structure
  std::unordered_map<std::string, GpuKernelInfo> infoOf_;
};

// The role of a step in the memory plan (step 3 above).
jit::StepMemory memoryOf(const GpuStep& step) {
  using Kind = GpuStep::Kind;
  using M = jit::StepMemory;
  switch (step.kind) {
    case Kind::kKernel: case Kind::kGemm: return M::kWrites;
    case Kind::kWhile: case Kind::kConditional: case Kind::kCall: return M::kRunsCallees;
    case Kind::kTuple: case Kind::kGetTupleElement: return M::kForwards;
    case Kind::kForward:  // a tuple's copy writes new buffers
      return step.instr->opcode() == Opcode::kCopy ? M::kWrites : M::kForwards;
    case Kind::kParameter: case Kind::kConstant: case Kind::kToken: case Kind::kHost: case Kind::kInterpreter:
      return M::kNone;
  }
  return M::kNone;
}

// Step 3: the plan, and each program's places in it.
void planDeviceMemory(GpuCompiled& compiled) {
  std::vector<jit::PlannedProgram> planned(compiled.programs.size());
  size_t entry = compiled.programs.size();
  for (size_t p = 0; p < compiled.programs.size(); ++p) {
    const GpuProgram& program = *compiled.programs[p];
    planned[p].computation = program.computation;
    for (const GpuStep& step : program.steps) {
      planned[p].steps.push_back(step.instr);
      planned[p].memory.push_back(memoryOf(step));
    }
    if (&program == compiled.entry) entry = p;
  }
  compiled.memory = jit::planMemory(*compiled.module, planned, entry);
  for (size_t p = 0; p < compiled.programs.size(); ++p) compiled.programs[p]->memory = std::move(planned[p].plan);
}

// The cache key of the PTX `module` compiles to for `sm`: its IR before
// optimization, the target, LLVM's version and, when kernels call it, which
// libdevice (its path and size).
jit::CacheKey ptxCacheKey(const llvm::Module& module, const std::string& sm) {
  std::string ir;
  llvm::raw_string_ostream os(ir);
  module.print(os, nullptr);
  std::string libdevice = "no libdevice";
  if (usesLibdevice(module))
    if (StatusOr<std::string> path = findLibdevice(); path.ok()) {
      std::error_code error;
      libdevice = *path + " " + std::to_string(std::filesystem::file_size(*path, error));
    }
  return jit::cacheKeyOf({"gpu ptx", ir, sm, LLVM_VERSION_STRING, libdevice, std::to_string(jit::kCacheVersion)});
}

Status writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) return errorStatus("gpu: cannot write " + path);
  return okStatus();
}

class GpuBackend final : public jit::Backend {
 public:
  std::string_view name() const override { return "gpu"; }
  std::string_view pipeline() const override { return "gpu"; }

  StatusOr<std::unique_ptr<jit::Executable>> compile(std::unique_ptr<Module> optimized,
                                                     const jit::CompileOptions& options) const override {
    if (!optimized->entry()) return errorStatus("gpu: the module has no ENTRY computation");
    HLO_ASSIGN_OR_RETURN(const GpuOptions gpuOptions, jit::backendOptionsFor<GpuOptions>(options));
    double start = jit::traceNowUs();
    GpuCompiled compiled;
    compiled.module = std::move(optimized);
    compiled.sm = chooseSm(gpuOptions);
    llvm::LLVMContext context;
    llvm::Module module(compiled.module->name(), context);
    HLO_RETURN_IF_ERROR(configureForNvptx(module, PtxTarget{compiled.sm, ""}));
    ProgramBuilder builder(compiled, module, options);
    HLO_ASSIGN_OR_RETURN(compiled.entry, builder.build(*compiled.module->entry()));
    planDeviceMemory(compiled);
    double emitted = jit::traceNowUs();
    // Dumps come from compiling: when they are asked for, the cache is
    // written but not read.
    const bool dumps = !options.dumpDir.empty();
    jit::CacheKey key{};
    std::optional<std::string> cached;
    std::string cacheProblem;
    jit::CompileCache cache(options.cacheDir);
    if (options.useCache) {
      key = ptxCacheKey(module, compiled.sm);
      if (!dumps) cached = cache.lookup(key, &cacheProblem);
    }
    PtxDumps irDumps;
    if (cached) {
      compiled.ptx = std::move(*cached);
    } else {
      HLO_ASSIGN_OR_RETURN(compiled.ptx, compileToPtx(module, PtxTarget{compiled.sm, ""}, &irDumps));
      if (options.useCache)
        if (std::optional<std::string> problem = cache.store(key, compiled.ptx)) cacheProblem = *problem;
    }
    double done = jit::traceNowUs();
    if (!options.dumpDir.empty()) {
      HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module.ll", irDumps.ir));
      HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module.opt.ll", irDumps.optimizedIr));
      HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module.ptx", compiled.ptx));
      // The GPU's own instructions, where the toolkit has cuobjdump (a
      // dump is a look inside, so its absence is only reported).
      if (StatusOr<std::string> sass = sassOf(compiled.ptx, compiled.sm); sass.ok())
        HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module.sass", *sass));
      else if (options.verbose)
        jit::report(options, jit::formatted("gpu: module.sass not written: %s", sass.status().message().c_str()));
    }
    if (!gpuOptions.assembleFor.empty()) HLO_RETURN_IF_ERROR(assembleWithPtxas(compiled.ptx, gpuOptions.assembleFor));
    if (options.verbose) {
      if (!cacheProblem.empty()) jit::report(options, jit::formatted("gpu: compile cache: %s", cacheProblem.c_str()));
      if (compiled.gemms > 0) jit::report(options, jit::formatted("gpu: %d dots through cuBLAS", compiled.gemms));
      jit::report(options, jit::formatted("gpu: %d kernels for %s; emit %.3g ms, %s %.3g ms", compiled.kernels,
                   compiled.sm.c_str(), (emitted - start) / 1e3, cached ? "PTX from the compile cache" : "LLVM and PTX",
                   (done - emitted) / 1e3));
      const jit::MemoryPlan& m = compiled.memory;
      if (m.assignment)
        jit::report(options, jit::formatted("gpu: device arena %lld bytes (buffer assignment: peak %lld bytes live, %lld without "
                     "reuse); results in %zu buffer%s of their own",
                     static_cast<long long>(m.arenaBytes), static_cast<long long>(m.peakBytes),
                     static_cast<long long>(m.noReuseBytes), m.outputs.size(), m.outputs.size() == 1 ? "" : "s"));
      for (const std::string& note : m.notes) jit::report(options, jit::formatted("gpu: memory: %s", note.c_str()));
    }
    auto exe = std::make_unique<GpuExecutable>(std::move(compiled), options);
    exe->mutableTrace().push_back({"emit LLVM IR", "compile", "", start, emitted - start, 0});
    exe->mutableTrace().push_back({"LLVM to PTX", "compile", "", emitted, done - emitted, 0});
    return std::unique_ptr<jit::Executable>(std::move(exe));
  }
};

const jit::BackendRegistration registration(std::make_unique<GpuBackend>());

}  // namespace
}  // namespace hlo::gpu
