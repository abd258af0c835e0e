// Interpreter ops: elementwise math, compare, select, clamp and complex.
//
// Algorithm, per instruction:
//   1. Operands whose float type differs from the working type (HLO allows
//      mixed float precision) are converted to it first.
//   2. The element type is dispatched once (visitType) and the opcode once
//      (interp/elementwise_ops.h), selecting one typed loop that applies
//      the scalar semantics of interp/scalar_ops.h to every element.
// Storage and types are checked before a loop runs, so a module that skipped
// the verifier gets an error rather than a read past the end of an array.
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "hlo/builder_math_call.h"
#include "interp/elementwise_kernels.h"
#include "interp/elementwise_ops.h"
#include "interp/ops.h"
#include "interp/scalar_ops.h"

namespace hlo::interp {
namespace {

namespace s = scalar;
using s::Family;
using Operand = const Literal*;

std::string typeName(ElementType t) { return std::string(elementTypeName(t)); }

Status typeError(const Instruction& instr) {
  ElementType t =
      instr.operandCount() > 0 ? instr.operand(0)->shape().type() : instr.shape().type();
  return EvalContext::unsupported(instr, "not defined for " + typeName(t) + " operands");
}

Status sizeError(const Instruction& instr, const Literal& operand) {
  return errorStatus("'" + instr.name() + "': operand " + operand.shape().toString(false) +
                         " does not fit result " + instr.shape().toString(false),
                     instr.loc());
}

// Checks that every operand is an array with the result's element count, or
// (where `scalarAllowed` says so) a scalar to broadcast.
Status checkSizes(const Instruction& instr, std::initializer_list<Operand> operands,
                  std::initializer_list<bool> scalarAllowed = {}) {
  int64_t n = instr.shape().elementCount();
  auto allowed = scalarAllowed.begin();
  for (Operand op : operands) {
    bool scalarOk = allowed != scalarAllowed.end() && *allowed++;
    if (!op->shape().isArray() || op->elided() ||
        (op->elementCount() != n && !(scalarOk && op->shape().isScalar())))
      return sizeError(instr, *op);
  }
  return okStatus();
}

// `operand` as type `t`: itself, or converted into `holder` (HLO allows
// operands of mixed float precision).
Operand asType(Operand operand, ElementType t, std::optional<Literal>& holder) {
  if (operand->type() == t) return operand;
  holder = convertElements(*operand, t);
  return &*holder;
}

// Runs kernel(operands, out) in compute types: small float operands are
// widened to f32 (exactly) and a small float result is computed in f32 and
// then rounded once into its type, as XLA's evaluator computes them.
template <typename Kernel>
StatusOr<Literal> inComputeTypes(EvalContext& ctx, const Instruction& instr,
                                 std::vector<Operand> operands, Kernel kernel) {
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  std::vector<Literal> widened;
  widened.reserve(operands.size());
  for (Operand& op : operands) {
    if (!isSmallFloat(op->type())) continue;
    HLO_RETURN_IF_ERROR(ctx.checkMemory(op->elementCount() * 4, instr));
    widened.push_back(convertElements(*op, ElementType::kF32));
    op = &widened.back();
  }
  if (!isSmallFloat(out.type())) {
    HLO_RETURN_IF_ERROR(kernel(operands, out));
    return out;
  }
  Shape wideShape = out.shape();
  wideShape.setType(ElementType::kF32);
  HLO_RETURN_IF_ERROR(ctx.checkMemory(shapeBytes(wideShape), instr));
  Literal wide(wideShape);
  HLO_RETURN_IF_ERROR(kernel(operands, wide));
  Literal narrowed = convertElements(wide, out.type());
  narrowed.mutableShape() = out.shape();
  return narrowed;
}

template <class Op>
StatusOr<Literal> unary(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkSizes(instr, {ops[0]}));
  return inComputeTypes(ctx, instr, {ops[0]}, [&](const std::vector<Operand>& in, Literal& out) {
    const Literal& x = *in[0];
    return visitType(x.type(), [&](auto elem) -> Status {
      using E = decltype(elem);
      if constexpr (!isComputeElem<E>) {
        return typeError(instr);
      } else if constexpr (!Op::template kAccepts<typename E::Kind>) {
        return typeError(instr);
      } else {
        using K = typename E::Kind;
        using Out = typename UnaryOut<E, Op::kResult>::type;
        if (out.type() != Out::kType) return sizeError(instr, x);
        unaryLoop<E, Out>(x, out, [](typename E::Value v) { return Op::template apply<K>(v); });
        return okStatus();
      }
    });
  });
}

// Arithmetic and bitwise binary ops: operands and result of one type.
template <class Op>
StatusOr<Literal> binary(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkSizes(instr, {ops[0], ops[1]}));
  ElementType t = instr.shape().type();
  std::optional<Literal> holdA, holdB;
  std::vector<Operand> operands = {asType(ops[0], t, holdA), asType(ops[1], t, holdB)};
  return inComputeTypes(ctx, instr, operands, [&](const std::vector<Operand>& in, Literal& out) {
    return visitType(out.type(), [&](auto elem) -> Status {
      using E = decltype(elem);
      if constexpr (!isComputeElem<E>) {
        return typeError(instr);
      } else if constexpr (!Op::template kAccepts<typename E::Kind>) {
        return typeError(instr);
      } else {
        using K = typename E::Kind;
        using Value = typename E::Value;
        binaryLoop<E, E>(*in[0], *in[1], out,
                         [](Value x, Value y) { return Op::template apply<K>(x, y); });
        return okStatus();
      }
    });
  });
}

