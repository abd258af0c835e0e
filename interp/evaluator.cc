// The interpreter's core: evaluates a computation instruction by instruction,
// dispatching each opcode to its op function (interp/ops.h).
#include "interp/evaluator.h"

#include <vector>

#include "hlo/custom_call_forms.h"
#include "interp/context.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

constexpr int kMaxCallDepth = 500;

StatusOr<Literal> evalParameter(const Instruction& instr, Operands params) {
  int64_t n = instr.parameterNumber();
  if (n < 0 || n >= static_cast<int64_t>(params.size()))
    return errorStatus("parameter " + std::to_string(n) + " has no argument", instr.loc());
  return *params[n];
}

StatusOr<Literal> evalConstant(const Instruction& instr) {
  if (!instr.hasLiteral()) return errorStatus("constant '" + instr.name() + "' has no value", instr.loc());
  if (instr.literal().elided())
    return EvalContext::unsupported(instr, "its values were left out of the text ({...})");
  Literal value = instr.literal();
  value.mutableShape() = instr.shape();
  return value;
}

StatusOr<Literal> evalTuple(Operands ops, const Instruction& instr) {
  Literal result(instr.shape());
  for (size_t i = 0; i < ops.size(); ++i) result.tupleElements()[i] = *ops[i];
  return result;
}

StatusOr<Literal> evalGetTupleElement(const Instruction& instr, Operands ops) {
  int64_t index = instr.attrs().getInt(AttrKey::kIndex);
  const Literal& tuple = *ops[0];
  if (index < 0 || index >= static_cast<int64_t>(tuple.tupleElements().size()))
    return errorStatus("get-tuple-element index out of range", instr.loc());
  return tuple.tupleElements()[index];
}

// A zero-sized value of token shape.
StatusOr<Literal> tokenValue(const Instruction& instr) { return Literal(instr.shape()); }

