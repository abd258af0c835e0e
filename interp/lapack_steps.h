// The steps the reference algorithms of lapack_reference.h share: scalar
// helpers generic over double and complex<double>, Householder reflectors
// (LAPACK's larfg convention) and their application from either side.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

#include "interp/lapack_reference.h"

namespace hlo::interp::lapack {

inline double conj(double x) { return x; }
inline C conj(C x) { return std::conj(x); }
inline double re(double x) { return x; }
inline double re(C x) { return x.real(); }
inline double im(double) { return 0; }
inline double im(C x) { return x.imag(); }
inline double abs1(double x) { return std::fabs(x); }
inline double abs1(C x) { return std::fabs(x.real()) + std::fabs(x.imag()); }

// x / |x| for x != 0: the phase that makes x real and positive when divided out.
inline double phase(double x) { return x < 0 ? -1 : 1; }
inline C phase(C x) { return x / std::abs(x); }

inline constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

// Whether the elements of `a` in triangle `part` ('L', 'U', or 'A' for all)
// are finite: the rotation methods would skip NaNs rather than spread them.
template <typename T>
bool allFinite(const Matrix<T>& a, char part) {
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i)
      if ((part == 'A' || (part == 'L' ? i >= j : i <= j)) && !(std::isfinite(re(a(i, j))) && std::isfinite(im(a(i, j)))))
        return false;
  return true;
}

template <typename T>
double frobenius(const Matrix<T>& a) {
  double s = 0;
  for (const T& x : a.v) s += std::norm(x);
  return std::sqrt(s);
}

// Applies H = I - tau v v^H to rows [r0, r0 + v.size()) of columns [c0, c1)
// of `a`, from the left.
template <typename T>
void applyReflector(Matrix<T>& a, const std::vector<T>& v, T tau, int64_t r0, int64_t c0, int64_t c1) {
  if (tau == T(0)) return;
  for (int64_t c = c0; c < c1; ++c) {
    T w = 0;
    for (size_t r = 0; r < v.size(); ++r) w += conj(v[r]) * a(r0 + static_cast<int64_t>(r), c);
    w *= tau;
    for (size_t r = 0; r < v.size(); ++r) a(r0 + static_cast<int64_t>(r), c) -= v[r] * w;
  }
}

// larfg: the reflector H = I - tau v v^H with H^H (alpha; x) = (beta; 0),
// beta real, v = (1; x / (alpha - beta)). `alpha` and `x` are replaced by
// beta and v's tail; returns tau (0, H = I, when x = 0 and alpha is real).
template <typename T>
T reflector(T& alpha, const std::vector<T*>& x) {
  double xnorm = 0;
  for (T* e : x) xnorm += std::norm(*e);
  xnorm = std::sqrt(xnorm);
  if (xnorm == 0 && im(alpha) == 0) return T(0);
  double beta = -std::copysign(std::sqrt(std::norm(alpha) + xnorm * xnorm), re(alpha));
  T tau;
  if constexpr (std::is_same_v<T, C>) tau = C(beta - alpha.real(), -alpha.imag()) / beta;
  else tau = (beta - alpha) / beta;
  T scale = T(1) / (alpha - beta);
  for (T* e : x) *e *= scale;
  alpha = beta;
  return tau;
}

// Applies H = I - tau v v^H to columns [c0, c0 + v.size()) of rows [r0, r1)
// of `a`, from the right.
template <typename T>
void applyReflectorRight(Matrix<T>& a, const std::vector<T>& v, T tau, int64_t c0, int64_t r0, int64_t r1) {
  if (tau == T(0)) return;
  for (int64_t r = r0; r < r1; ++r) {
    T w = 0;
    for (size_t j = 0; j < v.size(); ++j) w += a(r, c0 + static_cast<int64_t>(j)) * v[j];
    w *= tau;
    for (size_t j = 0; j < v.size(); ++j) a(r, c0 + static_cast<int64_t>(j)) -= w * conj(v[j]);
  }
}

}  // namespace hlo::interp::lapack
