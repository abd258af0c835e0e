// The scalar semantics of every elementwise opcode, in one place: the
// interpreter's array loops (interp/elementwise.cc) apply these per element,
// and constant folding is to reuse them, so the two cannot disagree.
//
// A value is computed in one of the kinds of interp/scalar_types.h: pred,
// integers that wrap at their width, float/double (f16, bf16, the f8 types and
// f4e2m1fn compute in float and are rounded once into their type by the
// caller, as XLA's evaluator does) and complex.
//
// Each opcode is one struct: `kAccepts<K>` says which kinds it is defined
// for, `apply<K>(...)` computes it. Integer edge cases follow XLA's
// evaluator (xla/hlo/evaluator): x / 0 has all bits set (-1 signed, the
// maximum unsigned), INT_MIN / -1 = INT_MIN, x % 0 = x, INT_MIN % -1 = 0;
// shifts by the bit width or more (or negative) give 0, or all sign bits for
// shift-right-arithmetic.
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>

#include "hlo/attributes.h"
#include "hlo/complex_math.h"
#include "hlo/element_type.h"
#include "hlo/stochastic_round.h"
#include "interp/scalar_types.h"

namespace hlo::interp::scalar {

// --- Unary ----------------------------------------------------------------

// What a unary op's result element type is, given its operand's.
enum class UnaryResult : uint8_t {
  kSame,       // the operand's type
  kComponent,  // complex operands give their component type (abs, real, imag)
  kPred,       // pred (is-finite)
};

// The transcendental functions: std:: for float, double and std::complex.
#define HLO_SCALAR_STD_UNARY(Name, fn)                                    \
  struct Name {                                                           \
    static constexpr UnaryResult kResult = UnaryResult::kSame;            \
    template <class K> static constexpr bool kAccepts = isInexact<K>;     \
    template <class K> static V<K> apply(V<K> x) { return std::fn(x); }   \
  };
HLO_SCALAR_STD_UNARY(Acos, acos)
HLO_SCALAR_STD_UNARY(Acosh, acosh)
HLO_SCALAR_STD_UNARY(Asin, asin)
HLO_SCALAR_STD_UNARY(Asinh, asinh)
HLO_SCALAR_STD_UNARY(Atan, atan)
HLO_SCALAR_STD_UNARY(Atanh, atanh)
HLO_SCALAR_STD_UNARY(Cos, cos)
HLO_SCALAR_STD_UNARY(Cosh, cosh)
HLO_SCALAR_STD_UNARY(Exp, exp)
HLO_SCALAR_STD_UNARY(Log, log)
HLO_SCALAR_STD_UNARY(Sin, sin)
HLO_SCALAR_STD_UNARY(Sinh, sinh)
HLO_SCALAR_STD_UNARY(Sqrt, sqrt)
HLO_SCALAR_STD_UNARY(Tan, tan)
HLO_SCALAR_STD_UNARY(Tanh, tanh)
#undef HLO_SCALAR_STD_UNARY

// Real-only functions: std:: for float and double. round-nearest-afz rounds
// halfway cases away from zero (std::round); round-nearest-even uses the
// default rounding mode, to nearest even (std::nearbyint).
#define HLO_SCALAR_REAL_UNARY(Name, fn)                                   \
  struct Name {                                                           \
    static constexpr UnaryResult kResult = UnaryResult::kSame;            \
    template <class K> static constexpr bool kAccepts = isFloat<K>;       \
    template <class K> static V<K> apply(V<K> x) { return std::fn(x); }   \
  };
HLO_SCALAR_REAL_UNARY(Cbrt, cbrt)
HLO_SCALAR_REAL_UNARY(Ceil, ceil)
HLO_SCALAR_REAL_UNARY(Erf, erf)
HLO_SCALAR_REAL_UNARY(Floor, floor)
HLO_SCALAR_REAL_UNARY(RoundNearestAfz, round)
HLO_SCALAR_REAL_UNARY(RoundNearestEven, nearbyint)
#undef HLO_SCALAR_REAL_UNARY

// exp(x) - 1; complex: hlo/complex_math.h.
struct Expm1 {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isInexact<K>;
  template <class K> static V<K> apply(V<K> x) {
    if constexpr (isFloat<K>) {
      return std::expm1(x);
    } else {
      return complexExpm1(x);
    }
  }
};

// log(1 + x); complex: hlo/complex_math.h.
struct Log1p {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isInexact<K>;
  template <class K> static V<K> apply(V<K> x) {
    if constexpr (isFloat<K>) {
      return std::log1p(x);
    } else {
      return complexLog1p(x);
    }
  }
};

// 1 / (1 + exp(-x)), as XLA's evaluator computes it.
struct Logistic {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isInexact<K>;
  template <class K> static V<K> apply(V<K> x) { return V<K>(1) / (V<K>(1) + std::exp(-x)); }
};

struct Rsqrt {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isInexact<K>;
  template <class K> static V<K> apply(V<K> x) { return V<K>(1) / std::sqrt(x); }
};

// Integers wrap (abs(INT_MIN) = INT_MIN); unsigned values are their own
// absolute value; complex gives the magnitude in the component type.
struct Abs {
  static constexpr UnaryResult kResult = UnaryResult::kComponent;
  template <class K> static constexpr bool kAccepts = isNumber<K>;
  template <class K> static auto apply(V<K> x) {
    if constexpr (isInt<K>) return K::negative(x) ? K::wrap(0 - K::wide(x)) : x;
    else if constexpr (isFloat<K>) return std::fabs(x);
    else return std::abs(x);
  }
};

struct Negate {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isNumber<K>;
  template <class K> static V<K> apply(V<K> x) {
    if constexpr (isInt<K>) return K::wrap(0 - K::wide(x));
    else return -x;
  }
};

// pred: logical not; integers: bitwise.
struct Not {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isPred<K> || isInt<K>;
  template <class K> static V<K> apply(V<K> x) {
    if constexpr (isPred<K>) return !x;
    else return K::wrap(~K::wide(x));
  }
};

// -1, 0 or 1; floats keep NaN and the sign of zero (sign(-0) = -0);
// complex x gives x / |x|, or 0 (hlo/complex_math.h).
struct Sign {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isNumber<K>;
  template <class K> static V<K> apply(V<K> x) {
    if constexpr (isInt<K>) {
      return K::negative(x) ? K::wrap(~uint64_t{0}) : V<K>(x != 0);
    } else if constexpr (isFloat<K>) {
      return std::isnan(x) ? x : std::copysign(x != 0 ? V<K>(1) : V<K>(0), x);
    } else {
      return complexSign(x);
    }
  }
};

// Counted within the type's own width: clz(s4 1) = 3, clz(0) = width. A
// count the type cannot hold wraps as any result does: clz(s2 0) = 2 is
// the bits 10, so -2.
struct Clz {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isInt<K>;
  template <class K> static V<K> apply(V<K> x) {
    return K::wrap(static_cast<uint64_t>(K::kBits - std::bit_width(K::bits(x))));
  }
};

struct PopulationCount {
  static constexpr UnaryResult kResult = UnaryResult::kSame;
  template <class K> static constexpr bool kAccepts = isInt<K>;
  template <class K> static V<K> apply(V<K> x) {
    return K::wrap(static_cast<uint64_t>(std::popcount(K::bits(x))));
  }
};

struct IsFinite {
  static constexpr UnaryResult kResult = UnaryResult::kPred;
  template <class K> static constexpr bool kAccepts = isFloat<K>;
  template <class K> static bool apply(V<K> x) { return std::isfinite(x); }
};

// real(x) = x and imag(x) = +0 for real floats.
struct Real {
  static constexpr UnaryResult kResult = UnaryResult::kComponent;
  template <class K> static constexpr bool kAccepts = isInexact<K>;
  template <class K> static auto apply(V<K> x) {
    if constexpr (isFloat<K>) return x;
    else return x.real();
  }
};

struct Imag {
  static constexpr UnaryResult kResult = UnaryResult::kComponent;
  template <class K> static constexpr bool kAccepts = isInexact<K>;
  template <class K> static auto apply(V<K> x) {
    if constexpr (isFloat<K>) return V<K>(0);
    else return x.imag();
  }
};

// --- Binary ---------------------------------------------------------------

// pred add is logical or and pred multiply logical and (XLA computes on
// bool). Integers wrap; floats and complex are IEEE.
struct Add {
  template <class K> static constexpr bool kAccepts = isPred<K> || isNumber<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isPred<K>) return a || b;
    else if constexpr (isInt<K>) return K::wrap(K::wide(a) + K::wide(b));
    else return a + b;
  }
};