// Every opcode, one case each: no default, so a new opcode cannot be missed.
StatusOr<Literal> dispatchStatic(EvalContext& ctx, const Instruction& instr, Operands ops,
                                 Operands params) {
  switch (instr.opcode()) {
    case Opcode::kParameter: return evalParameter(instr, params);
    case Opcode::kConstant: return evalConstant(instr);
    case Opcode::kTuple: return evalTuple(ops, instr);
    case Opcode::kGetTupleElement: return evalGetTupleElement(instr, ops);

    case Opcode::kAbs: case Opcode::kAcos: case Opcode::kAcosh: case Opcode::kAdd:
    case Opcode::kAnd: case Opcode::kAsin: case Opcode::kAsinh: case Opcode::kAtan:
    case Opcode::kAtan2: case Opcode::kAtanh: case Opcode::kCbrt: case Opcode::kCeil:
    case Opcode::kClamp: case Opcode::kClz: case Opcode::kCompare: case Opcode::kComplex:
    case Opcode::kCos: case Opcode::kCosh: case Opcode::kDivide: case Opcode::kErf:
    case Opcode::kExp: case Opcode::kExpm1: case Opcode::kFloor: case Opcode::kImag:
    case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kMulhi: case Opcode::kMultiply:
    case Opcode::kNegate: case Opcode::kNot: case Opcode::kOr: case Opcode::kPopulationCount:
    case Opcode::kPower: case Opcode::kReal: case Opcode::kRemainder:
    case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven: case Opcode::kRsqrt:
    case Opcode::kSelect: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kSign: case Opcode::kSin: case Opcode::kSinh:
    case Opcode::kSqrt: case Opcode::kSubtract: case Opcode::kTan: case Opcode::kTanh:
    case Opcode::kXor:
      return evalElementwise(ctx, instr, ops);
    case Opcode::kConvert: return evalConvert(ctx, instr, ops);
    case Opcode::kBitcastConvert: return evalBitcastConvert(ctx, instr, ops);
    case Opcode::kReducePrecision: return evalReducePrecision(ctx, instr, ops);
    case Opcode::kStochasticConvert: return evalStochasticConvert(ctx, instr, ops);
    case Opcode::kMap: return evalMap(ctx, instr, ops);

    case Opcode::kBitcast: return evalBitcast(ctx, instr, ops);
    case Opcode::kBroadcast: return evalBroadcast(ctx, instr, ops);
    case Opcode::kConcatenate: return evalConcatenate(ctx, instr, ops);
    case Opcode::kCopy: return evalCopy(ctx, instr, ops);
    case Opcode::kDynamicSlice: return evalDynamicSlice(ctx, instr, ops);
    case Opcode::kDynamicUpdateSlice: return evalDynamicUpdateSlice(ctx, instr, ops);
    case Opcode::kDynamicReshape: return evalDynamicReshape(ctx, instr, ops);
    case Opcode::kGetDimensionSize: return evalGetDimensionSize(ctx, instr, ops);
    case Opcode::kSetDimensionSize: return evalSetDimensionSize(ctx, instr, ops);
    case Opcode::kGather: return evalGather(ctx, instr, ops);
    case Opcode::kScatter: return evalScatter(ctx, instr, ops);
    case Opcode::kIota: return evalIota(ctx, instr, ops);
    case Opcode::kPad: return evalPad(ctx, instr, ops);
    case Opcode::kReshape: return evalReshape(ctx, instr, ops);
    case Opcode::kReverse: return evalReverse(ctx, instr, ops);
    case Opcode::kSlice: return evalSlice(ctx, instr, ops);
    case Opcode::kSort: return evalSort(ctx, instr, ops);
    case Opcode::kTranspose: return evalTranspose(ctx, instr, ops);
    case Opcode::kTopK: return evalTopK(ctx, instr, ops);

    case Opcode::kReduce: return evalReduce(ctx, instr, ops);
    case Opcode::kReduceWindow: return evalReduceWindow(ctx, instr, ops);
    case Opcode::kSelectAndScatter: return evalSelectAndScatter(ctx, instr, ops);
    case Opcode::kScan: return evalShared(ctx, instr, ops);
    case Opcode::kDot: return evalDot(ctx, instr, ops);
    case Opcode::kRaggedDot: return evalRaggedDot(ctx, instr, ops);
    case Opcode::kScaledDot: return evalScaledDot(ctx, instr, ops);
    case Opcode::kConvolution: return evalConvolution(ctx, instr, ops);
    case Opcode::kFft: return evalFft(ctx, instr, ops);
    case Opcode::kTriangularSolve: return evalTriangularSolve(ctx, instr, ops);
    case Opcode::kCholesky: return evalCholesky(ctx, instr, ops);
    case Opcode::kBatchNormInference: return evalBatchNormInference(ctx, instr, ops);
    case Opcode::kBatchNormTraining: return evalBatchNormTraining(ctx, instr, ops);
    case Opcode::kBatchNormGrad: return evalBatchNormGrad(ctx, instr, ops);
    case Opcode::kRng: return evalShared(ctx, instr, ops);
    case Opcode::kRngBitGenerator: return evalShared(ctx, instr, ops);
    case Opcode::kRngGetAndUpdateState: return evalShared(ctx, instr, ops);

    case Opcode::kCall: return evalCall(ctx, instr, ops);
    case Opcode::kFusion: return evalCall(ctx, instr, ops);
    case Opcode::kWhile: return evalWhile(ctx, instr, ops);
    case Opcode::kConditional: return evalConditional(ctx, instr, ops);
    case Opcode::kAsyncStart: return evalShared(ctx, instr, ops);
    case Opcode::kAsyncUpdate: return evalShared(ctx, instr, ops);
    case Opcode::kAsyncDone: return evalShared(ctx, instr, ops);
    case Opcode::kCopyStart: return evalShared(ctx, instr, ops);
    case Opcode::kCopyDone: return evalShared(ctx, instr, ops);
    case Opcode::kCustomCall: {
      std::optional<KnownCustomCall> known = knownCustomCall(instr);
      if (!known) return evalShared(ctx, instr, ops);
      switch (known->form) {
        case CustomCallForm::kTopK: return evalTopKCall(ctx, instr, ops);
        case CustomCallForm::kCudnnConvForward: return evalCudnnConvForward(ctx, instr, ops);
        case CustomCallForm::kBlockScaledDot: return evalBlockScaledDotCall(ctx, instr, ops);
        case CustomCallForm::kBuilderMath: return evalBuilderMathCall(ctx, instr, ops);
        case CustomCallForm::kLapack: return evalLapackCall(ctx, instr, ops);
      }
      return evalShared(ctx, instr, ops);
    }
    case Opcode::kOptimizationBarrier: return *ops[0];
    case Opcode::kAddDependency: return *ops[0];
    case Opcode::kDomain: return *ops[0];
    case Opcode::kAfterAll: return tokenValue(instr);
    case Opcode::kPartitionId: return evalShared(ctx, instr, ops);
    case Opcode::kReplicaId: return evalShared(ctx, instr, ops);

    case Opcode::kAllReduce: return evalShared(ctx, instr, ops);
    case Opcode::kAllReduceStart: return evalShared(ctx, instr, ops);
    case Opcode::kAllGather: return evalShared(ctx, instr, ops);
    case Opcode::kAllGatherStart: return evalShared(ctx, instr, ops);
    case Opcode::kReduceScatter: return evalShared(ctx, instr, ops);
    case Opcode::kAllToAll: return evalShared(ctx, instr, ops);
    case Opcode::kCollectivePermute: return evalShared(ctx, instr, ops);
    case Opcode::kCollectivePermuteStart: return evalShared(ctx, instr, ops);
    case Opcode::kCollectiveBroadcast: return evalShared(ctx, instr, ops);
    case Opcode::kAllReduceDone: return evalShared(ctx, instr, ops);
    case Opcode::kAllGatherDone: return evalShared(ctx, instr, ops);
    case Opcode::kCollectivePermuteDone: return evalShared(ctx, instr, ops);

    // No meaning on a single device, or no defined semantics here: refused
    // with the reason hlo/single_device.h gives.
    case Opcode::kCollectiveReduce:
    case Opcode::kRaggedAllToAll:
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kShuffle:
      return evalShared(ctx, instr, ops);
  }
  return EvalContext::unsupported(instr);
}

