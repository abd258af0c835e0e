// The reference LAPACK algorithms (lapack_reference.h) checked by the
// properties that define their results, on random matrices of several
// shapes, real and complex: reconstruction (L L^H = a, P L U = a, Q R = a,
// V diag(w) V^H = a, U diag(s) V^H = a), orthonormality, ordering. The
// hand-worked values are in testdata/ops/lapack-*.hlo.
#include "interp/lapack_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace hlo::interp::lapack {
namespace {

template <typename T>
T conj(T x) {
  if constexpr (std::is_same_v<T, C>) return std::conj(x);
  else return x;
}

template <typename T>
Matrix<T> random(int64_t rows, int64_t cols, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Matrix<T> m(rows, cols);
  for (T& x : m.v) {
    if constexpr (std::is_same_v<T, C>) x = C(normal(rng), normal(rng));
    else x = normal(rng);
  }
  return m;
}

template <typename T>
Matrix<T> multiply(const Matrix<T>& a, const Matrix<T>& b) {
  Matrix<T> c(a.rows, b.cols);
  for (int64_t j = 0; j < b.cols; ++j)
    for (int64_t k = 0; k < a.cols; ++k)
      for (int64_t i = 0; i < a.rows; ++i) c(i, j) += a(i, k) * b(k, j);
  return c;
}

template <typename T>
Matrix<T> adjoint(const Matrix<T>& a) {
  Matrix<T> t(a.cols, a.rows);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < a.rows; ++i) t(j, i) = conj(a(i, j));
  return t;
}

template <typename T>
Matrix<T> identity(int64_t n) {
  Matrix<T> m(n, n);
  for (int64_t i = 0; i < n; ++i) m(i, i) = 1;
  return m;
}

template <typename T>
double maxDifference(const Matrix<T>& a, const Matrix<T>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  double d = 0;
  for (size_t i = 0; i < a.v.size() && i < b.v.size(); ++i) d = std::max(d, std::abs(a.v[i] - b.v[i]));
  return d;
}

// A Hermitian positive definite matrix: b b^H + n I.
template <typename T>
Matrix<T> positiveDefinite(int64_t n, std::mt19937& rng) {
  Matrix<T> b = random<T>(n, n, rng), a = multiply(b, adjoint(b));
  for (int64_t i = 0; i < n; ++i) a(i, i) += static_cast<double>(n);
  return a;
}

template <typename T>
class LapackReference : public ::testing::Test {};
using Types = ::testing::Types<double, C>;
TYPED_TEST_SUITE(LapackReference, Types);

TYPED_TEST(LapackReference, CholeskyReconstructs) {
  using T = TypeParam;
  std::mt19937 rng(1);
  for (int64_t n : {1, 2, 5, 9})
    for (char uplo : {'L', 'U'}) {
      Matrix<T> a = positiveDefinite<T>(n, rng), f = a;
      ASSERT_EQ(potrf(f, uplo), 0);
      Matrix<T> factor(n, n);  // the triangle written, the other one zero
      for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < n; ++i) {
          bool written = uplo == 'L' ? i >= j : i <= j;
          if (written) factor(i, j) = f(i, j);
          else EXPECT_EQ(f(i, j), a(i, j)) << "the other triangle is left alone";
        }
      Matrix<T> back = uplo == 'L' ? multiply(factor, adjoint(factor)) : multiply(adjoint(factor), factor);
      EXPECT_LT(maxDifference(back, a), 1e-12 * n) << n << uplo;
    }
}

TYPED_TEST(LapackReference, CholeskyReportsTheFailingMinor) {
  using T = TypeParam;
  Matrix<T> a = identity<T>(4);
  a(2, 2) = -1;  // the leading minor of order 3 is negative
  EXPECT_EQ(potrf(a, 'L'), 3);
}

TYPED_TEST(LapackReference, LuReconstructsWithBoundedMultipliers) {
  using T = TypeParam;
  std::mt19937 rng(2);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{4, 4}, {6, 3}, {3, 6}, {1, 5}}) {
    Matrix<T> a = random<T>(m, n, rng), f = a;
    std::vector<int32_t> ipiv;
    ASSERT_EQ(getrf(f, ipiv), 0);
    int64_t k = std::min(m, n);
    Matrix<T> l(m, k), u(k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < k; ++j) {
        l(i, j) = i == j ? T(1) : i > j ? f(i, j) : T(0);
        if (i > j) {
          EXPECT_LE(std::abs(f(i, j)), std::sqrt(2.0) + 1e-12) << "partial pivoting";
        }
      }
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = i; j < n; ++j) u(i, j) = f(i, j);
    // P a: the swaps applied in order.
    Matrix<T> pa = a;
    for (int64_t i = 0; i < k; ++i) {
      ASSERT_GE(ipiv[i], i + 1);
      ASSERT_LE(ipiv[i], m);
      for (int64_t c = 0; c < n; ++c) std::swap(pa(i, c), pa(ipiv[i] - 1, c));
    }
    EXPECT_LT(maxDifference(multiply(l, u), pa), 1e-12) << m << "x" << n;
  }
}

