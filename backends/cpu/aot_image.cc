#include "backends/cpu/aot_image.h"

#include <algorithm>
#include <thread>
#include <unordered_map>

#include "hlo/byte_record.h"
#include "hlo/computation.h"
#include "hlo/module_binary.h"
#include "hlo/shared_semantics.h"
#include "hlo/verifier.h"

namespace hlo::cpu {
namespace {

constexpr std::string_view kMagic = "HLOAOTPLAN\x01";

using Kind = Step::Kind;

// FNV-1a over the plan, appended to it: a plan whose bytes changed is refused
// before anything in it is trusted.
uint64_t checksum(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

// Helpers that are compiled already: a planner run again only names them.
class CompiledHelpers : public HelperModule {
 public:
  Status scalarFunction(const Computation&, const std::string&, const std::vector<ElementType>&,
                        const std::vector<ElementType>&) override {
    return okStatus();
  }
  Status convertFunction(const Instruction&, const std::string&, const std::vector<ElementType>&,
                         const std::vector<ElementType>&) override {
    return okStatus();
  }
};

}  // namespace

StatusOr<AotPlan> writeAotPlan(const CpuExecutable& exe) {
  const Module& module = exe.module();
  std::unordered_map<const Computation*, uint64_t> computationIndex;
  for (const auto& c : module.computations()) computationIndex[c.get()] = computationIndex.size();
  std::unordered_map<const Program*, uint64_t> programIndex;
  for (const auto& p : exe.programs()) programIndex[p.get()] = programIndex.size();

  AotPlan plan;
  std::unordered_map<std::string, uint64_t> functionIndex;
  auto function = [&](const std::string& name) {
    if (functionIndex.emplace(name, plan.functionNames.size()).second) plan.functionNames.push_back(name);
  };
  ByteWriter steps;
  steps.u64(exe.programs().size());
  for (const auto& program : exe.programs()) {
    steps.u64(computationIndex.at(program->computation));
    steps.u64(static_cast<uint64_t>(program->root));
    steps.u64(program->steps.size());
    for (const Step& step : program->steps) {
      if (step.kind == Kind::kInterpreter)
        return errorStatus("cpu: %" + step.instr->name() +
                           " would run on the interpreter, which an ahead-of-time library does not hold");
      steps.u64(static_cast<uint64_t>(step.kind));
      steps.u64(static_cast<uint64_t>(step.instr->id()));
      steps.ints(std::vector<int64_t>(step.operands.begin(), step.operands.end()));
      steps.str(step.kind == Kind::kKernel ? step.kernelName : step.helperPrefix);
      if (step.kind == Kind::kKernel) function(step.kernelName);
      steps.i64(step.info.units);
      steps.i64(step.info.workPerUnit);
      steps.boolean(step.info.alignedOutputs);
      steps.u64(step.helperNames.size());
      for (const std::string& helper : step.helperNames) {
        steps.str(helper);
        function(helper);
      }
      steps.u64(step.callees.size());
      for (const Program* callee : step.callees) steps.u64(programIndex.at(callee));
      steps.ints(std::vector<int64_t>(step.freeAfter.begin(), step.freeAfter.end()));
      steps.boolean(step.updatesParameterElement);
      steps.str(step.refusal.ok() ? "" : step.refusal.message());
      steps.i64(step.refusal.ok() ? 0 : step.refusal.loc().line);
      steps.i64(step.refusal.ok() ? 0 : step.refusal.loc().column);
    }
  }
  steps.u64(programIndex.at(&exe.entryProgram()));

  ByteWriter w;
  w.str(kMagic);
  w.str(writeModuleBinary(module));
  w.u64(plan.functionNames.size());
  for (const std::string& name : plan.functionNames) w.str(name);
  std::string body = w.take() + steps.bytes();
  ByteWriter sum;
  sum.u64(checksum(body));
  plan.record = body + sum.bytes();
  return plan;
}

// Builds a CpuExecutable from an image (a friend of CpuExecutable).
class AotLoader {
 public:
  static StatusOr<std::unique_ptr<CpuExecutable>> load(const HloAotImage& image, int threads) {
    if (image.version != kAotImageVersion)
      return errorStatus("hlo-aot image of version " + std::to_string(image.version) + ", but this runtime reads " +
                         std::to_string(kAotImageVersion) + ": rebuild the object with this release's hlo-aot");
    std::string_view record(image.plan, image.planBytes);
    if (record.size() < 8) return damaged();
    std::string_view body = record.substr(0, record.size() - 8);
    ByteReader sum(record.substr(body.size()));
    if (sum.u64() != checksum(body)) return damaged();
    ByteReader r(body);
    if (r.str() != kMagic) return errorStatus("hlo-aot image: its plan is not one (damaged object?)");
    HLO_ASSIGN_OR_RETURN(std::unique_ptr<Module> module, readModuleBinary(r.str()));
    HLO_RETURN_IF_ERROR(verify(*module));
    std::unordered_map<std::string, void*> functions;
    const uint64_t names = r.count(8);
    if (names != image.functionCount) return damaged();
    for (uint64_t k = 0; k < names; ++k) functions[r.str()] = image.functions[k];

    std::vector<const Computation*> computations;
    for (const auto& c : module->computations()) computations.push_back(c.get());
    auto exe = std::make_unique<CpuExecutable>(std::move(module), jit::CompileOptions{}, "cpu");
    const uint64_t programCount = r.count(24);
    for (uint64_t p = 0; p < programCount; ++p) exe->programs_.push_back(std::make_unique<Program>());
    for (auto& program : exe->programs_) {
      const uint64_t c = r.u64();
      if (c >= computations.size()) return damaged();
      program->computation = computations[c];
      const auto& instructions = program->computation->instructions();
      program->root = static_cast<int>(r.u64());
      const uint64_t stepCount = r.count(64);
      if (stepCount != instructions.size() || program->root < 0 || static_cast<uint64_t>(program->root) >= stepCount)
        return damaged();
      for (uint64_t s = 0; s < stepCount && r.ok(); ++s) {
        Step step;
        const uint64_t kind = r.u64();
        if (kind > static_cast<uint64_t>(Kind::kIllTyped) || kind == static_cast<uint64_t>(Kind::kInterpreter))
          return damaged();
        step.kind = static_cast<Kind>(kind);
        const uint64_t instr = r.u64();
        if (instr != s) return damaged();  // step s computes instruction s
        step.instr = instructions[instr].get();
        for (int64_t op : r.ints()) {
          if (op < 0 || static_cast<uint64_t>(op) >= s) return damaged();
          step.operands.push_back(static_cast<int>(op));
        }
        std::string name = r.str();
        step.info.units = r.i64();
        step.info.workPerUnit = r.i64();
        step.info.alignedOutputs = r.boolean();
        for (uint64_t h = r.count(8); h > 0; --h) step.helperNames.push_back(r.str());
        for (uint64_t k = r.count(8); k > 0; --k) {
          const uint64_t callee = r.u64();
          if (callee >= exe->programs_.size()) return damaged();
          step.callees.push_back(exe->programs_[callee].get());
        }
        for (int64_t v : r.ints()) {
          if (v < 0 || static_cast<uint64_t>(v) > s) return damaged();
          step.freeAfter.push_back(static_cast<int>(v));
        }
        step.updatesParameterElement = r.boolean();
        std::string refusal = r.str();
        const int line = static_cast<int>(r.i64());
        const int column = static_cast<int>(r.i64());
        if (!refusal.empty()) step.refusal = errorStatus(refusal, SourceLoc{line, column});
        if (!r.ok()) return damaged();
        HLO_RETURN_IF_ERROR(bind(step, name, functions));
        program->steps.push_back(std::move(step));
      }
    }
    const uint64_t entry = r.u64();
    if (!r.ok() || !r.atEnd() || entry >= exe->programs_.size()) return damaged();
    exe->entry_ = exe->programs_[entry].get();
    exe->memory_ = planMemory(*exe->module_, exe->programs_, *exe->entry_);
    if (exe->entry_->memory) exe->arenas_ = std::make_unique<ArenaPool>(exe->memory_.arenaBytes);
    const int workers = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    exe->pool_ = std::make_unique<ThreadPool>(workers - 1);
    return exe;
  }

