// Compiling a module for the CPU: every computation the entry runs becomes a
// Program; every fusion and every other array-valued instruction becomes one
// LLVM function in a single LLVM module, which ORC compiles for the host.
//
// Algorithm:
//   1. Walk the entry computation, and the computations its while loops,
//      conditionals and calls run, one step per instruction.
//   2. Bookkeeping opcodes (parameter, constant, tuple, get-tuple-element,
//      the single-device collectives and async wrappers) and control flow
//      (while, conditional, call, scan) become runtime steps, and so does a
//      bitcast that only renames its operand (a view); a fusion that cannot
//      be one kernel runs its computation as a call; everything else is emitted as
//      a kernel, or as a call into a library op (runtime_ops.h) when its
//      opcode has one. What the emitters cannot do is an error naming the
//      instruction — or, when allowed, an interpreter step that is logged.
//   3. Optimize and compile the LLVM module, and resolve every kernel.
//   4. Record each value's last reader, so the runtime frees it early.
//   5. Plan where each value lives: buffer assignment on the module, one
//      arena per execution (execution_memory.h).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "backends/cpu/cpu_options.h"
#include "backends/cpu/orc.h"
#include "backends/cpu/program.h"
#include "hlo/computation.h"
#include "hlo/passes/fusion_rules.h"
#include "hlo/shape_inference.h"
#include "hlo/shared_semantics.h"
#include "jit/backend.h"
#include "jit/elemental_emitter.h"
#include "jit/host_steps.h"
#include "jit/kernel_reuse.h"
#include "jit/step_walk.h"

