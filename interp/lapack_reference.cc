// The reference algorithms of lapack_reference.h.
#include "interp/lapack_reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "interp/lapack_steps.h"

namespace hlo::interp::lapack {
namespace {

// Householder QR step i: the reflector of column i below row i (stored
// there, R(i,i) on the diagonal), applied as H^H to the columns after i.
// Returns its tau.
template <typename T>
T householderStep(Matrix<T>& a, int64_t i) {
  std::vector<T*> x;
  for (int64_t r = i + 1; r < a.rows; ++r) x.push_back(&a(r, i));
  T tau = reflector(a(i, i), x);
  std::vector<T> v(static_cast<size_t>(a.rows - i));
  v[0] = 1;
  for (int64_t r = i + 1; r < a.rows; ++r) v[static_cast<size_t>(r - i)] = a(r, i);
  applyReflector(a, v, conj(tau), i, i + 1, a.cols);
  return tau;
}

// Completes the columns of `q` (rows x cols) to orthonormal ones: columns
// with keep[j] set are orthonormal already; every other column becomes the
// first unit vector e_i left over after two passes of Gram-Schmidt against
// the columns accepted so far.
template <typename T>
void completeOrthonormal(Matrix<T>& q, std::vector<bool> keep) {
  int64_t next = 0;  // the next unit vector to try
  for (int64_t j = 0; j < q.cols; ++j) {
    if (keep[static_cast<size_t>(j)]) continue;
    for (; next < q.rows; ++next) {
      std::vector<T> x(static_cast<size_t>(q.rows), T(0));
      x[static_cast<size_t>(next)] = 1;
      for (int pass = 0; pass < 2; ++pass)
        for (int64_t k = 0; k < q.cols; ++k) {
          if (!keep[static_cast<size_t>(k)]) continue;
          T dot = 0;
          for (int64_t r = 0; r < q.rows; ++r) dot += conj(q(r, k)) * x[static_cast<size_t>(r)];
          for (int64_t r = 0; r < q.rows; ++r) x[static_cast<size_t>(r)] -= dot * q(r, k);
        }
      double norm = 0;
      for (const T& e : x) norm += std::norm(e);
      norm = std::sqrt(norm);
      if (norm < 0.5) continue;  // e_next lies (nearly) in the span already
      for (int64_t r = 0; r < q.rows; ++r) q(r, j) = x[static_cast<size_t>(r)] / norm;
      keep[static_cast<size_t>(j)] = true;
      ++next;
      break;
    }
  }
}

// The one-sided Jacobi SVD of a tall matrix (rows >= cols): w = a V with
// orthogonal columns on return, V (cols x cols) unitary.
template <typename T>
void oneSidedJacobi(Matrix<T>& w, Matrix<T>& v) {
  int64_t n = w.cols;
  v = Matrix<T>(n, n);
  for (int64_t i = 0; i < n; ++i) v(i, i) = 1;
  for (int sweep = 0; sweep < 80; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0;
        T gamma = 0;
        for (int64_t r = 0; r < w.rows; ++r) {
          alpha += std::norm(w(r, p));
          beta += std::norm(w(r, q));
          gamma += conj(w(r, p)) * w(r, q);
        }
        double g = std::abs(gamma);
        if (!(g > kEpsilon * std::sqrt(alpha * beta)) || g == 0) continue;
        rotated = true;
        // With u = conj(e) w_q (e = gamma's phase), w_p^H u = |gamma| is
        // real, and a real rotation of (w_p, u) makes them orthogonal.
        T e = phase(gamma);
        double zeta = (beta - alpha) / (2 * g);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), s = c * t;
        auto rotate = [&](Matrix<T>& m) {
          for (int64_t r = 0; r < m.rows; ++r) {
            T xp = m(r, p), u = conj(e) * m(r, q);
            m(r, p) = c * xp - s * u;
            m(r, q) = s * xp + c * u;
          }
        };
        rotate(w);
        rotate(v);
      }
    if (!rotated) break;
  }
}

}  // namespace