TYPED_TEST(LapackReference, TriangularSolveEveryForm) {
  using T = TypeParam;
  std::mt19937 rng(3);
  for (char side : {'L', 'R'})
    for (char uplo : {'L', 'U'})
      for (char trans : {'N', 'T', 'C'})
        for (char diag : {'N', 'U'}) {
          int64_t m = 4, n = 3, k = side == 'L' ? m : n;
          Matrix<T> a = random<T>(k, k, rng), b = random<T>(m, n, rng), x = b;
          for (int64_t i = 0; i < k; ++i) a(i, i) += 4.0;  // well conditioned
          trsm(a, x, side, uplo, trans, diag);
          Matrix<T> op(k, k);  // op(triangle of a)
          for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < k; ++j) {
              bool in = uplo == 'L' ? i >= j : i <= j;
              T v = i == j && diag == 'U' ? T(1) : in ? a(i, j) : T(0);
              if (trans == 'N') op(i, j) = v;
              else op(j, i) = trans == 'C' ? conj(v) : v;
            }
          Matrix<T> back = side == 'L' ? multiply(op, x) : multiply(x, op);
          EXPECT_LT(maxDifference(back, b), 1e-12) << side << uplo << trans << diag;
        }
}

TYPED_TEST(LapackReference, QrReconstructsWithOrthonormalQ) {
  using T = TypeParam;
  std::mt19937 rng(4);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 3}, {4, 4}, {3, 5}}) {
    Matrix<T> a = random<T>(m, n, rng), f = a;
    std::vector<T> tau;
    geqrf(f, tau);
    int64_t k = std::min(m, n);
    ASSERT_EQ(static_cast<int64_t>(tau.size()), k);
    // Q (m x m) from the reflectors, with m >= columns >= k.
    Matrix<T> q(m, m);
    for (int64_t j = 0; j < k; ++j)
      for (int64_t i = 0; i < m; ++i) q(i, j) = f(i, j);
    orgqr(q, tau);
    Matrix<T> r(m, n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i <= std::min(j, m - 1); ++i) r(i, j) = f(i, j);
    EXPECT_LT(maxDifference(multiply(q, r), a), 1e-12) << m << "x" << n;
    EXPECT_LT(maxDifference(multiply(adjoint(q), q), identity<T>(m)), 1e-12);
    for (int64_t i = 0; i < k; ++i) EXPECT_EQ(std::imag(std::complex<double>(r(i, i))), 0) << "R's diagonal is real";
  }
}

TYPED_TEST(LapackReference, EigenDecompositionOfHermitianMatrices) {
  using T = TypeParam;
  std::mt19937 rng(5);
  for (int64_t n : {1, 2, 6, 10})
    for (bool repeated : {false, true}) {
      Matrix<T> a(n, n);
      if (repeated) {
        // diag(2, ..., 2) + u u^H: eigenvalue 2 repeated n - 1 times.
        Matrix<T> u = random<T>(n, 1, rng), uu = multiply(u, adjoint(u));
        a = uu;
        for (int64_t i = 0; i < n; ++i) a(i, i) += 2.0;
      } else {
        Matrix<T> b = random<T>(n, n, rng);
        a = multiply(b, adjoint(b));
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < n; ++i) a(i, j) -= b(i, j) + conj(b(j, i));  // indefinite, still Hermitian
      }
      for (char uplo : {'L', 'U'}) {
        Matrix<T> v = a;
        std::vector<double> w;
        syevd(v, w, uplo, true);
        ASSERT_EQ(static_cast<int64_t>(w.size()), n);
        for (int64_t i = 1; i < n; ++i) EXPECT_LE(w[i - 1], w[i]) << "ascending";
        Matrix<T> vw = v;
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < n; ++i) vw(i, j) *= w[j];
        double scale = 1;
        for (double x : w) scale = std::max(scale, std::fabs(x));
        EXPECT_LT(maxDifference(multiply(vw, adjoint(v)), a), 1e-12 * scale * n) << n << uplo;
        EXPECT_LT(maxDifference(multiply(adjoint(v), v), identity<T>(n)), 1e-12 * n);
        Matrix<T> same = a;
        std::vector<double> values;
        syevd(same, values, uplo, false);
        EXPECT_EQ(values, w) << "the values do not depend on computing the vectors";
        EXPECT_LT(maxDifference(same, a), 0.0 + 1e-300) << "without vectors a is left alone";
        if (repeated && n > 1) {
          EXPECT_NEAR(w[0], 2.0, 1e-12);
        }
      }
    }
}