namespace hlo::cpu {
namespace {

// An array, or a tuple of arrays: what one kernel reads or writes.
bool flatArrays(const Shape& shape) {
  if (!shape.isTuple()) return shape.isArray();
  for (const Shape& e : shape.tupleElements())
    if (!e.isArray()) return false;
  return true;
}

// A loop or input fusion is one kernel when it holds no library op (a dot
// in another compiler's dump), its parameters are arrays and its outputs an
// array or a tuple of arrays, and its reductions are outputs (the root, or
// elements of a root tuple) or read once per row of the output (row fusion,
// hlo/passes/fusion_rules.h: the kernel computes them before each row): any
// other reduce feeding fused work would be recomputed for every element that
// reads it. Other fusions (kind kCustom, or such nests, as other compilers'
// dumps hold) run as calls.
bool oneKernel(const Instruction& fusion) {
  std::string_view kind = fusion.attrs().getString(AttrKey::kKind);
  if (kind != "kLoop" && kind != "kInput") return false;
  if (fusion.calledComputations().empty()) return true;
  const Computation& fused = *fusion.calledComputations()[0];
  const Instruction* root = fused.root();
  if (!flatArrays(fusion.shape())) return false;
  for (const Instruction* operand : fusion.operands())
    if (!operand->shape().isArray()) return false;
  std::unordered_map<const Instruction*, fusion::RowReading> readings;  // computed when needed
  for (const auto& i : fused.instructions()) {
    // Library ops, the ops of hlo/shared_semantics.h (scan, collectives,
    // ...) and loops run as runtime steps, not inside a kernel.
    if (isLibraryOp(*i) || sharedSemanticsOf(*i) || i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kCall)
      return false;
    if (i->opcode() != Opcode::kReduce || i.get() == root) continue;
    bool rootElement = root->opcode() == Opcode::kTuple;
    for (const Instruction* user : i->users()) rootElement = rootElement && user == root;
    if (rootElement) continue;
    if (readings.empty()) readings = fusion::rowReadings(fused);
    if (readings[i.get()] != fusion::RowReading::kOncePerRow) return false;
  }
  return true;
}

// A bitcast that only renames its operand: the same elements in the same
// order (one element type, row-major untiled layouts), which the runtime
// runs as a view instead of a copy. Buffer assignment gives it its operand's
// buffer; a bitcast that reorders elements is a kernel.
bool renamesOperand(const Instruction& instr) {
  if (instr.opcode() != Opcode::kBitcast || instr.operandCount() != 1) return false;
  const Shape& out = instr.shape();
  const Shape& in = instr.operand(0)->shape();
  auto rowMajor = [](const Shape& s) {
    if (!s.layout()) return true;
    if (!s.layout()->tiles.empty() || s.layout()->elementSizeBits != 0) return false;
    std::vector<int64_t> m2m = s.minorToMajor();
    for (size_t i = 0; i < m2m.size(); ++i)
      if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
    return true;
  };
  return out.isArray() && in.isArray() && out.type() == in.type() && out.elementCount() == in.elementCount() &&
         rowMajor(out) && rowMajor(in);
}

// checkDeclaredShape of `instr` and, for a fusion, of everything it fuses.
Status wellTyped(const Instruction& instr) {
  HLO_RETURN_IF_ERROR(checkDeclaredShape(instr));
  if (instr.opcode() == Opcode::kFusion)
    for (const Computation* fused : instr.calledComputations())
      for (const auto& inner : fused->instructions()) HLO_RETURN_IF_ERROR(wellTyped(*inner));
  return okStatus();
}

// The threads the options allow: `threads`, else one per core.
int threadCount(const CpuOptions& options) {
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(threads, 1);
}

// How many LLVM modules to compile side by side: one per thread the options
// allow, each with at least two kernels: a part costs a thread, a target
// machine and its own copy of the helper functions, far less than LLVM's
// time on a kernel, so even small modules gain.
size_t llvmParts(const Module& module, const CpuOptions& options) {
  if (options.llvmParts > 0) return static_cast<size_t>(options.llvmParts);
  constexpr int kKernelsPerPart = 2;
  std::unordered_set<const Computation*> fused;
  for (const auto& comp : module.computations())
    for (const auto& instr : comp->instructions())
      if (instr->opcode() == Opcode::kFusion)
        for (const Computation* c : instr->calledComputations()) fused.insert(c);
  int kernels = 0;
  for (const auto& comp : module.computations())
    if (!fused.count(comp.get()))
      for (const auto& instr : comp->instructions()) kernels += instr->shape().isArray() && instr->operandCount() > 0;
  return static_cast<size_t>(std::clamp(kernels / kKernelsPerPart, 1, threadCount(options)));
}

// Whether `dus` is a dynamic-update-slice of get-tuple-element(parameter,
// i) that may write that element of its computation's parameter in place:
// the element's only reader is this one get-tuple-element, read only as the
// operand being updated, no other instruction reads the parameter but
// get-tuple-elements of other indices, and the root is a tuple holding the
// update at index i (so the element's new value is where it already is).
bool updatesParameterElement(const Instruction& dus) {
  if (dus.opcode() != Opcode::kDynamicUpdateSlice || dus.operandCount() < 2) return false;
  const Instruction* element = dus.operand(0);
  if (element->opcode() != Opcode::kGetTupleElement || element->users().size() != 1) return false;
  for (int k = 1; k < dus.operandCount(); ++k)
    if (dus.operand(k) == element) return false;
  const Instruction* parameter = element->operand(0);
  if (parameter->opcode() != Opcode::kParameter) return false;
  const int64_t index = element->attrs().getInt(AttrKey::kIndex);
  for (const Instruction* user : parameter->users())
    if (user != element &&
        (user->opcode() != Opcode::kGetTupleElement || user->attrs().getInt(AttrKey::kIndex) == index))
      return false;
  const Instruction* root = dus.parent()->root();
  return root->opcode() == Opcode::kTuple && index >= 0 && index < root->operandCount() &&
         root->operand(static_cast<int>(index)) == &dus;
}

// The runtime step of a host step (jit/host_steps.h).
Step::Kind hostKind(jit::HostStep host) {
  switch (host) {
    case jit::HostStep::kParameter: return Step::Kind::kParameter;
    // A constant whose values the text left out ({...}, as XLA's dumps
    // print large ones) compiles; running it is the error (as on the
    // interpreter), so such a dump can still be compiled and inspected.
    case jit::HostStep::kConstant: return Step::Kind::kConstant;
    case jit::HostStep::kTuple: return Step::Kind::kTuple;
    case jit::HostStep::kGetTupleElement: return Step::Kind::kGetTupleElement;
    case jit::HostStep::kForward: return Step::Kind::kForward;
    case jit::HostStep::kToken: return Step::Kind::kToken;
    case jit::HostStep::kWhile: return Step::Kind::kWhile;
    case jit::HostStep::kCall: return Step::Kind::kCall;
    case jit::HostStep::kConditional: return Step::Kind::kConditional;
    case jit::HostStep::kNone: break;
  }
  return Step::Kind::kKernel;  // not a host step: the caller plans it
}

class Builder {
 public:
  // Kernels go into `parts` (OrcJit compiles the parts side by side), each
  // into the one with the least code so far.
  Builder(std::vector<std::unique_ptr<Program>>& programs, std::vector<OrcJit::Part>& parts,
          const jit::CompileOptions& options, const KernelSource& source, int& fallbacks)
      : programs_(programs), parts_(parts), options_(options), source_(source), fallbacks_(fallbacks),
        partSize_(parts.size(), 0) {}