template <typename T>
int potrf(Matrix<T>& a, char uplo) {
  int64_t n = a.rows;
  bool lower = uplo == 'L';
  // The factor's element (i, j), i >= j, of L; for 'U' the same number is U(j, i) = conj(L(i, j)).
  auto at = [&](int64_t i, int64_t j) -> T& { return lower ? a(i, j) : a(j, i); };
  auto lowerValue = [&](int64_t i, int64_t j) { return lower ? a(i, j) : conj(a(j, i)); };
  for (int64_t j = 0; j < n; ++j) {
    double d = re(a(j, j));
    for (int64_t k = 0; k < j; ++k) d -= std::norm(lowerValue(j, k));
    if (!(d > 0)) {
      a(j, j) = d;
      return static_cast<int>(j + 1);
    }
    double pivot = std::sqrt(d);
    a(j, j) = pivot;
    for (int64_t i = j + 1; i < n; ++i) {
      T sum = lowerValue(i, j);
      for (int64_t k = 0; k < j; ++k) sum -= lowerValue(i, k) * conj(lowerValue(j, k));
      T l = sum / pivot;
      at(i, j) = lower ? l : conj(l);
    }
  }
  return 0;
}

template <typename T>
int getrf(Matrix<T>& a, std::vector<int32_t>& ipiv) {
  int64_t m = a.rows, n = a.cols, steps = std::min(m, n);
  ipiv.assign(static_cast<size_t>(steps), 0);
  int info = 0;
  for (int64_t j = 0; j < steps; ++j) {
    int64_t p = j;
    for (int64_t i = j + 1; i < m; ++i)
      if (abs1(a(i, j)) > abs1(a(p, j))) p = i;
    ipiv[static_cast<size_t>(j)] = static_cast<int32_t>(p + 1);
    if (a(p, j) != T(0)) {
      if (p != j)
        for (int64_t c = 0; c < n; ++c) std::swap(a(j, c), a(p, c));
      for (int64_t i = j + 1; i < m; ++i) a(i, j) /= a(j, j);
    } else if (info == 0) {
      info = static_cast<int>(j + 1);
    }
    for (int64_t c = j + 1; c < n; ++c)
      for (int64_t i = j + 1; i < m; ++i) a(i, c) -= a(i, j) * a(j, c);
  }
  return info;
}

template <typename T>
void trsm(const Matrix<T>& a, Matrix<T>& b, char side, char uplo, char trans, char diag) {
  int64_t k = a.rows;
  // t = op(triangle of a), as a dense matrix.
  Matrix<T> t(k, k);
  bool lowerA = uplo == 'L';
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < k; ++j) {
      bool inTriangle = lowerA ? i >= j : i <= j;
      T value = i == j && diag == 'U' ? T(1) : inTriangle ? a(i, j) : T(0);
      if (trans == 'N') t(i, j) = value;
      else t(j, i) = trans == 'C' ? conj(value) : value;
    }
  bool lowerT = lowerA == (trans == 'N');
  // Solves m y = rhs for a triangular m (lower or not), y over rhs.
  auto solve = [&](auto element, bool lower, auto get, auto set) {
    for (int64_t step = 0; step < k; ++step) {
      int64_t i = lower ? step : k - 1 - step;
      T sum = get(i);
      int64_t from = lower ? 0 : i + 1, to = lower ? i : k;
      for (int64_t j = from; j < to; ++j) sum -= element(i, j) * get(j);
      set(i, sum / element(i, i));
    }
  };
  if (side == 'L') {
    for (int64_t c = 0; c < b.cols; ++c)
      solve([&](int64_t i, int64_t j) { return t(i, j); }, lowerT, [&](int64_t i) { return b(i, c); },
            [&](int64_t i, T v) { b(i, c) = v; });
  } else {
    // x t = b is t^T x^T = b^T: row r of x solves t^T y = (row r of b)^T.
    for (int64_t r = 0; r < b.rows; ++r)
      solve([&](int64_t i, int64_t j) { return t(j, i); }, !lowerT, [&](int64_t i) { return b(r, i); },
            [&](int64_t i, T v) { b(r, i) = v; });
  }
}

template <typename T>
void geqrf(Matrix<T>& a, std::vector<T>& tau) {
  int64_t steps = std::min(a.rows, a.cols);
  tau.assign(static_cast<size_t>(steps), T(0));
  for (int64_t i = 0; i < steps; ++i) tau[static_cast<size_t>(i)] = householderStep(a, i);
}

template <typename T>
void orgqr(Matrix<T>& a, const std::vector<T>& tau) {
  int64_t m = a.rows, n = a.cols, k = static_cast<int64_t>(tau.size());
  Matrix<T> q(m, n);
  for (int64_t i = 0; i < n; ++i) q(i, i) = 1;
  for (int64_t i = k - 1; i >= 0; --i) {
    std::vector<T> v(static_cast<size_t>(m - i));
    v[0] = 1;
    for (int64_t r = i + 1; r < m; ++r) v[static_cast<size_t>(r - i)] = a(r, i);
    applyReflector(q, v, tau[static_cast<size_t>(i)], i, 0, n);
  }
  a = std::move(q);
}

