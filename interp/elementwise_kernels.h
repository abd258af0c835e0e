// How each element type is stored in a Literal and loaded into the compute
// kinds of interp/scalar_ops.h, plus the typed loops that apply a scalar
// operation across whole arrays. Dispatch on the element type happens once,
// in visitType; the loops themselves are plain, inlinable and vectorizable.
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>

#include "hlo/float_formats.h"
#include "hlo/literal.h"
#include "interp/scalar_ops.h"

namespace hlo::interp {

// One element type: its Storage in a Literal, the scalar Kind it computes in,
// and load/store between the two. Stores round (small floats) or are exact.
template <ElementType E, typename S, class K>
struct Elem {
  static constexpr ElementType kType = E;
  using Storage = S;
  using Kind = K;
  using Value = typename K::Value;
  static Value load(S s) { return s; }
  static S store(Value v) { return v; }
};

struct PredElem {
  static constexpr ElementType kType = ElementType::kPred;
  using Storage = uint8_t;
  using Kind = scalar::PredKind;
  using Value = bool;
  static bool load(uint8_t s) { return s != 0; }
  static uint8_t store(bool v) { return v ? 1 : 0; }
};

// f16, bf16, the f8 types and f4e2m1fn: raw bits, computed in float and
// rounded to nearest even on store (hlo/float_formats.h).
template <ElementType E, typename S>
struct SmallFloatElem {
  static constexpr ElementType kType = E;
  using Storage = S;
  using Kind = scalar::FloatKind<float>;
  using Value = float;
  static float load(S s) {
    if constexpr (E == ElementType::kBF16)  // exact and quick: bf16 is f32's top half
      return std::bit_cast<float>(static_cast<uint32_t>(s) << 16);
    else
      return static_cast<float>(decodeSmallFloat(E, s));
  }
  static S store(float v) {
    if constexpr (E == ElementType::kBF16) {  // the same rounding, on the bits
      uint32_t bits = std::bit_cast<uint32_t>(v);
      if (std::isnan(v)) return static_cast<S>((bits >> 16 & 0x8000) | 0x7fc0);
      return static_cast<S>((bits + 0x7fff + (bits >> 16 & 1)) >> 16);
    } else {
      return static_cast<S>(encodeSmallFloat(E, v));
    }
  }
};

// Token, tuple and the other non-array types: nothing can be computed.
struct NoElem {
  static constexpr ElementType kType = ElementType::kToken;
  struct Kind {
    static constexpr scalar::Family kFamily = scalar::Family::kNone;
    using Value = uint8_t;
  };
  using Storage = uint8_t;
  using Value = uint8_t;
};

template <ElementType E, typename S, int Bits>
using IntElem = Elem<E, S, scalar::IntKind<S, Bits>>;
template <ElementType E, typename F>
using FloatElem = Elem<E, F, scalar::FloatKind<F>>;
template <ElementType E, typename F>
using ComplexElem = Elem<E, std::complex<F>, scalar::ComplexKind<F>>;

// The Elem of a unary op's result, given its operand's Elem: the operand's
// own, pred (is-finite), or a complex operand's component type (abs, real, imag).
template <class E, scalar::UnaryResult R>
struct UnaryOut {
  using type = E;
};
template <class E>
struct UnaryOut<E, scalar::UnaryResult::kPred> {
  using type = PredElem;
};
template <>
struct UnaryOut<ComplexElem<ElementType::kC64, float>, scalar::UnaryResult::kComponent> {
  using type = FloatElem<ElementType::kF32, float>;
};
template <>
struct UnaryOut<ComplexElem<ElementType::kC128, double>, scalar::UnaryResult::kComponent> {
  using type = FloatElem<ElementType::kF64, double>;
};

// Calls fn(Elem{}) with the Elem of `t` (NoElem for non-array types).
template <typename Fn>
decltype(auto) visitType(ElementType t, Fn&& fn) {
  using T = ElementType;
  switch (t) {
    case T::kPred: return fn(PredElem{});
    case T::kS1: return fn(IntElem<T::kS1, int8_t, 1>{});
    case T::kS2: return fn(IntElem<T::kS2, int8_t, 2>{});
    case T::kS4: return fn(IntElem<T::kS4, int8_t, 4>{});
    case T::kS8: return fn(IntElem<T::kS8, int8_t, 8>{});
    case T::kS16: return fn(IntElem<T::kS16, int16_t, 16>{});
    case T::kS32: return fn(IntElem<T::kS32, int32_t, 32>{});
    case T::kS64: return fn(IntElem<T::kS64, int64_t, 64>{});
    case T::kU1: return fn(IntElem<T::kU1, uint8_t, 1>{});
    case T::kU2: return fn(IntElem<T::kU2, uint8_t, 2>{});
    case T::kU4: return fn(IntElem<T::kU4, uint8_t, 4>{});
    case T::kU8: return fn(IntElem<T::kU8, uint8_t, 8>{});
    case T::kU16: return fn(IntElem<T::kU16, uint16_t, 16>{});
    case T::kU32: return fn(IntElem<T::kU32, uint32_t, 32>{});
    case T::kU64: return fn(IntElem<T::kU64, uint64_t, 64>{});
    case T::kF16: return fn(SmallFloatElem<T::kF16, uint16_t>{});
    case T::kBF16: return fn(SmallFloatElem<T::kBF16, uint16_t>{});
    case T::kF32: return fn(FloatElem<T::kF32, float>{});
    case T::kF64: return fn(FloatElem<T::kF64, double>{});
    case T::kF8E5M2: return fn(SmallFloatElem<T::kF8E5M2, uint8_t>{});
    case T::kF8E4M3: return fn(SmallFloatElem<T::kF8E4M3, uint8_t>{});
    case T::kF8E4M3FN: return fn(SmallFloatElem<T::kF8E4M3FN, uint8_t>{});
    case T::kF8E4M3B11FNUZ: return fn(SmallFloatElem<T::kF8E4M3B11FNUZ, uint8_t>{});
    case T::kF8E5M2FNUZ: return fn(SmallFloatElem<T::kF8E5M2FNUZ, uint8_t>{});
    case T::kF8E4M3FNUZ: return fn(SmallFloatElem<T::kF8E4M3FNUZ, uint8_t>{});
    case T::kF8E3M4: return fn(SmallFloatElem<T::kF8E3M4, uint8_t>{});
    case T::kF4E2M1FN: return fn(SmallFloatElem<T::kF4E2M1FN, uint8_t>{});
    case T::kF8E8M0FNU: return fn(SmallFloatElem<T::kF8E8M0FNU, uint8_t>{});
    case T::kF6E2M3FN: return fn(SmallFloatElem<T::kF6E2M3FN, uint8_t>{});
    case T::kF6E3M2FN: return fn(SmallFloatElem<T::kF6E3M2FN, uint8_t>{});
    case T::kC64: return fn(ComplexElem<T::kC64, float>{});
    case T::kC128: return fn(ComplexElem<T::kC128, double>{});
    case T::kToken:
    case T::kTuple:
    case T::kOpaque:
    case T::kBuffer:
      break;
  }
  return fn(NoElem{});
}

template <class E>
inline constexpr scalar::Family familyOf = E::Kind::kFamily;

// Types the array loops compute in directly: all but the small floats, which
// callers widen to f32 first (computing in f32 is XLA's rule anyway, and it
// keeps the number of instantiated loops down).
template <class E>
inline constexpr bool isComputeElem =
    familyOf<E> != scalar::Family::kNone &&
    !(familyOf<E> == scalar::Family::kFloat &&
      !std::is_same_v<typename E::Storage, typename E::Value>);

// out[i] = Out::store(fn(In::load(in[i]))).
template <class In, class Out, typename Fn>
void unaryLoop(const Literal& in, Literal& out, Fn fn) {
  const auto* x = in.data<typename In::Storage>();
  auto* y = out.data<typename Out::Storage>();
  int64_t n = out.elementCount();
  for (int64_t i = 0; i < n; ++i) y[i] = Out::store(fn(In::load(x[i])));
}

// out[i] = Out::store(fn(a[i], b[i])), both operands of type In.
template <class In, class Out, typename Fn>
void binaryLoop(const Literal& a, const Literal& b, Literal& out, Fn fn) {
  const auto* x = a.data<typename In::Storage>();
  const auto* y = b.data<typename In::Storage>();
  auto* z = out.data<typename Out::Storage>();
  int64_t n = out.elementCount();
  for (int64_t i = 0; i < n; ++i) z[i] = Out::store(fn(In::load(x[i]), In::load(y[i])));
}

// Index step of an operand: 0 for a scalar broadcast over a larger result.
inline int64_t strideOf(const Literal& operand, const Literal& out) {
  return operand.elementCount() == 1 && out.elementCount() != 1 ? 0 : 1;
}

// out[i] = store(fn(a[i], b[i], c[i])) where scalar operands repeat.
template <class In, typename Fn>
void ternaryLoop(const Literal& a, const Literal& b, const Literal& c, Literal& out, Fn fn) {
  const auto* x = a.data<typename In::Storage>();
  const auto* y = b.data<typename In::Storage>();
  const auto* z = c.data<typename In::Storage>();
  auto* w = out.data<typename In::Storage>();
  int64_t sa = strideOf(a, out), sb = strideOf(b, out), sc = strideOf(c, out);
  int64_t n = out.elementCount();
  for (int64_t i = 0; i < n; ++i)
    w[i] = In::store(fn(In::load(x[i * sa]), In::load(y[i * sb]), In::load(z[i * sc])));
}

// Converts every element of `in` to type `to` (interp/convert.cc), with
// XLA's convert semantics; the result has `in`'s dimensions.
Literal convertElements(const Literal& in, ElementType to);

// Converts one stored element of type `from` (at `in`) into type `to` (at
// `out`), exactly as convertElements does; nullptr unless both are numeric.
using ElementConverter = void (*)(const void* in, void* out);
ElementConverter elementConverter(ElementType from, ElementType to);

}  // namespace hlo::interp
