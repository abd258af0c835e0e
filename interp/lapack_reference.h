// Reference algorithms for the LAPACK routines jax calls (hlo/lapack_call.h):
// the interpreter's meaning of those calls, and what the tests hold the CPU
// JIT's LAPACK to.
//
// Each is the plainest algorithm that computes the routine's result, in
// double or complex<double> on column-major matrices: the column
// Cholesky, LU with partial pivoting and substitution as LAPACK's
// unblocked routines (potf2, getf2) do them; Householder QR with LAPACK's
// reflector convention (larfg: R's diagonal gets the sign opposite to the
// column's leading element), so R and tau agree with LAPACK's; Jacobi
// rotations for the Hermitian eigenproblem (cyclic, two-sided) and for the
// SVD (one-sided, Hestenes), accurate to a few units in the last place of
// double. Where LAPACK leaves a choice the result is one valid answer: the
// signs (phases, for complex) of eigenvectors and singular vectors, the
// basis of an eigenspace of a repeated eigenvalue, the columns of U or V
// beyond the rank. Compare those by the properties that define them
// (reconstruction, orthonormality), not by value. A matrix holding a NaN or
// an infinity gives NaN eigen- and singular values and vectors (the
// rotations would otherwise pass over it).
#pragma once
#include <complex>
#include <cstdint>
#include <vector>

namespace hlo::interp::lapack {

using C = std::complex<double>;

// A column-major matrix.
template <typename T>
struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<T> v;
  Matrix() = default;
  Matrix(int64_t r, int64_t c) : rows(r), cols(c), v(static_cast<size_t>(r * c)) {}
  T& operator()(int64_t i, int64_t j) { return v[static_cast<size_t>(i + j * rows)]; }
  const T& operator()(int64_t i, int64_t j) const { return v[static_cast<size_t>(i + j * rows)]; }
};

// Cholesky of the Hermitian matrix whose `uplo` ('L' or 'U') triangle `a`
// holds: L with A = L L^H, or U with A = U^H U, written over that triangle.
// Returns 0, or the order j of the first leading minor that is not positive
// definite: then columns (rows, for 'U') before j hold the factor and the
// rest is unspecified.
template <typename T>
int potrf(Matrix<T>& a, char uplo);

// LU with partial pivoting, a = P L U: L (unit diagonal) below the
// diagonal, U on and above it; ipiv[i] the 1-based row swapped with row i
// + 1 at step i (the row with the largest |re| + |im| in the column, the
// first of equals). Returns 0, or the 1-based j of the first U(j,j) that is
// exactly 0.
template <typename T>
int getrf(Matrix<T>& a, std::vector<int32_t>& ipiv);

// x with op(a) x = b (side 'L') or x op(a) = b (side 'R'), written over b;
// op(a) = a, a^T or a^H (trans 'N', 'T', 'C') of a's `uplo` triangle, with
// 1s on the diagonal for diag 'U'.
template <typename T>
void trsm(const Matrix<T>& a, Matrix<T>& b, char side, char uplo, char trans, char diag);

// Householder QR: R on and above the diagonal of `a`, reflector i's vector
// below it (its leading 1 not stored), tau[i] its scale: H(i) = I - tau v v^H
// and a = H(0) H(1) ... R.
template <typename T>
void geqrf(Matrix<T>& a, std::vector<T>& tau);

// The first a.cols columns of Q = H(0) ... H(k-1), from reflectors stored as
// geqrf stores them in `a`'s first k = tau.size() columns.
template <typename T>
void orgqr(Matrix<T>& a, const std::vector<T>& tau);

// Eigenvalues of the Hermitian matrix whose `uplo` triangle `a` holds, into
// w (ascending), and, if `vectors`, orthonormal eigenvectors as a's columns
// (column j for w[j]). Without vectors `a` is left as it was.
template <typename T>
void syevd(Matrix<T>& a, std::vector<double>& w, char uplo, bool vectors);

