// Dense arithmetic buffers for the contraction ops (dot, ragged-dot,
// scaled-dot, convolution): an operand is copied once into a flat vector of
// its accumulation type, possibly with its dimensions reordered, so the inner
// loops run over contiguous memory with no per-element dispatch.
//
// The accumulation type is the widest kind among the result and operand
// element types, so a float dot with an integer result (bf16 x bf16 -> s32)
// sums the real products (and rounds and truncates once, dot_conv.cc):
//   integers and pred  uint64_t  (wraps modulo 2^64, then to the result width)
//   floats             double    (rounded once to the result type)
//   complex            std::complex<double>
#pragma once

#include <algorithm>
#include <complex>
#include <optional>
#include <cstdint>
#include <vector>

#include "interp/element_io.h"
#include "hlo/indexing.h"

namespace hlo::interp {

enum class AccKind : uint8_t { kInt, kReal, kComplex };

inline AccKind accKindFor(ElementType result, ElementType lhs, ElementType rhs) {
  auto kind = [](ElementType t) {
    return isComplex(t) ? AccKind::kComplex : isFloat(t) ? AccKind::kReal : AccKind::kInt;
  };
  return std::max({kind(result), kind(lhs), kind(rhs)});
}

template <typename T>
T readAs(const Literal& lit, int64_t i);
template <>
inline uint64_t readAs<uint64_t>(const Literal& lit, int64_t i) {
  return static_cast<uint64_t>(readInt(lit, i));
}
template <>
inline double readAs<double>(const Literal& lit, int64_t i) {
  ElementType t = lit.type();
  if (t == ElementType::kF32) return lit.data<float>()[i];
  if (t == ElementType::kF64) return lit.data<double>()[i];
  return lit.toDouble(i);
}
template <>
inline std::complex<double> readAs<std::complex<double>>(const Literal& lit, int64_t i) {
  return lit.toComplex(i);
}

inline void writeAs(Literal& lit, int64_t i, uint64_t v) { writeInt(lit, i, static_cast<int64_t>(v)); }
// Doubles go to floats rounded, or to an integer type truncated (scaled-dot).
inline void writeAs(Literal& lit, int64_t i, double v) { writeReal(lit, i, v); }
inline void writeAs(Literal& lit, int64_t i, std::complex<double> v) { writeComplex(lit, i, v); }

// For code generic over double and complex<double> (the linear-algebra ops).
inline double conjugate(double x) { return x; }
inline std::complex<double> conjugate(std::complex<double> x) { return std::conj(x); }

// RoundThrough (hlo/element_io.h) for an instruction's result and first two
// operands: the float-into-integer rounding of dot and convolution. Values
// of the other accumulation types pass unchanged.
class RoundVia {
 public:
  explicit RoundVia(const Instruction& instr)
      : round_(typeOf(instr.shape()), typeOf(operandShape(instr, 0)), typeOf(operandShape(instr, 1))) {}
  double operator()(double v) { return round_(v); }
  template <typename T>
  T operator()(const T& v) { return v; }

 private:
  static const Shape& operandShape(const Instruction& instr, int i) {
    return i < instr.operandCount() ? instr.operand(i)->shape() : instr.shape();
  }
  // Tuples and tokens take no part: pred stands for "not a float".
  static ElementType typeOf(const Shape& s) { return s.isArray() ? s.type() : ElementType::kPred; }
  RoundThrough round_;
};

// The elements of `lit` in the order of forEachPermuted, converted to T.
template <typename T>
std::vector<T> gatherAs(const Literal& lit, const std::vector<int64_t>& perm) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(lit.elementCount()));
  forEachPermuted(lit.shape().dims(), perm,
                  [&](const std::vector<int64_t>&, int64_t offset) { out.push_back(readAs<T>(lit, offset)); });
  return out;
}

// c[b][i][j] += sum over k of a[b][i][k] * b[b][k][j], for row-major
// a: [batch, m, k], b: [batch, k, n], c: [batch, m, n]. Loop order i-k-j, so
// the inner loop streams contiguous rows of b and c; each c[b][i][j]
// accumulates its products in increasing k.
template <typename T>
void batchMatmul(const T* a, const T* b, T* c, int64_t batch, int64_t m, int64_t k, int64_t n) {
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t i = 0; i < m; ++i) {
      T* __restrict cRow = c + (bi * m + i) * n;
      const T* aRow = a + (bi * m + i) * k;
      for (int64_t kk = 0; kk < k; ++kk) {
        T av = aRow[kk];
        const T* __restrict bRow = b + (bi * k + kk) * n;
        for (int64_t j = 0; j < n; ++j) cRow[j] += av * bRow[j];
      }
    }
  }
}

// Writes c into a fresh literal element by element (row-major).
template <typename T>
void storeAll(const Instruction& instr, const std::vector<T>& c, Literal& out) {
  RoundVia round(instr);
  for (size_t i = 0; i < c.size(); ++i) writeAs(out, static_cast<int64_t>(i), round(c[i]));
}

}  // namespace hlo::interp
