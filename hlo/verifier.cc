// The verifier.
//
// Algorithm:
//   1. Module: an entry computation that belongs to the module; the call
//      graph has no cycles and names only the module's computations.
//   2. Each computation: a root of its own; parameters numbered 0..n-1 with
//      no duplicates or holes; instruction names unique; every operand
//      defined earlier in the same computation; operand, user and control
//      lists that mirror each other.
//   3. Each instruction: the shape inference of hlo/shape_inference.h, given
//      the declared shape, agrees with the declared shape up to layouts and
//      dynamism. Shape inference also checks operand counts and types and the
//      signatures of called computations.
//   4. Asynchronous operations pair up (verifier_async.cc).
//
// What it leaves alone, as XLA's own verifier does outside layout-sensitive
// passes: layouts and memory spaces, bitcast and custom-call results, float
// precision differences between operands and results of arithmetic (mixed
// precision), and the declared shapes of send/recv, infeed/outfeed,
// after-all and add-dependency, which XLA's parser replaces by the inferred one.
#include "hlo/verifier.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "hlo/shape_inference.h"
#include "hlo/verifier_internal.h"

namespace hlo {
namespace {

std::string describe(const Instruction& instr) {
  return std::string(opcodeName(instr.opcode())) + " '" + instr.name() + "'";
}

Status instrError(const Instruction& instr, const std::string& message) {
  return errorStatus(describe(instr) + ": " + message, instr.loc());
}

bool contains(const std::vector<Instruction*>& v, const Instruction* x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// ---- structure -------------------------------------------------------------

Status checkCallGraph(const Module& module) {
  std::unordered_set<const Computation*> known;
  for (const auto& c : module.computations()) known.insert(c.get());
  if (!module.entry())
    return errorStatus("module '" + module.name() + "' has no entry computation");
  if (!known.count(module.entry()))
    return errorStatus("the entry computation of module '" + module.name() +
                       "' is not one of its computations");
  for (const auto& comp : module.computations())
    for (const auto& instr : comp->instructions())
      for (const Computation* callee : instr->calledComputations())
        if (!callee || !known.count(callee))
          return instrError(*instr, "calls a computation that is not in the module");
  // Depth-first search; state 1 = on the stack, 2 = done.
  std::unordered_map<const Computation*, int> state;
  std::vector<std::pair<const Computation*, std::vector<Computation*>>> stack;
  for (const auto& start : module.computations()) {
    if (state[start.get()]) continue;
    state[start.get()] = 1;
    stack.push_back({start.get(), {}});
    for (const auto& i : start->instructions())
      for (Computation* c : i->calledComputations()) stack.back().second.push_back(c);
    while (!stack.empty()) {
      auto& [comp, pending] = stack.back();
      if (pending.empty()) {
        state[comp] = 2;
        stack.pop_back();
        continue;
      }
      const Computation* next = pending.back();
      pending.pop_back();
      if (state[next] == 1)
        return errorStatus("computation '" + next->name() + "' calls itself", next->loc());
      if (state[next] == 2) continue;
      state[next] = 1;
      stack.push_back({next, {}});
      for (const auto& i : next->instructions())
        for (Computation* c : i->calledComputations()) stack.back().second.push_back(c);
    }
  }
  return okStatus();
}

Status checkParameters(const Computation& comp) {
  std::vector<const Instruction*> params;
  for (const auto& instr : comp.instructions())
    if (instr->opcode() == Opcode::kParameter) params.push_back(instr.get());
  std::vector<const Instruction*> byNumber(params.size(), nullptr);
  for (const Instruction* p : params) {
    int64_t n = p->parameterNumber();
    if (n < 0 || n >= static_cast<int64_t>(params.size()))
      return instrError(*p, "parameter number " + std::to_string(n) + " is out of range; '" +
                                comp.name() + "' has " + std::to_string(params.size()) +
                                " parameters, numbered from 0");
    if (byNumber[n])
      return instrError(*p, "parameter number " + std::to_string(n) + " is also used by '" +
                                byNumber[n]->name() + "'");
    byNumber[n] = p;
  }
  if (comp.parameterCount() != static_cast<int>(params.size()))
    return errorStatus("computation '" + comp.name() + "' lists " +
                           std::to_string(comp.parameterCount()) + " parameters but holds " +
                           std::to_string(params.size()),
                       comp.loc());
  for (size_t i = 0; i < params.size(); ++i)
    if (comp.parameter(static_cast<int>(i)) != byNumber[i])
      return errorStatus("computation '" + comp.name() + "' lists the wrong parameter " +
                             std::to_string(i),
                         comp.loc());
  return okStatus();
}

// `instr` is an instruction of `comp`.
bool owns(const Computation& comp, const Instruction* instr) {
  if (!instr || instr->parent() != &comp) return false;
  int64_t id = instr->id();
  return id >= 0 && id < comp.instructionCount() && comp.instructions()[id].get() == instr;
}

Status checkUseDef(const Computation& comp, const Instruction& instr) {
  for (int i = 0; i < instr.operandCount(); ++i) {
    const Instruction* op = instr.operand(i);
    if (!owns(comp, op))
      return instrError(instr, "operand " + std::to_string(i) + " is not an instruction of '" +
                                   comp.name() + "'");
    if (op->id() >= instr.id())
      return instrError(instr, "operand '" + op->name() + "' must be defined before its use");
    if (!contains(op->users(), &instr))
      return instrError(instr, "is not among the users of its operand '" + op->name() + "'");
  }
  for (const Instruction* user : instr.users()) {
    if (!owns(comp, user))
      return instrError(instr, "is used by " + (user ? "'" + user->name() + "'" : "null") +
                                   ", which is not an instruction of '" + comp.name() + "'");
    if (!contains(user->operands(), &instr))
      return instrError(instr, "lists a user '" + user->name() + "' that does not use it");
  }
  for (const Instruction* pred : instr.controlPredecessors())
    if (!owns(comp, pred) || !contains(pred->controlSuccessors(), &instr))
      return instrError(instr, "has a control predecessor that does not list it as successor");
  for (const Instruction* succ : instr.controlSuccessors())
    if (!owns(comp, succ) || !contains(succ->controlPredecessors(), &instr))
      return instrError(instr, "has a control successor that does not list it as predecessor");
  return okStatus();
}

Status checkComputation(const Computation& comp) {
  if (!comp.root()) return errorStatus("computation '" + comp.name() + "' has no root", comp.loc());
  if (!owns(comp, comp.root()))
    return errorStatus(
        "the root of computation '" + comp.name() + "' is not one of its instructions", comp.loc());
  HLO_RETURN_IF_ERROR(checkParameters(comp));
  std::unordered_set<std::string> names;
  for (const auto& p : comp.instructions()) {
    const Instruction& instr = *p;
    if (!owns(comp, &instr))
      return instrError(instr, "does not know its place in computation '" + comp.name() + "'");
    if (!names.insert(instr.name()).second)
      return instrError(instr, "the name is used twice in computation '" + comp.name() + "'");
    HLO_RETURN_IF_ERROR(checkUseDef(comp, instr));
  }
  return okStatus();
}

// ---- shapes ----------------------------------------------------------------

// How a declared shape is compared with the inferred one.
enum class Compare {
  kSkip,    // XLA's parser replaces the declared shape: only the operands are checked
  kExact,   // element types exact (data passes through unchanged)
  kMixed,   // floating-point precision may differ (XLA's mixed precision)
};

Compare compareMode(Opcode op) {
  switch (op) {
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
      return Compare::kSkip;
    case Opcode::kBitcast:
    case Opcode::kCall:
    case Opcode::kConditional:
    case Opcode::kConstant:
    case Opcode::kCopyDone:
    case Opcode::kCopyStart:
    case Opcode::kCustomCall:
    case Opcode::kFusion:
    case Opcode::kGetTupleElement:
    case Opcode::kOptimizationBarrier:
    case Opcode::kParameter:
    case Opcode::kTuple:
    case Opcode::kWhile:
      return Compare::kExact;
    case Opcode::kAbs:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAdd:
    case Opcode::kAllGather:
    case Opcode::kAllGatherDone:
    case Opcode::kAllGatherStart:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceDone:
    case Opcode::kAllReduceStart:
    case Opcode::kAllToAll:
    case Opcode::kAnd:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAsyncDone:
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAtan:
    case Opcode::kAtan2:
    case Opcode::kAtanh:
    case Opcode::kBatchNormGrad:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormTraining:
    case Opcode::kBitcastConvert:
    case Opcode::kBroadcast:
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kCholesky:
    case Opcode::kClamp:
    case Opcode::kClz:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectiveReduce:
    case Opcode::kCompare:
    case Opcode::kComplex:
    case Opcode::kConcatenate:
    case Opcode::kConvert:
    case Opcode::kConvolution:
    case Opcode::kCopy:
    case Opcode::kCos:
    case Opcode::kCosh:
    case Opcode::kDivide:
    case Opcode::kDomain:
    case Opcode::kDot:
    case Opcode::kDynamicReshape:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kErf:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kFft:
    case Opcode::kFloor:
    case Opcode::kGather:
    case Opcode::kGetDimensionSize:
    case Opcode::kImag:
    case Opcode::kIota:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kMap:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMulhi:
    case Opcode::kMultiply:
    case Opcode::kNegate:
    case Opcode::kNot:
    case Opcode::kOr:
    case Opcode::kPad:
    case Opcode::kPartitionId:
    case Opcode::kPopulationCount:
    case Opcode::kPower:
    case Opcode::kRaggedAllToAll:
    case Opcode::kRaggedDot:
    case Opcode::kReal:
    case Opcode::kReduce:
    case Opcode::kReducePrecision:
    case Opcode::kReduceScatter:
    case Opcode::kReduceWindow:
    case Opcode::kRemainder:
    case Opcode::kReplicaId:
    case Opcode::kReshape:
    case Opcode::kReverse:
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kScaledDot:
    case Opcode::kScan:
    case Opcode::kScatter:
    case Opcode::kSelect:
    case Opcode::kSelectAndScatter:
    case Opcode::kSetDimensionSize:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kShuffle:
    case Opcode::kSign:
    case Opcode::kSin:
    case Opcode::kSinh:
    case Opcode::kSlice:
    case Opcode::kSort:
    case Opcode::kSqrt:
    case Opcode::kStochasticConvert:
    case Opcode::kSubtract:
    case Opcode::kTan:
    case Opcode::kTanh:
    case Opcode::kTopK:
    case Opcode::kTranspose:
    case Opcode::kTriangularSolve:
    case Opcode::kXor:
      return Compare::kMixed;
  }
  return Compare::kMixed;
}

// Equal up to layouts and dynamism (an unbounded `?` matches any size);
// float element types may differ when `ignoreFp`.
bool shapesMatch(const Shape& declared, const Shape& inferred, bool ignoreFp) {
  ElementType a = declared.type(), b = inferred.type();
  if (a != b && !(ignoreFp && isFloat(a) && isFloat(b))) return false;
  if (declared.isTuple() || declared.isBuffer()) {
    if (declared.tupleSize() != inferred.tupleSize()) return false;
    for (int i = 0; i < declared.tupleSize(); ++i)
      if (!shapesMatch(declared.tupleElement(i), inferred.tupleElement(i), ignoreFp))
        return false;
    return true;
  }
  if (declared.rank() != inferred.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i) {
    int64_t x = declared.dim(i), y = inferred.dim(i);
    if (x != y && x != Shape::kUnboundedDim && y != Shape::kUnboundedDim) return false;
  }
  return true;
}

// A layout, where written, orders every dimension of its array.
Status checkLayouts(const Instruction& instr, const Shape& shape) {
  if (shape.isTuple()) {
    for (const Shape& e : shape.tupleElements()) HLO_RETURN_IF_ERROR(checkLayouts(instr, e));
    return okStatus();
  }
  if (!shape.isArray() || !shape.layout()) return okStatus();
  const std::vector<int64_t>& order = shape.layout()->minorToMajor;
  std::vector<bool> seen(shape.rank(), false);
  bool ok = static_cast<int>(order.size()) == shape.rank();
  for (int64_t d : order) {
    ok = ok && d >= 0 && d < shape.rank() && !seen[d];
    if (ok) seen[d] = true;
  }
  if (ok) return okStatus();
  return instrError(instr, "layout " + shape.layout()->toString() + " of " +
                               shape.toString(false) + " must order each of its " +
                               std::to_string(shape.rank()) + " dimensions once");
}

// An array's size in bytes, at its dimensions' bounds, fits in 64 bits (as
// XLA's shape validation asks): every size computed from the shape later
// (element counts, byte offsets, buffer plans) is then exact.
Status checkSize(const Instruction& instr, const Shape& shape) {
  if (shape.isTuple()) {
    for (const Shape& e : shape.tupleElements()) HLO_RETURN_IF_ERROR(checkSize(instr, e));
    return okStatus();
  }
  if (!shape.isArray()) return okStatus();
  int64_t bytes = (bitWidth(shape.type()) + 7) / 8;
  for (int64_t d : shape.dims())
    if (d > 0 && __builtin_mul_overflow(bytes, d, &bytes))
      return instrError(instr, "shape " + shape.toString(false) + " has more bytes than 64 bits can count");
  return okStatus();
}

Status checkShape(const Instruction& instr) {
  HLO_RETURN_IF_ERROR(checkSize(instr, instr.shape()));
  HLO_RETURN_IF_ERROR(checkLayouts(instr, instr.shape()));
  StatusOr<Shape> inferred = inferShapeGiven(instr, instr.shape());
  if (!inferred.ok()) return inferred.status().withLoc(instr.loc());
  Compare mode = compareMode(instr.opcode());
  if (mode == Compare::kSkip) return okStatus();
  if (shapesMatch(instr.shape(), *inferred, mode == Compare::kMixed)) return okStatus();
  return instrError(instr, "expected shape " + inferred->toString(false) + ", got " +
                               instr.shape().toString(false));
}

}  // namespace

Status verify(const Module& module) {
  HLO_RETURN_IF_ERROR(checkCallGraph(module));
  for (const auto& comp : module.computations()) HLO_RETURN_IF_ERROR(checkComputation(*comp));
  for (const auto& comp : module.computations())
    for (const auto& instr : comp->instructions()) HLO_RETURN_IF_ERROR(checkShape(*instr));
  return checkAsyncPairs(module);
}

}  // namespace hlo
