// The nonsymmetric eigenproblem of lapack_reference.h: gees (Schur form) and
// geev (eigenvalues and eigenvectors), from one Schur decomposition.
//
//   1. Hessenberg form by Householder reflectors (gehrd), Q accumulated.
//   2. Schur form by the QR algorithm on the active block, deflating where a
//      subdiagonal element falls below eps times its diagonal neighbours:
//      complex matrices by single-shift QR with the Wilkinson shift (Givens
//      rotations), real ones by Francis's implicit double shift (3-element
//      Householder reflectors), so that complex eigenvalues come in exact
//      conjugate pairs, each pair a 2x2 block; a 2x2 block with real
//      eigenvalues is split by one more rotation. Exceptional shifts after
//      10 and 20 iterations without deflation; more than 30 per eigenvalue
//      is a failure (info > 0).
//   3. Eigenvectors (geev) from the triangular form (the real Schur form's
//      2x2 blocks are triangularized by a complex rotation first): right
//      ones by back substitution, (T - w_k) y = 0 with y_k = 1, left ones
//      by forward substitution on T^H; then multiplied by Z and scaled as
//      LAPACK scales them, to unit norm with the largest component real and
//      positive. For a real matrix a real eigenvalue's vector is real, and
//      the second of a conjugate pair gets the conjugate of the first's.
#include <algorithm>
#include <cmath>
#include <limits>

#include "interp/lapack_reference.h"
#include "interp/lapack_steps.h"

