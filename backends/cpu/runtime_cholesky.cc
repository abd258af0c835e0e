// Library op: cholesky, a blocked right-looking factorization of our own
// whose bulk runs in OpenBLAS (dtrsm and dsyrk; ztrsm and zherk for complex).
// Not LAPACK's potrf: it stops at the first pivot that is not positive,
// leaving the rest of the matrix half updated, where the semantics below
// give NaNs.
//
// Semantics (the interpreter's, interp/linalg.cc): lower=true gives L with
// a = L L^H, reading only a's lower triangle; lower=false gives U = L^H,
// reading only the upper triangle (as the conjugate transpose of a lower
// one). The other triangle of the result is zero. Column by column:
//   L[j][j] = sqrt(re(a[j][j]) - sum_{k<j} |L[j][k]|^2)
//   L[i][j] = (a[i][j] - sum_{k<j} L[i][k] conj(L[j][k])) / L[j][j]   (i > j)
// When a is not positive definite, some column j0 has d = re(a[j0][j0]) -
// sum |L[j0][k]|^2 <= 0 (or NaN): L[j0][j0] = sqrt(d) is NaN (or 0), the
// rest of column j0 is divided by it, and every later pivot subtracts the
// NaN or infinite |L[j][j0]|^2, so every later column is NaN.
//
// Algorithm, per matrix of the batch, in double or complex<double>
// (runtime_linalg.h says why):
//   1. W = the triangle read, as a lower triangle; W's upper triangle is 0.
//   2. For each block of kBlock columns [c, e), the columns before c having
//      already been subtracted from W[c:, c:] (step c):
//      a. the diagonal block W[c:e, c:e] is factored by the column formulas
//         (for a matrix that fits in one block, that is all: the
//         interpreter's arithmetic exactly);
//      b. the rows below it are solved against it: W[e:, c:e] = W[e:, c:e]
//         L11^-H (trsm);
//      c. the trailing matrix is updated: W[e:, e:] -= W[e:, c:e] W[e:, c:e]^H
//         (syrk/herk, lower triangle only).
//   3. A pivot that fails in step 2a, at column j0: the rows below the block
//      get columns [c, j0] by the column formulas, and the later columns
//      are filled with what the formulas give there (finishFailed), without
//      running O(n^3) arithmetic on NaNs.
//   4. W (or W^H for lower=false) is rounded once into the result.
// Without OpenBLAS every matrix is one block. Matrices of one block are
// split across the thread pool; larger ones leave the threads to OpenBLAS.
#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/runtime_linalg.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

using linalg::C;

constexpr int64_t kBlock = 128;

// W[j][j] = sqrt(d), d = re W[j][j] - sum_{c<=k<j} |W[j][k]|^2; returns d.
template <typename T>
double pivot(T* w, int64_t n, int64_t c, int64_t j) {
  T* row = w + j * n;
  double d = linalg::realPart(row[j]);
  for (int64_t k = c; k < j; ++k) d -= std::norm(row[k]);
  row[j] = T(std::sqrt(d));
  return d;
}

// Column j of rows [from, to): W[i][j] = (W[i][j] - sum_{c<=k<j} W[i][k]
// conj(W[j][k])) / W[j][j].
template <typename T>
void column(T* w, int64_t n, int64_t c, int64_t j, int64_t from, int64_t to) {
  const T* pivotRow = w + j * n;
  for (int64_t i = from; i < to; ++i) {
    T* row = w + i * n;
    T sum = row[j];
    for (int64_t k = c; k < j; ++k) sum -= row[k] * linalg::conjugate(pivotRow[k]);
    row[j] = sum / pivotRow[j];
  }
}

// Step 2a: factors the diagonal block [c, e). Returns the first column
// whose pivot is not positive (its column within the block computed), or e.
template <typename T>
int64_t factorDiagonalBlock(T* w, int64_t n, int64_t c, int64_t e) {
  for (int64_t j = c; j < e; ++j) {
    double d = pivot(w, n, c, j);
    column(w, n, c, j, j + 1, e);
    if (!(d > 0)) return j;
  }
  return e;
}

// Step 3: the pivot of column j0 in block [c, e) failed.
template <typename T>
void finishFailed(T* w, int64_t n, int64_t c, int64_t e, int64_t j0) {
  for (int64_t j = c; j <= j0; ++j) column(w, n, c, j, e, n);
  // Every later pivot is NaN: sqrt(NaN) on the diagonal, and anything
  // divided by it below (for complex, NaN in both parts).
  const T nanPivot = T(std::numeric_limits<double>::quiet_NaN());
  const T below = T(0) / nanPivot;
  for (int64_t j = j0 + 1; j < n; ++j) {
    w[j * n + j] = nanPivot;
    for (int64_t i = j + 1; i < n; ++i) w[i * n + j] = below;
  }
}