TYPED_TEST(LapackReference, SingularValueDecomposition) {
  using T = TypeParam;
  std::mt19937 rng(6);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 3}, {3, 5}, {4, 4}, {1, 3}, {3, 1}})
    for (bool deficient : {false, true})
      for (char mode : {'A', 'S'}) {
        Matrix<T> a = random<T>(m, n, rng);
        if (deficient && std::min(m, n) > 1)  // rank 1: every column a multiple of the first
          for (int64_t j = 1; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) a(i, j) = a(i, 0) * static_cast<double>(j + 1);
        Matrix<T> u, vt;
        std::vector<double> s;
        gesvd(a, s, u, vt, mode);
        int64_t k = std::min(m, n);
        ASSERT_EQ(static_cast<int64_t>(s.size()), k);
        for (int64_t i = 0; i < k; ++i) EXPECT_GE(s[i], 0);
        for (int64_t i = 1; i < k; ++i) EXPECT_GE(s[i - 1], s[i]) << "descending";
        ASSERT_EQ(u.rows, m);
        ASSERT_EQ(u.cols, mode == 'A' ? m : k);
        ASSERT_EQ(vt.rows, mode == 'A' ? n : k);
        ASSERT_EQ(vt.cols, n);
        Matrix<T> us(m, k), vtk(k, n);
        for (int64_t j = 0; j < k; ++j)
          for (int64_t i = 0; i < m; ++i) us(i, j) = u(i, j) * s[j];
        for (int64_t j = 0; j < n; ++j)
          for (int64_t i = 0; i < k; ++i) vtk(i, j) = vt(i, j);
        EXPECT_LT(maxDifference(multiply(us, vtk), a), 1e-12 * (1 + s[0])) << m << "x" << n << mode;
        EXPECT_LT(maxDifference(multiply(adjoint(u), u), identity<T>(u.cols)), 1e-12) << m << "x" << n << mode;
        EXPECT_LT(maxDifference(multiply(vt, adjoint(vt)), identity<T>(vt.rows)), 1e-12) << m << "x" << n << mode;
      }
}

// The product of the reflectors H_k = I - tau_k v_k v_k^H in `order`.
template <typename T>
Matrix<T> productOf(const std::vector<std::vector<T>>& vs, const std::vector<T>& taus, int64_t n) {
  Matrix<T> q = identity<T>(n);
  for (size_t k = 0; k < vs.size(); ++k) {
    Matrix<T> h = identity<T>(n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) h(i, j) -= taus[k] * vs[k][i] * conj(vs[k][j]);
    q = multiply(q, h);
  }
  return q;
}

TYPED_TEST(LapackReference, OrmqrAppliesQ) {
  using T = TypeParam;
  std::mt19937 rng(7);
  Matrix<T> a = random<T>(5, 3, rng);
  std::vector<T> tau;
  geqrf(a, tau);
  Matrix<T> q(5, 5);
  for (int64_t j = 0; j < 3; ++j)
    for (int64_t i = 0; i < 5; ++i) q(i, j) = a(i, j);
  orgqr(q, tau);
  Matrix<T> c = random<T>(5, 2, rng), left = c, back;
  ormqr(a, tau, left, true, false);
  EXPECT_LT(maxDifference(left, multiply(q, c)), 1e-12);
  back = left;
  ormqr(a, tau, back, true, true);
  EXPECT_LT(maxDifference(back, c), 1e-12) << "Q^H Q c = c";
  Matrix<T> r = random<T>(2, 5, rng), right = r;
  ormqr(a, tau, right, false, true);
  EXPECT_LT(maxDifference(right, multiply(r, adjoint(q))), 1e-12);
}