template <typename T>
void syevd(Matrix<T>& a, std::vector<double>& w, char uplo, bool vectors) {
  int64_t n = a.rows;
  if (!allFinite(a, uplo)) {
    w.assign(static_cast<size_t>(n), std::nan(""));
    if (vectors) std::fill(a.v.begin(), a.v.end(), T(std::nan("")));
    return;
  }
  // h: the whole Hermitian matrix from the triangle given.
  Matrix<T> h(n, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      bool given = uplo == 'L' ? i >= j : i <= j;
      h(i, j) = i == j ? T(re(a(i, i))) : given ? a(i, j) : conj(a(j, i));
    }
  Matrix<T> v(n, n);
  for (int64_t i = 0; i < n; ++i) v(i, i) = 1;
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, all = 0;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < n; ++i) {
        all += std::norm(h(i, j));
        if (i != j) off += std::norm(h(i, j));
      }
    if (!(off > kEpsilon * kEpsilon * all * 1e-2)) break;
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double g = std::abs(h(p, q));
        if (!(g > 1e-3 * kEpsilon * std::sqrt(std::fabs(re(h(p, p)) * re(h(q, q))))) || g == 0) continue;
        rotated = true;
        // J = [[c, s e], [-s conj(e), c]] on (p, q); J^H h J zeroes h(p, q).
        T e = phase(h(p, q));
        double zeta = (re(h(q, q)) - re(h(p, p))) / (2 * g);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        double c = 1 / std::sqrt(1 + t * t), s = c * t;
        auto columns = [&](Matrix<T>& m) {
          for (int64_t r = 0; r < n; ++r) {
            T xp = m(r, p), xq = m(r, q);
            m(r, p) = c * xp - s * conj(e) * xq;
            m(r, q) = s * e * xp + c * xq;
          }
        };
        columns(h);
        for (int64_t col = 0; col < n; ++col) {
          T xp = h(p, col), xq = h(q, col);
          h(p, col) = c * xp - s * e * xq;
          h(q, col) = s * conj(e) * xp + c * xq;
        }
        h(p, q) = h(q, p) = 0;
        h(p, p) = re(h(p, p));
        h(q, q) = re(h(q, q));
        columns(v);
      }
    if (!rotated) break;
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return re(h(x, x)) < re(h(y, y)); });
  w.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) w[static_cast<size_t>(j)] = re(h(order[j], order[j]));
  if (!vectors) return;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) a(i, j) = v(i, order[static_cast<size_t>(j)]);
}

template <typename T>
void gesvd(const Matrix<T>& a, std::vector<double>& s, Matrix<T>& u, Matrix<T>& vt, char mode) {
  int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  if (!allFinite(a, 'A')) {
    s.assign(static_cast<size_t>(k), std::nan(""));
    if (mode == 'N') return;
    u = Matrix<T>(m, mode == 'A' ? m : k);
    vt = Matrix<T>(mode == 'A' ? n : k, n);
    std::fill(u.v.begin(), u.v.end(), T(std::nan("")));
    std::fill(vt.v.begin(), vt.v.end(), T(std::nan("")));
    return;
  }
  bool wide = m < n;
  // Work on the tall one of a and a^H: w = (a or a^H) V.
  Matrix<T> w(wide ? n : m, k), v;
  for (int64_t j = 0; j < w.cols; ++j)
    for (int64_t i = 0; i < w.rows; ++i) w(i, j) = wide ? conj(a(j, i)) : a(i, j);
  oneSidedJacobi(w, v);
  std::vector<double> norms(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    double sum = 0;
    for (int64_t i = 0; i < w.rows; ++i) sum += std::norm(w(i, j));
    norms[static_cast<size_t>(j)] = std::sqrt(sum);
  }
  std::vector<int64_t> order(static_cast<size_t>(k));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  s.resize(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) s[static_cast<size_t>(j)] = norms[static_cast<size_t>(order[j])];
  if (mode == 'N') return;
  // The tall side's vectors: w's columns normalized; the short side's: v.
  int64_t tallCols = mode == 'A' ? w.rows : k;
  Matrix<T> tall(w.rows, tallCols), small(k, k);
  std::vector<bool> valid(static_cast<size_t>(tallCols), false);
  for (int64_t j = 0; j < k; ++j) {
    int64_t from = order[static_cast<size_t>(j)];
    double sigma = norms[static_cast<size_t>(from)];
    for (int64_t i = 0; i < k; ++i) small(i, j) = v(i, from);
    if (!(sigma > 0)) continue;
    for (int64_t i = 0; i < w.rows; ++i) tall(i, j) = w(i, from) / sigma;
    valid[static_cast<size_t>(j)] = true;
  }
  completeOrthonormal(tall, valid);
  // a = tall S small^H (tall = U), or a^H = tall S small^H (a = small S tall^H).
  const Matrix<T>& left = wide ? small : tall;
  const Matrix<T>& right = wide ? tall : small;  // V
  u = Matrix<T>(m, mode == 'A' ? m : k);
  vt = Matrix<T>(mode == 'A' ? n : k, n);
  for (int64_t j = 0; j < u.cols; ++j)
    for (int64_t i = 0; i < m; ++i) u(i, j) = left(i, j);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < vt.rows; ++i) vt(i, j) = conj(right(j, i));
}

