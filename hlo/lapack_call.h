// The linear-algebra calls jax emits. On the CPU: typed FFI custom calls named
// lapack_<t><routine>_ffi, <t> = s, d, c, z for f32, f64, c64, c128. Each
// runs LAPACK's routine of that name on every matrix of a batch (the
// leading dimensions), as jaxlib's kernels do:
//
//   potrf  (T[B,n,n], s32[B]) (T[B,n,n] a), {uplo}
//          the Cholesky factor in a's `uplo` triangle; the other triangle
//          is a's; info = j > 0 when the leading minor of order j is not
//          positive definite
//   getrf  (T[B,m,n], s32[B,min(m,n)], s32[B]) (T[B,m,n] a)
//          L (unit diagonal, below) and U in one matrix, the 1-based row
//          swapped with row i at step i, info = j > 0 when U(j,j) is 0
//   trsm   T[B,m,n] (T[B,k,k] a, T[B,m,n] b), {side, uplo, trans_x, diag}
//          x with op(a) x = b (side L, k = m) or x op(a) = b (side R, k = n)
//   geqrf  (T[B,m,n], T[B,min(m,n)]) (T[B,m,n] a)
//          R on and above the diagonal, Householder vectors below, tau
//   orgqr  T[B,m,n] (T[B,m,n] a, T[B,k] tau)       (ungqr for c and z)
//          the first n columns of Q = H(1) ... H(k), m >= n >= k
//   syevd  (T[B,n,n], R[B,n], s32[B]) (T[B,n,n] a), {uplo, mode}   (heevd)
//          eigenvectors as columns (mode V) and eigenvalues, ascending,
//          of the Hermitian matrix whose `uplo` triangle a holds
//   gesdd  (T[B,m,n], R[B,min], T[B,m,p], T[B,q,n], s32[B]) (T[B,m,n] a),
//   gesvd  {mode}: singular values, descending, and U, V^H: all m columns
//          and n rows (mode A, p = m, q = n), min(m,n) of them (mode S), or
//          none (mode N)
//   ormqr  T[B,m,n] (T[B,r,k'] a, T[B,k] tau, T[B,m,n] c), {left, transpose}
//          (unmqr) op(Q) c (left) or c op(Q), Q = H(1) ... H(k) of order
//          r = m (left) or n, from reflectors as geqrf stores them; op(Q) =
//          Q^H when transpose
//   geqp3  (T[B,m,n], s32[B,n], T[B,min]) (T[B,m,n] a, s32[B,n] jpvt)
//          QR with column pivoting, a P = Q R: columns with jpvt != 0 go
//          first, in order, then the largest remaining column norm at each
//          step; jpvt out: the 1-based column of a that is column j of a P
//   gehrd  (T[B,n,n], T[B,n-1], s32[B]) (T[B,n,n] a), {low, high}
//          Hessenberg form Q^H a Q on and above the first subdiagonal,
//          reflectors below it, for rows and columns low..high (1-based)
//   sytrd  (T[B,n,n], R[B,n], R[B,n-1], T[B,n-1], s32[B]) (T[B,n,n] a),
//          {uplo} (hetrd) tridiagonal form Q^H a Q of the Hermitian matrix
//          whose `uplo` triangle a holds: diagonal d, off-diagonal e, the
//          reflectors in the rest of that triangle
//   geev   (R[B,n], R[B,n], C[B,n,n], C[B,n,n], s32[B]) (R[B,n,n] a), real a
//          (T[B,n], T[B,n,n], T[B,n,n], s32[B]) (T[B,n,n] a), complex a
//          {compute_left, compute_right}: eigenvalues (real and imaginary
//          parts for real a; C is R's complex type), left and right
//          eigenvectors ('V') or not ('N'), each of unit norm with its
//          largest component real; info = -4 for a non-finite a (jaxlib's
//          kernel does not call LAPACK then)
//   gees   (T[B,n,n], T[B,n,n], R[B,n], R[B,n], s32[B], s32[B]) (T a), real
//          (T[B,n,n], T[B,n,n], T[B,n], s32[B], s32[B]) (T a), complex
//          {mode, sort}: the Schur form T over a, the Schur vectors Z (mode
//          V), the eigenvalues, the count of selected eigenvalues (0: sort
//          must be 'N', as jaxlib's kernel requires) and info
//   gtsv   (T[B,n], T[B,n], T[B,n], T[B,n,r], s32[B])
//          (T[B,n] dl, T[B,n] d, T[B,n] du, T[B,n,r] b): x with
//          tridiag(dl, d, du) x = b (dl[0] and du[n-1] are not read) by
//          Gaussian elimination with partial pivoting, over b; info = j > 0
//          when U(j,j) is exactly 0
//
// jax's GPU dumps call cuSOLVER and cuSPARSE the same way, and the calls
// mean the same on any device (hipsolver_/hipsparse_/hip_ on ROCm):
//   cusolver_<r>_ffi for potrf, getrf, geqrf, orgqr, ormqr, syevd, sytrd:
//          as above, T from the operand (orgqr, syevd and sytrd stand for
//          ungqr, heevd and hetrd on complex T); {lower = true} instead of
//          uplo; syevd always computes vectors (its `algorithm` only picks
//          cuSOLVER's method)
//   cusolver_gesvdj_ffi  (T[B,m,n], R[B,min], T[B,m,p], T[B,n,q], s32[B])
//   cusolver_gesvdp_ffi  (T[B,m,n] a), {full_matrices, compute_uv}: as gesdd,
//          but the fourth result is V (p = m, q = n when full_matrices,
//          else min)
//   cusolver_gesdd_ffi, cusolver_gesvd_ffi {full_matrices, compute_uv,
//          transposed}: gesdd and gesvd (mode A, S or N from the flags);
//          gesvd with transposed = true, as jax emits it for a wide matrix,
//          takes row-major arrays and gives (a, s, V^H, U, info)
//   cusparse_gtsv2_ffi   T[B,n,r] (dl, d, du, b): gtsv's x alone
//   cusolver_geev_ffi    (T[B,n,n], C[B,n], T[B,n,n], T[B,n,n], s32[B])
//          (T[B,n,n] a), {left, right}: the eigenvalues (complex) and the
//          eigenvectors in a's type: for real a, a conjugate pair's vector
//          as its real and imaginary parts in columns j and j+1
//   cu_hybrid_eig_real, cu_hybrid_eig_comp  {left, right, magma}: jaxlib's
//          hybrid eigensolver, with LAPACK geev's results
//   cusolver_syrk_ffi    T[B,n,n] (T[B,n,k] a, T[B,n,n] c, T[] alpha,
//          T[] beta), {transpose}: alpha a a^T + beta c (alpha a^T a + beta c,
//          a being T[B,k,n], when transpose) on and below the diagonal, c
//          above it: cuBLAS's syrk of the upper triangle, on row-major
//          arrays read column-major (lax.linalg.symmetric_product)
//   cusolver_csrlsvqr_ffi  T[n] (T[nnz] data, s32[nnz] indices,
//          s32[n+1] indptr, T[n] b), {reorder, tol}: x with A x = b for the
//          square A held in compressed rows (0-based), by QR; NaN when some
//          |R(j,j)| <= tol (A singular to that tolerance); a malformed
//          structure is an error when it runs (jax.experimental.sparse's
//          spsolve)
//   cu_lu_pivots_to_permutation  s32[B,p] (s32[B,k] pivots): the
//          permutation of 0..p-1 that the 0-based row swaps i <-> pivots[i]
//          make in order (a pivot outside [0, p) swaps nothing)
//
// R is T's real type. The backend config is an MLIR dictionary of LAPACK's
// characters as integers: {uplo = 76 : ui8} is uplo 'L'. The kernels read
// and write column-major matrices, so each matrix (operand or result) must
// be laid out so: the operand's layout constraint, or else its shape's
// layout, puts the two minor dimensions minor-most, rows first ({0,1} for
// a matrix, {1,2,0} with one batch dimension). Vectors of a batch use the
// default layout. What LAPACK leaves unspecified (a after gesdd or a
// syevd without vectors, U and V^H in mode N, the trailing part of a
// failed potrf or getrf, gtsv's dl, d and du) is unspecified here too: the engines may differ
// there, and the conformance harness does not compare it.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo {

enum class LapackRoutine : uint8_t {
  kPotrf, kGetrf, kTrsm, kGeqrf, kOrgqr, kSyevd, kGesdd, kGesvd, kOrmqr, kGeqp3, kGehrd, kSytrd, kGtsv, kGeev, kGees,
  kGesvdj, kPivotsToPermutation, kSyrk, kCsrlsvqr,  // GPU only
};

struct LapackCall {
  LapackRoutine routine = LapackRoutine::kPotrf;
  bool gpu = false;                       // a cuSOLVER/cuSPARSE form
  ElementType type = ElementType::kF32;  // of the matrices
  int64_t batch = 1;                      // matrices: the product of the batch dimensions
  int64_t m = 0, n = 0;                   // rows and columns of a (of b for trsm and gtsv, c for ormqr)
  int64_t k = 0;                          // trsm: a's order; orgqr, ormqr: reflectors
  // The backend config's options, as LAPACK's characters.
  char uplo = 'L';   // potrf, syevd, trsm: 'L' or 'U'
  char side = 'L';   // trsm: 'L' or 'R'
  char trans = 'N';  // trsm: 'N', 'T' or 'C'
  char diag = 'N';   // trsm: 'N' or 'U' (a unit diagonal, not read)
  char mode = 'V';   // syevd, gees: 'V' or 'N'; gesdd, gesvd: 'A', 'S' or 'N'
  bool left = true, transpose = false;  // ormqr
  bool leftVectors = false, rightVectors = false;  // geev
  bool packedVectors = false;  // cuSOLVER's geev: real pairs' vectors packed as LAPACK packs them
  bool swappedVectors = false;  // cuSOLVER's transposed gesvd: V^H before U
  double tolerance = 0;         // csrlsvqr: |R(j,j)| at or below it is singular
  int64_t low = 1, high = 0;            // gehrd: 1-based, 1 <= low <= high <= n (or low = 1, high = 0 when n = 0)
};

// "potrf", ...: LAPACK's name for the real routine.
std::string_view lapackRoutineName(LapackRoutine r);

// Whether `instr` is a custom call to one of the targets above (a call that
// does not fit its form included).
bool isLapackCall(const Instruction& instr);

// The call, or why its operands, results, layouts or backend config do not
// fit the form above.
StatusOr<LapackCall> lapackCallOf(const Instruction& instr);

// csrlsvqr's matrix: the row of each stored element (in indptr's ranges),
// or why the compressed rows are malformed (indptr not starting at 0, not
// increasing or not ending at the element count; a column outside [0, n)).
StatusOr<std::vector<int64_t>> compressedRowsOf(std::span<const int32_t> indices, std::span<const int32_t> indptr,
                                                int64_t n);

}  // namespace hlo