TYPED_TEST(LapackReference, PivotedQrReconstructs) {
  using T = TypeParam;
  std::mt19937 rng(8);
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 4}, {3, 5}})
    for (bool fixFirst : {false, true}) {
      Matrix<T> a = random<T>(m, n, rng), f = a;
      std::vector<int32_t> jpvt(static_cast<size_t>(n), 0);
      if (fixFirst) jpvt[static_cast<size_t>(n - 1)] = 1;  // the last column goes first
      std::vector<T> tau;
      geqp3(f, jpvt, tau);
      if (fixFirst) {
        EXPECT_EQ(jpvt[0], n);
      }
      int64_t k = std::min(m, n);
      Matrix<T> q(m, m), r(m, n), ap(m, n);
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < m; ++i) q(i, j) = f(i, j);
      orgqr(q, tau);
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i <= std::min(j, m - 1); ++i) r(i, j) = f(i, j);
        for (int64_t i = 0; i < m; ++i) ap(i, j) = a(i, jpvt[static_cast<size_t>(j)] - 1);
      }
      EXPECT_LT(maxDifference(multiply(q, r), ap), 1e-12) << m << "x" << n;
      for (int64_t i = fixFirst ? 2 : 1; i < k; ++i)
        EXPECT_LE(std::abs(r(i, i)), std::abs(r(i - 1, i - 1)) + 1e-12) << "pivoting by norm";
    }
}

TYPED_TEST(LapackReference, HessenbergReduction) {
  using T = TypeParam;
  std::mt19937 rng(9);
  int64_t n = 6;
  for (auto [low, high] : {std::pair<int64_t, int64_t>{1, 6}, {2, 5}}) {
    Matrix<T> a = random<T>(n, n, rng);
    // Outside [low, high] the matrix is already triangular, as gehrd assumes.
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = j + 1; i < n; ++i)
        if (j < low - 1 || i > high - 1) a(i, j) = 0;
    Matrix<T> h = a;
    std::vector<T> tau;
    gehrd(h, low, high, tau);
    std::vector<std::vector<T>> vs;
    for (int64_t i = 0; i + 1 < n; ++i) {
      std::vector<T> v(static_cast<size_t>(n), T(0));
      if (i >= low - 1 && i < high - 1) {
        v[i + 1] = 1;
        for (int64_t r = i + 2; r < high; ++r) v[r] = h(r, i);
      } else {
        EXPECT_EQ(tau[i], T(0));
      }
      vs.push_back(v);
    }
    Matrix<T> q = productOf(vs, tau, n), hess(n, n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i <= std::min(j + 1, n - 1); ++i) hess(i, j) = h(i, j);
    EXPECT_LT(maxDifference(multiply(multiply(q, hess), adjoint(q)), a), 1e-12) << low << ".." << high;
  }
}

TYPED_TEST(LapackReference, TridiagonalReduction) {
  using T = TypeParam;
  std::mt19937 rng(10);
  int64_t n = 5;
  for (char uplo : {'L', 'U'}) {
    Matrix<T> b = random<T>(n, n, rng), a = multiply(b, adjoint(b)), f = a;
    std::vector<double> d, e;
    std::vector<T> tau;
    sytrd(f, uplo, d, e, tau);
    std::vector<std::vector<T>> vs;
    for (int64_t k = 0; k + 1 < n; ++k) {
      std::vector<T> v(static_cast<size_t>(n), T(0));
      if (uplo == 'L') {
        v[k + 1] = 1;
        for (int64_t r = k + 2; r < n; ++r) v[r] = f(r, k);
      } else {
        v[k] = 1;
        for (int64_t r = 0; r < k; ++r) v[r] = f(r, k + 1);
      }
      vs.push_back(v);
    }
    std::vector<T> taus = tau;
    if (uplo == 'U') {  // Q = H(n-2) ... H(0)
      std::reverse(vs.begin(), vs.end());
      std::reverse(taus.begin(), taus.end());
    }
    Matrix<T> q = productOf(vs, taus, n), t(n, n);
    for (int64_t i = 0; i < n; ++i) t(i, i) = d[i];
    for (int64_t i = 0; i + 1 < n; ++i) t(i + 1, i) = t(i, i + 1) = e[i];
    EXPECT_LT(maxDifference(multiply(multiply(q, t), adjoint(q)), a), 1e-11) << uplo;
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(f(i, i), T(d[i]));
  }
}

TYPED_TEST(LapackReference, TridiagonalSolve) {
  using T = TypeParam;
  std::mt19937 rng(11);
  int64_t n = 7;
  Matrix<T> dense(n, n), b = random<T>(n, 3, rng), x = b;
  Matrix<T> diagonals = random<T>(n, 3, rng);
  std::vector<T> dl(n), d(n), du(n);
  for (int64_t i = 0; i < n; ++i) {
    dl[i] = diagonals(i, 0), d[i] = diagonals(i, 1), du[i] = diagonals(i, 2);
    dense(i, i) = d[i];
    if (i > 0) dense(i, i - 1) = dl[i];
    if (i + 1 < n) dense(i, i + 1) = du[i];
  }
  ASSERT_EQ(gtsv(dl, d, du, x), 0);
  EXPECT_LT(maxDifference(multiply(dense, x), b), 1e-10);
}

