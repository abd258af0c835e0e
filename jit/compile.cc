// The JIT driver: copy the module, run the backend's pass pipeline, hand the
// result to the backend (jit/backend.h).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <string>

#include "hlo/element_io.h"
#include "hlo/passes/pass.h"
#include "hlo/printer.h"
#include "hlo/shape_inference.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "jit/backend.h"
#include "jit/executable.h"
#include "jit/specialize_sizes.h"

namespace hlo::jit {

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("HLO_CACHE_DIR"); dir && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/hlo";
  return "";
}

namespace {

// The pass pipeline, then the backend, on `copy` (a static module).
StatusOr<std::unique_ptr<Executable>> compileStatic(std::unique_ptr<Module> copy, const Backend& backend,
                                                    const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  const std::string name(backend.name());
  std::optional<std::vector<std::string>> passes = pipelineFor(backend.pipeline());
  if (!passes) return errorStatus("jit: no pass pipeline " + std::string(backend.pipeline()) + " for " + name);
  if (!options.fuse) std::erase(*passes, std::string("fusion"));
  std::vector<TraceEvent> phases;
  {
    TraceScope scope(&phases, "pass pipeline", "compile");
    PipelineOptions pipelineOptions;
    pipelineOptions.constantEvaluator = interp::constantEvaluator();  // `fold` computes as the interpreter does
    HLO_RETURN_IF_ERROR(runPipeline(*copy, *passes, pipelineOptions));
  }
  Status verified = verify(*copy);
  if (!verified.ok()) return errorStatus("jit: internal error: the pipeline left an invalid module: " + verified.message());
  if (options.verbose)
    report(options, formatted("%s: pass pipeline %.3g ms", name.c_str(),
                              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3));
  if (!options.dumpDir.empty()) {
    std::ofstream out(options.dumpDir + "/module.after-passes.hlo", std::ios::trunc);
    out << printModule(*copy);
    if (!out) return errorStatus("jit: cannot write " + options.dumpDir + "/module.after-passes.hlo");
  }
  StatusOr<std::unique_ptr<Executable>> exe = backend.compile(std::move(copy), options);
  if (exe.ok()) {
    std::vector<TraceEvent>& trace = (*exe)->mutableTrace();
    trace.insert(trace.begin(), phases.begin(), phases.end());
  }
  return exe;
}

// A module with runtime sizes (jit/specialize_sizes.h): one static
// specialization compiled per distinct binding of its sizes, the first time
// a run binds them; the result gets its runtime sizes marked. The latest
// kMaxSpecializations are kept (the compile cache keeps their machine code
// on disk), so a caller sweeping sizes does not grow without bound.
class SizeSpecializedExecutable final : public Executable {
 public:
  SizeSpecializedExecutable(std::unique_ptr<Module> module, const Backend& backend, const CompileOptions& options)
      : module_(std::move(module)), backend_(backend), options_(options), sizeParameters_(sizeParameters(*module_)) {}

  // Compiles the specialization of the sizes the module itself fixes, when
  // no parameter sets one: compile errors then show at compile time.
  Status compileFixedSizes() {
    if (!sizeParameters_.empty()) return okStatus();
    return specialization(SizeBindings{}).status();
  }

  using Executable::run;
  StatusOr<Literal> run(std::span<const Literal> args, collectives::Participant* device) override {
    HLO_ASSIGN_OR_RETURN(SizeBindings bindings, bind(args));
    std::shared_ptr<Specialization> s;  // kept alive by this run, even if evicted meanwhile
    {
      // Runs may be concurrent, as the compiled executables allow; compiles are not.
      std::lock_guard<std::mutex> lock(mutex_);
      HLO_ASSIGN_OR_RETURN(s, specialization(bindings));
      last_ = s;
    }
    if (!s->exe) {
      // Refused, with the fallback allowed: the interpreter runs the module.
      interp::Options o;
      o.maxMemoryBytes = options_.maxMemoryBytes;
      o.maxWhileIterations = options_.maxWhileIterations;
      o.participant = device;
      return interp::evaluate(*module_, args, o);
    }
    // Compiled code takes each argument at its bounds; the specialization
    // reads only its valid elements.
    std::vector<Literal> unsized;
    bool anySizes = false;
    for (const Literal& a : args) anySizes = anySizes || a.hasDynamicSizes();
    if (anySizes)
      for (const Literal& a : args) {
        unsized.push_back(a);
        unsized.back().clearDynamicSizes();
      }
    StatusOr<Literal> result = s->exe->run(anySizes ? std::span<const Literal>(unsized) : args, device);
    if (options_.profile) {
      // The specialization's run events, after the ones already taken.
      std::lock_guard<std::mutex> lock(mutex_);
      const std::vector<TraceEvent>& events = s->exe->trace();
      mutableTrace().insert(mutableTrace().end(), events.begin() + static_cast<std::ptrdiff_t>(s->traceTaken),
                            events.end());
      s->traceTaken = events.size();
    }
    if (!result.ok()) return result;
    markRuntimeSizes(*result, module_->entry()->root()->shape(), s->resultSizes);
    return result;
  }

