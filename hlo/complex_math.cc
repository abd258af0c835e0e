#include "hlo/complex_math.h"

namespace hlo {
namespace {

template <class F>
bool unary(Opcode op, std::complex<F> x, std::complex<F>& r) {
  using C = std::complex<F>;
  switch (op) {
    case Opcode::kAbs: r = std::abs(x); return true;
    case Opcode::kReal: r = x.real(); return true;
    case Opcode::kImag: r = x.imag(); return true;
    case Opcode::kNegate: r = -x; return true;
    case Opcode::kSign: r = complexSign(x); return true;
    case Opcode::kSqrt: r = std::sqrt(x); return true;
    case Opcode::kRsqrt: r = C(1) / std::sqrt(x); return true;
    case Opcode::kExp: r = std::exp(x); return true;
    case Opcode::kExpm1: r = complexExpm1(x); return true;
    case Opcode::kLog: r = std::log(x); return true;
    case Opcode::kLog1p: r = complexLog1p(x); return true;
    case Opcode::kLogistic: r = C(1) / (C(1) + std::exp(-x)); return true;
    case Opcode::kSin: r = std::sin(x); return true;
    case Opcode::kCos: r = std::cos(x); return true;
    case Opcode::kTan: r = std::tan(x); return true;
    case Opcode::kTanh: r = std::tanh(x); return true;
    case Opcode::kSinh: r = std::sinh(x); return true;
    case Opcode::kCosh: r = std::cosh(x); return true;
    case Opcode::kAsin: r = std::asin(x); return true;
    case Opcode::kAcos: r = std::acos(x); return true;
    case Opcode::kAtan: r = std::atan(x); return true;
    case Opcode::kAsinh: r = std::asinh(x); return true;
    case Opcode::kAcosh: r = std::acosh(x); return true;
    case Opcode::kAtanh: r = std::atanh(x); return true;
    default: return false;
  }
}

template <class F>
bool binary(Opcode op, std::complex<F> a, std::complex<F> b, std::complex<F>& r) {
  switch (op) {
    case Opcode::kAdd: r = a + b; return true;
    case Opcode::kSubtract: r = a - b; return true;
    case Opcode::kMultiply: r = a * b; return true;
    case Opcode::kDivide: r = a / b; return true;
    case Opcode::kPower: r = complexPower(a, b); return true;
    case Opcode::kAtan2: r = complexAtan2(a, b); return true;
    default: return false;
  }
}

template <class F>
std::complex<F> in(const double v[2]) {
  return {static_cast<F>(v[0]), static_cast<F>(v[1])};
}

template <class F>
void out(std::complex<F> r, double v[2]) {
  v[0] = r.real();
  v[1] = r.imag();
}

// c64 computes in float, c128 in double.
template <class Fn>
bool inPrecisionOf(ElementType t, Fn&& fn) {
  if (t == ElementType::kC64) return fn(float{});
  if (t == ElementType::kC128) return fn(double{});
  return false;
}

}  // namespace

bool applyComplexUnary(Opcode op, ElementType t, const double x[2], double result[2]) {
  return inPrecisionOf(t, [&](auto precision) {
    using F = decltype(precision);
    std::complex<F> r;
    if (!unary(op, in<F>(x), r)) return false;
    out(r, result);
    return true;
  });
}

bool applyComplexBinary(Opcode op, ElementType t, const double a[2], const double b[2], double result[2]) {
  return inPrecisionOf(t, [&](auto precision) {
    using F = decltype(precision);
    std::complex<F> r;
    if (!binary(op, in<F>(a), in<F>(b), r)) return false;
    out(r, result);
    return true;
  });
}

}  // namespace hlo