TYPED_TEST(LapackReference, SchurDecomposition) {
  using T = TypeParam;
  std::mt19937 rng(12);
  for (int64_t n : {1, 2, 5, 8}) {
    Matrix<T> a = random<T>(n, n, rng), t = a, z;
    std::vector<C> w;
    ASSERT_EQ(gees(t, z, w), 0) << n;
    EXPECT_LT(maxDifference(multiply(multiply(z, t), adjoint(z)), a), 1e-12 * n) << n;
    EXPECT_LT(maxDifference(multiply(adjoint(z), z), identity<T>(n)), 1e-12 * n);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = j + 1; i < n; ++i) {
        if (i == j + 1 && !std::is_same_v<T, C>) continue;  // a real form's 2x2 blocks
        EXPECT_EQ(t(i, j), T(0)) << i << "," << j;
      }
    if constexpr (!std::is_same_v<T, C>) {
      // A nonzero subdiagonal element is a 2x2 block of a conjugate pair.
      for (int64_t i = 0; i + 1 < n; ++i)
        if (t(i + 1, i) != 0) {
          EXPECT_GT(w[i].imag(), 0);
          EXPECT_EQ(w[i + 1], std::conj(w[i]));
          if (i + 2 < n) {
            EXPECT_EQ(t(i + 2, i + 1), 0) << "blocks do not overlap";
          }
        }
    }
  }
}

TYPED_TEST(LapackReference, GeneralEigenvectors) {
  using T = TypeParam;
  std::mt19937 rng(13);
  for (int64_t n : {1, 3, 6}) {
    Matrix<T> a = random<T>(n, n, rng);
    std::vector<C> w;
    Matrix<C> vl, vr;
    ASSERT_EQ(geev(a, w, &vl, &vr), 0);
    Matrix<C> ac(n, n);
    for (size_t i = 0; i < a.v.size(); ++i) ac.v[i] = a.v[i];
    for (int64_t k = 0; k < n; ++k) {
      double norm = 0, residual = 0, leftResidual = 0;
      size_t largest = 0;
      for (int64_t i = 0; i < n; ++i) {
        C av = 0, ua = 0;
        for (int64_t l = 0; l < n; ++l) {
          av += ac(i, l) * vr(l, k);
          ua += std::conj(vl(l, k)) * ac(l, i);
        }
        residual = std::max(residual, std::abs(av - w[k] * vr(i, k)));
        leftResidual = std::max(leftResidual, std::abs(ua - w[k] * std::conj(vl(i, k))));
        norm += std::norm(vr(i, k));
        if (std::abs(vr(i, k)) > std::abs(vr(largest, k))) largest = i;
      }
      EXPECT_LT(residual, 1e-11) << n << " right " << k;
      EXPECT_LT(leftResidual, 1e-11) << n << " left " << k;
      EXPECT_NEAR(norm, 1, 1e-12);
      EXPECT_EQ(vr(largest, k).imag(), 0) << "largest component real";
      EXPECT_GT(vr(largest, k).real(), 0);
      if (!std::is_same_v<T, C> && w[k].imag() == 0) {
        for (int64_t i = 0; i < n; ++i) EXPECT_EQ(vr(i, k).imag(), 0) << "a real eigenvalue's vector is real";
      }
    }
    std::vector<C> values;
    EXPECT_EQ(geev(a, values, nullptr, nullptr), 0);
    EXPECT_EQ(values, w);
  }
  Matrix<T> bad = identity<T>(2);
  bad(0, 1) = std::nan("");
  std::vector<C> w;
  EXPECT_EQ(geev(bad, w, nullptr, nullptr), -4) << "jaxlib's answer to a non-finite matrix";
}

TEST(LapackReference, NonFiniteInputGivesNaNs) {
  Matrix<double> a = identity<double>(3);
  a(2, 0) = std::nan("");
  std::vector<double> w;
  syevd(a, w, 'L', true);
  for (double x : w) EXPECT_TRUE(std::isnan(x));
  Matrix<double> b = identity<double>(2), u, vt;
  b(0, 1) = INFINITY;
  std::vector<double> s;
  gesvd(b, s, u, vt, 'A');
  for (double x : s) EXPECT_TRUE(std::isnan(x));
}

}  // namespace
}  // namespace hlo::interp::lapack