// Values with runtime sizes go through interp/dynamic.cc's rules first.
StatusOr<Literal> dispatch(EvalContext& ctx, const Instruction& instr, Operands ops, Operands params) {
  if (takesDynamicRules(instr, ops)) return evalWithDynamicSizes(ctx, instr, ops);
  return dispatchStatic(ctx, instr, ops, params);
}

}  // namespace

StatusOr<Literal> evalStaticOp(EvalContext& ctx, const Instruction& instr, Operands ops) {
  return dispatchStatic(ctx, instr, ops, /*params=*/{});
}

int64_t shapeBytes(const Shape& shape) {
  if (shape.isTuple()) {
    int64_t total = 0;
    for (const Shape& e : shape.tupleElements()) total += shapeBytes(e);
    return total;
  }
  if (!shape.isArray()) return 0;
  return shape.elementCount() * storageBytes(shape.type());
}

Status EvalContext::unsupported(const Instruction& instr, const std::string& why) {
  std::string message = "unsupported: " + std::string(opcodeName(instr.opcode())) + " in '" +
                        instr.name() + "'";
  if (instr.loc().known()) message += " (line " + std::to_string(instr.loc().line) + ")";
  if (!why.empty()) message += ": " + why;
  return errorStatus(message, instr.loc());
}

Status EvalContext::checkMemory(int64_t bytes, const Instruction& forInstr) const {
  if (bytes < 0 || liveBytes_ + bytes > options_.maxMemoryBytes)
    return errorStatus("'" + forInstr.name() + "' needs " + std::to_string(bytes) +
                           " bytes, which would exceed the memory limit of " +
                           std::to_string(options_.maxMemoryBytes) + " bytes (--max-memory)",
                       forInstr.loc());
  return okStatus();
}

StatusOr<Literal> EvalContext::allocate(const Shape& shape, const Instruction& forInstr) {
  HLO_RETURN_IF_ERROR(checkMemory(shapeBytes(shape), forInstr));
  return Literal(shape);
}

