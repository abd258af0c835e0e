// Reading and writing single array elements as int64, double or complex,
// for the ops that compute in a wide type and round once at the end (dot,
// convolution, fft, the linear-algebra ops, rng) — in the interpreter and in
// the CPU backend's library ops alike.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>

#include "hlo/float_formats.h"
#include "hlo/literal.h"

namespace hlo {

// Element i of an integer or pred array, sign-extended for signed types and
// zero-extended otherwise (u64 values above 2^63 wrap, which is what
// arithmetic modulo 2^64 wants). Float elements are truncated toward zero.
inline int64_t readInt(const Literal& lit, int64_t i) {
  ElementType t = lit.type();
  if (isFloat(t) || isComplex(t)) return static_cast<int64_t>(lit.toDouble(i));
  uint64_t bits = lit.bitsAt(i);
  int width = storageBytes(t) * 8;
  if (isSigned(t) && width < 64) return static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
  return static_cast<int64_t>(bits);
}

// Stores `v` wrapped to the width of the integer type (s4 keeps its low four
// bits, sign-extended into its byte); pred stores v != 0.
inline void writeInt(Literal& lit, int64_t i, int64_t v) {
  ElementType t = lit.type();
  if (isPred(t)) {
    lit.setBitsAt(i, v != 0 ? 1 : 0);
    return;
  }
  int bits = bitWidth(t);
  uint64_t u = static_cast<uint64_t>(v);
  if (bits < 64) {
    u &= (uint64_t{1} << bits) - 1;
    if (isSigned(t) && (u >> (bits - 1)) != 0) u |= ~uint64_t{0} << bits;  // sign-extend into storage
  }
  lit.setBitsAt(i, u);
}

// Stores `v` rounded once to the float type (ties to even).
inline void writeFloat(Literal& lit, int64_t i, double v) {
  ElementType t = lit.type();
  if (t == ElementType::kF64) {
    lit.data<double>()[i] = v;
  } else if (t == ElementType::kF32) {
    lit.data<float>()[i] = static_cast<float>(v);
  } else {
    lit.setBitsAt(i, encodeSmallFloat(t, v));
  }
}

inline void writeComplex(Literal& lit, int64_t i, std::complex<double> v) {
  if (lit.type() == ElementType::kC64) {
    lit.data<float>()[2 * i] = static_cast<float>(v.real());
    lit.data<float>()[2 * i + 1] = static_cast<float>(v.imag());
  } else {
    lit.data<double>()[2 * i] = v.real();
    lit.data<double>()[2 * i + 1] = v.imag();
  }
}

// Stores a real value into any numeric type: floats rounded, complex with a
// zero imaginary part, integers truncated toward zero and wrapped to the type.
inline void writeReal(Literal& lit, int64_t i, double v) {
  ElementType t = lit.type();
  if (isFloat(t)) return writeFloat(lit, i, v);
  if (isComplex(t)) return writeComplex(lit, i, v);
  // NaN becomes 0 and out-of-range values saturate, rather than being undefined.
  if (!(v == v)) v = 0;
  if (v >= 9223372036854775807.0) return writeInt(lit, i, INT64_MAX);
  if (v <= -9223372036854775808.0) return writeInt(lit, i, INT64_MIN);
  writeInt(lit, i, static_cast<int64_t>(v));
}

// Converts element `from` of `src` into element `to` of `dst`, any numeric
// types: the same type copies the bits; otherwise integers and pred go
// through int64, floats through double, complex through complex<double>
// (a complex source gives its real part to a real target).
inline void convertElement(const Literal& src, int64_t from, Literal& dst, int64_t to) {
  ElementType s = src.type(), d = dst.type();
  if (s == d) {
    int n = storageBytes(s);
    std::memcpy(dst.untypedData() + to * n, src.untypedData() + from * n, n);
  } else if (isComplex(d)) {
    writeComplex(dst, to, src.toComplex(from));
  } else if (isFloat(d) || isFloat(s) || isComplex(s)) {
    writeReal(dst, to, src.toDouble(from));
  } else {
    writeInt(dst, to, readInt(src, from));
  }
}

// Element i of an integer array as an index: signed values sign-extended,
// unsigned ones past INT64_MAX saturated (every use clamps or bounds-checks
// indices afterwards).
inline int64_t integerAt(const Literal& lit, int64_t i) {
  uint64_t bits = lit.bitsAt(i);
  int width = storageBytes(lit.type()) * 8;
  if (isSigned(lit.type()))
    return width == 64 ? static_cast<int64_t>(bits)
                       : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
  constexpr uint64_t kMax = static_cast<uint64_t>(INT64_MAX);
  return bits > kMax ? INT64_MAX : static_cast<int64_t>(bits);
}

// Element i as an integer whose order is the value order (sort and topk):
// floats in total order, -NaN < -inf < ... < -0 < +0 < ... < inf < +NaN
// (sign-magnitude bits mapped onto the integers); integers by value, u64
// shifted into the signed range.
inline int64_t totalOrderKey(const Literal& x, int64_t i) {
  ElementType t = x.type();
  uint64_t bits = x.bitsAt(i);
  if (isFloat(t)) {
    if (t == ElementType::kF8E8M0FNU) return static_cast<int64_t>(bits);  // no sign bit
    int width = bitWidth(t);
    uint64_t magnitude = width == 64 ? bits & ~(uint64_t{1} << 63) : bits & ((uint64_t{1} << (width - 1)) - 1);
    bool negative = (bits >> (width - 1)) & 1;
    return negative ? -static_cast<int64_t>(magnitude) - 1 : static_cast<int64_t>(magnitude);
  }
  if (t == ElementType::kU64) return static_cast<int64_t>(bits ^ (uint64_t{1} << 63));
  return readInt(x, i);
}

// A contraction (dot, convolution) of float operands with an integer result
// is the float contraction, converted — XLA reads bf16 x bf16 -> s32 as
// convert(dot -> bf16) — so each real sum is first rounded to the widest
// float operand type. RoundThrough does that rounding for one result type;
// it passes values through unchanged otherwise.
class RoundThrough {
 public:
  RoundThrough(ElementType result, ElementType lhs, ElementType rhs) {
    if (isFloat(result) || isComplex(result)) return;
    for (ElementType t : {lhs, rhs})
      if (isFloat(t) && (!scratch_ || storageBytes(t) > storageBytes(scratch_->type())))
        scratch_.emplace(Shape::scalar(t));
  }
  double operator()(double v) {
    if (!scratch_) return v;
    writeReal(*scratch_, 0, v);
    return scratch_->toDouble(0);
  }

 private:
  std::optional<Literal> scratch_;
};

}  // namespace hlo