struct Subtract {
  template <class K> static constexpr bool kAccepts = isNumber<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isInt<K>) return K::wrap(K::wide(a) - K::wide(b));
    else return a - b;
  }
};

struct Multiply {
  template <class K> static constexpr bool kAccepts = isPred<K> || isNumber<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isPred<K>) return a && b;
    else if constexpr (isInt<K>) return K::wrap(K::wide(a) * K::wide(b));
    else return a * b;
  }
};

struct Divide {
  template <class K> static constexpr bool kAccepts = isNumber<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isInt<K>) {
      if (b == 0) return K::wrap(~uint64_t{0});
      if (K::kSigned && a == K::min() && K::wide(b) == ~uint64_t{0}) return a;
      return static_cast<V<K>>(a / b);
    } else {
      return a / b;
    }
  }
};

// Integers: the sign of the dividend (C++ %); floats: std::fmod.
struct Remainder {
  template <class K> static constexpr bool kAccepts = isInt<K> || isFloat<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isInt<K>) {
      if (b == 0) return a;
      if (K::kSigned && a == K::min() && K::wide(b) == ~uint64_t{0}) return 0;
      return static_cast<V<K>>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};

// x^0 = 1 and 1^x = 1 for every x; integers: a negative exponent gives
// the exact quotient 1 / x^-b truncated: -1 or 1 for x = -1 (by the
// exponent's parity), 0 for any other x; otherwise repeated squaring with
// wraparound; floats: std::pow; complex: hlo/complex_math.h.
struct Power {
  template <class K> static constexpr bool kAccepts = isNumber<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isInt<K>) {
      // (1 wraps as any result does: in s1 it is the bit 1, so -1.)
      if (b == 0 || a == 1) return K::wrap(1);
      if (K::negative(b)) return a == static_cast<V<K>>(-1) ? ((K::bits(b) & 1) ? a : K::wrap(1)) : V<K>(0);
      uint64_t base = K::wide(a), result = 1;
      for (uint64_t e = K::bits(b); e != 0; e >>= 1, base *= base)
        if (e & 1) result *= base;
      return K::wrap(result);
    } else if constexpr (isFloat<K>) {
      return std::pow(a, b);
    } else {
      return complexPower(a, b);
    }
  }
};