 private:
  static Status damaged() {
    return errorStatus("hlo-aot image: its plan is damaged (its checksum, length or a value does not fit)");
  }

  // The code a step runs: its kernel's address, its library op planned again
  // (the same helpers, now compiled), or the semantics it shares.
  static Status bind(Step& step, const std::string& name, const std::unordered_map<std::string, void*>& functions) {
    const Instruction& instr = *step.instr;
    auto address = [&](const std::string& fn) -> StatusOr<void*> {
      auto it = functions.find(fn);
      if (it == functions.end()) return damaged();
      return it->second;
    };
    switch (step.kind) {
      case Kind::kKernel: {
        HLO_ASSIGN_OR_RETURN(void* kernel, address(name));
        step.kernelName = name;
        step.kernel = reinterpret_cast<KernelFn>(kernel);
        return okStatus();
      }
      case Kind::kRuntime: {
        PlanFn planner = libraryPlanner(instr.opcode());
        if (!planner) return damaged();
        CompiledHelpers helpers;
        HLO_ASSIGN_OR_RETURN(RuntimePlan plan, planner(helpers, instr, name));
        if (!plan.fn || plan.helperNames != step.helperNames)
          return errorStatus("hlo-aot image: the library op of %" + instr.name() +
                             " plans differently in this runtime: rebuild the object with this release's hlo-aot");
        step.runtime = plan.fn;
        step.runtimeState = plan.state;
        step.helperPrefix = name;
        for (const std::string& helper : step.helperNames) {
          HLO_ASSIGN_OR_RETURN(void* h, address(helper));
          step.helpers.push_back(h);
        }
        return okStatus();
      }
      case Kind::kShared:
        step.shared = sharedSemanticsOf(instr);
        if (!step.shared) return damaged();
        return okStatus();
      case Kind::kParameter: case Kind::kConstant: case Kind::kTuple: case Kind::kGetTupleElement:
      case Kind::kForward: case Kind::kToken: case Kind::kView: case Kind::kWhile: case Kind::kConditional:
      case Kind::kCall: case Kind::kIllTyped:
        return okStatus();
      case Kind::kInterpreter:
        break;
    }
    return damaged();
  }
};

StatusOr<std::unique_ptr<CpuExecutable>> loadAotImage(const HloAotImage& image, int threads) {
  return AotLoader::load(image, threads);
}

}  // namespace hlo::cpu
