// Running a compiled module: the steps of a Program in order, each value in
// a slot until its last reader is done.
//
// Memory is allocated per value (a Literal each); a buffer-assignment pass
// will let one arena per execution replace allocateValue().
#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "backends/cpu/program.h"
#include "hlo/computation.h"
#include "interp/evaluator.h"

namespace hlo::cpu {
namespace {

// A slot: a view of a value owned elsewhere (an argument, a constant) or a
// value of its own.
struct Value {
  const Literal* view = nullptr;
  std::optional<Literal> owned;
  const Literal& get() const { return owned ? *owned : *view; }
};

int64_t arrayBytes(const Shape& shape) {
  if (shape.isTuple()) {
    int64_t total = 0;
    for (const Shape& e : shape.tupleElements()) total += arrayBytes(e);
    return total;
  }
  return shape.isArray() ? shape.elementCount() * storageBytes(shape.type()) : 0;
}

// The trace category of a step.
const char* categoryOf(Step::Kind kind) {
  switch (kind) {
    case Step::Kind::kKernel: return "kernel";
    case Step::Kind::kRuntime: return "library";
    case Step::Kind::kInterpreter: return "interpreter";
    default: return "runtime";
  }
}

// Work units per thread below which splitting costs more than it saves.
constexpr int64_t kMinWorkPerThread = int64_t{1} << 15;

}  // namespace

Status CpuExecutable::runKernel(const Step& step, std::span<const Literal* const> operands, Literal& result) {
  std::vector<const char*> in;
  for (const Literal* op : operands) in.push_back(reinterpret_cast<const char*>(op->untypedData()));
  std::vector<char*> out;
  if (result.shape().isTuple()) {
    for (Literal& e : result.tupleElements()) out.push_back(reinterpret_cast<char*>(e.untypedData()));
  } else {
    out.push_back(reinterpret_cast<char*>(result.untypedData()));
  }
  int64_t units = step.info.units;
  if (units <= 0) return okStatus();
  int64_t work = units * step.info.workPerUnit;
  int chunks = static_cast<int>(std::min<int64_t>({units, work / kMinWorkPerThread, 4 * (pool_->workers() + 1)}));
  KernelFn kernel = step.kernel;
  pool_->parallelFor(units, std::max(chunks, 1),
                     [&](int64_t begin, int64_t end) { kernel(in.data(), out.data(), begin, end); });
  return okStatus();
}

StatusOr<Literal> CpuExecutable::runProgram(const Program& program, std::span<const Literal* const> args) {
  std::vector<Value> values(program.steps.size());
  int64_t startBytes = liveBytes_;
  auto release = [&](Value& v) {
    if (v.owned) liveBytes_ -= arrayBytes(v.owned->shape());
    v.owned.reset();
    v.view = nullptr;
  };
  auto own = [&](Value& v, Literal lit) -> Status {
    int64_t bytes = arrayBytes(lit.shape());
    liveBytes_ += bytes;
    v.owned = std::move(lit);
    return okStatus();
  };
  // Whether a value of `shape` fits under the memory limit now.
  auto room = [&](const Instruction& instr, const Shape& shape) -> Status {
    int64_t bytes = arrayBytes(shape);
    if (bytes <= options_.maxMemoryBytes - liveBytes_) return okStatus();
    return errorStatus("cpu: %" + instr.name() + " needs " + std::to_string(bytes) +
                           " bytes, beyond the memory limit of " + std::to_string(options_.maxMemoryBytes) +
                           " bytes with " + std::to_string(liveBytes_) + " in use",
                       instr.loc());
  };
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step& step = program.steps[s];
    const Instruction& instr = *step.instr;
    std::vector<const Literal*> ops;
    for (int op : step.operands) ops.push_back(&values[op].get());
    Value& v = values[s];
    // --profile: one span per step that does work (a nested program's steps get their own).
    bool traced = options_.profile && step.kind != Step::Kind::kParameter && step.kind != Step::Kind::kConstant &&
                  step.kind != Step::Kind::kToken;
    jit::TraceScope span(traced ? &mutableTrace() : nullptr, instr.name(), categoryOf(step.kind),
                         std::string(opcodeName(instr.opcode())));
    switch (step.kind) {
      case Step::Kind::kParameter: {
        int64_t n = instr.parameterNumber();
        if (n < 0 || n >= static_cast<int64_t>(args.size()))
          return errorStatus("cpu: parameter %" + instr.name() + " has no argument", instr.loc());
        v.view = args[n];
        break;
      }
      case Step::Kind::kConstant:
        v.view = &instr.literal();
        break;
      case Step::Kind::kTuple: {
        Literal tuple(instr.shape());
        for (size_t i = 0; i < ops.size(); ++i) tuple.tupleElements()[i] = *ops[i];
        tuple.mutableShape() = instr.shape();
        HLO_RETURN_IF_ERROR(own(v, std::move(tuple)));
        break;
      }
      case Step::Kind::kGetTupleElement: {
        int64_t index = instr.attrs().getInt(AttrKey::kIndex);
        const std::vector<Literal>& elements = ops[0]->tupleElements();
        if (index < 0 || index >= static_cast<int64_t>(elements.size()))
          return errorStatus("cpu: %" + instr.name() + ": tuple index out of range", instr.loc());
        HLO_RETURN_IF_ERROR(own(v, elements[index]));
        break;
      }
      case Step::Kind::kForward:
        HLO_RETURN_IF_ERROR(own(v, *ops[0]));
        break;
      case Step::Kind::kToken:
        HLO_RETURN_IF_ERROR(own(v, Literal(Shape::token())));
        break;
      case Step::Kind::kKernel:
      case Step::Kind::kRuntime: {
        // The seam for buffer assignment: outputs are allocated here, one per value.
        HLO_RETURN_IF_ERROR(room(instr, instr.shape()));
        // Kernels and library ops write every element of their result.
        Literal result = Literal::uninitialized(instr.shape());
        if (step.kind == Step::Kind::kKernel) {
          HLO_RETURN_IF_ERROR(runKernel(step, ops, result));
        } else {
          HLO_RETURN_IF_ERROR(step.runtime(RuntimeCall{instr, ops, result, *pool_, step.helpers}));
        }
        HLO_RETURN_IF_ERROR(own(v, std::move(result)));
        break;
      }
      case Step::Kind::kWhile: {
        Literal state = *ops[0];
        for (int64_t iteration = 0;; ++iteration) {
          const Literal* arg = &state;
          HLO_ASSIGN_OR_RETURN(Literal cond, runProgram(*step.callees[0], std::span(&arg, 1)));
          if (!cond.shape().isArray() || cond.type() != ElementType::kPred || cond.elementCount() != 1)
            return errorStatus("cpu: the condition of %" + instr.name() + " is not a pred scalar", instr.loc());
          if (cond.bitsAt(0) == 0) break;
          if (options_.maxWhileIterations > 0 && iteration >= options_.maxWhileIterations)
            return errorStatus("cpu: %" + instr.name() + " ran more than " +
                                   std::to_string(options_.maxWhileIterations) + " iterations (--max-while-iterations)",
                               instr.loc());
          HLO_ASSIGN_OR_RETURN(state, runProgram(*step.callees[1], std::span(&arg, 1)));
        }
        HLO_RETURN_IF_ERROR(own(v, std::move(state)));
        break;
      }
      case Step::Kind::kConditional: {
        const Literal& selector = *ops[0];
        int64_t n = static_cast<int64_t>(step.callees.size());
        int64_t branch;
        if (selector.type() == ElementType::kPred) {
          branch = selector.bitsAt(0) ? 0 : 1;
        } else {
          // An index out of range runs the last branch, as XLA does.
          branch = static_cast<int64_t>(selector.toDouble(0));
          if (branch < 0 || branch >= n) branch = n - 1;
        }
        const Literal* arg = ops[branch + 1];
        HLO_ASSIGN_OR_RETURN(Literal result, runProgram(*step.callees[branch], std::span(&arg, 1)));
        HLO_RETURN_IF_ERROR(own(v, std::move(result)));
        break;
      }
      case Step::Kind::kCall: {
        HLO_ASSIGN_OR_RETURN(Literal result, runProgram(*step.callees[0], ops));
        HLO_RETURN_IF_ERROR(own(v, std::move(result)));
        break;
      }
      case Step::Kind::kShared: {
        EngineHooks hooks{
            [&](const Computation&, Values callArgs) -> StatusOr<Literal> {
              if (step.callees.empty())
                return errorStatus("cpu: %" + instr.name() + " has no compiled computation to run", instr.loc());
              return runProgram(*step.callees[0], callArgs);
            },
            [](const Instruction& i, const std::string& why) {
              return errorStatus("cpu: " + std::string(opcodeName(i.opcode())) + " (%" + i.name() + "): " + why,
                                 i.loc());
            },
            room};
        HLO_ASSIGN_OR_RETURN(Literal result, step.shared(instr, ops, hooks));
        HLO_RETURN_IF_ERROR(own(v, std::move(result)));
        break;
      }
      case Step::Kind::kInterpreter: {
        interp::Options o;
        o.maxMemoryBytes = options_.maxMemoryBytes;
        o.maxWhileIterations = options_.maxWhileIterations;
        auto result = interp::evaluateInstruction(instr, ops, o);
        if (!result.ok()) return result.status();
        HLO_RETURN_IF_ERROR(own(v, std::move(result).value()));
        break;
      }
    }
    for (int dead : step.freeAfter) release(values[dead]);
  }
  Value& root = values[program.root];
  Literal result = root.owned ? std::move(*root.owned) : *root.view;
  for (Value& v : values) release(v);
  liveBytes_ = startBytes;
  return result;
}

StatusOr<Literal> CpuExecutable::run(std::span<const Literal> args) {
  const Computation& entry = *entry_->computation;
  if (static_cast<int>(args.size()) != entry.parameterCount())
    return errorStatus("cpu: ENTRY takes " + std::to_string(entry.parameterCount()) + " arguments, " +
                       std::to_string(args.size()) + " given");
  std::vector<const Literal*> pointers;
  for (int p = 0; p < entry.parameterCount(); ++p) {
    const Shape& want = entry.parameter(p)->shape();
    const Shape& got = args[p].shape();
    if (!got.compatible(want) && !(want.isArray() && got.isArray() && want.type() == got.type() &&
                                   want.dims() == got.dims()))
      return errorStatus("cpu: argument " + std::to_string(p) + " is " + got.toString(false) + " but parameter %" +
                         entry.parameter(p)->name() + " is " + want.toString(false));
    pointers.push_back(&args[p]);
  }
  liveBytes_ = 0;
  return runProgram(*entry_, pointers);
}

}  // namespace hlo::cpu
