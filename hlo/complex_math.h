// Complex arithmetic that both engines compute the same way.
//
// The interpreter (interp/scalar_ops.h) applies these formulas to
// std::complex values; the CPU JIT emits complex add, subtract, multiply,
// negate and comparisons inline and calls applyComplexUnary /
// applyComplexBinary (through a runtime function) for the rest, so the two
// share one definition of every formula that is ours rather than std::'s.
// c64 computes in float and c128 in double, as XLA's evaluator does.
#pragma once

#include <cmath>
#include <complex>

#include "hlo/element_type.h"
#include "hlo/opcode.h"

namespace hlo {

// exp(x) - 1 for x = a + bi: (expm1(a) cos b - 2 sin^2(b/2)) + i e^a sin b,
// accurate near zero.
template <class F>
std::complex<F> complexExpm1(std::complex<F> x) {
  F a = x.real(), b = x.imag(), h = std::sin(b / 2);
  return {std::expm1(a) * std::cos(b) - 2 * h * h, std::exp(a) * std::sin(b)};
}

// log(1 + x) for x = a + bi: 0.5 log1p(2a + a^2 + b^2) + i atan2(b, 1 + a).
template <class F>
std::complex<F> complexLog1p(std::complex<F> x) {
  F a = x.real(), b = x.imag();
  return {std::log1p(2 * a + a * a + b * b) / 2, std::atan2(b, 1 + a)};
}

// x / |x|, or 0.
template <class F>
std::complex<F> complexSign(std::complex<F> x) {
  F magnitude = std::abs(x);
  return magnitude == 0 ? std::complex<F>(0) : x / magnitude;
}

// a^b with x^0 = 1 and 1^x = 1 for every x, and inf^(c+0i) = inf for c > 0
// and 0 for c < 0 (std::pow gives NaN there); otherwise std::pow.
template <class F>
std::complex<F> complexPower(std::complex<F> a, std::complex<F> b) {
  using C = std::complex<F>;
  if (a == C(1) || b == C(0)) return 1;
  bool aIsPositiveInf = a.imag() == 0 && std::isinf(a.real()) && a.real() > 0;
  if (aIsPositiveInf && b.imag() == 0 && b.real() > 0) return a;
  if (aIsPositiveInf && b.imag() == 0 && b.real() < 0) return 0;
  return std::pow(a, b);
}

// atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)), as XLA's evaluator.
template <class F>
std::complex<F> complexAtan2(std::complex<F> y, std::complex<F> x) {
  std::complex<F> i(0, 1);
  return -i * std::log((x + i * y) / std::sqrt(x * x + y * y));
}

// `op` applied to values of the complex type `t`, passed and returned as
// (re, im) pairs of doubles (a c64 value is computed in float, so it
// round-trips exactly). abs, real and imag return their real result as
// (r, 0). False when `op` has no complex meaning.
bool applyComplexUnary(Opcode op, ElementType t, const double x[2], double out[2]);
bool applyComplexBinary(Opcode op, ElementType t, const double a[2], const double b[2], double out[2]);

}  // namespace hlo