// Singular values of `a`, descending, into s; with mode 'A' or 'S', u
// (a.rows x a.rows or x min) and vt (a.cols x a.cols or min x a.cols) with
// a = U diag(s) V^H. Mode 'N': u and vt are not touched.
template <typename T>
void gesvd(const Matrix<T>& a, std::vector<double>& s, Matrix<T>& u, Matrix<T>& vt, char mode);

// op(Q) c (left) or c op(Q), Q = H(0) ... H(k-1) of order c.rows (left) or
// c.cols, from reflectors as geqrf stores them in `a`'s first k =
// tau.size() columns; op(Q) = Q^H when `transpose`.
template <typename T>
void ormqr(const Matrix<T>& a, const std::vector<T>& tau, Matrix<T>& c, bool left, bool transpose);

// QR with column pivoting, a P = Q R, stored as geqrf stores it; jpvt holds
// nonzero for the columns that go first (in their order) and returns the
// 1-based column of a that is each column of a P. The other columns are
// chosen by the largest norm of what is left of them (the first of equals).
template <typename T>
void geqp3(Matrix<T>& a, std::vector<int32_t>& jpvt, std::vector<T>& tau);

// Hessenberg reduction of rows and columns [low, high] (1-based): H =
// Q^H a Q on and above the first subdiagonal, reflector i below it in
// column i, tau[i] (0 outside [low, high - 1]).
template <typename T>
void gehrd(Matrix<T>& a, int64_t low, int64_t high, std::vector<T>& tau);

// Tridiagonal reduction T = Q^H a Q of the Hermitian matrix whose `uplo`
// triangle `a` holds: d (T's diagonal) and e (its off-diagonal) also written
// over that triangle's diagonal and first off-diagonal, the reflectors in
// the rest of it, tau their scales; the other triangle is left alone.
template <typename T>
void sytrd(Matrix<T>& a, char uplo, std::vector<double>& d, std::vector<double>& e, std::vector<T>& tau);

// Solves tridiag(dl, d, du) x = b (row i holds dl[i], d[i], du[i] in
// columns i-1, i, i+1; dl[0] and du[n-1] unused), x over b, by LAPACK gtsv's elimination with
// row interchanges; dl, d and du are overwritten on the way. Returns 0, or
// the 1-based j of a zero pivot.
template <typename T>
int gtsv(std::vector<T>& dl, std::vector<T>& d, std::vector<T>& du, Matrix<T>& b);

// Schur decomposition a = Z T Z^H (interp/lapack_eigen.cc): T over a,
// upper triangular for complex a; for real a real and quasi-triangular, a
// 2x2 block on the diagonal for each pair of complex eigenvalues. w: the
// eigenvalues in T's diagonal order (a pair as p + iq, p - iq, q > 0).
// Returns 0, or 1 when the QR algorithm does not converge or a holds a NaN
// or an infinity (then the results are NaN).
template <typename T>
int gees(Matrix<T>& a, Matrix<T>& z, std::vector<C>& w);

// Eigenvalues w of a general matrix (in the order gees gives them) and, when
// asked for, right (a v = w v) and left (u^H a = w u^H) eigenvectors as
// columns, each of unit norm with its largest component real and positive;
// for real a, real eigenvalues have real vectors and a conjugate pair has
// conjugate vectors. Returns 0; 1 when the QR algorithm does not converge;
// -4, what jaxlib's kernel gives, when a holds a NaN or an infinity.
template <typename T>
int geev(const Matrix<T>& a, std::vector<C>& w, Matrix<C>* vl, Matrix<C>* vr);

// x with a x = b for a square `a`, by Householder QR, over b; false (b
// unspecified) when some |R(j,j)| <= tol.
template <typename T>
bool qrSolve(Matrix<T> a, std::vector<T>& b, double tol);

}  // namespace hlo::interp::lapack
