// Shape inference for control flow and side effects: call, fusion, while,
// conditional, the async ops, copy-start/done, send/recv, infeed/outfeed,
// tokens and random numbers.
#include "hlo/shape_inference_internal.h"

namespace hlo::inference {
namespace {

std::string idx(int i) { return std::to_string(i); }

// Parameter i of `comp` has the shape of operand i (layouts and dynamism
// ignored, element types exact), for every parameter.
Status checkParams(const Ctx& c, const Computation* comp, int firstOperand, int count) {
  for (int i = 0; i < count; ++i) {
    const Instruction* p = comp->parameter(i);
    const Shape& arg = c.operand(firstOperand + i);
    if (!p) return c.error("computation '" + comp->name() + "' has no parameter " + idx(i));
    if (!compatibleShapes(p->shape(), arg, false))
      return c.error("operand " + idx(firstOperand + i) + " " + str(arg) +
                     " does not match parameter " + idx(i) + " " + str(p->shape()) + " of '" +
                     comp->name() + "'");
  }
  return okStatus();
}

Status expectToken(const Ctx& c, int i) {
  if (c.operand(i).isToken()) return okStatus();
  return c.error("operand " + idx(i) + " must be a token, got " + str(c.operand(i)));
}

// `(a, b, ...)` of the tuple element `i` of `s`, or null.
const Shape* element(const Shape& s, int i) {
  return s.isTuple() && i < s.tupleSize() ? &s.tupleElement(i) : nullptr;
}

// XLA's prefix relation for async states: `a` equals `b`, or is the empty
// tuple, or both are tuples and a's elements are prefixes of b's first ones.
bool isPrefix(const Shape& a, const Shape& b) {
  if (compatibleShapes(a, b, false)) return true;
  if (a.isTuple() && a.tupleSize() == 0) return true;
  if (!a.isTuple() || !b.isTuple() || a.tupleSize() > b.tupleSize()) return false;
  for (int i = 0; i < a.tupleSize(); ++i)
    if (!isPrefix(a.tupleElement(i), b.tupleElement(i))) return false;
  return true;
}

// The computation an async op wraps: its own `calls`, else the chain start's.
const Computation* asyncComputation(const Instruction* op) {
  for (int hops = 0; op && hops < 1000; ++hops) {
    if (const Computation* comp = op->attrs().getComputation(AttrKey::kCalls)) return comp;
    if (op->opcode() != Opcode::kAsyncUpdate && op->opcode() != Opcode::kAsyncDone) return nullptr;
    op = op->operandCount() > 0 ? op->operand(0) : nullptr;
  }
  return nullptr;
}

// async-start(operands...) -> ((operands...), result, context...).
StatusOr<Shape> inferAsyncStart(const Ctx& c) {
  const Computation* comp = asyncComputation(&c.instr);
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, comp, "calls"));
  if (c.operandCount() > comp->parameterCount())
    return c.error("has " + idx(c.operandCount()) + " operands but '" + comp->name() +
                   "' takes " + idx(comp->parameterCount()) + " parameters");
  HLO_RETURN_IF_ERROR(checkParams(c, comp, 0, c.operandCount()));
  std::vector<Shape> operands;
  for (int i = 0; i < c.operandCount(); ++i) operands.push_back(c.operand(i));
  std::vector<Shape> out = {Shape::tuple(operands), root};
  if (c.declared) {
    const Shape* result = element(*c.declared, 1);
    if (result && isPrefix(*result, root)) out[1] = *result;
    for (int i = 2; i < c.declared->tupleSize(); ++i) out.push_back(c.declared->tupleElement(i));
  }
  return Shape::tuple(std::move(out));
}

// async-update(state, new operands...): the state with the new operands bound.
StatusOr<Shape> inferAsyncUpdate(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected the async state operand");
  const Shape& state = c.operand(0);
  const Shape* bound = element(state, 0);
  if (!bound || !bound->isTuple() || state.tupleSize() < 2)
    return c.error("operand 0 must be an async state ((operands...), result, ...), got " +
                   str(state));
  if (!c.declared) {
    if (c.operandCount() == 1) return state;
    return c.cannotInfer();
  }
  const Shape* declaredBound = element(*c.declared, 0);
  if (!declaredBound || !declaredBound->isTuple() || c.declared->tupleSize() < 2)
    return c.error("result must be ((operands...), result, ...), got " + str(*c.declared));
  std::vector<Shape> operands = bound->tupleElements();
  for (int i = 1; i < c.operandCount(); ++i) operands.push_back(c.operand(i));
  if (!isPrefix(state.tupleElement(1), c.declared->tupleElement(1)))
    return c.error("result " + str(c.declared->tupleElement(1)) + " does not extend " +
                   str(state.tupleElement(1)));
  std::vector<Shape> out = {Shape::tuple(operands), c.declared->tupleElement(1)};
  for (int i = 2; i < c.declared->tupleSize(); ++i) out.push_back(c.declared->tupleElement(i));
  return Shape::tuple(std::move(out));
}

}  // namespace

