// Shape inference for elementwise operations: unary, binary, select, clamp,
// the conversions, reduce-precision and map. HLO has no implicit broadcast:
// operands have the result's dimensions (select's predicate and clamp's
// bounds may be scalars).
#include <algorithm>
#include <initializer_list>

#include "hlo/shape_inference_internal.h"

namespace hlo::inference {
namespace {

bool isOneOf(Opcode op, std::initializer_list<Opcode> ops) {
  for (Opcode o : ops)
    if (o == op) return true;
  return false;
}

std::string typeName(ElementType t) { return std::string(elementTypeName(t)); }

Status expectArray(const Ctx& c, int i) {
  if (c.operand(i).isArray()) return okStatus();
  return c.error("operand " + std::to_string(i) + " must be an array, got " + str(c.operand(i)));
}

// The result dimensions of two same-rank operands: sizes from `a` (from `b`
// where `a` is unbounded), dynamic where either is.
Shape mergeDims(const Shape& a, const Shape& b, ElementType type) {
  Shape out = withType(a, type);
  for (int i = 0; i < a.rank(); ++i) {
    int64_t size = a.dim(i) == Shape::kUnboundedDim ? b.dim(i) : a.dim(i);
    out.setDim(i, size, a.isDynamicDim(i) || b.isDynamicDim(i));
  }
  return out;
}

// The element-type rule of a unary opcode; empty when the type is accepted.
std::string unaryTypeError(Opcode op, ElementType t) {
  bool fp = isFloat(t), cx = isComplex(t), in = isInteger(t);
  if (isOneOf(op, {Opcode::kFloor, Opcode::kCeil, Opcode::kErf, Opcode::kRoundNearestAfz,
                   Opcode::kRoundNearestEven, Opcode::kCbrt, Opcode::kIsFinite}))
    return fp ? "" : "a floating-point";
  if (isOneOf(op, {Opcode::kClz, Opcode::kPopulationCount})) return in ? "" : "an integer";
  if (op == Opcode::kNegate) return in || fp || cx ? "" : "a numeric";
  if (op == Opcode::kNot) return in || isPred(t) ? "" : "a pred or integer";
  if (isOneOf(op, {Opcode::kAbs, Opcode::kSign}))
    return isSigned(t) || fp || cx ? "" : "a signed, floating-point or complex";
  // The transcendental functions, real and imag.
  return fp || cx ? "" : "a floating-point or complex";
}

}  // namespace

StatusOr<Shape> inferUnary(const Ctx& c) {
  Opcode op = c.op();
  const Shape& x = c.operand(0);
  if (isOneOf(op, {Opcode::kCopy, Opcode::kDomain, Opcode::kOptimizationBarrier})) return x;
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  std::string need = unaryTypeError(op, x.type());
  if (!need.empty())
    return c.error("expected " + need + " operand, got " + typeName(x.type()));
  if (op == Opcode::kIsFinite) return withType(x, ElementType::kPred);
  if (isOneOf(op, {Opcode::kReal, Opcode::kImag, Opcode::kAbs}) && isComplex(x.type()))
    return withType(x, complexComponentType(x.type()));
  return x;
}

StatusOr<Shape> inferBinary(const Ctx& c) {
  Opcode op = c.op();
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  HLO_RETURN_IF_ERROR(expectArray(c, 1));
  const Shape& lhs = c.operand(0);
  const Shape& rhs = c.operand(1);
  ElementType t = lhs.type();
  if (!sameTypeIgnoringFp(t, rhs.type()))
    return c.error("operands have different element types " + typeName(t) + " and " +
                   typeName(rhs.type()));
  if (!sameDims(lhs, rhs))
    return c.error("operand shapes " + str(lhs) + " and " + str(rhs) +
                   " differ (HLO has no implicit broadcast)");
  bool noPred = isOneOf(op, {Opcode::kSubtract, Opcode::kAtan2, Opcode::kPower, Opcode::kDivide,
                             Opcode::kRemainder});
  if (noPred && isPred(t)) return c.error("expected numeric operands, got pred");
  if (op == Opcode::kAtan2 && !isFloat(t) && !isComplex(t))
    return c.error("expected floating-point or complex operands, got " + typeName(t));
  if (isOneOf(op, {Opcode::kShiftLeft, Opcode::kShiftRightArithmetic,
                   Opcode::kShiftRightLogical}) &&
      !isInteger(t))
    return c.error("expected integer operands, got " + typeName(t));
  if (isOneOf(op, {Opcode::kAnd, Opcode::kOr, Opcode::kXor}) && !isInteger(t) && !isPred(t))
    return c.error("expected pred or integer operands, got " + typeName(t));
  ElementType result = higherPrecision(t, rhs.type());
  if (op == Opcode::kComplex) {
    if (t == ElementType::kF32 && rhs.type() == t) result = ElementType::kC64;
    else if (t == ElementType::kF64 && rhs.type() == t) result = ElementType::kC128;
    else return c.error("expected f32 or f64 operands, got " + typeName(t));
  }
  if (op == Opcode::kCompare) {
    result = ElementType::kPred;
    // The order must be one XLA reads, fitting the operands
    // (comparisonTypeOf); a WEAK order is refused by the engines, not here.
    bool weak = c.attrs().getString(AttrKey::kOrder) == "WEAK";
    if (StatusOr<ComparisonType> type = comparisonTypeOf(c.attrs(), t); !type.ok() && !weak)
      return c.error(type.status().message());
  }
  return mergeDims(lhs, rhs, result);
}

StatusOr<Shape> inferSelect(const Ctx& c) {
  for (int i = 0; i < 3; ++i) HLO_RETURN_IF_ERROR(expectArray(c, i));
  const Shape& pred = c.operand(0);
  const Shape& onTrue = c.operand(1);
  const Shape& onFalse = c.operand(2);
  if (!isPred(pred.type()))
    return c.error("predicate must be pred, got " + typeName(pred.type()));
  if (!sameTypeIgnoringFp(onTrue.type(), onFalse.type()) || !sameDims(onTrue, onFalse))
    return c.error("branches " + str(onTrue) + " and " + str(onFalse) + " differ");
  if (!pred.isScalar() && !sameDims(pred, onTrue))
    return c.error("predicate " + str(pred) + " must be a scalar or have the shape of " +
                   str(onTrue));
  Shape out = mergeDims(onTrue, onFalse, higherPrecision(onTrue.type(), onFalse.type()));
  if (!pred.isScalar())
    for (int i = 0; i < out.rank(); ++i)
      if (pred.isDynamicDim(i)) out.setDim(i, out.dim(i), true);
  return out;
}

StatusOr<Shape> inferClamp(const Ctx& c) {
  for (int i = 0; i < 3; ++i) HLO_RETURN_IF_ERROR(expectArray(c, i));
  const Shape& min = c.operand(0);
  const Shape& x = c.operand(1);
  const Shape& max = c.operand(2);
  if (!sameTypeIgnoringFp(min.type(), x.type()) || !sameTypeIgnoringFp(max.type(), x.type()))
    return c.error("operands have different element types " + str(min) + ", " + str(x) + ", " +
                   str(max));
  if ((!min.isScalar() && !sameDims(min, x)) || (!max.isScalar() && !sameDims(max, x)))
    return c.error("bounds " + str(min) + " and " + str(max) +
                   " must be scalars or have the shape of " + str(x));
  return x;
}

StatusOr<Shape> inferConvert(const Ctx& c) {
  Opcode op = c.op();
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  if (!c.declared) return c.cannotInfer();
  ElementType to = c.declared->type();
  if (!isArrayType(to)) return c.error("result must be an array, got " + str(*c.declared));
  if (op == Opcode::kConvert) return withType(x, to);
  if (op == Opcode::kStochasticConvert) {
    HLO_RETURN_IF_ERROR(expectArray(c, 1));
    const Shape& random = c.operand(1);
    if (!isFloat(x.type())) return c.error("operand must be floating point, got " + str(x));
    if (!isUnsigned(random.type()) || bitWidth(random.type()) != bitWidth(x.type()))
      return c.error("random bits must be unsigned of " + std::to_string(bitWidth(x.type())) +
                     " bits, got " + str(random));
    if (!sameDims(x, random))
      return c.error("random bits " + str(random) + " must have the shape of " + str(x));
    return withType(x, to);
  }
  // bitcast-convert: the bits of each element are kept; a wider or narrower
  // type adds or removes a minor dimension holding the ratio.
  if (isComplex(x.type()) != isComplex(to))
    return c.error("cannot bitcast between complex and real types (" + str(x) + " to " +
                   typeName(to) + ")");
  auto storageBits = [](ElementType t) { return isPred(t) ? 8 : bitWidth(t); };
  int from = storageBits(x.type()), width = storageBits(to);
  if (std::max(from, width) % std::min(from, width) != 0)
    return c.error("cannot bitcast " + typeName(x.type()) + " to " + typeName(to) +
                   ": bit widths do not divide");
  Shape out = withType(x, to);
  if (from == width) return out;
  int64_t ratio = std::max(from, width) / std::min(from, width);
  std::vector<int64_t> dims = x.dims();
  std::vector<bool> dynamic = x.dynamicDims();
  if (from > width) {
    dims.push_back(ratio);
    dynamic.push_back(false);
    return makeArray(to, dims, dynamic);
  }
  if (x.rank() == 0 || dims.back() != ratio)
    return c.error("the minor dimension of " + str(x) + " must be " + std::to_string(ratio) +
                   " to bitcast to " + typeName(to));
  return deleteDim(out, x.rank() - 1);
}

StatusOr<Shape> inferReducePrecision(const Ctx& c) {
  const Shape& x = c.operand(0);
  if (!x.isArray() || !isFloat(x.type()))
    return c.error("operand must be floating point, got " + str(x));
  if (c.attrs().getInt(AttrKey::kExponentBits, 1) < 1)
    return c.error("exponent_bits must be at least 1");
  if (c.attrs().getInt(AttrKey::kMantissaBits, 0) < 0)
    return c.error("mantissa_bits must not be negative");
  return x;
}

StatusOr<Shape> inferMap(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected at least one operand");
  const Shape* shape = &c.operand(0);
  for (int i = 0; i < c.operandCount(); ++i) {
    HLO_RETURN_IF_ERROR(expectArray(c, i));
    const Shape& s = c.operand(i);
    if (sameDims(s, *shape)) continue;
    if (s.isScalar()) continue;
    if (shape->isScalar()) {
      shape = &s;
      continue;
    }
    return c.error("operands " + str(*shape) + " and " + str(s) + " must have the same shape");
  }
  const AttrValue* dims = c.attrs().find(AttrKey::kDimensions);
  // XLA maps over every dimension; the attribute, when written, says so
  // (or is empty).
  if (dims && !dims->ints.empty()) {
    bool identity = static_cast<int>(dims->ints.size()) == shape->rank();
    for (size_t i = 0; i < dims->ints.size(); ++i)
      identity = identity && dims->ints[i] == static_cast<int64_t>(i);
    if (!identity)
      return c.error("dimensions must be all of 0.." + std::to_string(shape->rank() - 1) +
                     " in order, got " + str(dims->ints));
  }
  const Computation* fn = c.attrs().getComputation(AttrKey::kToApply);
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, fn, "to_apply"));
  if (fn->parameterCount() != c.operandCount())
    return c.error("to_apply '" + fn->name() + "' takes " + std::to_string(fn->parameterCount()) +
                   " parameters, expected " + std::to_string(c.operandCount()));
  if (!root.isScalar()) return c.error("to_apply must return a scalar, got " + str(root));
  for (int i = 0; i < fn->parameterCount(); ++i) {
    const Instruction* p = fn->parameter(i);
    if (!p || !p->shape().isScalar() ||
        !sameTypeIgnoringFp(p->shape().type(), c.operand(i).type()))
      return c.error("parameter " + std::to_string(i) + " of to_apply must be a " +
                     typeName(c.operand(i).type()) + " scalar");
  }
  return makeArray(root.type(), shape->dims(), shape->dynamicDims());
}

}  // namespace hlo::inference
