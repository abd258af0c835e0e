// What the linear-algebra library ops (triangular-solve, cholesky) share:
// the matrices of a batch, the type they compute in, and moving one matrix
// between a literal and a work buffer of that type.
//
// Both compute in double (complex<double> for complex types) and round once
// to the result type, as the interpreter, the reference, does, so OpenBLAS's
// d/z routines do the work for every element type. Errors grow with the
// condition number, and a random triangle's grows exponentially with its
// size: for the corpus's 256x256 random unit triangle (solutions up to
// 2e13), substitution in f32 is off from the double result by up to 5e-5
// relative, half the f32 tolerance two engines are held to, where dtrsm
// rounded to f32 agrees with the interpreter bit for bit.
#pragma once
#include <complex>
#include <cstdint>

#include "backends/cpu/runtime_blas.h"
#include "hlo/element_io.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo::cpu::linalg {

using C = std::complex<double>;

inline double conjugate(double x) { return x; }
inline C conjugate(C x) { return std::conj(x); }
inline double realPart(double x) { return x; }
inline double realPart(C x) { return x.real(); }

// The matrices of an array: the two minor dimensions; every leading
// dimension is a batch dimension.
struct Matrices {
  int64_t count = 1, rows = 0, cols = 0;
  int64_t size() const { return rows * cols; }
};

inline Matrices matricesOf(const Shape& s) {
  Matrices m;
  for (int i = 0; i + 2 < s.rank(); ++i) m.count *= s.dim(i);
  m.rows = s.dim(s.rank() - 2);
  m.cols = s.dim(s.rank() - 1);
  return m;
}

// The element types these ops take: floats of any width and complex.
inline bool linalgType(ElementType t) { return isFloat(t) || isComplex(t); }

// Calls f(T{}) with T = double for floats, std::complex<double> for complex.
template <typename F>
Status withLinalgType(ElementType t, F&& f) {
  if (isComplex(t)) return f(C{});
  return f(double{});
}

// n elements of `lit` from `base` into `to`, converted to T.
template <typename T>
void load(const Literal& lit, int64_t base, int64_t n, T* to) {
  for (int64_t i = 0; i < n; ++i) to[i] = readAs<T>(lit, base + i);
}

// n values into `lit` from `base`, rounded once to its element type.
template <typename T>
void store(const T* from, int64_t n, Literal& lit, int64_t base) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, C>) writeComplex(lit, base + i, from[i]);
    else writeFloat(lit, base + i, from[i]);
  }
}

}  // namespace hlo::cpu::linalg
