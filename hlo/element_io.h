// Reading and writing single array elements as int64, double or complex,
// for the ops that compute in a wide type and round once at the end (dot,
// convolution, fft, the linear-algebra ops, rng) — in the interpreter and in
// the CPU backend's library ops alike.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>

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

}  // namespace hlo