StatusOr<Shape> inferCall(const Ctx& c) {
  const Computation* comp = c.attrs().getComputation(AttrKey::kToApply);
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, comp, "to_apply"));
  if (comp->parameterCount() != c.operandCount())
    return c.error("has " + idx(c.operandCount()) + " operands but '" + comp->name() +
                   "' takes " + idx(comp->parameterCount()) + " parameters");
  HLO_RETURN_IF_ERROR(checkParams(c, comp, 0, c.operandCount()));
  return root;
}

StatusOr<Shape> inferFusion(const Ctx& c) {
  const Computation* comp = c.attrs().getComputation(AttrKey::kCalls);
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, comp, "calls"));
  if (comp->parameterCount() > c.operandCount())
    return c.error("has " + idx(c.operandCount()) + " operands but '" + comp->name() +
                   "' takes " + idx(comp->parameterCount()) + " parameters");
  HLO_RETURN_IF_ERROR(checkParams(c, comp, 0, comp->parameterCount()));
  return root;
}

StatusOr<Shape> inferWhile(const Ctx& c) {
  const Computation* cond = c.attrs().getComputation(AttrKey::kCondition);
  const Computation* body = c.attrs().getComputation(AttrKey::kBody);
  HLO_ASSIGN_OR_RETURN(Shape condRoot, rootShape(c, cond, "condition"));
  HLO_ASSIGN_OR_RETURN(Shape bodyRoot, rootShape(c, body, "body"));
  if (cond->parameterCount() != 1 || body->parameterCount() != 1)
    return c.error("condition and body must take one parameter each");
  if (!condRoot.isScalar() || !isPred(condRoot.type()))
    return c.error("condition '" + cond->name() + "' must return pred[], returns " +
                   str(condRoot));
  HLO_RETURN_IF_ERROR(checkParams(c, cond, 0, 1));
  HLO_RETURN_IF_ERROR(checkParams(c, body, 0, 1));
  // The loop's value is the body's result. XLA's verifier does not require it
  // to equal the loop state, so neither do we.
  return bodyRoot;
}

// conditional(pred, true_operand, false_operand) with true/false_computation,
// or conditional(s32 index, operands...) with branch_computations.
StatusOr<Shape> inferConditional(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected a branch index operand");
  const Shape& index = c.operand(0);
  std::vector<Computation*> branches = c.attrs().conditionalBranches();
  bool isPredIndex = index.isScalar() && isPred(index.type());
  if (!isPredIndex && !(index.isScalar() && index.type() == ElementType::kS32))
    return c.error("branch index must be pred[] or s32[], got " + str(index));
  if (branches.empty() || (isPredIndex && branches.size() != 2))
    return c.error(isPredIndex ? "a pred index needs a true and a false computation"
                               : "expected at least one branch computation");
  if (c.operandCount() != static_cast<int>(branches.size()) + 1)
    return c.error("expected one operand per branch (" + idx(static_cast<int>(branches.size())) +
                   ") after the index, got " + idx(c.operandCount() - 1));
  HLO_ASSIGN_OR_RETURN(Shape result, rootShape(c, branches[0], "branch"));
  for (size_t j = 0; j < branches.size(); ++j) {
    HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, branches[j], "branch"));
    if (branches[j]->parameterCount() != 1)
      return c.error("branch '" + branches[j]->name() + "' must take one parameter");
    HLO_RETURN_IF_ERROR(checkParams(c, branches[j], static_cast<int>(j) + 1, 1));
    if (!compatibleShapes(root, result, false))
      return c.error("branches return different shapes: " + str(result) + " and " + str(root));
  }
  return result;
}

StatusOr<Shape> inferAsync(const Ctx& c) {
  if (c.op() == Opcode::kAsyncStart) return inferAsyncStart(c);
  if (c.op() == Opcode::kAsyncUpdate) return inferAsyncUpdate(c);
  if (const Computation* comp = asyncComputation(&c.instr)) return rootShape(c, comp, "calls");
  const Shape* result = element(c.operand(0), 1);
  if (!result) return c.error("operand must be an async state, got " + str(c.operand(0)));
  return *result;
}