template <typename T>
void ormqr(const Matrix<T>& a, const std::vector<T>& tau, Matrix<T>& c, bool left, bool transpose) {
  int64_t order = left ? c.rows : c.cols, k = static_cast<int64_t>(tau.size());
  Matrix<T> q(order, order);
  for (int64_t j = 0; j < k; ++j)
    for (int64_t i = 0; i < order; ++i) q(i, j) = a(i, j);
  orgqr(q, tau);
  Matrix<T> op(order, order);
  for (int64_t j = 0; j < order; ++j)
    for (int64_t i = 0; i < order; ++i) op(i, j) = transpose ? conj(q(j, i)) : q(i, j);
  Matrix<T> out(c.rows, c.cols);
  for (int64_t j = 0; j < c.cols; ++j)
    for (int64_t i = 0; i < c.rows; ++i) {
      T sum = 0;
      if (left)
        for (int64_t l = 0; l < order; ++l) sum += op(i, l) * c(l, j);
      else
        for (int64_t l = 0; l < order; ++l) sum += c(i, l) * op(l, j);
      out(i, j) = sum;
    }
  c = std::move(out);
}

template <typename T>
void geqp3(Matrix<T>& a, std::vector<int32_t>& jpvt, std::vector<T>& tau) {
  int64_t m = a.rows, n = a.cols, steps = std::min(m, n);
  auto swapColumns = [&](int64_t p, int64_t q, std::vector<int32_t>& perm) {
    if (p == q) return;
    for (int64_t r = 0; r < m; ++r) std::swap(a(r, p), a(r, q));
    std::swap(perm[static_cast<size_t>(p)], perm[static_cast<size_t>(q)]);
  };
  std::vector<int32_t> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 1);
  int64_t fixed = 0;  // the columns asked to go first, moved there in order
  for (int64_t j = 0; j < n; ++j)
    if (jpvt[static_cast<size_t>(j)] != 0) swapColumns(j, fixed++, perm);
  tau.assign(static_cast<size_t>(steps), T(0));
  for (int64_t i = 0; i < steps; ++i) {
    if (i >= fixed) {
      // The remaining column with the largest norm below row i.
      int64_t best = i;
      double bestNorm = -1;
      for (int64_t j = i; j < n; ++j) {
        double norm = 0;
        for (int64_t r = i; r < m; ++r) norm += std::norm(a(r, j));
        if (norm > bestNorm) bestNorm = norm, best = j;
      }
      swapColumns(i, best, perm);
    }
    tau[static_cast<size_t>(i)] = householderStep(a, i);
  }
  jpvt = perm;
}

template <typename T>
void gehrd(Matrix<T>& a, int64_t low, int64_t high, std::vector<T>& tau) {
  int64_t n = a.rows, ilo = low - 1, ihi = high - 1;
  tau.assign(static_cast<size_t>(std::max<int64_t>(n - 1, 0)), T(0));
  for (int64_t i = ilo; i < ihi; ++i) {
    std::vector<T*> x;
    for (int64_t r = i + 2; r <= ihi; ++r) x.push_back(&a(r, i));
    T t = reflector(a(i + 1, i), x);
    tau[static_cast<size_t>(i)] = t;
    std::vector<T> v(static_cast<size_t>(ihi - i));
    v[0] = 1;
    for (int64_t r = i + 2; r <= ihi; ++r) v[static_cast<size_t>(r - i - 1)] = a(r, i);
    applyReflectorRight(a, v, t, i + 1, 0, ihi + 1);           // A(0:ihi, i+1:ihi) H
    applyReflector(a, v, conj(t), i + 1, i + 1, n);            // H^H A(i+1:ihi, i+1:n)
  }
}