  StatusOr<const Program*> build(const Computation& computation) {
    if (auto it = built_.find(&computation); it != built_.end()) return it->second;
    auto program = std::make_unique<Program>();
    program->computation = &computation;
    std::unordered_map<const Instruction*, int> slot;
    for (const auto& owned : computation.instructions()) {
      const Instruction& instr = *owned;
      Step step;
      step.kind = Step::Kind::kKernel;
      step.instr = &instr;
      for (const Instruction* op : instr.operands()) step.operands.push_back(slot.at(op));
      HLO_RETURN_IF_ERROR(plan(instr, step));
      slot[&instr] = static_cast<int>(program->steps.size());
      program->steps.push_back(std::move(step));
    }
    program->root = slot.at(computation.root());
    for (Step& step : program->steps) step.updatesParameterElement = updatesParameterElement(*step.instr);
    // 4. Last readers; the root is returned, never freed.
    std::vector<int> last(program->steps.size(), -1);
    for (size_t s = 0; s < program->steps.size(); ++s)
      for (int op : program->steps[s].operands) last[op] = static_cast<int>(s);
    for (size_t v = 0; v < last.size(); ++v)
      if (last[v] >= 0 && static_cast<int>(v) != program->root) {
        std::vector<int>& f = program->steps[last[v]].freeAfter;
        if (std::find(f.begin(), f.end(), static_cast<int>(v)) == f.end()) f.push_back(static_cast<int>(v));
      }
    const Program* result = program.get();
    programs_.push_back(std::move(program));
    built_[&computation] = result;
    return result;
  }

  // The kernels emitted, in order (steps may share one).
  std::vector<std::string> kernelNames() const {
    std::vector<std::string> names;
    for (const auto& [name, info] : emitted_) names.push_back(name);
    return names;
  }

 private:
  Status callee(Step& step, const Computation* c) {
    if (!c) return errorStatus("cpu: %" + step.instr->name() + " calls no computation", step.instr->loc());
    HLO_ASSIGN_OR_RETURN(const Program* p, build(*c));
    step.callees.push_back(p);
    return okStatus();
  }