// Operands of different float types compare in the wider one.
ElementType compareType(ElementType a, ElementType b) {
  if (a == b || !isFloat(a) || !isFloat(b)) return a;
  return bitWidth(b) > bitWidth(a) ? b : a;
}

// TOTALORDER: compares the float bit patterns of `a` and `b` (one type) by
// scalar::totalOrderKey.
void compareTotalOrder(ComparisonDirection direction, const Literal& a, const Literal& b,
                       Literal& out) {
  ElementType t = a.type();
  int width = bitWidth(t);
  bool signBit = t != ElementType::kF8E8M0FNU;
  uint8_t* z = out.data<uint8_t>();
  s::withDirection(direction, [&](auto cmp) {
    for (int64_t i = 0; i < out.elementCount(); ++i)
      z[i] = cmp(s::totalOrderKey(a.bitsAt(i), width, signBit),
                 s::totalOrderKey(b.bitsAt(i), width, signBit));
  });
}

// compare: FLOAT compares values (NaN is unordered: only NE holds for it),
// TOTALORDER compares float bit patterns; integers compare as their type is
// signed or not, pred as false < true; complex has only EQ and NE.
StatusOr<Literal> compare(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkSizes(instr, {ops[0], ops[1]}));
  std::optional<ComparisonDirection> direction =
      parseComparisonDirection(instr.attrs().getString(AttrKey::kDirection));
  if (!direction) return errorStatus("'" + instr.name() + "' needs a direction", instr.loc());
  ElementType t = compareType(ops[0]->type(), ops[1]->type());
  StatusOr<ComparisonType> type = comparisonTypeOf(instr.attrs(), t);
  if (!type.ok()) return EvalContext::unsupported(instr, type.status().message());
  if (instr.shape().type() != ElementType::kPred) return sizeError(instr, *ops[0]);
  std::optional<Literal> holdA, holdB;
  std::vector<Operand> operands = {asType(ops[0], t, holdA), asType(ops[1], t, holdB)};
  if (*type == ComparisonType::kTotalOrder && isFloat(t)) {
    HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
    compareTotalOrder(*direction, *operands[0], *operands[1], out);
    return out;
  }
  return inComputeTypes(ctx, instr, operands, [&](const std::vector<Operand>& in, Literal& out) {
    return visitType(in[0]->type(), [&](auto elem) -> Status {
      using E = decltype(elem);
      using Value = typename E::Value;
      if constexpr (!isComputeElem<E>) {
        return typeError(instr);
      } else if constexpr (familyOf<E> == Family::kComplex) {
        bool eq = *direction == ComparisonDirection::kEq;
        if (!eq && *direction != ComparisonDirection::kNe)
          return EvalContext::unsupported(instr, "complex values compare only with EQ and NE");
        binaryLoop<E, PredElem>(*in[0], *in[1], out,
                                [eq](Value x, Value y) { return (x == y) == eq; });
        return okStatus();
      } else {
        s::withDirection(*direction, [&](auto cmp) {
          binaryLoop<E, PredElem>(*in[0], *in[1], out,
                                  [cmp](Value x, Value y) { return cmp(x, y); });
        });
        return okStatus();
      }
    });
  });
}

// select(pred, on_true, on_false) copies storage; the predicate may be a scalar.
template <typename S>
void selectLoop(const Literal& p, const Literal& onTrue, const Literal& onFalse, Literal& out) {
  const uint8_t* c = p.data<uint8_t>();
  const S* x = onTrue.data<S>();
  const S* y = onFalse.data<S>();
  S* z = out.data<S>();
  int64_t step = strideOf(p, out);
  for (int64_t i = 0, n = out.elementCount(); i < n; ++i) z[i] = c[i * step] ? x[i] : y[i];
}