namespace hlo::interp::lapack {
namespace {

// a = Q H Q^H with H upper Hessenberg: a becomes H, z becomes Q.
template <typename T>
void hessenberg(Matrix<T>& a, Matrix<T>& z) {
  int64_t n = a.rows;
  std::vector<T> tau;
  gehrd(a, 1, n, tau);
  z = Matrix<T>(n, n);
  for (int64_t i = 0; i < n; ++i) z(i, i) = 1;
  // Q = H(0) ... H(n-2): applied to I from the last one.
  for (int64_t i = n - 2; i >= 0; --i) {
    T t = tau[static_cast<size_t>(i)];
    if (t == T(0)) continue;
    std::vector<T> v(static_cast<size_t>(n - i - 1));
    v[0] = 1;
    for (int64_t r = i + 2; r < n; ++r) v[static_cast<size_t>(r - i - 1)] = a(r, i);
    applyReflector(z, v, t, i + 1, 0, n);
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j + 2; i < n; ++i) a(i, j) = 0;
}

// The start of the unreduced block that ends at row `hi`: the first l going
// up from hi whose subdiagonal element t(l, l-1) is negligible (set to 0).
template <typename T>
int64_t blockStart(Matrix<T>& t, int64_t hi, double norm) {
  for (int64_t l = hi; l > 0; --l) {
    double s = std::abs(t(l - 1, l - 1)) + std::abs(t(l, l));
    if (s == 0) s = norm;
    if (std::abs(t(l, l - 1)) <= kEpsilon * s) {
      t(l, l - 1) = 0;
      return l;
    }
  }
  return 0;
}

// Complex Schur form of a Hessenberg t by single-shift QR; z accumulates.
bool complexSchur(Matrix<C>& t, Matrix<C>& z) {
  int64_t n = t.rows;
  double norm = std::max(frobenius(t), std::numeric_limits<double>::min());
  int iterations = 0;
  for (int64_t hi = n - 1; hi > 0;) {
    int64_t l = blockStart(t, hi, norm);
    if (l == hi) {
      --hi;
      iterations = 0;
      continue;
    }
    if (++iterations > 30 * n) return false;
    // The Wilkinson shift: the eigenvalue of the trailing 2x2 nearer t(hi, hi).
    C a = t(hi - 1, hi - 1), b = t(hi - 1, hi), c = t(hi, hi - 1), d = t(hi, hi);
    C half = (a - d) / 2.0, root = std::sqrt(half * half + b * c);
    C mu1 = (a + d) / 2.0 + root, mu2 = (a + d) / 2.0 - root;
    C mu = std::abs(mu1 - d) < std::abs(mu2 - d) ? mu1 : mu2;
    if (iterations % 10 == 0) mu = d + std::abs(c);  // exceptional shift
    C x = t(l, l) - mu, y = t(l + 1, l);
    for (int64_t k = l; k < hi; ++k) {
      // G = [[c, s], [-conj(s), c]] with G (x; y) = (r; 0).
      double r = std::hypot(std::abs(x), std::abs(y));
      double cs;
      C sn;
      if (r == 0) {
        cs = 1, sn = 0;
      } else if (std::abs(x) == 0) {
        cs = 0, sn = std::conj(y) / std::abs(y);
      } else {
        cs = std::abs(x) / r;
        sn = (x / std::abs(x)) * std::conj(y) / r;
      }
      for (int64_t col = std::max(l, k - 1); col < n; ++col) {
        C p = t(k, col), q = t(k + 1, col);
        t(k, col) = cs * p + sn * q;
        t(k + 1, col) = -std::conj(sn) * p + cs * q;
      }
      auto columns = [&](Matrix<C>& m, int64_t rows) {
        for (int64_t row = 0; row < rows; ++row) {
          C p = m(row, k), q = m(row, k + 1);
          m(row, k) = p * cs + q * std::conj(sn);
          m(row, k + 1) = -p * sn + q * cs;
        }
      };
      columns(t, std::min(k + 2, hi) + 1);
      columns(z, n);
      if (k + 1 < hi) x = t(k + 1, k), y = t(k + 2, k);
    }
  }
  // What the bulge chasing leaves below the subdiagonal is rounding.
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j + 1; i < n; ++i) t(i, j) = 0;
  return true;
}

// The reflector (larfg's) taking (x; rest) to (beta; 0): v with v[0] = 1,
// and tau.
std::pair<std::vector<double>, double> reflectorOf(std::vector<double> x) {
  std::vector<double*> rest;
  for (size_t i = 1; i < x.size(); ++i) rest.push_back(&x[i]);
  double tau = reflector(x[0], rest);
  x[0] = 1;
  return {x, tau};
}

// t := H t H (H symmetric) on rows and columns [k, k + v.size()), the rows
// from column `from` on and the columns down to row `rows` - 1; z := z H.
void reflectBoth(Matrix<double>& t, Matrix<double>& z, const std::vector<double>& v, double tau, int64_t k,
                 int64_t from, int64_t rows) {
  applyReflector(t, v, tau, k, from, t.cols);
  applyReflectorRight(t, v, tau, k, 0, rows);
  applyReflectorRight(z, v, tau, k, 0, z.rows);
}

// Real Schur form of a Hessenberg t by Francis's double-shift QR.
bool realSchur(Matrix<double>& t, Matrix<double>& z) {
  int64_t n = t.rows;
  double norm = std::max(frobenius(t), std::numeric_limits<double>::min());
  int iterations = 0;
  for (int64_t hi = n - 1; hi > 0;) {
    int64_t l = blockStart(t, hi, norm);
    if (l >= hi - 1) {  // a 1x1 or 2x2 block has converged
      hi = l - 1;
      iterations = 0;
      continue;
    }
    if (++iterations > 30 * n) return false;
    double s = t(hi - 1, hi - 1) + t(hi, hi);
    double p = t(hi - 1, hi - 1) * t(hi, hi) - t(hi - 1, hi) * t(hi, hi - 1);
    if (iterations % 10 == 0) {  // exceptional shifts
      double w = std::fabs(t(hi, hi - 1)) + std::fabs(t(hi - 1, hi - 2));
      s = 1.5 * w;
      p = w * w;
    }
    double x = t(l, l) * t(l, l) + t(l, l + 1) * t(l + 1, l) - s * t(l, l) + p;
    double y = t(l + 1, l) * (t(l, l) + t(l + 1, l + 1) - s);
    double w = t(l + 1, l) * t(l + 2, l + 1);
    for (int64_t k = l; k <= hi - 2; ++k) {
      auto [v, tau] = reflectorOf({x, y, w});
      reflectBoth(t, z, v, tau, k, std::max(l, k - 1), std::min(k + 3, hi) + 1);
      x = t(k + 1, k);
      y = t(k + 2, k);
      w = k < hi - 2 ? t(k + 3, k) : 0;
    }
    auto [v, tau] = reflectorOf({x, y});
    reflectBoth(t, z, v, tau, hi - 1, hi - 2, hi + 1);
  }
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j + 2; i < n; ++i) t(i, j) = 0;
  // Split the 2x2 blocks whose eigenvalues are real.
  for (int64_t i = 0; i + 1 < n; ++i) {
    if (t(i + 1, i) == 0) continue;
    double a = t(i, i), b = t(i, i + 1), c = t(i + 1, i), d = t(i + 1, i + 1);
    double half = (a - d) / 2, disc = half * half + b * c;
    if (disc >= 0) {
      double lambda = (a + d) / 2 + std::copysign(std::sqrt(disc), half);
      // An eigenvector of lambda as the rotation's first column.
      double v1 = lambda - d, v2 = c;
      if (std::hypot(b, lambda - a) > std::hypot(v1, v2)) v1 = b, v2 = lambda - a;
      double r = std::hypot(v1, v2), cs = v1 / r, sn = v2 / r;
      for (int64_t col = i; col < n; ++col) {
        double p = t(i, col), q = t(i + 1, col);
        t(i, col) = cs * p + sn * q;
        t(i + 1, col) = -sn * p + cs * q;
      }
      auto columns = [&](Matrix<double>& m, int64_t rows) {
        for (int64_t row = 0; row < rows; ++row) {
          double p = m(row, i), q = m(row, i + 1);
          m(row, i) = p * cs + q * sn;
          m(row, i + 1) = -p * sn + q * cs;
        }
      };
      columns(t, i + 2);
      columns(z, n);
      t(i + 1, i) = 0;
    }
    ++i;  // past the block
  }
  return true;
}

