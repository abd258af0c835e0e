// Interpreter ops: convert, bitcast-convert, reduce-precision,
// stochastic-convert and map.
//
// convert follows XLA's Literal::Convert (xla/literal.cc) and ml_dtypes:
//   - to pred: nonzero (NaN included) is true; complex: either part nonzero;
//   - float to integer: NaN -> 0, out of range saturates, else truncation;
//   - integer to integer: wraparound (two's complement, at the target width);
//   - to f32/f64: one rounding to nearest even (static_cast);
//   - to f16/bf16/f8/f4: rounded to nearest even by encodeSmallFloat, from
//     the exact value, except that integers go through f32 first (ml_dtypes
//     and Eigen build these types from integers via float) and so does f64
//     into f16/bf16 (Eigen::half and bfloat16 construct from double via float);
//   - complex to real keeps the real part (XLA itself refuses this
//     conversion; we follow numpy); real to complex has imaginary part +0.
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "hlo/bitcast_convert.h"
#include "hlo/reduce_precision.h"
#include "interp/element_io.h"
#include "interp/elementwise_kernels.h"
#include "hlo/indexing.h"
#include "interp/ops.h"
#include "interp/scalar_ops.h"

namespace hlo::interp {
namespace {

namespace s = scalar;
using s::Family;

std::string typeName(ElementType t) { return std::string(elementTypeName(t)); }

// The double a small float target is rounded from (see the file comment).
template <class From, class To>
double smallFloatSource(typename From::Value v) {
  using FK = typename From::Kind;
  constexpr bool viaFloat = To::kType == ElementType::kF16 || To::kType == ElementType::kBF16;
  if constexpr (s::isPred<FK>) return v ? 1 : 0;
  else if constexpr (s::isInt<FK>) return static_cast<float>(v);
  else if constexpr (s::isComplex<FK>) return viaFloat ? static_cast<float>(v.real()) : v.real();
  else return viaFloat ? static_cast<float>(v) : static_cast<double>(v);
}

// The real number a real target takes from `v` (complex: its real part).
template <class FK>
auto realPart(typename FK::Value v) {
  if constexpr (s::isComplex<FK>) return v.real();
  else if constexpr (s::isPred<FK>) return v ? 1 : 0;
  else return v;
}

template <class From, class To>
typename To::Storage convertOne(typename From::Storage stored) {
  using FK = typename From::Kind;
  using TK = typename To::Kind;
  auto v = From::load(stored);
  if constexpr (s::isPred<TK>) {
    if constexpr (s::isComplex<FK>) return To::store(v.real() != 0 || v.imag() != 0);
    else return To::store(v != 0);
  } else if constexpr (s::isInt<TK>) {
    if constexpr (s::isInt<FK>) return TK::wrap(FK::wide(v));
    else if constexpr (s::isPred<FK>) return TK::wrap(v ? 1 : 0);  // s1 holds true's 1 as its bit: -1
    else return s::floatToInt<TK>(static_cast<double>(realPart<FK>(v)));
  } else if constexpr (s::isFloat<TK>) {
    if constexpr (std::is_same_v<typename To::Storage, typename To::Value>)  // f32, f64
      return static_cast<typename To::Value>(realPart<FK>(v));
    else if constexpr (std::is_same_v<typename From::Value, float>)  // f32 or smaller: exact
      return To::store(v);
    else
      return static_cast<typename To::Storage>(
          encodeSmallFloat(To::kType, smallFloatSource<From, To>(v)));
  } else {
    using F = typename TK::Real;
    if constexpr (s::isComplex<FK>) return {static_cast<F>(v.real()), static_cast<F>(v.imag())};
    else return {static_cast<F>(realPart<FK>(v)), F(0)};
  }
}

// One stored element of From at `in` into To at `out`, as convertElements.
template <class From, class To>
void convertStored(const void* in, void* out) {
  typename From::Storage x;
  std::memcpy(&x, in, sizeof x);
  typename To::Storage y = convertOne<From, To>(x);
  std::memcpy(out, &y, sizeof y);
}

}  // namespace

ElementConverter elementConverter(ElementType from, ElementType to) {
  ElementConverter result = nullptr;
  visitType(from, [&](auto f) {
    using From = decltype(f);
    visitType(to, [&](auto t) {
      using To = decltype(t);
      if constexpr (familyOf<From> != Family::kNone && familyOf<To> != Family::kNone)
        result = &convertStored<From, To>;
    });
  });
  return result;
}

Literal convertElements(const Literal& in, ElementType to) {
  Shape shape = in.shape();
  shape.setType(to);
  Literal out(shape);
  visitType(in.type(), [&](auto from) {
    using From = decltype(from);
    visitType(to, [&](auto target) {
      using To = decltype(target);
      if constexpr (familyOf<From> != Family::kNone && familyOf<To> != Family::kNone) {
        const auto* x = in.data<typename From::Storage>();
        auto* y = out.data<typename To::Storage>();
        for (int64_t i = 0, n = out.elementCount(); i < n; ++i) y[i] = convertOne<From, To>(x[i]);
      }
    });
  });
  return out;
}

StatusOr<Literal> evalConvert(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& in = *ops[0];
  if (!in.shape().isArray() || !instr.shape().isArray() || in.elided() ||
      in.elementCount() != instr.shape().elementCount())
    return EvalContext::unsupported(instr, "operand " + in.shape().toString(false) +
                                               " cannot convert to " +
                                               instr.shape().toString(false));
  HLO_RETURN_IF_ERROR(ctx.checkMemory(shapeBytes(instr.shape()), instr));
  Literal out = convertElements(in, instr.shape().type());
  out.mutableShape() = instr.shape();
  return out;
}

// Same width: the bits are kept. Different widths: the wider element is
// split into (or built from) a trailing dimension of narrower ones, lowest
// bits first (element 0 holds bits 0..w-1, the little-endian order XLA's
// Literal::BitcastConvert and its backends use).
StatusOr<Literal> evalBitcastConvert(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  Status done = bitcastConvert(*ops[0], out);
  if (!done.ok()) return EvalContext::unsupported(instr, done.message());
  return out;
}

// XLA's ReducePrecision, element by element (hlo/reduce_precision.h).
StatusOr<Literal> evalReducePrecision(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& in = *ops[0];
  int64_t exponentBits = instr.attrs().getInt(AttrKey::kExponentBits, -1);
  int64_t mantissaBits = instr.attrs().getInt(AttrKey::kMantissaBits, -1);
  if (exponentBits < 1 || mantissaBits < 0)
    return errorStatus("'" + instr.name() + "' needs exponent_bits >= 1 and mantissa_bits >= 0",
                       instr.loc());
  ElementType t = in.type();
  if (!isFloat(t) || t != instr.shape().type() || in.elided())
    return EvalContext::unsupported(instr, "not defined for " + typeName(t) + " operands");
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  if (out.elementCount() != in.elementCount())
    return errorStatus("'" + instr.name() + "': operand and result differ in size", instr.loc());
  auto exponent = static_cast<int>(std::min<int64_t>(exponentBits, 64));
  auto mantissa = static_cast<int>(std::min<int64_t>(mantissaBits, 64));
  for (int64_t i = 0; i < in.elementCount(); ++i)
    out.setBitsAt(i, reducePrecisionOf(t, in.bitsAt(i), exponent, mantissa));
  return out;
}

// stochastic-convert(x, random) into a signed integer type: see
// scalar::stochasticRound. Other result types are not defined by XLA.
StatusOr<Literal> evalStochasticConvert(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& in = *ops[0];
  const Literal& random = *ops[1];
  ElementType to = instr.shape().type();
  if (!isFloat(in.type()) || !isUnsigned(random.type()) || in.elided() || random.elided() ||
      random.elementCount() != in.elementCount() ||
      in.elementCount() != instr.shape().elementCount())
    return EvalContext::unsupported(instr,
                                    "needs a float operand and unsigned random bits of its shape");
  int randomBits = bitWidth(random.type());
  return visitType(to, [&](auto target) -> StatusOr<Literal> {
    using To = decltype(target);
    using K = typename To::Kind;
    std::string onlySigned = "converts only to signed integers, not " + typeName(to);
    if constexpr (familyOf<To> != Family::kInt) {
      return EvalContext::unsupported(instr, onlySigned);
    } else if constexpr (!K::kSigned) {
      return EvalContext::unsupported(instr, onlySigned);
    } else {
      HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
      auto* y = out.data<typename To::Storage>();
      for (int64_t i = 0; i < out.elementCount(); ++i)
        y[i] = s::stochasticRound<K>(in.toDouble(i), random.bitsAt(i), randomBits);
      return out;
    }
  });
}

// map: calls to_apply once per element on scalar literals (scalar operands
// are broadcast), converting the arguments to the types to_apply declares
// and its result to the map's. Simple and slow, by design.
StatusOr<Literal> evalMap(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Computation* fn = instr.attrs().getComputation(AttrKey::kToApply);
  if (!fn) return errorStatus("'" + instr.name() + "' has no to_apply", instr.loc());
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  int64_t n = out.elementCount();
  std::vector<Literal> scalars;
  std::vector<const Literal*> args;
  for (const Literal* op : ops) {
    bool fits = op->elementCount() == n || op->shape().isScalar();
    if (!op->shape().isArray() || op->elided() || !fits)
      return errorStatus("'" + instr.name() + "': operand " + op->shape().toString(false) +
                             " does not fit result " + instr.shape().toString(false),
                         instr.loc());
    scalars.emplace_back(Shape::scalar(
        declaredScalarType(*fn, static_cast<int>(scalars.size()), op->type())));
  }
  for (const Literal& scalar : scalars) args.push_back(&scalar);
  for (int64_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < ops.size(); ++j)
      convertElement(*ops[j], ops[j]->elementCount() == n ? i : 0, scalars[j], 0);
    HLO_ASSIGN_OR_RETURN(Literal value, ctx.call(*fn, args));
    if (!value.shape().isArray() || value.elementCount() != 1)
      return errorStatus("'" + instr.name() + "': to_apply returned " +
                             value.shape().toString(false) + ", expected a " +
                             typeName(out.type()) + " scalar",
                         instr.loc());
    convertElement(value, 0, out, i);
  }
  return out;
}

}  // namespace hlo::interp
