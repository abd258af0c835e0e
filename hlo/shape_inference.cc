// Shape inference: the one switch over every opcode, and the helpers the
// per-family files (shape_inference_*.cc) share.
#include "hlo/shape_inference.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <string>

#include "hlo/shape_inference_internal.h"

namespace hlo {
namespace inference {

Status Ctx::error(const std::string& message) const {
  return errorStatus(std::string(opcodeName(op())) + " '" + instr.name() + "': " + message,
                     instr.loc());
}

Status Ctx::cannotInfer() const {
  return errorStatus("cannot infer the shape of " + std::string(opcodeName(op())) + " '" +
                         instr.name() + "': write it",
                     instr.loc());
}

Shape makeArray(ElementType type, const std::vector<int64_t>& dims,
                const std::vector<bool>& dynamic) {
  Shape s(type, dims);
  for (size_t i = 0; i < dims.size(); ++i)
    if (i < dynamic.size() && dynamic[i]) s.setDim(static_cast<int>(i), dims[i], true);
  return s;
}

Shape withType(Shape shape, ElementType type) {
  shape.setType(type);
  return shape;
}

Shape deleteDim(const Shape& shape, int dim) {
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int i = 0; i < shape.rank(); ++i) {
    if (i == dim) continue;
    dims.push_back(shape.dim(i));
    dynamic.push_back(shape.isDynamicDim(i));
  }
  return makeArray(shape.type(), dims, dynamic);
}

std::string str(const Shape& shape) { return shape.toString(/*withLayout=*/false); }

std::string str(const std::vector<int64_t>& ints) {
  std::string out = "{";
  for (size_t i = 0; i < ints.size(); ++i) out += (i ? "," : "") + std::to_string(ints[i]);
  return out + "}";
}

bool compatibleDim(int64_t a, int64_t b) {
  return a == b || a == Shape::kUnboundedDim || b == Shape::kUnboundedDim;
}

bool sameDims(const Shape& a, const Shape& b) {
  if (a.rank() != b.rank()) return false;
  for (int i = 0; i < a.rank(); ++i)
    if (!compatibleDim(a.dim(i), b.dim(i))) return false;
  return true;
}

bool sameTypeIgnoringFp(ElementType a, ElementType b) {
  return a == b || (isFloat(a) && isFloat(b));
}

bool compatibleShapes(const Shape& a, const Shape& b, bool ignoreFp) {
  if (a.type() != b.type() && !(ignoreFp && isFloat(a.type()) && isFloat(b.type())))
    return false;
  if (a.isTuple() || a.isBuffer()) {
    if (a.tupleSize() != b.tupleSize()) return false;
    for (int i = 0; i < a.tupleSize(); ++i)
      if (!compatibleShapes(a.tupleElement(i), b.tupleElement(i), ignoreFp)) return false;
    return true;
  }
  return sameDims(a, b);
}

ElementType higherPrecision(ElementType a, ElementType b) {
  if (a == b || !isFloat(a) || !isFloat(b)) return a;
  return bitWidth(b) > bitWidth(a) ? b : a;
}

bool validDimList(const std::vector<int64_t>& dims, int64_t rank) {
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

bool isPermutation(const std::vector<int64_t>& dims, int64_t rank) {
  return static_cast<int64_t>(dims.size()) == rank && validDimList(dims, rank);
}

int64_t replicaGroupSize(const Attributes& attrs) {
  const AttrValue* v = attrs.find(AttrKey::kReplicaGroups);
  if (!v) return -1;
  if (!v->intLists.empty()) return static_cast<int64_t>(v->intLists[0].size());
  // Iota form `[groups,size]<=[...]`.
  const std::string& s = v->s;
  if (s.size() < 2 || s[0] != '[') return -1;
  size_t close = s.find(']');
  size_t comma = s.find(',');
  if (close == std::string::npos || comma == std::string::npos || comma > close) return -1;
  if (s.compare(close + 1, 2, "<=") != 0) return -1;
  int64_t size = 0;
  auto [p, ec] = std::from_chars(s.data() + comma + 1, s.data() + close, size);
  if (ec != std::errc() || p != s.data() + close) return -1;
  return size;
}

StatusOr<Shape> rootShape(const Ctx& c, const Computation* comp, const char* role) {
  if (!comp) return c.error(std::string("has no ") + role + " computation");
  if (!comp->root()) return c.error("computation '" + comp->name() + "' has no root");
  return comp->root()->shape();
}

namespace {

// Operand count from the opcode table, for opcodes with a fixed arity.
Status checkArity(const Ctx& c) {
  int arity = opcodeArity(c.op());
  if (arity == kVariadic || c.operandCount() == arity) return okStatus();
  return c.error("expected " + std::to_string(arity) + " operand" + (arity == 1 ? "" : "s") +
                 ", got " + std::to_string(c.operandCount()));
}

// What only the text can say: the declared shape itself, or an error.
StatusOr<Shape> declaredOnly(const Ctx& c) {
  if (!c.declared) return c.cannotInfer();
  return *c.declared;
}

StatusOr<Shape> dispatch(const Ctx& c) {
  switch (c.op()) {
    case Opcode::kAbs:
    case Opcode::kAcos:
    case Opcode::kAcosh:
    case Opcode::kAsin:
    case Opcode::kAsinh:
    case Opcode::kAtan:
    case Opcode::kAtanh:
    case Opcode::kCbrt:
    case Opcode::kCeil:
    case Opcode::kClz:
    case Opcode::kCopy:
    case Opcode::kCos:
    case Opcode::kCosh:
    case Opcode::kDomain:
    case Opcode::kErf:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kFloor:
    case Opcode::kImag:
    case Opcode::kIsFinite:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kNegate:
    case Opcode::kNot:
    case Opcode::kOptimizationBarrier:
    case Opcode::kPopulationCount:
    case Opcode::kReal:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt:
    case Opcode::kSign:
    case Opcode::kSin:
    case Opcode::kSinh:
    case Opcode::kSqrt:
    case Opcode::kTan:
    case Opcode::kTanh:
      return inferUnary(c);
    case Opcode::kAdd:
    case Opcode::kAnd:
    case Opcode::kAtan2:
    case Opcode::kCompare:
    case Opcode::kComplex:
    case Opcode::kDivide:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kMulhi:
    case Opcode::kMultiply:
    case Opcode::kOr:
    case Opcode::kPower:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
    case Opcode::kSubtract:
    case Opcode::kXor:
      return inferBinary(c);
    case Opcode::kSelect:
      return inferSelect(c);
    case Opcode::kClamp:
      return inferClamp(c);
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
    case Opcode::kStochasticConvert:
      return inferConvert(c);
    case Opcode::kReducePrecision:
      return inferReducePrecision(c);
    case Opcode::kMap:
      return inferMap(c);

    case Opcode::kTuple:
      return inferTuple(c);
    case Opcode::kGetTupleElement:
      return inferGetTupleElement(c);
    case Opcode::kSlice:
      return inferSlice(c);
    case Opcode::kDynamicSlice:
      return inferDynamicSlice(c);
    case Opcode::kDynamicUpdateSlice:
      return inferDynamicUpdateSlice(c);
    case Opcode::kPad:
      return inferPad(c);
    case Opcode::kConcatenate:
      return inferConcatenate(c);
    case Opcode::kTranspose:
      return inferTranspose(c);
    case Opcode::kReverse:
      return inferReverse(c);
    case Opcode::kBroadcast:
      return inferBroadcast(c);
    case Opcode::kReshape:
      return inferReshape(c);
    case Opcode::kDynamicReshape:
      return inferDynamicReshape(c);
    case Opcode::kIota:
      return inferIota(c);
    case Opcode::kGetDimensionSize:
      return inferGetDimensionSize(c);
    case Opcode::kSetDimensionSize:
      return inferSetDimensionSize(c);
    case Opcode::kSort:
      return inferSort(c);
    case Opcode::kTopK:
      return inferTopK(c);
    case Opcode::kGather:
      return inferGather(c);
    case Opcode::kScatter:
      return inferScatter(c);

    case Opcode::kDot:
    case Opcode::kScaledDot:
      return inferDot(c);
    case Opcode::kRaggedDot:
      return inferRaggedDot(c);
    case Opcode::kConvolution:
      return inferConvolution(c);
    case Opcode::kFft:
      return inferFft(c);
    case Opcode::kTriangularSolve:
      return inferTriangularSolve(c);
    case Opcode::kCholesky:
      return inferCholesky(c);
    case Opcode::kBatchNormGrad:
    case Opcode::kBatchNormInference:
    case Opcode::kBatchNormTraining:
      return inferBatchNorm(c);
    case Opcode::kReduce:
      return inferReduce(c);
    case Opcode::kReduceWindow:
      return inferReduceWindow(c);
    case Opcode::kSelectAndScatter:
      return inferSelectAndScatter(c);
    case Opcode::kScan:
      return inferScan(c);

    case Opcode::kCall:
      return inferCall(c);
    case Opcode::kFusion:
      return inferFusion(c);
    case Opcode::kWhile:
      return inferWhile(c);
    case Opcode::kConditional:
      return inferConditional(c);
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return inferAsync(c);
    case Opcode::kCopyStart:
    case Opcode::kCopyDone:
      return inferCopyStartDone(c);
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
      return inferSendRecv(c);
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
      return inferFeed(c);
    case Opcode::kAfterAll:
    case Opcode::kAddDependency:
      return inferTokenOp(c);
    case Opcode::kRng:
    case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState:
      return inferRng(c);

    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return inferAllGather(c);
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
      return inferAllReduce(c);
    case Opcode::kReduceScatter:
      return inferReduceScatter(c);
    case Opcode::kAllToAll:
      return inferAllToAll(c);
    case Opcode::kRaggedAllToAll:
      return inferRaggedAllToAll(c);
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return inferCollectivePermute(c);
    case Opcode::kCollectiveBroadcast:
      return inferCollectiveBroadcast(c);
    case Opcode::kAllGatherDone:
    case Opcode::kAllReduceDone:
    case Opcode::kCollectivePermuteDone:
      return inferCollectiveDone(c);

    case Opcode::kParameter:
      return c.declared ? *c.declared : c.instr.shape();
    case Opcode::kConstant:
      if (c.instr.hasLiteral()) return c.instr.literal().shape();
      return c.declared ? *c.declared : c.instr.shape();
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      return Shape::scalar(ElementType::kU32);

    // Reinterpretations whose result only the text states; XLA checks nothing
    // more about them outside layout-sensitive passes.
    case Opcode::kBitcast:
    case Opcode::kCustomCall:
      return declaredOnly(c);
    // No semantics defined here yet: the declared shape is taken as written.
    case Opcode::kCollectiveReduce:
    case Opcode::kShuffle:
      return declaredOnly(c);
  }
  return c.error("unknown opcode");
}

StatusOr<Shape> infer(const Instruction& instr, const Shape* declared) {
  Ctx c{instr, declared};
  HLO_RETURN_IF_ERROR(checkArity(c));
  HLO_ASSIGN_OR_RETURN(Shape shape, dispatch(c));
  shape.clearLayout();
  return shape;
}

}  // namespace
}  // namespace inference

StatusOr<Shape> inferShape(const Instruction& instr) { return inference::infer(instr, nullptr); }

StatusOr<Shape> inferShapeGiven(const Instruction& instr, const Shape& declared) {
  return inference::infer(instr, &declared);
}

Status checkDeclaredShape(const Instruction& instr) {
  StatusOr<Shape> inferred = inferShapeGiven(instr, instr.shape());
  if (!inferred.ok()) return inferred.status().withLoc(instr.loc());
  if (!inferred->sameTypeAndDims(instr.shape()))
    return errorStatus(std::string(opcodeName(instr.opcode())) + " '" + instr.name() + "' is declared " +
                           instr.shape().toString(false) + " but its operands give " + inferred->toString(false),
                       instr.loc());
  return okStatus();
}

namespace {
bool sameDimensions(const Shape& a, const Shape& b) {
  if (a.dims() != b.dims() || a.tupleSize() != b.tupleSize()) return false;
  for (int i = 0; i < a.tupleSize(); ++i)
    if (!sameDimensions(a.tupleElement(i), b.tupleElement(i))) return false;
  return true;
}
}  // namespace

Status checkDeclaredDimensions(const Instruction& instr) {
  StatusOr<Shape> inferred = inferShapeGiven(instr, instr.shape());
  // A tuple of another size is a form the verifier accepts for some ops
  // (send's older (data, token) result): nothing to compare element by element.
  if (!inferred.ok() || inferred->tupleSize() != instr.shape().tupleSize() ||
      sameDimensions(*inferred, instr.shape()))
    return okStatus();
  return errorStatus(std::string(opcodeName(instr.opcode())) + " '" + instr.name() + "' is declared " +
                         instr.shape().toString(false) + " but its operands give " + inferred->toString(false),
                     instr.loc());
}

bool hasUnboundedDim(const Shape& shape) {
  for (int64_t d : shape.dims())
    if (d == Shape::kUnboundedDim) return true;
  for (const Shape& e : shape.tupleElements())
    if (hasUnboundedDim(e)) return true;
  return false;
}

Status checkDeclaredShape(Opcode op, const std::string& name, std::span<const Shape> operands,
                          const Attributes& attrs, const Shape& declared) {
  // Inference reads operands through instructions: parameters of a
  // computation of its own stand for them.
  Computation scratch(name);
  std::vector<Instruction*> params;
  for (size_t k = 0; k < operands.size(); ++k) {
    auto p = std::make_unique<Instruction>(Opcode::kParameter, "p" + std::to_string(k), operands[k]);
    p->setParameterNumber(static_cast<int64_t>(k));
    params.push_back(scratch.add(std::move(p)));
  }
  Instruction* instr = scratch.add(op, name, declared, params);
  instr->attrs() = attrs;
  return checkDeclaredShape(*instr);
}

}  // namespace hlo