  Status plan(const Instruction& instr, Step& step) {
    if (jit::HostStep host = jit::hostStepOf(instr.opcode()); host != jit::HostStep::kNone) {
      step.kind = hostKind(host);
      HLO_ASSIGN_OR_RETURN(std::vector<const Computation*> callees, jit::controlFlowCallees(instr, "cpu"));
      for (const Computation* c : callees) HLO_RETURN_IF_ERROR(callee(step, c));
      return okStatus();
    }
    if (renamesOperand(instr)) {
      step.kind = Step::Kind::kView;
      return okStatus();
    }
    if (instr.opcode() == Opcode::kCopy && !instr.shape().isArray()) {
      step.kind = Step::Kind::kForward;  // a tuple's copy: the runtime copies values
      return okStatus();
    }
    if (SharedSemantics shared = sharedSemanticsOf(instr)) {
      // Computed as the interpreter computes it (hlo/shared_semantics.h).
      // What one device cannot do (a collective of several participants, an
      // unknown custom-call) is refused when it runs, as the interpreter
      // refuses it: code that never runs it still runs. An async op's
      // wrapped computation and a scan's body are compiled like a call's.
      step.kind = Step::Kind::kShared;
      step.shared = shared;
      const Computation* runs = jit::sharedSemanticsCallee(instr);
      return runs ? callee(step, runs) : okStatus();
    }
    if (instr.opcode() == Opcode::kFusion && !source_.oneKernel(instr)) {
      // Run the fused computation like a call, one kernel per instruction.
      step.kind = Step::Kind::kCall;
      return callee(step, instr.calledComputations().empty() ? nullptr : instr.calledComputations()[0]);
    }
    // A library op if the opcode has one, else an emitted kernel.
    const size_t part = lightestPart();
    llvm::Module& module = *parts_[part].module;
    std::string name = "kernel." + std::to_string(counter_++);
    StatusOr<RuntimePlan> library = source_.planLibraryOp(module, instr, name);
    if (library.ok() && library->fn) {
      step.kind = Step::Kind::kRuntime;
      step.runtime = library->fn;
      step.runtimeState = library->state;
      step.helperPrefix = name;
      step.helperNames = std::move(library->helperNames);
      return okStatus();
    }
    if (const std::string* same = library.ok() ? reuse_.find(instr) : nullptr) {
      step.kind = Step::Kind::kKernel;
      step.kernelName = *same;
      step.info = infoOf_.at(*same);
      return okStatus();
    }
    StatusOr<KernelInfo> info = library.ok() ? source_.emitKernel(module, instr, name) : library.status();
    if (info.ok()) {
      if (const llvm::Function* kernel = module.getFunction(name)) partSize_[part] += kernel->getInstructionCount();
      step.kind = Step::Kind::kKernel;
      step.kernelName = name;
      step.info = *info;
      reuse_.add(instr, name);
      infoOf_[name] = *info;
      emitted_.emplace_back(name, *info);
      return okStatus();
    }
    if (Status typed = wellTyped(instr); !typed.ok()) {
      // Ill-typed (its operands do not give its declared shape): refused
      // when it runs, as the interpreter refuses it, so a module that never
      // reaches it (a loop that runs no iteration) still runs.
      step.kind = Step::Kind::kIllTyped;
      step.refusal = errorStatus(typed.message() + "; " + source_.backend + ": " + info.status().message(), typed.loc());
      return okStatus();
    }
    if (!options_.allowInterpreterFallback)
      return errorStatus(source_.backend + ": " + info.status().message(), info.status().loc());
    // The refusal may name an instruction inside a computation this one
    // calls (a reducer's): the interpreter runs this one, whole.
    jit::report(options_, source_.backend + ": " + info.status().message() + "; running " +
                              std::string(opcodeName(instr.opcode())) + " (%" + instr.name() + ") on the interpreter");
    step.kind = Step::Kind::kInterpreter;
    step.interpret = jit::interpretStep;
    ++fallbacks_;
    return okStatus();
  }

  std::vector<std::unique_ptr<Program>>& programs_;
  std::vector<OrcJit::Part>& parts_;
  const jit::CompileOptions& options_;
  const KernelSource& source_;
  int& fallbacks_;
  std::unordered_map<const Computation*, const Program*> built_;
  std::vector<std::pair<std::string, KernelInfo>> emitted_;  // in the order emitted
  std::unordered_map<std::string, KernelInfo> infoOf_;        // by kernel name
  jit::KernelReuse reuse_;  // a kernel reused by instructions of its structure
  int counter_ = 0;
  // By part: the instructions of the kernels emitted into it. Kernels differ
  // in size a hundredfold (a fused chain of exponentials against a copy), so
  // the parts are balanced by size, not by count.
  std::vector<size_t> partSize_;

