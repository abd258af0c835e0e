// The elementwise ops of the generator, from one table: which element
// types each takes, and how it treats an error in a float operand.
#include <algorithm>
#include <array>

#include "conformance/fuzz_ops.h"

namespace hlo::conformance::fuzz {
namespace {

enum TypeSet : unsigned { kPredT = 1, kSignedT = 2, kUnsignedT = 4, kFloatT = 8, kComplexT = 16 };
constexpr unsigned kIntT = kSignedT | kUnsignedT, kRealT = kIntT | kFloatT, kNumberT = kRealT | kComplexT;
constexpr unsigned kAllT = kNumberT | kPredT;

// On floats: whether the result is correctly rounded (the same bits on any
// correct engine) or within a few ulps, and whether an operand's relative
// error stays relative in the result (tolerant) or may grow without bound
// (sensitive: a cancelling subtraction, a floor, a comparison).
enum class Floats { kExactTolerant, kExactSensitive, kApproxTolerant, kApproxSensitive };

struct Form {
  Opcode op;
  unsigned types;
  Floats floats;
};

constexpr std::array kForms = {
    Form{Opcode::kAbs, kSignedT | kFloatT | kComplexT, Floats::kExactTolerant},
    Form{Opcode::kNegate, kNumberT, Floats::kExactTolerant},
    Form{Opcode::kSign, kSignedT | kFloatT, Floats::kExactSensitive},
    Form{Opcode::kFloor, kFloatT, Floats::kExactSensitive},
    Form{Opcode::kCeil, kFloatT, Floats::kExactSensitive},
    Form{Opcode::kRoundNearestAfz, kFloatT, Floats::kExactSensitive},
    Form{Opcode::kRoundNearestEven, kFloatT, Floats::kExactSensitive},
    Form{Opcode::kSqrt, kFloatT | kComplexT, Floats::kExactTolerant},
    Form{Opcode::kRsqrt, kFloatT, Floats::kApproxTolerant},
    Form{Opcode::kCbrt, kFloatT, Floats::kApproxTolerant},
    Form{Opcode::kExp, kFloatT | kComplexT, Floats::kApproxTolerant},
    Form{Opcode::kExpm1, kFloatT, Floats::kApproxTolerant},
    Form{Opcode::kLog, kFloatT | kComplexT, Floats::kApproxSensitive},
    Form{Opcode::kLog1p, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kLogistic, kFloatT, Floats::kApproxTolerant},
    Form{Opcode::kTanh, kFloatT | kComplexT, Floats::kApproxTolerant},
    Form{Opcode::kErf, kFloatT, Floats::kApproxTolerant},
    Form{Opcode::kSin, kFloatT | kComplexT, Floats::kApproxSensitive},
    Form{Opcode::kCos, kFloatT | kComplexT, Floats::kApproxSensitive},
    Form{Opcode::kTan, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kAsin, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kAcos, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kAtan, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kSinh, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kCosh, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kAsinh, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kAcosh, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kAtanh, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kNot, kPredT | kIntT, Floats::kExactSensitive},
    Form{Opcode::kPopulationCount, kIntT, Floats::kExactSensitive},
    Form{Opcode::kClz, kIntT, Floats::kExactSensitive},
    Form{Opcode::kIsFinite, kFloatT, Floats::kExactSensitive},
    Form{Opcode::kReal, kFloatT | kComplexT, Floats::kExactTolerant},
    Form{Opcode::kImag, kFloatT | kComplexT, Floats::kExactTolerant},
    Form{Opcode::kConvert, kAllT, Floats::kExactTolerant},
    Form{Opcode::kBitcastConvert, kAllT, Floats::kExactSensitive},
    Form{Opcode::kReducePrecision, kFloatT, Floats::kExactSensitive},
    Form{Opcode::kAdd, kNumberT, Floats::kExactSensitive},
    Form{Opcode::kSubtract, kNumberT, Floats::kExactSensitive},
    Form{Opcode::kMultiply, kRealT, Floats::kExactTolerant},
    Form{Opcode::kDivide, kRealT, Floats::kExactTolerant},
    Form{Opcode::kRemainder, kRealT, Floats::kExactSensitive},
    Form{Opcode::kMaximum, kRealT | kPredT, Floats::kExactTolerant},
    Form{Opcode::kMinimum, kRealT | kPredT, Floats::kExactTolerant},
    Form{Opcode::kPower, kRealT, Floats::kApproxSensitive},
    Form{Opcode::kAtan2, kFloatT, Floats::kApproxSensitive},
    Form{Opcode::kAnd, kPredT | kIntT, Floats::kExactSensitive},
    Form{Opcode::kOr, kPredT | kIntT, Floats::kExactSensitive},
    Form{Opcode::kXor, kPredT | kIntT, Floats::kExactSensitive},
    Form{Opcode::kShiftLeft, kIntT, Floats::kExactSensitive},
    Form{Opcode::kShiftRightArithmetic, kIntT, Floats::kExactSensitive},
    Form{Opcode::kShiftRightLogical, kIntT, Floats::kExactSensitive},
    Form{Opcode::kMulhi, kIntT, Floats::kExactSensitive},
    Form{Opcode::kCompare, kAllT, Floats::kExactSensitive},
    Form{Opcode::kSelect, kAllT, Floats::kExactTolerant},
    Form{Opcode::kClamp, kRealT, Floats::kExactTolerant},
    Form{Opcode::kComplex, kFloatT, Floats::kExactTolerant},
    Form{Opcode::kMap, kRealT, Floats::kExactSensitive},
};

unsigned setOf(ElementType t) {
  return isPred(t) ? kPredT : isSigned(t) ? kSignedT : isUnsigned(t) ? kUnsignedT : isFloat(t) ? kFloatT : kComplexT;
}

// Mantissa and exponent bits of a float type, for whether converting an
// inexact value to it keeps the comparison honest.
std::pair<int, int> floatBits(ElementType t) {
  switch (t) {
    case ElementType::kF64: return {53, 11};
    case ElementType::kF32: return {24, 8};
    case ElementType::kBF16: return {8, 8};
    case ElementType::kF16: return {11, 5};
    default: return {4, 4};  // the 8-, 6- and 4-bit formats, treated as the narrowest
  }
}
// An inexact float converted to a float type no more precise is off by an
// ulp or two of that type, which its tolerance allows; to a more precise
// one, the error would stay the source's, beyond the wider type's
// tolerance; to an integer or pred, it may land on either side of a step.
bool keepsRelativeError(ElementType from, ElementType to) {
  if (isComplex(from)) from = complexComponentType(from);
  if (isComplex(to)) to = complexComponentType(to);
  if (!isFloat(from) || !isFloat(to)) return !isFloat(from);
  auto [fm, fe] = floatBits(from);
  auto [tm, te] = floatBits(to);
  return tm <= fm && te >= fe;
}

bool isFloating(ElementType t) { return isFloat(t) || isComplex(t); }

bool writeConvert(Builder& b, const Dims& dims) {
  std::vector<ElementType> froms;
  for (ElementType t : b.types())
    if (!isComplex(t)) froms.push_back(t);
  const ElementType from = b.oneIn(2) ? b.mainType() : b.pickOf(froms);
  if (isComplex(from)) return false;
  const ElementType to = b.pickOf(b.types());
  // (keepsRelativeError says when the operand may be inexact.)
  Value x = b.need(from, dims, keepsRelativeError(from, to) ? Need::kAny : Need::kExact);
  b.define(to, dims, "convert(" + x.name + ")", x.exact, {&x});
  return true;
}

// The same number of bits in another type: integers of either sign, floats.
bool writeBitcastConvert(Builder& b, const Dims& dims) {
  const ElementType from = b.oneIn(2) ? b.mainType() : b.pickOf(b.types());
  std::vector<ElementType> tos;
  for (ElementType t : b.types())
    if (t != from && bitWidth(t) == bitWidth(from) && !isPred(t) && !isComplex(t) && !isPred(from) && !isComplex(from))
      tos.push_back(t);
  if (tos.empty()) return false;
  // The bits of a float computed by the module include NaN payloads, which
  // no definition fixes: only parameters' floats are reinterpreted.
  Value x = b.need(from, dims, Need::kExact);
  if (isFloat(from) && x.name[0] != 'p') return false;
  b.define(b.pickOf(tos), dims, "bitcast-convert(" + x.name + ")", true, {&x});
  return true;
}

bool writeReducePrecision(Builder& b, ElementType t, const Dims& dims) {
  Value x = b.need(t, dims, Need::kExact);
  auto [mantissa, exponent] = floatBits(t);
  int e = 1 + static_cast<int>(b.pick(std::min(exponent, 8))), m = static_cast<int>(b.pick(mantissa));
  b.define(t, dims,
           "reduce-precision(" + x.name + "), exponent_bits=" + std::to_string(e) + ", mantissa_bits=" +
               std::to_string(m),
           true, {&x});
  return true;
}

bool writeCompare(Builder& b, ElementType t, const Dims& dims) {
  static const std::vector<std::string> kDirections = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  const std::string direction = isComplex(t) ? (b.oneIn(2) ? "EQ" : "NE") : b.pickOf(kDirections);
  // TOTALORDER reads a NaN's sign, which no definition fixes for a NaN an op
  // computes: it compares parameters and constants only.
  const bool total = isFloat(t) && b.oneIn(3);
  Value x = b.need(t, dims, total ? Need::kOrdinary : Need::kExact);
  Value y = b.need(t, dims, total ? Need::kOrdinary : Need::kExact);
  std::string type = total ? ", type=TOTALORDER" : "";
  b.define(ElementType::kPred, dims, "compare(" + x.name + ", " + y.name + "), direction=" + direction + type, true,
           {&x, &y});
  return true;
}

bool writeMap(Builder& b, ElementType t, const Dims& dims) {
  static const std::vector<std::string> kOps = {"add", "multiply", "maximum", "minimum"};
  const std::string op = b.pickOf(kOps);
  Value x = b.need(t, dims, Need::kExact), y = b.need(t, dims, Need::kExact);
  std::vector<int64_t> all;
  for (size_t d = 0; d < dims.size(); ++d) all.push_back(static_cast<int64_t>(d));
  b.define(t, dims, "map(" + x.name + ", " + y.name + "), dimensions=" + listText(all) + ", to_apply=" +
                        b.binaryComputation(op, t),
           true, {&x, &y});
  return true;
}

}  // namespace

bool writeElementwise(Builder& b, Opcode op) {
  const Form* form = nullptr;
  for (const Form& f : kForms)
    if (f.op == op) form = &f;
  if (!form) return false;
  const Dims dims = b.someDims();
  if (op == Opcode::kConvert) return writeConvert(b, dims);
  if (op == Opcode::kBitcastConvert) return writeBitcastConvert(b, dims);
  std::optional<ElementType> type = b.typeFor([&](ElementType t) { return (setOf(t) & form->types) != 0; });
  if (!type) return false;
  const ElementType t = *type;
  if (op == Opcode::kReducePrecision) return writeReducePrecision(b, t, dims);
  if (op == Opcode::kCompare) return writeCompare(b, t, dims);
  if (op == Opcode::kMap) return writeMap(b, t, dims);

  const bool sensitive = form->floats == Floats::kExactSensitive || form->floats == Floats::kApproxSensitive;
  const bool approximate = form->floats == Floats::kApproxTolerant || form->floats == Floats::kApproxSensitive;
  const Need need = isFloating(t) && sensitive ? Need::kExact : Need::kAny;
  const std::string name(opcodeName(op));
  if (op == Opcode::kSelect) {
    Value p = b.need(ElementType::kPred, b.oneIn(4) ? Dims{} : dims, Need::kExact);
    Value x = b.need(t, dims), y = b.need(t, dims);
    b.define(t, dims, "select(" + p.name + ", " + x.name + ", " + y.name + ")", x.exact && y.exact, {&p, &x, &y});
    return true;
  }
  if (op == Opcode::kClamp) {
    Value lo = b.need(t, b.oneIn(2) ? Dims{} : dims), x = b.need(t, dims), hi = b.need(t, lo.dims);
    b.define(t, dims, "clamp(" + lo.name + ", " + x.name + ", " + hi.name + ")", lo.exact && x.exact && hi.exact,
             {&lo, &x, &hi});
    return true;
  }
  if (op == Opcode::kComplex) {
    if (t != ElementType::kF32 && t != ElementType::kF64) return false;
    Value re = b.need(t, dims), im = b.need(t, dims);
    b.define(t == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128, dims,
             "complex(" + re.name + ", " + im.name + ")", re.exact && im.exact, {&re, &im});
    return true;
  }
  // Unary ops: the result is of the operand's type, except these.
  const bool toComponent = isComplex(t) && (op == Opcode::kAbs || op == Opcode::kReal || op == Opcode::kImag);
  ElementType result = toComponent ? complexComponentType(t) : op == Opcode::kIsFinite ? ElementType::kPred : t;
  const bool binary = opcodeArity(op) == 2;
  Value x = b.need(t, dims, need);
  if (!binary) {
    b.define(result, dims, name + "(" + x.name + ")", x.exact && !(approximate && isFloating(t)), {&x});
    return true;
  }
  // An inexact zero divisor may have either sign.
  Value y = b.need(t, dims, op == Opcode::kDivide ? Need::kExact : need);
  b.define(result, dims, name + "(" + x.name + ", " + y.name + ")",
           x.exact && y.exact && !(approximate && isFloating(t)), {&x, &y});
  return true;
}

}  // namespace hlo::conformance::fuzz
