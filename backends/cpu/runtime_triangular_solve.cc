// Library op: triangular-solve, through OpenBLAS's dtrsm/ztrsm.
//
// Semantics (the interpreter's, interp/linalg.cc): op(a) x = b when
// left_side, else x op(a) = b. Only the lower or upper triangle of a is read
// (lower); with unit_diagonal its diagonal is taken as ones and not read
// either. op is the identity, the transpose or the conjugate transpose
// (transpose_a NO_TRANSPOSE, TRANSPOSE, ADJOINT; ADJOINT is TRANSPOSE for
// real types). A zero on the diagonal divides by zero: infinities and NaNs,
// not an error. Leading dimensions are batch dimensions.
//
// Algorithm, per matrix of the batch:
//   1. a and b are read into double or complex<double> buffers
//      (runtime_linalg.h says why double).
//   2. One dtrsm/ztrsm call solves in place: its side, uplo, transpose and
//      diag arguments are the four attributes as they stand, and BLAS reads
//      exactly the triangle (and diagonal) the semantics read.
//   3. Small systems (fewer than kSmallProduct multiply-adds), and all of
//      them when OpenBLAS cannot be loaded, are solved by substitution loops
//      instead, the batch split across the thread pool: T = op(a)'s triangle
//      is formed, then each unknown is its right-hand side minus the known
//      terms in increasing index order, divided by the diagonal — the
//      interpreter's arithmetic, so small solves agree with it bit for bit.
//   4. The solution is rounded once into the result.
#include <string_view>
#include <vector>

#include "backends/cpu/runtime_linalg.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

using linalg::C;
using linalg::Matrices;

struct Solve {
  bool left = false, lower = false, unit = false;
  bool transposed = false, conjugated = false;  // op(a) = a^t, a^H
  Matrices a, b;
  int64_t m() const { return a.rows; }
  // T = op(triangle of a) is lower triangular iff lower != transposed.
  bool lowerT() const { return lower != transposed; }
};

StatusOr<Solve> solveOf(const Instruction& instr) {
  if (instr.operandCount() != 2) return jit::cannotCompile(instr, "expected a and b");
  const Shape& a = instr.operand(0)->shape();
  const Shape& b = instr.operand(1)->shape();
  Solve s;
  s.left = instr.attrs().getBool(AttrKey::kLeftSide, false);
  s.lower = instr.attrs().getBool(AttrKey::kLower, false);
  s.unit = instr.attrs().getBool(AttrKey::kUnitDiagonal, false);
  std::string_view op = instr.attrs().getString(AttrKey::kTransposeA);
  if (!op.empty() && op != "NO_TRANSPOSE" && op != "TRANSPOSE" && op != "ADJOINT")
    return jit::cannotCompile(instr, "unknown transpose_a '" + std::string(op) + "'");
  s.transposed = op == "TRANSPOSE" || op == "ADJOINT";
  s.conjugated = op == "ADJOINT";
  if (!a.isArray() || !b.isArray() || a.rank() < 2 || b.rank() != a.rank() ||
      a.type() != b.type() || !instr.shape().isArray() || instr.shape().dims() != b.dims() ||
      instr.shape().type() != b.type())
    return jit::cannotCompile(instr, "a and b must be matrices of one type and rank");
  int r = a.rank();
  if (a.dim(r - 1) != a.dim(r - 2) || a.dim(r - 1) != b.dim(s.left ? r - 2 : r - 1))
    return jit::cannotCompile(instr, "a must be square and share its size with b");
  for (int i = 0; i + 2 < r; ++i)
    if (a.dim(i) != b.dim(i)) return jit::cannotCompile(instr, "batch dimensions of a and b differ");
  if (!linalg::linalgType(a.type()))
    return jit::cannotCompile(instr, "element type " + std::string(elementTypeName(a.type())) + " is not supported");
  s.a = linalg::matricesOf(a);
  s.b = linalg::matricesOf(b);
  return s;
}

// t = op(triangle of a), with zeros outside the triangle and ones on the
// diagonal when unit.
template <typename T>
void formTriangle(const Solve& s, const T* a, T* t) {
  int64_t m = s.m();
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < m; ++j) {
      bool inTriangle = s.lower ? j <= i : j >= i;
      T v = i == j && s.unit ? T(1) : inTriangle ? a[i * m + j] : T(0);
      if (!s.transposed) t[i * m + j] = v;
      else t[j * m + i] = s.conjugated ? linalg::conjugate(v) : v;
    }
}

// t x = b for x (m rows of k), x holding b on entry.
template <typename T>
void substituteLeft(const T* t, bool lowerT, int64_t m, int64_t k, T* x) {
  for (int64_t step = 0; step < m; ++step) {
    int64_t i = lowerT ? step : m - 1 - step;
    int64_t from = lowerT ? 0 : i + 1, to = lowerT ? i : m;
    for (int64_t c = 0; c < k; ++c) {
      T sum = x[i * k + c];
      for (int64_t j = from; j < to; ++j) sum -= t[i * m + j] * x[j * k + c];
      x[i * k + c] = sum / t[i * m + i];
    }
  }
}