// The eigenvalues in the Schur form's diagonal order: 2x2 blocks give
// p + iq, p - iq (q > 0).
std::vector<C> eigenvaluesOf(const Matrix<double>& t) {
  int64_t n = t.rows;
  std::vector<C> w(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (i + 1 < n && t(i + 1, i) != 0) {
      double a = t(i, i), b = t(i, i + 1), c = t(i + 1, i), d = t(i + 1, i + 1);
      double half = (a - d) / 2, q = std::sqrt(-(half * half + b * c));
      w[i] = C((a + d) / 2, q);
      w[i + 1] = C((a + d) / 2, -q);
      ++i;
    } else {
      w[i] = t(i, i);
    }
  }
  return w;
}
std::vector<C> eigenvaluesOf(const Matrix<C>& t) {
  std::vector<C> w(static_cast<size_t>(t.rows));
  for (int64_t i = 0; i < t.rows; ++i) w[i] = t(i, i);
  return w;
}

template <typename T>
bool schur(Matrix<T>& a, Matrix<T>& z) {
  hessenberg(a, z);
  if constexpr (std::is_same_v<T, C>) return complexSchur(a, z);
  else return realSchur(a, z);
}

// Scales x to unit norm with its largest component real and positive.
void normalize(std::vector<C>& x) {
  double norm = 0;
  size_t largest = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    norm += std::norm(x[i]);
    if (std::norm(x[i]) > std::norm(x[largest])) largest = i;
  }
  if (norm == 0) return;
  C scale = std::conj(x[largest]) / (std::abs(x[largest]) * std::sqrt(norm));
  for (C& e : x) e *= scale;
  x[largest] = x[largest].real();  // real up to rounding: made exactly so, as LAPACK does
}

}  // namespace

template <typename T>
int gees(Matrix<T>& a, Matrix<T>& z, std::vector<C>& w) {
  int64_t n = a.rows;
  if (!allFinite(a, 'A')) {
    std::fill(a.v.begin(), a.v.end(), T(std::nan("")));
    z = Matrix<T>(n, n);
    std::fill(z.v.begin(), z.v.end(), T(std::nan("")));
    w.assign(static_cast<size_t>(n), C(std::nan(""), std::nan("")));
    return 1;
  }
  bool converged = schur(a, z);
  w = eigenvaluesOf(a);
  return converged ? 0 : 1;
}