// NaN-propagating (the first NaN operand is returned); between equal values,
// -0 and +0 included, the left operand is returned, as XLA's evaluator and
// CPU backend do. pred: or / and.
struct Maximum {
  template <class K> static constexpr bool kAccepts = isReal<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isFloat<K>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? b : a;
  }
};

struct Minimum {
  template <class K> static constexpr bool kAccepts = isReal<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (isFloat<K>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return b < a ? b : a;
  }
};

// atan2(y, x); complex: hlo/complex_math.h.
struct Atan2 {
  template <class K> static constexpr bool kAccepts = isInexact<K>;
  template <class K> static V<K> apply(V<K> y, V<K> x) {
    if constexpr (isFloat<K>) {
      return std::atan2(y, x);
    } else {
      return complexAtan2(y, x);
    }
  }
};

#define HLO_SCALAR_BITWISE(Name, op)                                                  \
  struct Name {                                                                       \
    template <class K> static constexpr bool kAccepts = isPred<K> || isInt<K>;       \
    template <class K> static V<K> apply(V<K> a, V<K> b) {                            \
      if constexpr (isPred<K>) return a op b;                                         \
      else return K::wrap(K::wide(a) op K::wide(b));                                  \
    }                                                                                 \
  };
HLO_SCALAR_BITWISE(And, &)
HLO_SCALAR_BITWISE(Or, |)
HLO_SCALAR_BITWISE(Xor, ^)
#undef HLO_SCALAR_BITWISE

// A shift amount is read as unsigned: negative amounts are out of range too.
template <class K>
constexpr bool shiftOutOfRange(V<K> amount) {
  return K::bits(amount) >= static_cast<uint64_t>(K::kBits);
}

struct ShiftLeft {
  template <class K> static constexpr bool kAccepts = isInt<K>;
  template <class K> static V<K> apply(V<K> a, V<K> n) {
    return shiftOutOfRange<K>(n) ? V<K>(0) : K::wrap(K::wide(a) << K::bits(n));
  }
};