// Step 2b: W[e:, c:e] = W[e:, c:e] L11^-H.
template <typename T>
void solveBelow(const Blas& lib, T* w, int64_t n, int64_t c, int64_t e) {
  const blasint rows = static_cast<blasint>(n - e), cols = static_cast<blasint>(e - c), ld = static_cast<blasint>(n);
  if constexpr (std::is_same_v<T, double>) {
    lib.dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, rows, cols, 1.0, w + c * n + c, ld,
              w + e * n + c, ld);
  } else {
    const C one(1);
    lib.ztrsm(CblasRowMajor, CblasRight, CblasLower, CblasConjTrans, CblasNonUnit, rows, cols, &one, w + c * n + c,
              ld, w + e * n + c, ld);
  }
}

// Step 2c: W[e:, e:] -= W[e:, c:e] W[e:, c:e]^H, lower triangle.
template <typename T>
void updateTrailing(const Blas& lib, T* w, int64_t n, int64_t c, int64_t e) {
  const blasint size = static_cast<blasint>(n - e), depth = static_cast<blasint>(e - c), ld = static_cast<blasint>(n);
  if constexpr (std::is_same_v<T, double>)
    lib.dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, size, depth, -1.0, w + e * n + c, ld, 1.0, w + e * n + e, ld);
  else
    lib.zherk(CblasRowMajor, CblasLower, CblasNoTrans, size, depth, -1.0, w + e * n + c, ld, 1.0, w + e * n + e, ld);
}

// Step 2 for one matrix; `lib` null: one block.
template <typename T>
void factor(const Blas* lib, T* w, int64_t n) {
  int64_t block = lib ? kBlock : n;
  for (int64_t c = 0; c < n; c += block) {
    int64_t e = std::min(n, c + block);
    int64_t failed = factorDiagonalBlock(w, n, c, e);
    if (failed < e) return finishFailed(w, n, c, e, failed);
    if (e == n) return;
    solveBelow(*lib, w, n, c, e);
    updateTrailing(*lib, w, n, c, e);
  }
}

// Steps 1, 2 and 4 for matrix `batch`; `in` and `w` are n x n scratch.
template <typename T>
void factorMatrix(const RuntimeCall& call, const Blas* lib, int64_t n, int64_t batch, std::vector<T>& in,
                  std::vector<T>& w) {
  bool lower = call.instr.attrs().getBool(AttrKey::kLower, false);
  int64_t base = batch * n * n;
  linalg::load(*call.operands[0], base, n * n, in.data());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      w[i * n + j] = j > i ? T(0) : lower ? in[i * n + j] : linalg::conjugate(in[j * n + i]);
  factor(lib, w.data(), n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) in[i * n + j] = lower ? w[i * n + j] : linalg::conjugate(w[j * n + i]);
  linalg::store(in.data(), n * n, call.result, base);
}

template <typename T>
Status choleskyAs(const RuntimeCall& call) {
  linalg::Matrices m = linalg::matricesOf(call.result.shape());
  int64_t n = m.rows;
  const Blas* lib = n > kBlock ? blas() : nullptr;
  bool haveRoutines = lib && (std::is_same_v<T, double> ? lib->dtrsm && lib->dsyrk : lib->ztrsm && lib->zherk);
  if (!haveRoutines) lib = nullptr;
  if (lib) {
    lib->setThreads(call.pool.workers() + 1);
    std::vector<T> in(m.size()), w(m.size());
    for (int64_t batch = 0; batch < m.count; ++batch) factorMatrix(call, lib, n, batch, in, w);
    return okStatus();
  }
  int chunks = static_cast<int>(std::min<int64_t>(m.count, 4 * (call.pool.workers() + 1)));
  call.pool.parallelFor(m.count, chunks, [&](int64_t begin, int64_t end) {
    std::vector<T> in(m.size()), w(m.size());
    for (int64_t batch = begin; batch < end; ++batch) factorMatrix<T>(call, nullptr, n, batch, in, w);
  });
  return okStatus();
}

Status runCholesky(const RuntimeCall& call) {
  if (call.result.elementCount() == 0) return okStatus();
  return linalg::withLinalgType(call.result.type(), [&](auto t) { return choleskyAs<decltype(t)>(call); });
}

}  // namespace

StatusOr<RuntimePlan> planCholesky(HelperModule&, const Instruction& instr, const std::string&) {
  if (instr.operandCount() != 1) return jit::cannotCompile(instr, "expected one operand");
  const Shape& a = instr.operand(0)->shape();
  if (!a.isArray() || a.rank() < 2 || a.dim(a.rank() - 1) != a.dim(a.rank() - 2) ||
      !instr.shape().isArray() || instr.shape().dims() != a.dims() || instr.shape().type() != a.type())
    return jit::cannotCompile(instr, "the operand must be a batch of square matrices");
  if (!linalg::linalgType(a.type()))
    return jit::cannotCompile(instr, "element type " + std::string(elementTypeName(a.type())) + " is not supported");
  return RuntimePlan{runCholesky, {}};
}

}  // namespace hlo::cpu