  // Of the specialization the latest run used.
  int fallbackCount() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!last_) return 0;
    return last_->exe ? last_->exe->fallbackCount() : 1;
  }
  MemoryStats memoryStats() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_ && last_->exe ? last_->exe->memoryStats() : MemoryStats{};
  }

 private:
  static constexpr size_t kMaxSpecializations = 64;

  struct Specialization {
    std::unique_ptr<Executable> exe;  // null: refused, and the interpreter runs the module
    ValueSizes resultSizes;
    size_t traceTaken = 0;  // events of exe->trace() already in this one's
  };

  StatusOr<SizeBindings> bind(std::span<const Literal> args) const {
    const Computation& entry = *module_->entry();
    if (static_cast<int>(args.size()) != entry.parameterCount())
      return errorStatus("jit: ENTRY takes " + std::to_string(entry.parameterCount()) + " arguments, " +
                         std::to_string(args.size()) + " given");
    SizeBindings b;
    for (int64_t p : sizeParameters_) {
      const Literal& a = args[p];
      if (!a.shape().isScalar() || a.type() != entry.parameter(static_cast<int>(p))->shape().type())
        return errorStatus("jit: argument " + std::to_string(p) + " is " + a.shape().toString(false) +
                           " but parameter %" + entry.parameter(static_cast<int>(p))->name() + " is " +
                           entry.parameter(static_cast<int>(p))->shape().toString(false));
      b.parameterValues[p] = integerAt(a, 0);
    }
    for (const Literal& a : args) {
      if (a.shape().isArray() && a.hasDynamicSizes()) b.argumentDims.push_back(RuntimeDims::of(a));
      else b.argumentDims.emplace_back();
    }
    return b;
  }

  // " with %n = 2, argument 0 of runtime shape [2]" (empty for the module's own sizes).
  std::string describe(const SizeBindings& bindings) const {
    std::string text;
    auto clause = [&](const std::string& c) { text += (text.empty() ? " with " : ", ") + c; };
    for (const auto& [number, value] : bindings.parameterValues)
      clause("%" + module_->entry()->parameter(static_cast<int>(number))->name() + " = " + std::to_string(value));
    for (size_t i = 0; i < bindings.argumentDims.size(); ++i)
      if (bindings.argumentDims[i])
        clause("argument " + std::to_string(i) + " of runtime shape " + dimsText(bindings.argumentDims[i]->sizes));
    return text;
  }

  StatusOr<std::shared_ptr<Specialization>> specialization(const SizeBindings& bindings) {
    std::vector<int64_t> key = bindings.key();
    if (auto it = compiled_.find(key); it != compiled_.end()) return it->second;
    if (options_.verbose) report(options_, "compiling for runtime sizes" + describe(bindings));
    StatusOr<std::shared_ptr<Specialization>> compiled = compileSpecialization(bindings);
    if (!compiled.ok()) {
      // A size the specialization cannot model names no one instruction the
      // interpreter could run alone: with the fallback allowed, it runs the
      // whole module, logged.
      if (!options_.allowInterpreterFallback ||
          compiled.status().message().find("cannot compile") == std::string::npos)
        return compiled.status();
      report(options_, std::string(backend_.name()) + ": " + compiled.status().message() +
                           "; running the module on the interpreter");
      compiled = std::make_shared<Specialization>();
    }
    std::shared_ptr<Specialization> s = std::move(compiled).value();
    if (compiled_.size() >= kMaxSpecializations) {
      compiled_.erase(compiledOrder_.front());
      compiledOrder_.pop_front();
    }
    compiled_[key] = s;
    compiledOrder_.push_back(std::move(key));
    return s;
  }

  StatusOr<std::shared_ptr<Specialization>> compileSpecialization(const SizeBindings& bindings) {
    std::unique_ptr<Module> copy = module_->clone();
    // Inlined calls take runtime sizes like any instruction of the entry.
    HLO_RETURN_IF_ERROR(runPipeline(*copy, {"inline"}));
    HLO_ASSIGN_OR_RETURN(ValueSizes resultSizes, specializeSizes(*copy, bindings));
    if (Status v = verify(*copy); !v.ok())
      return errorStatus("jit: internal error: size specialization left an invalid module: " + v.message());
    HLO_ASSIGN_OR_RETURN(std::unique_ptr<Executable> exe, compileStatic(std::move(copy), backend_, options_));
    const std::vector<TraceEvent>& events = exe->trace();
    mutableTrace().insert(mutableTrace().end(), events.begin(), events.end());
    auto s = std::make_shared<Specialization>();
    s->traceTaken = events.size();
    s->exe = std::move(exe);
    s->resultSizes = std::move(resultSizes);
    return s;
  }

  std::unique_ptr<Module> module_;
  const Backend& backend_;
  CompileOptions options_;
  std::vector<int64_t> sizeParameters_;
  std::map<std::vector<int64_t>, std::shared_ptr<Specialization>> compiled_;
  std::deque<std::vector<int64_t>> compiledOrder_;  // oldest first
  std::shared_ptr<Specialization> last_;
  mutable std::mutex mutex_;
};