StatusOr<Literal> EvalContext::call(const Computation& computation, Operands args) {
  if (static_cast<int>(args.size()) != computation.parameterCount())
    return errorStatus("computation '" + computation.name() + "' takes " +
                       std::to_string(computation.parameterCount()) + " arguments but got " +
                       std::to_string(args.size()), computation.loc());
  if (const ScalarProgram* program = scalarPrograms_.get(computation))
    if (std::optional<Literal> result = program->run(args)) return std::move(*result);
  if (depth_ >= kMaxCallDepth)
    return errorStatus("calls nested deeper than " + std::to_string(kMaxCallDepth), computation.loc());
  ++depth_;
  const auto& instrs = computation.instructions();
  // values[i] holds what instruction i computed; slots[i] points at its value:
  // into `values`, or straight at the caller's argument for a parameter, so
  // arguments are read in place rather than copied.
  if (static_cast<int>(frames_.size()) < depth_) frames_.push_back(std::make_unique<Frame>());
  Frame& frame = *frames_[depth_ - 1];
  std::vector<Literal>& values = frame.values;
  std::vector<const Literal*>& slots = frame.slots;
  std::vector<int64_t>& bytes = frame.bytes;
  std::vector<int>& uses = frame.uses;
  std::vector<const Literal*>& operands = frame.operands;
  values.clear();
  values.resize(instrs.size());
  slots.assign(instrs.size(), nullptr);
  bytes.assign(instrs.size(), 0);
  // Remaining uses per value, so dead values are freed as soon as possible.
  const std::vector<int>& counts = useCounts(computation);
  uses.assign(counts.begin(), counts.end());
  Status failure;
  auto shapeMismatch = [](const Instruction& instr, const Shape& produced) {
    return errorStatus("internal error: " + std::string(opcodeName(instr.opcode())) + " '" + instr.name() +
                           "' produced " + produced.toString(false) + " but its shape is " +
                           instr.shape().toString(false),
                       instr.loc());
  };
  auto fits = [](const Shape& produced, const Shape& declared) {
    return produced.compatible(declared) ||
           (produced.isArray() && declared.isArray() && produced.type() == declared.type() &&
            produced.dims() == declared.dims());
  };
  for (const auto& instr : instrs) {
    int id = instr->id();
    if (instr->opcode() == Opcode::kParameter) {
      int64_t n = instr->parameterNumber();
      if (n < 0 || n >= static_cast<int64_t>(args.size())) {
        failure = errorStatus("parameter " + std::to_string(n) + " has no argument", instr->loc());
        break;
      }
      if (!fits(args[n]->shape(), instr->shape())) {
        failure = shapeMismatch(*instr, args[n]->shape());
        break;
      }
      slots[id] = args[n];
      continue;
    }
    operands.clear();
    for (const Instruction* op : instr->operands()) operands.push_back(slots[op->id()]);
    int64_t need = shapeBytes(instr->shape());
    Status memory = checkMemory(need, *instr);
    if (!memory.ok()) {
      failure = memory;
      break;
    }
    StatusOr<Literal> result = dispatch(*this, *instr, Operands(operands.data(), operands.size()), args);
    if (!result.ok()) {
      failure = result.status().withLoc(instr->loc());
      break;
    }
    if (!fits(result->shape(), instr->shape())) {
      failure = shapeMismatch(*instr, result->shape());
      break;
    }
    values[id] = std::move(result).value();
    slots[id] = &values[id];
    bytes[id] = need;
    addLive(need);
    for (const Instruction* op : instr->operands()) {
      if (--uses[op->id()] == 0 && op != computation.root() && op->opcode() != Opcode::kParameter) {
        values[op->id()] = Literal();
        removeLive(bytes[op->id()]);
        bytes[op->id()] = 0;
      }
    }
  }
  for (int64_t b : bytes) removeLive(b);
  --depth_;
  Literal result;
  if (failure.ok()) {
    const Instruction* root = computation.root();
    result = root->opcode() == Opcode::kParameter ? *slots[root->id()] : std::move(values[root->id()]);
  }
  values.clear();  // frees what is left; the frame keeps only its capacity
  if (!failure.ok()) return failure;
  return result;
}

const std::vector<int>& EvalContext::useCounts(const Computation& computation) {
  auto [it, inserted] = useCounts_.try_emplace(&computation);
  if (inserted) {
    it->second.assign(computation.instructions().size(), 0);
    for (const auto& instr : computation.instructions())
      for (const Instruction* op : instr->operands()) ++it->second[op->id()];
  }
  return it->second;
}

StatusOr<Literal> evaluateInstruction(const Instruction& instr, Operands operands,
                                      const Options& options) {
  if (static_cast<int>(operands.size()) != instr.operandCount())
    return errorStatus("'" + instr.name() + "' has " + std::to_string(instr.operandCount()) +
                           " operands but " + std::to_string(operands.size()) + " values were given",
                       instr.loc());
  EvalContext ctx(options);
  HLO_RETURN_IF_ERROR(ctx.checkMemory(shapeBytes(instr.shape()), instr));
  return dispatch(ctx, instr, operands, /*params=*/{});
}

StatusOr<Literal> evaluate(const Module& module, std::span<const Literal> args, const Options& options,
                           RunStats* stats) {
  const Computation* entry = module.entry();
  if (!entry) return errorStatus("the module has no entry computation");
  if (static_cast<int>(args.size()) != entry->parameterCount())
    return errorStatus("the entry computation takes " + std::to_string(entry->parameterCount()) +
                       " arguments but " + std::to_string(args.size()) + " were given");
  for (int i = 0; i < entry->parameterCount(); ++i) {
    const Shape& want = entry->parameter(i)->shape();
    if (!args[i].shape().compatible(want))
      return errorStatus("argument " + std::to_string(i) + " has shape " +
                         args[i].shape().toString(false) + " but parameter '" +
                         entry->parameter(i)->name() + "' is " + want.toString(false));
    // Runtime sizes only in dimensions the parameter declares dynamic (`<=`).
    for (int d = 0; d < want.rank() && args[i].hasDynamicSizes(); ++d)
      if (args[i].isDynamicDim(d) && !want.isDynamicDim(d))
        return errorStatus("argument " + std::to_string(i) + " has a runtime size in dimension " +
                           std::to_string(d) + ", which parameter '" + entry->parameter(i)->name() +
                           "' declares static (" + want.toString(false) + ")");
  }
  EvalContext ctx(options);
  std::vector<const Literal*> pointers;
  for (const Literal& a : args) pointers.push_back(&a);
  StatusOr<Literal> result = ctx.call(*entry, pointers);
  if (stats) stats->peakLiveBytes = ctx.peakLiveBytes();
  return result;
}

}  // namespace hlo::interp