template <typename T>
int geev(const Matrix<T>& a, std::vector<C>& w, Matrix<C>* vl, Matrix<C>* vr) {
  int64_t n = a.rows;
  Matrix<T> t = a, z;
  if (!allFinite(a, 'A')) {
    w.assign(static_cast<size_t>(n), C(std::nan(""), std::nan("")));
    return -4;  // jaxlib's kernel does not call LAPACK on such a matrix
  }
  if (!schur(t, z)) {
    w.assign(static_cast<size_t>(n), C(std::nan(""), std::nan("")));
    return 1;
  }
  w = eigenvaluesOf(t);
  if (!vl && !vr) return 0;
  // The triangular complex Schur form tc = zc^H a zc.
  Matrix<C> tc(n, n), zc(n, n);
  for (size_t i = 0; i < t.v.size(); ++i) tc.v[i] = t.v[i], zc.v[i] = z.v[i];
  for (int64_t i = 0; i + 1 < n; ++i) {
    if (tc(i + 1, i) == C(0)) continue;
    // U = [[v1, -conj(v2)], [v2, conj(v1)]], v an eigenvector of w[i].
    C a11 = tc(i, i), b = tc(i, i + 1), c = tc(i + 1, i), d = tc(i + 1, i + 1);
    C v1 = w[i] - d, v2 = c;
    if (std::abs(b) + std::abs(w[i] - a11) > std::abs(v1) + std::abs(v2)) v1 = b, v2 = w[i] - a11;
    double r = std::sqrt(std::norm(v1) + std::norm(v2));
    v1 /= r, v2 /= r;
    for (int64_t col = i; col < n; ++col) {
      C p = tc(i, col), q = tc(i + 1, col);
      tc(i, col) = std::conj(v1) * p + std::conj(v2) * q;
      tc(i + 1, col) = -v2 * p + v1 * q;
    }
    auto columns = [&](Matrix<C>& m, int64_t rows) {
      for (int64_t row = 0; row < rows; ++row) {
        C p = m(row, i), q = m(row, i + 1);
        m(row, i) = p * v1 + q * v2;
        m(row, i + 1) = -p * std::conj(v2) + q * std::conj(v1);
      }
    };
    columns(tc, i + 2);
    columns(zc, n);
    tc(i + 1, i) = 0;
    tc(i, i) = w[i];
    tc(i + 1, i + 1) = w[i + 1];
    ++i;
  }
  double tnorm = std::max(frobenius(tc), std::numeric_limits<double>::min());
  auto solveAndStore = [&](Matrix<C>& out, bool left) {
    out = Matrix<C>(n, n);
    for (int64_t k = 0; k < n; ++k) {
      if constexpr (std::is_same_v<T, double>) {
        if (w[k].imag() < 0) {  // the second of a pair: the first's conjugate
          for (int64_t i = 0; i < n; ++i) out(i, k) = std::conj(out(i, k - 1));
          continue;
        }
      }
      std::vector<C> y(static_cast<size_t>(n), C(0));
      y[k] = 1;
      double smallest = std::max(kEpsilon * std::abs(w[k]), kEpsilon * tnorm * 1e-3);
      auto divide = [&](C num, C den) {
        if (std::abs(den) < smallest) den = smallest;
        return num / den;
      };
      if (!left) {
        for (int64_t j = k - 1; j >= 0; --j) {
          C sum = 0;
          for (int64_t l = j + 1; l <= k; ++l) sum += tc(j, l) * y[l];
          y[j] = divide(-sum, tc(j, j) - w[k]);
        }
      } else {
        for (int64_t j = k + 1; j < n; ++j) {
          C sum = 0;
          for (int64_t l = k; l < j; ++l) sum += std::conj(tc(l, j)) * y[l];
          y[j] = divide(-sum, std::conj(tc(j, j)) - std::conj(w[k]));
        }
      }
      std::vector<C> x(static_cast<size_t>(n), C(0));
      for (int64_t i = 0; i < n; ++i)
        for (int64_t l = 0; l < n; ++l) x[i] += zc(i, l) * y[l];
      normalize(x);
      if constexpr (std::is_same_v<T, double>) {
        if (w[k].imag() == 0)
          for (C& e : x) e = e.real();  // real up to rounding
      }
      for (int64_t i = 0; i < n; ++i) out(i, k) = x[i];
    }
  };
  if (vr) solveAndStore(*vr, false);
  if (vl) solveAndStore(*vl, true);
  return 0;
}

template int gees<double>(Matrix<double>&, Matrix<double>&, std::vector<C>&);
template int gees<C>(Matrix<C>&, Matrix<C>&, std::vector<C>&);
template int geev<double>(const Matrix<double>&, std::vector<C>&, Matrix<C>*, Matrix<C>*);
template int geev<C>(const Matrix<C>&, std::vector<C>&, Matrix<C>*, Matrix<C>*);

}  // namespace hlo::interp::lapack