// Whether `instr` takes its size from its operands' values, which may have
// dimensions an unbounded `?` stands for (an entry parameter's argument
// gives them): as the interpreter, the JIT runs these on `?` dimensions and
// nothing else.
bool sizedByValues(const Instruction& instr) {
  Opcode op = instr.opcode();
  switch (opcodeCategory(op)) {
    case OpCategory::kElementwise: return op != Opcode::kMap;
    case OpCategory::kControlFlow: return true;  // what it calls is checked instruction by instruction
    case OpCategory::kDataMovement: case OpCategory::kReduction: case OpCategory::kLinearAlgebra:
    case OpCategory::kCollective: case OpCategory::kAsync: case OpCategory::kCommunication:
    case OpCategory::kLeaf: case OpCategory::kOther:
      break;
  }
  // Values passed on whole.
  return op == Opcode::kParameter || op == Opcode::kTuple || op == Opcode::kGetTupleElement ||
         op == Opcode::kOptimizationBarrier;
}

// The declared shapes a module's code would be planned from are ones its
// operands give: every instruction's dimensions are those inference gives
// (hlo/shape_inference.h), each called computation's parameters have their
// operands' dimensions, and an unbounded `?` dimension appears only where
// the values size it (sizedByValues). The verifier lets `?` stand for any
// size, and code sized from a `?` reads or writes outside its buffers,
// while the passes rebuild instructions from inferred shapes, so a module
// the interpreter refuses could even compile into one that runs: it is
// refused here, before anything is planned or rewritten, naming the
// instruction.
Status checkPlannableShapes(const Module& module) {
  auto refuse = [](const Instruction& instr, const std::string& why) {
    return errorStatus("jit: cannot compile " + std::string(opcodeName(instr.opcode())) + " '" + instr.name() +
                           "': " + why,
                       instr.loc());
  };
  for (const auto& comp : module.computations())
    for (const auto& instr : comp->instructions()) {
      if (Status s = checkDeclaredDimensions(*instr); !s.ok())
        return errorStatus("jit: cannot compile: " + s.message(), s.loc());
      bool unbounded = hasUnboundedDim(instr->shape());
      for (const Instruction* op : instr->operands()) unbounded = unbounded || hasUnboundedDim(op->shape());
      if (unbounded && !sizedByValues(*instr)) return refuse(*instr, "unbounded (?) dimensions have no values to run on");
      if (instr->opcode() != Opcode::kFusion && instr->opcode() != Opcode::kCall) continue;
      for (const Computation* callee : instr->calledComputations())
        for (int p = 0; callee && p < callee->parameterCount() && p < instr->operandCount(); ++p) {
          const Shape& param = callee->parameter(p)->shape();
          if (param.dims() != instr->operand(p)->shape().dims())
            return refuse(*instr, "passes " + instr->operand(p)->shape().toString(false) + " to parameter '" +
                                      callee->parameter(p)->name() + "' of " + param.toString(false));
        }
    }
  return okStatus();
}

}  // namespace

StatusOr<std::unique_ptr<Executable>> compile(const Module& module, std::string_view backendName,
                                              const CompileOptions& options) {
  const Backend* backend = findBackend(backendName);
  if (!backend) {
    std::string known;
    for (const std::string& n : backendNames()) known += (known.empty() ? "" : ", ") + n;
    return errorStatus("jit: no backend named '" + std::string(backendName) + "' (this program has: " +
                       (known.empty() ? "none" : known) + ")");
  }
  HLO_RETURN_IF_ERROR(checkPlannableShapes(module));
  // The passes rewrite in place; the caller's module stays as it was.
  std::unique_ptr<Module> copy = module.clone();
  if (!needsSizeSpecialization(*copy)) return compileStatic(std::move(copy), *backend, options);
  auto exe = std::make_unique<SizeSpecializedExecutable>(std::move(copy), *backend, options);
  HLO_RETURN_IF_ERROR(exe->compileFixedSizes());
  return std::unique_ptr<Executable>(std::move(exe));
}

}  // namespace hlo::jit