template <typename T>
void sytrd(Matrix<T>& a, char uplo, std::vector<double>& d, std::vector<double>& e, std::vector<T>& tau) {
  int64_t n = a.rows;
  bool lower = uplo == 'L';
  // b: the whole Hermitian matrix, transformed in place step by step.
  Matrix<T> b(n, n);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < n; ++i) {
      bool given = lower ? i >= j : i <= j;
      b(i, j) = i == j ? T(re(a(i, i))) : given ? a(i, j) : conj(a(j, i));
    }
  int64_t off = std::max<int64_t>(n - 1, 0);
  d.assign(static_cast<size_t>(n), 0);
  e.assign(static_cast<size_t>(off), 0);
  tau.assign(static_cast<size_t>(off), T(0));
  // b := H^H b H on indices [from, from + v.size()).
  auto transform = [&](const std::vector<T>& v, T t, int64_t from) {
    applyReflector(b, v, conj(t), from, 0, n);
    applyReflectorRight(b, v, t, from, 0, n);
  };
  for (int64_t s = 0; s < off; ++s) {
    // Lower: column i = s, the reflector of rows i+1..n-1. Upper: column
    // k = n-1-s, the reflector of rows 0..k-1 with alpha the last of them.
    int64_t i = lower ? s : n - 1 - s;
    std::vector<T*> x;
    T* alpha;
    int64_t from, length;
    if (lower) {
      alpha = &b(i + 1, i);
      for (int64_t r = i + 2; r < n; ++r) x.push_back(&b(r, i));
      from = i + 1, length = n - i - 1;
    } else {
      alpha = &b(i - 1, i);
      for (int64_t r = 0; r + 1 < i; ++r) x.push_back(&b(r, i));
      from = 0, length = i;
    }
    T t = reflector(*alpha, x);
    int64_t slot = lower ? i : i - 1;  // e's and tau's index
    e[static_cast<size_t>(slot)] = re(*alpha);
    tau[static_cast<size_t>(slot)] = t;
    std::vector<T> v(static_cast<size_t>(length));
    for (int64_t r = 0; r < length; ++r) {
      int64_t row = from + r;
      bool one = lower ? row == i + 1 : row == i - 1;
      v[static_cast<size_t>(r)] = one ? T(1) : b(row, i);
    }
    // The reflector's tail goes to a; b's column (and row) i become
    // (beta; 0) before the rest of b is transformed.
    for (int64_t r = 0; r < length; ++r) {
      int64_t row = from + r;
      bool one = lower ? row == i + 1 : row == i - 1;
      if (!one) a(row, i) = v[static_cast<size_t>(r)], b(row, i) = 0, b(i, row) = 0;
    }
    b(lower ? i + 1 : i - 1, i) = *alpha;
    b(i, lower ? i + 1 : i - 1) = conj(*alpha);
    std::vector<T> saved(static_cast<size_t>(n));
    // Column and row i are already final: keep them out of the transform.
    for (int64_t r = 0; r < n; ++r) saved[static_cast<size_t>(r)] = b(r, i);
    transform(v, t, from);
    for (int64_t r = 0; r < n; ++r) b(r, i) = saved[static_cast<size_t>(r)], b(i, r) = conj(saved[static_cast<size_t>(r)]);
  }
  for (int64_t i = 0; i < n; ++i) d[static_cast<size_t>(i)] = re(b(i, i));
  for (int64_t i = 0; i < n; ++i) a(i, i) = d[static_cast<size_t>(i)];
  for (int64_t i = 0; i < off; ++i) {
    if (lower) a(i + 1, i) = e[static_cast<size_t>(i)];
    else a(i, i + 1) = e[static_cast<size_t>(i)];
  }
}