  size_t lightestPart() const {
    return static_cast<size_t>(std::min_element(partSize_.begin(), partSize_.end()) - partSize_.begin());
  }
};

// --dump-to's module.kernels.txt: each LLVM function of the dumps (`kernels`,
// in the order emitted) and the instructions it computes (several, when
// instructions of one structure share it), one line each:
//   kernel.3: %fusion.12 (%main), %fusion.40 (%main)
Status writeKernelMap(const std::vector<std::unique_ptr<Program>>& programs, const std::vector<std::string>& kernels,
                      const std::string& dir) {
  std::unordered_map<std::string, std::string> computes;
  for (const auto& program : programs)
    for (const Step& step : program->steps) {
      if (step.kind != Step::Kind::kKernel) continue;
      std::string& line = computes[step.kernelName];
      line += (line.empty() ? "" : ", ") + ("%" + step.instr->name()) + " (%" + program->computation->name() + ")";
    }
  std::ofstream out(dir + "/module.kernels.txt", std::ios::trunc);
  for (const std::string& name : kernels) out << name << ": " << computes[name] << "\n";
  if (!out) return errorStatus("cpu: cannot write " + dir + "/module.kernels.txt");
  return okStatus();
}

}  // namespace

const KernelSource& cpuKernelSource() {
  static const KernelSource source{"cpu", emitKernel, oneKernel, planRuntimeOp};
  return source;
}

StatusOr<std::unique_ptr<jit::Executable>> compileModule(std::unique_ptr<Module> module,
                                                         const jit::CompileOptions& options,
                                                         const KernelSource& source) {
  if (!module->entry()) return errorStatus("cpu: the module has no ENTRY computation");
  HLO_ASSIGN_OR_RETURN(const CpuOptions cpuOptions, jit::backendOptionsFor<CpuOptions>(options));
  auto exe = std::make_unique<CpuExecutable>(std::move(module), options, source.backend);
  std::vector<jit::TraceEvent>& trace = exe->mutableTrace();
  double emitStart = jit::traceNowUs();
  HLO_ASSIGN_OR_RETURN(std::unique_ptr<OrcJit> orc, OrcJit::create());
  exe->jit_ = std::move(orc);
  std::vector<OrcJit::Part> parts(llvmParts(*exe->module_, cpuOptions));
  for (size_t i = 0; i < parts.size(); ++i) {
    parts[i].context = std::make_unique<llvm::LLVMContext>();
    std::string name = exe->module_->name() + (parts.size() > 1 ? "." + std::to_string(i) : "");
    parts[i].module = std::make_unique<llvm::Module>(name, *parts[i].context);
    exe->jit_->configure(*parts[i].module);
  }
  // 1-2.
  Builder builder(exe->programs_, parts, options, source, exe->fallbacks_);
  HLO_ASSIGN_OR_RETURN(exe->entry_, builder.build(*exe->module_->entry()));
  if (!options.dumpDir.empty())
    HLO_RETURN_IF_ERROR(writeKernelMap(exe->programs_, builder.kernelNames(), options.dumpDir));
  double llvmStart = jit::traceNowUs();
  trace.push_back({"emit LLVM IR", "compile", "", emitStart, llvmStart - emitStart, 0});
  // 3.
  OrcJit::AddOptions add;
  add.useCache = options.useCache;
  add.cacheDir = options.cacheDir;
  add.irPath = cpuOptions.llvmIrPath;
  add.dumpDir = options.dumpDir;
  add.bitcode = cpuOptions.llvmBitcode;
  HLO_ASSIGN_OR_RETURN(OrcJit::AddReport report, exe->jit_->add(std::move(parts), add));
  int kernels = 0;
  for (auto& program : exe->programs_)
    for (Step& step : program->steps) {
      for (const std::string& helper : step.helperNames) {
        HLO_ASSIGN_OR_RETURN(void* address, exe->jit_->lookup(helper));
        step.helpers.push_back(address);
      }
      if (step.kind != Step::Kind::kKernel) continue;
      HLO_ASSIGN_OR_RETURN(void* address, exe->jit_->lookup(step.kernelName));
      step.kernel = reinterpret_cast<KernelFn>(address);
      ++kernels;
    }
  // The LLVM phases: one after another from llvmStart for one part; for
  // several, side by side, shown as one span.
  if (report.parts == 1) {
    double at = llvmStart;
    for (const auto& [name, ms] : {std::pair<const char*, double>{"fingerprint and cache lookup", report.fingerprintMs},
                                   {"LLVM optimize", report.optimizeMs},
                                   {"LLVM codegen", report.codegenMs}}) {
      if (ms <= 0) continue;
      trace.push_back({name, "compile", "", at, ms * 1e3, 0});
      at += ms * 1e3;
    }
  } else {
    trace.push_back({"LLVM, " + std::to_string(report.parts) + " parts in parallel", "compile", "", llvmStart,
                     report.wallMs * 1e3, 0});
  }
  trace.push_back({"load machine code", "compile", "", llvmStart + report.wallMs * 1e3, report.loadMs * 1e3, 0});
  if (options.verbose) {
    const char* backend = source.backend.c_str();
    if (!report.cacheProblem.empty())
      jit::report(options, jit::formatted("%s: compile cache: %s", backend, report.cacheProblem.c_str()));
    std::string line = jit::formatted("%s: %d kernels", backend, kernels);
    int distinct = static_cast<int>(builder.kernelNames().size());
    if (distinct < kernels) line += jit::formatted(" (%d distinct)", distinct);
    line += jit::formatted("; emit %.3g ms, ", (llvmStart - emitStart) / 1e3);
    if (report.cacheHit)
      line += jit::formatted("cache hit %.3g ms (fingerprint and lookup %.3g ms, load %.3g ms)",
                             report.wallMs + report.loadMs, report.fingerprintMs, report.loadMs);
    else if (report.parts == 1)
      line += jit::formatted("LLVM %.3g ms (optimize %.3g ms, codegen %.3g ms, load %.3g ms)",
                             report.wallMs + report.loadMs, report.optimizeMs, report.codegenMs, report.loadMs);
    else
      line += jit::formatted("LLVM %.3g ms in %d parallel parts (of CPU time: optimize %.3g ms, codegen %.3g ms; load %.3g ms)",
                             report.wallMs + report.loadMs, report.parts, report.optimizeMs, report.codegenMs,
                             report.loadMs);
    jit::report(options, line);
  }
  // 5.
  exe->memory_ = planMemory(*exe->module_, exe->programs_, *exe->entry_);
  if (exe->entry_->memory) exe->arenas_ = std::make_unique<ArenaPool>(exe->memory_.arenaBytes);
  if (options.verbose) {
    const MemoryPlan& m = exe->memory_;
    if (m.assignment)
      jit::report(options, jit::formatted("%s: arena %lld bytes per execution (buffer assignment: peak %lld bytes live, "
                                          "%lld without reuse); results in %zu buffer%s of their own",
                                          source.backend.c_str(), static_cast<long long>(m.arenaBytes),
                                          static_cast<long long>(m.peakBytes), static_cast<long long>(m.noReuseBytes),
                                          m.outputs.size(), m.outputs.size() == 1 ? "" : "s"));
    for (const std::string& note : m.notes) jit::report(options, source.backend + ": memory: " + note);
  }
  exe->pool_ = std::make_unique<ThreadPool>(threadCount(cpuOptions) - 1);
  return std::unique_ptr<jit::Executable>(std::move(exe));
}

}  // namespace hlo::cpu
