// Library op: dot, through OpenBLAS for floats and complex, and a plain
// wrapping loop for integers.
//
// Algorithm:
//   1. Classify the operand dimensions (hlo/contraction.h's dotDims, as the
//      interpreter does): the result is a [B, M, N] matrix stack.
//   2. Pick the compute type from the operand and result types
//      (computeTypeFor in runtime_blas.h: float, double, complex or uint64).
//   3. f32/f64 operands already laid out as [B, M, K] or [B, K, M] (resp.
//      [B, K, N] or [B, N, K]) go to gemm in place with the transpose flag;
//      anything else is packed into a contiguous [B, M, K] / [B, K, N] buffer
//      of the compute type. An f32 result is written by gemm directly.
//   4. Small products run as a plain loop instead (runtime_blas.h): the
//      library's setup costs more than the arithmetic there. The smallest
//      (jit::emitsDot) are not library calls at all: a kernel computes them.
//   5. Results are written into the result type (ResultWriter, which also
//      rounds a float dot with an integer result as XLA reads it).
#include <complex>
#include <vector>

#include "backends/cpu/runtime_blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/contraction.h"
#include "hlo/indexing.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

struct DotShape {
  DotDims dims;  // hlo/contraction.h
  Compute compute = Compute::kDouble;
};

StatusOr<DotShape> classify(const Instruction& instr) {
  if (instr.operandCount() != 2) return jit::cannotCompile(instr, "expected two operands");
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  const Shape& out = instr.shape();
  if (!lhs.isArray() || !rhs.isArray() || !out.isArray())
    return jit::cannotCompile(instr, "operands and result must be arrays");
  if (instr.attrs().has(AttrKey::kSparsity)) return jit::cannotCompile(instr, "sparse operands are not supported");
  StatusOr<DotDims> dims = dotDims(instr.attrs(), lhs, rhs);
  if (!dims.ok()) return jit::cannotCompile(instr, dims.status().message());
  DotShape s{std::move(dims).value()};
  if (out.elementCount() != s.dims.batch * s.dims.m * s.dims.n)
    return jit::cannotCompile(instr, "the result shape does not match the operands");
  if (!isNumeric(lhs.type()) || !isNumeric(rhs.type()) || !isNumeric(out.type()))
    return jit::cannotCompile(instr, "element type " + std::string(elementTypeName(out.type())) + " is not supported");
  s.compute = computeTypeFor(lhs.type(), rhs.type(), out.type());
  return s;
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// perm with its `first` entries after the `batch` leading ones moved to the
// end: batch+free+contracting -> batch+contracting+free, and back.
std::vector<int64_t> swapGroups(const std::vector<int64_t>& perm, size_t batch, size_t first) {
  std::vector<int64_t> out(perm.begin(), perm.begin() + batch);
  out.insert(out.end(), perm.begin() + batch + first, perm.end());
  out.insert(out.end(), perm.begin() + batch, perm.begin() + batch + first);
  return out;
}

// One operand as gemm wants it: a pointer to [B, rows, cols] data, or to
// the transposed [B, cols, rows], and whether it was transposed.
template <typename T>
struct GemmOperand {
  std::vector<T> packed;
  const T* data = nullptr;
  bool transposed = false;
};

// `lit`'s dims in `perm` order form [B, R, C] where the first `batch` perm
// entries are B and the next `rows` are R. Uses the literal in place when
// its own order is [B, R, C] or [B, C, R].
template <typename T>
GemmOperand<T> gemmOperand(const Literal& lit, const std::vector<int64_t>& perm, size_t batch, size_t rows,
                           ElementType native) {
  GemmOperand<T> op;
  if (lit.type() == native) {
    if (isIdentity(perm)) {
      op.data = lit.data<T>();
      return op;
    }
    if (isIdentity(swapGroups(perm, batch, rows))) {
      op.data = lit.data<T>();
      op.transposed = true;
      return op;
    }
  }
  op.packed.resize(static_cast<size_t>(lit.elementCount()));
  pack(lit, perm, op.packed.data());
  op.data = op.packed.data();
  return op;
}

// c[B, M, N] = a[B, M, K] . b[B, K, N], either operand transposed per its flag.
template <typename T>
void batchedProduct(const DotDims& s, const GemmOperand<T>& a, const GemmOperand<T>& b, T* c, int threads) {
  for (int64_t bi = 0; bi < s.batch; ++bi)
    matmul<T>(a.transposed, b.transposed, s.m, s.n, s.k, a.data + bi * s.m * s.k, b.data + bi * s.k * s.n,
              c + bi * s.m * s.n, threads);
}

template <typename T>
Status runAs(const RuntimeCall& call, const DotShape& s, ElementType native) {
  const DotDims& d = s.dims;
  size_t batch = call.instr.attrs().getInts(AttrKey::kLhsBatchDims).size();
  size_t contracting = call.instr.attrs().getInts(AttrKey::kLhsContractingDims).size();
  const Literal& lhs = *call.operands[0];
  const Literal& rhs = *call.operands[1];
  GemmOperand<T> a = gemmOperand<T>(lhs, d.lhsPerm, batch, d.lhsFree.size(), native);
  GemmOperand<T> b = gemmOperand<T>(rhs, d.rhsPerm, batch, contracting, native);
  int threads = call.pool.workers() + 1;
  Literal& out = call.result;
  if (out.type() == native && !std::is_same_v<T, uint64_t>) {
    batchedProduct(d, a, b, out.template data<T>(), threads);
    return okStatus();
  }
  std::vector<T> c(static_cast<size_t>(d.batch * d.m * d.n));
  batchedProduct(d, a, b, c.data(), threads);
  ResultWriter writer(out, lhs, rhs);
  for (size_t i = 0; i < c.size(); ++i) writer.write(static_cast<int64_t>(i), c[i]);
  return okStatus();
}

Status runDot(const RuntimeCall& call) {
  HLO_ASSIGN_OR_RETURN(DotShape s, classify(call.instr));
  return withComputeType(s.compute, [&](auto t) {
    using T = decltype(t);
    return runAs<T>(call, s, nativeType<T>());
  });
}

}  // namespace

StatusOr<RuntimePlan> planDot(llvm::Module&, const Instruction& instr, const std::string&) {
  HLO_RETURN_IF_ERROR(classify(instr).status());
  return RuntimePlan{runDot, {}};
}

}  // namespace hlo::cpu