template <typename T>
int gtsv(std::vector<T>& dl, std::vector<T>& d, std::vector<T>& du, Matrix<T>& b) {
  int64_t n = static_cast<int64_t>(d.size());
  if (n == 0) return 0;
  // LAPACK's DL(k) is row k+1's element left of the diagonal: dl[k + 1].
  auto lowerOf = [&](int64_t k) -> T& { return dl[static_cast<size_t>(k + 1)]; };
  for (int64_t k = 0; k + 1 < n; ++k) {
    T& l = lowerOf(k);
    if (l == T(0)) {
      if (d[k] == T(0)) return static_cast<int>(k + 1);
    } else if (abs1(d[k]) >= abs1(l)) {
      T mult = l / d[k];
      d[k + 1] -= mult * du[k];
      for (int64_t j = 0; j < b.cols; ++j) b(k + 1, j) -= mult * b(k, j);
      if (k + 2 < n) l = 0;
    } else {
      // Interchange rows k and k + 1.
      T mult = d[k] / l;
      d[k] = l;
      T temp = d[k + 1];
      d[k + 1] = du[k] - mult * temp;
      if (k + 2 < n) {
        l = du[k + 1];
        du[k + 1] = -mult * l;
      }
      du[k] = temp;
      for (int64_t j = 0; j < b.cols; ++j) {
        T t = b(k, j);
        b(k, j) = b(k + 1, j);
        b(k + 1, j) = t - mult * b(k + 1, j);
      }
    }
  }
  if (d[n - 1] == T(0)) return static_cast<int>(n);
  for (int64_t j = 0; j < b.cols; ++j) {
    b(n - 1, j) /= d[n - 1];
    if (n > 1) b(n - 2, j) = (b(n - 2, j) - du[n - 2] * b(n - 1, j)) / d[n - 2];
    for (int64_t k = n - 3; k >= 0; --k) b(k, j) = (b(k, j) - du[k] * b(k + 1, j) - lowerOf(k) * b(k + 2, j)) / d[k];
  }
  return 0;
}

template <typename T>
bool qrSolve(Matrix<T> a, std::vector<T>& b, double tol) {
  int64_t n = a.rows;
  std::vector<T> tau;
  geqrf(a, tau);
  for (int64_t j = 0; j < n; ++j)
    if (!(std::abs(a(j, j)) > tol)) return false;
  // b = Q^H b = H(n-1)^H ... H(0)^H b, then R x = b.
  Matrix<T> column(n, 1);
  for (int64_t i = 0; i < n; ++i) column(i, 0) = b[static_cast<size_t>(i)];
  for (int64_t i = 0; i < n; ++i) {
    std::vector<T> v(static_cast<size_t>(n - i));
    v[0] = 1;
    for (int64_t r = i + 1; r < n; ++r) v[static_cast<size_t>(r - i)] = a(r, i);
    applyReflector(column, v, conj(tau[static_cast<size_t>(i)]), i, 0, 1);
  }
  for (int64_t i = n - 1; i >= 0; --i) {
    T sum = column(i, 0);
    for (int64_t j = i + 1; j < n; ++j) sum -= a(i, j) * column(j, 0);
    column(i, 0) = sum / a(i, i);
  }
  for (int64_t i = 0; i < n; ++i) b[static_cast<size_t>(i)] = column(i, 0);
  return true;
}

#define HLO_LAPACK_REFERENCE(T)                                                             \
  template int potrf<T>(Matrix<T>&, char);                                                  \
  template int getrf<T>(Matrix<T>&, std::vector<int32_t>&);                                 \
  template void trsm<T>(const Matrix<T>&, Matrix<T>&, char, char, char, char);              \
  template void geqrf<T>(Matrix<T>&, std::vector<T>&);                                      \
  template void orgqr<T>(Matrix<T>&, const std::vector<T>&);                                \
  template void syevd<T>(Matrix<T>&, std::vector<double>&, char, bool);                     \
  template void gesvd<T>(const Matrix<T>&, std::vector<double>&, Matrix<T>&, Matrix<T>&, char);          \
  template void ormqr<T>(const Matrix<T>&, const std::vector<T>&, Matrix<T>&, bool, bool);              \
  template void geqp3<T>(Matrix<T>&, std::vector<int32_t>&, std::vector<T>&);                             \
  template void gehrd<T>(Matrix<T>&, int64_t, int64_t, std::vector<T>&);                                  \
  template void sytrd<T>(Matrix<T>&, char, std::vector<double>&, std::vector<double>&, std::vector<T>&);  \
  template int gtsv<T>(std::vector<T>&, std::vector<T>&, std::vector<T>&, Matrix<T>&);                    \
  template bool qrSolve<T>(Matrix<T>, std::vector<T>&, double);
HLO_LAPACK_REFERENCE(double)
HLO_LAPACK_REFERENCE(C)
#undef HLO_LAPACK_REFERENCE

}  // namespace hlo::interp::lapack