// Shifts in copies of the sign bit, for unsigned types too (u8 0x80 >> 1 = 0xc0).
struct ShiftRightArithmetic {
  template <class K> static constexpr bool kAccepts = isInt<K>;
  template <class K> static V<K> apply(V<K> a, V<K> n) {
    int64_t value = K::asSigned(a);
    if (shiftOutOfRange<K>(n)) return K::wrap(value < 0 ? ~uint64_t{0} : 0);
    return K::wrap(static_cast<uint64_t>(value >> K::bits(n)));
  }
};

struct ShiftRightLogical {
  template <class K> static constexpr bool kAccepts = isInt<K>;
  template <class K> static V<K> apply(V<K> a, V<K> n) {
    return shiftOutOfRange<K>(n) ? V<K>(0) : K::wrap(K::bits(a) >> K::bits(n));
  }
};

// The high Bits of the 2*Bits-bit product (signed or unsigned by type).
struct Mulhi {
  template <class K> static constexpr bool kAccepts = isInt<K>;
  template <class K> static V<K> apply(V<K> a, V<K> b) {
    if constexpr (K::kSigned) {
      __int128 product = static_cast<__int128>(K::asSigned(a)) * K::asSigned(b);
      return K::wrap(static_cast<uint64_t>(product >> K::kBits));
    } else {
      unsigned __int128 product = static_cast<unsigned __int128>(K::bits(a)) * K::bits(b);
      return K::wrap(static_cast<uint64_t>(product >> K::kBits));
    }
  }
};

// --- Ternary --------------------------------------------------------------

// clamp(lo, x, hi) = min(max(x, lo), hi) with maximum/minimum's tie rules;
// for floats a NaN bound or x is returned (lo first, then x, then hi).
struct Clamp {
  template <class K> static constexpr bool kAccepts = isReal<K>;
  template <class K> static V<K> apply(V<K> lo, V<K> x, V<K> hi) {
    if constexpr (isFloat<K>) {
      if (std::isnan(lo)) return lo;
      if (std::isnan(x)) return x;
      if (std::isnan(hi)) return hi;
    }
    V<K> atLeastLo = x < lo ? lo : x;
    return atLeastLo < hi ? atLeastLo : hi;
  }
};

// --- Comparison -----------------------------------------------------------

// Orders float bit patterns as TOTALORDER requires:
//   -NaN < -inf < ... < -0 < +0 < ... < inf < NaN
// by reading sign-magnitude bits as a signed number. `width` is the type's
// bit width; types without a sign bit (f8e8m0fnu) order by their bits.
inline int64_t totalOrderKey(uint64_t bits, int width, bool hasSignBit = true) {
  if (!hasSignBit) return static_cast<int64_t>(bits);
  uint64_t sign = uint64_t{1} << (width - 1);
  auto magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? ~magnitude : magnitude;
}

// Calls fn with the std:: comparison functor of `direction` (so a loop can
// be instantiated once per direction). Complex values have only == and !=;
// the caller refuses the others.
template <typename Fn>
decltype(auto) withDirection(ComparisonDirection direction, Fn&& fn) {
  switch (direction) {
    case ComparisonDirection::kEq: return fn(std::equal_to<>());
    case ComparisonDirection::kNe: return fn(std::not_equal_to<>());
    case ComparisonDirection::kGe: return fn(std::greater_equal<>());
    case ComparisonDirection::kGt: return fn(std::greater<>());
    case ComparisonDirection::kLe: return fn(std::less_equal<>());
    case ComparisonDirection::kLt: return fn(std::less<>());
  }
  return fn(std::equal_to<>());
}

// --- Conversion -----------------------------------------------------------

// Float to integer as XLA converts: NaN -> 0, values at or beyond the
// type's range saturate, others truncate toward zero.
template <class K>
V<K> floatToInt(double x) {
  if (std::isnan(x)) return 0;
  if (x >= static_cast<double>(K::max())) return K::max();
  if (x <= static_cast<double>(K::min())) return K::min();
  if constexpr (K::kSigned) return static_cast<V<K>>(static_cast<int64_t>(x));
  else return static_cast<V<K>>(static_cast<uint64_t>(x));
}

// stochastic-convert of one float into the signed integer kind K
// (hlo/stochastic_round.h).
template <class K>
V<K> stochasticRound(double x, uint64_t random, int randomBits) {
  return K::wrap(static_cast<uint64_t>(hlo::stochasticRound(x, random, randomBits, K::kBits)));
}

}  // namespace hlo::interp::scalar