StatusOr<Literal> select(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkSizes(instr, {ops[0], ops[1], ops[2]}, {true, false, false}));
  ElementType t = instr.shape().type();
  if (ops[0]->type() != ElementType::kPred || !isArrayType(t)) return typeError(instr);
  std::optional<Literal> holdT, holdF;
  Operand onTrue = asType(ops[1], t, holdT);
  Operand onFalse = asType(ops[2], t, holdF);
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  switch (storageBytes(t)) {
    case 1: selectLoop<uint8_t>(*ops[0], *onTrue, *onFalse, out); break;
    case 2: selectLoop<uint16_t>(*ops[0], *onTrue, *onFalse, out); break;
    case 4: selectLoop<uint32_t>(*ops[0], *onTrue, *onFalse, out); break;
    case 8: selectLoop<uint64_t>(*ops[0], *onTrue, *onFalse, out); break;
    case 16: selectLoop<std::complex<double>>(*ops[0], *onTrue, *onFalse, out); break;
    default: return typeError(instr);
  }
  return out;
}

// clamp(min, x, max); the bounds may be scalars.
StatusOr<Literal> clamp(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkSizes(instr, {ops[0], ops[1], ops[2]}, {true, false, true}));
  ElementType t = instr.shape().type();
  std::optional<Literal> holdLo, holdX, holdHi;
  std::vector<Operand> operands = {asType(ops[0], t, holdLo), asType(ops[1], t, holdX),
                                   asType(ops[2], t, holdHi)};
  return inComputeTypes(ctx, instr, operands, [&](const std::vector<Operand>& in, Literal& out) {
    return visitType(out.type(), [&](auto elem) -> Status {
      using E = decltype(elem);
      if constexpr (!isComputeElem<E>) {
        return typeError(instr);
      } else if constexpr (!s::Clamp::kAccepts<typename E::Kind>) {
        return typeError(instr);
      } else {
        using K = typename E::Kind;
        using Value = typename E::Value;
        ternaryLoop<E>(*in[0], *in[1], *in[2], out,
                       [](Value lo, Value x, Value hi) { return s::Clamp::apply<K>(lo, x, hi); });
        return okStatus();
      }
    });
  });
}

// complex(real, imag): f32 pairs make c64, f64 pairs c128.
StatusOr<Literal> makeComplex(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkSizes(instr, {ops[0], ops[1]}));
  ElementType t = instr.shape().type();
  ElementType part = t == ElementType::kC64 ? ElementType::kF32 : ElementType::kF64;
  if (!isComplex(t) || ops[0]->type() != part || ops[1]->type() != part) return typeError(instr);
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  auto run = [&](auto partElem, auto wholeElem) {
    using Part = decltype(partElem);
    using F = typename Part::Value;
    binaryLoop<Part, decltype(wholeElem)>(*ops[0], *ops[1], out,
                                          [](F re, F im) { return std::complex<F>(re, im); });
  };
  if (t == ElementType::kC64)
    run(FloatElem<ElementType::kF32, float>{}, ComplexElem<ElementType::kC64, float>{});
  else
    run(FloatElem<ElementType::kF64, double>{}, ComplexElem<ElementType::kC128, double>{});
  return out;
}

}  // namespace

StatusOr<Literal> evalElementwise(EvalContext& ctx, const Instruction& instr, Operands ops) {
  std::optional<StatusOr<Literal>> result;
  if (visitUnaryOp(instr.opcode(), [&](auto op) {
        result = unary<typename decltype(op)::type>(ctx, instr, ops);
      }))
    return std::move(*result);
  if (visitBinaryOp(instr.opcode(), [&](auto op) {
        result = binary<typename decltype(op)::type>(ctx, instr, ops);
      }))
    return std::move(*result);
  if (instr.opcode() == Opcode::kCompare) return compare(ctx, instr, ops);
  if (instr.opcode() == Opcode::kSelect) return select(ctx, instr, ops);
  if (instr.opcode() == Opcode::kClamp) return clamp(ctx, instr, ops);
  if (instr.opcode() == Opcode::kComplex) return makeComplex(ctx, instr, ops);
  return EvalContext::unsupported(instr, "not an elementwise operation");
}

// A builder math custom call (hlo/builder_math_call.h): the elementwise
// op it stands for.
StatusOr<Literal> evalBuilderMathCall(EvalContext& ctx, const Instruction& instr, Operands ops) {
  std::optional<Opcode> op = builderMathOpcode(instr);
  if (!op) return EvalContext::unsupported(instr, "not a builder math call of one operand of the result's shape");
  Instruction function(*op, instr.name(), instr.shape());
  function.setLoc(instr.loc());
  return evalElementwise(ctx, function, ops);
}

}  // namespace hlo::interp