// x t = b for x (k rows of m), x holding b on entry: row by row, unknown j
// of a row needs the unknowns i whose t[i][j] is in the triangle.
template <typename T>
void substituteRight(const T* t, bool lowerT, int64_t m, int64_t k, T* x) {
  for (int64_t r = 0; r < k; ++r) {
    T* row = x + r * m;
    for (int64_t step = 0; step < m; ++step) {
      int64_t j = lowerT ? m - 1 - step : step;
      int64_t from = lowerT ? j + 1 : 0, to = lowerT ? m : j;
      T sum = row[j];
      for (int64_t i = from; i < to; ++i) sum -= t[i * m + j] * row[i];
      row[j] = sum / t[j * m + j];
    }
  }
}

// Solves matrix `batch` by the substitution loops.
template <typename T>
void solveByLoops(const RuntimeCall& call, const Solve& s, int64_t batch, std::vector<T>& a, std::vector<T>& t,
                  std::vector<T>& x) {
  int64_t m = s.m();
  linalg::load(*call.operands[0], batch * s.a.size(), s.a.size(), a.data());
  linalg::load(*call.operands[1], batch * s.b.size(), s.b.size(), x.data());
  formTriangle(s, a.data(), t.data());
  if (s.left) substituteLeft(t.data(), s.lowerT(), m, s.b.cols, x.data());
  else substituteRight(t.data(), s.lowerT(), m, s.b.rows, x.data());
  linalg::store(x.data(), s.b.size(), call.result, batch * s.b.size());
}

// Solves matrix `batch` with one trsm call.
template <typename T>
void solveByBlas(const Blas& lib, const RuntimeCall& call, const Solve& s, int64_t batch, std::vector<T>& a,
                 std::vector<T>& x) {
  linalg::load(*call.operands[0], batch * s.a.size(), s.a.size(), a.data());
  linalg::load(*call.operands[1], batch * s.b.size(), s.b.size(), x.data());
  const CBLAS_SIDE side = s.left ? CblasLeft : CblasRight;
  const CBLAS_UPLO uplo = s.lower ? CblasLower : CblasUpper;
  const CBLAS_TRANSPOSE trans = !s.transposed ? CblasNoTrans : s.conjugated ? CblasConjTrans : CblasTrans;
  const CBLAS_DIAG diag = s.unit ? CblasUnit : CblasNonUnit;
  const blasint rows = static_cast<blasint>(s.b.rows), cols = static_cast<blasint>(s.b.cols);
  const blasint lda = static_cast<blasint>(s.m());
  if constexpr (std::is_same_v<T, double>) {
    lib.dtrsm(CblasRowMajor, side, uplo, trans, diag, rows, cols, 1.0, a.data(), lda, x.data(), cols);
  } else {
    const C one(1);
    lib.ztrsm(CblasRowMajor, side, uplo, trans, diag, rows, cols, &one, a.data(), lda, x.data(), cols);
  }
  linalg::store(x.data(), s.b.size(), call.result, batch * s.b.size());
}

template <typename T>
Status solveAs(const RuntimeCall& call, const Solve& s) {
  int64_t m = s.m();
  const Blas* lib = m * s.b.size() >= kSmallProduct ? blas() : nullptr;
  if (lib && (std::is_same_v<T, double> ? lib->dtrsm != nullptr : lib->ztrsm != nullptr)) {
    lib->setThreads(call.pool.workers() + 1);
    std::vector<T> a(s.a.size()), x(s.b.size());
    for (int64_t batch = 0; batch < s.a.count; ++batch) solveByBlas(*lib, call, s, batch, a, x);
    return okStatus();
  }
  int chunks = static_cast<int>(std::min<int64_t>(s.a.count, 4 * (call.pool.workers() + 1)));
  call.pool.parallelFor(s.a.count, chunks, [&](int64_t begin, int64_t end) {
    std::vector<T> a(s.a.size()), t(s.a.size()), x(s.b.size());
    for (int64_t batch = begin; batch < end; ++batch) solveByLoops(call, s, batch, a, t, x);
  });
  return okStatus();
}

Status runTriangularSolve(const RuntimeCall& call) {
  HLO_ASSIGN_OR_RETURN(Solve s, solveOf(call.instr));
  if (call.result.elementCount() == 0) return okStatus();
  return linalg::withLinalgType(call.result.type(), [&](auto t) { return solveAs<decltype(t)>(call, s); });
}

}  // namespace

StatusOr<RuntimePlan> planTriangularSolve(HelperModule&, const Instruction& instr, const std::string&) {
  HLO_RETURN_IF_ERROR(solveOf(instr).status());
  return RuntimePlan{runTriangularSolve, {}};
}

}  // namespace hlo::cpu