StatusOr<Shape> inferCopyStartDone(const Ctx& c) {
  const Shape& x = c.operand(0);
  if (c.op() == Opcode::kCopyStart)
    return Shape::tuple({x, x, Shape::scalar(ElementType::kU32)});
  const Shape* dest = element(x, 0);
  const Shape* src = element(x, 1);
  if (!dest || !src || !compatibleShapes(*dest, *src, false))
    return c.error("operand must be a copy-start state (dest, src, context), got " + str(x));
  return *dest;
}

// send(data, token) -> (data, u32[], token[]); send-done -> token[];
// recv(token) -> (data, u32[], token[]); recv-done -> (data, token[]).
StatusOr<Shape> inferSendRecv(const Ctx& c) {
  Shape token = Shape::token();
  Shape context = Shape::scalar(ElementType::kU32);
  // Like XLA, the token operands are not checked here.
  if (c.op() == Opcode::kSend) return Shape::tuple({c.operand(0), context, token});
  if (c.op() == Opcode::kRecv) {
    if (!c.declared) return c.cannotInfer();
    const Shape* data = element(*c.declared, 0);
    if (!data) return c.error("result must be (data, u32[], token[]), got " + str(*c.declared));
    return Shape::tuple({*data, context, token});
  }
  if (c.op() == Opcode::kSendDone) return token;
  const Shape* data = element(c.operand(0), 0);
  if (!data) return c.error("operand must be a recv state, got " + str(c.operand(0)));
  return Shape::tuple({*data, token});
}

StatusOr<Shape> inferFeed(const Ctx& c) {
  if (c.op() == Opcode::kOutfeed) {
    HLO_RETURN_IF_ERROR(expectToken(c, 1));
    const AttrValue* v = c.attrs().find(AttrKey::kOutfeedShape);
    if (v && !v->shapes.empty() && !compatibleShapes(v->shapes[0], c.operand(0), false))
      return c.error("outfeed_shape " + str(v->shapes[0]) + " differs from the operand " +
                     str(c.operand(0)));
    return Shape::token();
  }
  HLO_RETURN_IF_ERROR(expectToken(c, 0));
  if (!c.declared) return c.cannotInfer();
  const Shape* data = element(*c.declared, 0);
  if (!data) return c.error("result must be (data, token[]), got " + str(*c.declared));
  return Shape::tuple({*data, Shape::token()});
}

StatusOr<Shape> inferTokenOp(const Ctx& c) {
  if (c.op() == Opcode::kAddDependency) {
    HLO_RETURN_IF_ERROR(expectToken(c, 1));
    return c.operand(0);
  }
  // after-all: XLA accepts any operands (they are ordering dependencies).
  return Shape::token();
}

StatusOr<Shape> inferRng(const Ctx& c) {
  if (c.op() == Opcode::kRngGetAndUpdateState) return Shape(ElementType::kU64, {2});
  if (c.op() == Opcode::kRngBitGenerator) {
    if (!c.operand(0).isArray()) return c.error("state must be an array, got " + str(c.operand(0)));
    if (!c.declared) return c.cannotInfer();
    const Shape* state = element(*c.declared, 0);
    if (c.declared->isTuple() &&
        (c.declared->tupleSize() != 2 || !compatibleShapes(*state, c.operand(0), false)))
      return c.error("result must be (state " + str(c.operand(0)) + ", bits), got " +
                     str(*c.declared));
    return *c.declared;
  }
  // rng(a, b) or, as StableHLO writes it, rng(a, b, result_dims).
  if (c.operandCount() != 2 && c.operandCount() != 3)
    return c.error("expected 2 operands, got " + idx(c.operandCount()));
  if (c.operandCount() == 3 && (c.operand(2).rank() != 1 || !isInteger(c.operand(2).type())))
    return c.error("the result dimensions must be an integer vector, got " + str(c.operand(2)));
  const Shape& a = c.operand(0);
  const Shape& b = c.operand(1);
  if (!a.isScalar() || !b.isScalar() || a.type() != b.type())
    return c.error("bounds must be scalars of one type, got " + str(a) + " and " + str(b));
  std::string_view dist = c.attrs().getString(AttrKey::kDistribution);
  if (dist == "rng_normal" && !isFloat(a.type()))
    return c.error("rng_normal needs floating-point parameters, got " + str(a));
  if (isComplex(a.type())) return c.error("rng does not support " + str(a));
  if (!c.declared) return c.cannotInfer();
  if (!c.declared->isArray() || !sameTypeIgnoringFp(c.declared->type(), a.type()))
    return c.error("result " + str(*c.declared) + " must have the type of the bounds " + str(a));
  return *c.declared;
}

}  // namespace hlo::inference
