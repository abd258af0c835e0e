// Library op: dot, through OpenBLAS for floats and complex, and a plain
// wrapping loop for integers.
//
// Algorithm:
//   1. Classify the operand dimensions as the semantics do: batch (in the
//      order the attribute lists them), free (in increasing order) and
//      contracting (listed order). The result is [batch..., lhs free...,
//      rhs free...] row-major, i.e. a [B, M, N] matrix stack.
//   2. Pick the compute type from the operand and result types
//      (computeTypeFor in runtime_blas.h: float, double, complex or uint64).
//   3. f32/f64 operands already laid out as [B, M, K] or [B, K, M] (resp.
//      [B, K, N] or [B, N, K]) go to gemm in place with the transpose flag;
//      anything else is packed into a contiguous [B, M, K] / [B, K, N] buffer
//      of the compute type. An f32 result is written by gemm directly.
//   4. Small products run as a plain loop instead (runtime_blas.h): the
//      library's setup costs more than the arithmetic there.
//   5. Results are written into the result type (ResultWriter, which also
//      rounds a float dot with an integer result as XLA reads it).
#include <complex>
#include <vector>

#include "backends/cpu/runtime_blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

struct DotShape {
  std::vector<int64_t> lhsPerm, rhsPerm;  // lhs: batch+free+contracting; rhs: batch+contracting+free
  int64_t batch = 1, m = 1, k = 1, n = 1;
  Compute compute = Compute::kDouble;
};

int64_t product(const std::vector<int64_t>& dims, const std::vector<int64_t>& which) {
  int64_t p = 1;
  for (int64_t d : which) p *= dims[d];
  return p;
}

StatusOr<DotShape> classify(const Instruction& instr) {
  if (instr.operandCount() != 2) return jit::cannotCompile(instr, "expected two operands");
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  if (!lhs.isArray() || !rhs.isArray() || !instr.shape().isArray())
    return jit::cannotCompile(instr, "operands and result must be arrays");
  for (const Shape* s : {&lhs, &rhs, &instr.shape()})
    if (s->isDynamic()) return jit::cannotCompile(instr, "dynamic dimensions are not supported");
  if (instr.attrs().has(AttrKey::kSparsity)) return jit::cannotCompile(instr, "sparse operands are not supported");
  const Attributes& a = instr.attrs();
  const std::vector<int64_t>& lb = a.getInts(AttrKey::kLhsBatchDims);
  const std::vector<int64_t>& lc = a.getInts(AttrKey::kLhsContractingDims);
  const std::vector<int64_t>& rb = a.getInts(AttrKey::kRhsBatchDims);
  const std::vector<int64_t>& rc = a.getInts(AttrKey::kRhsContractingDims);
  if (lb.size() != rb.size() || lc.size() != rc.size())
    return jit::cannotCompile(instr, "lhs and rhs need as many batch and contracting dimensions");
  std::vector<bool> lseen(lhs.rank(), false), rseen(rhs.rank(), false);
  auto mark = [](const std::vector<int64_t>& dims, std::vector<bool>& seen) {
    for (int64_t d : dims) {
      if (d < 0 || d >= static_cast<int64_t>(seen.size()) || seen[d]) return false;
      seen[d] = true;
    }
    return true;
  };
  if (!mark(lb, lseen) || !mark(lc, lseen) || !mark(rb, rseen) || !mark(rc, rseen))
    return jit::cannotCompile(instr, "batch and contracting dimensions must be distinct dimensions");
  for (size_t i = 0; i < lb.size(); ++i)
    if (lhs.dim(lb[i]) != rhs.dim(rb[i])) return jit::cannotCompile(instr, "batch dimension sizes differ");
  for (size_t i = 0; i < lc.size(); ++i)
    if (lhs.dim(lc[i]) != rhs.dim(rc[i])) return jit::cannotCompile(instr, "contracting dimension sizes differ");
  DotShape s;
  std::vector<int64_t> lhsFree, rhsFree;
  for (int i = 0; i < lhs.rank(); ++i)
    if (!lseen[i]) lhsFree.push_back(i);
  for (int i = 0; i < rhs.rank(); ++i)
    if (!rseen[i]) rhsFree.push_back(i);
  s.lhsPerm = lb;
  s.lhsPerm.insert(s.lhsPerm.end(), lhsFree.begin(), lhsFree.end());
  s.lhsPerm.insert(s.lhsPerm.end(), lc.begin(), lc.end());
  s.rhsPerm = rb;
  s.rhsPerm.insert(s.rhsPerm.end(), rc.begin(), rc.end());
  s.rhsPerm.insert(s.rhsPerm.end(), rhsFree.begin(), rhsFree.end());
  s.batch = product(lhs.dims(), lb);
  s.m = product(lhs.dims(), lhsFree);
  s.k = product(lhs.dims(), lc);
  s.n = product(rhs.dims(), rhsFree);
  if (instr.shape().elementCount() != s.batch * s.m * s.n)
    return jit::cannotCompile(instr, "the result shape does not match the operands");

  ElementType tl = lhs.type(), tr = rhs.type(), to = instr.shape().type();
  if (!isNumeric(tl) || !isNumeric(tr) || !isNumeric(to))
    return jit::cannotCompile(instr, "element type " + std::string(elementTypeName(to)) + " is not supported");
  s.compute = computeTypeFor(tl, tr, to);
  return s;
}

// The elements of `lit` in the order of `perm` (a permutation of its
// dimensions), converted to T.
template <typename T>
void pack(const Literal& lit, const std::vector<int64_t>& perm, T* out) {
  const std::vector<int64_t>& dims = lit.shape().dims();
  int rank = static_cast<int>(dims.size());
  std::vector<int64_t> strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * dims[d + 1];
  int64_t count = lit.elementCount();
  if (count == 0) return;
  // The innermost permuted dimension is walked by a stride, the rest by an
  // odometer over the outer ones.
  std::vector<int64_t> index(rank, 0);
  int64_t inner = rank ? dims[perm[rank - 1]] : 1;
  int64_t innerStride = rank ? strides[perm[rank - 1]] : 1;
  int64_t offset = 0;
  for (int64_t done = 0; done < count; done += inner) {
    for (int64_t j = 0; j < inner; ++j) *out++ = readAs<T>(lit, offset + j * innerStride);
    for (int d = rank - 2; d >= 0; --d) {
      int64_t p = perm[d];
      if (++index[p] < dims[p]) {
        offset += strides[p];
        break;
      }
      offset -= (dims[p] - 1) * strides[p];
      index[p] = 0;
    }
  }
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// perm with its last `tail` entries moved before the `mid` entries that
// precede them: batch+free+contracting -> batch+contracting+free.
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

size_t batchDims(const Instruction& instr) { return instr.attrs().getInts(AttrKey::kLhsBatchDims).size(); }

size_t freeDims(const Shape& s, size_t batch, size_t contracting) { return s.rank() - batch - contracting; }

// c[B, M, N] = a[B, M, K] . b[B, K, N], either operand transposed per its flag.
template <typename T>
void batchedProduct(const DotShape& s, const GemmOperand<T>& a, const GemmOperand<T>& b, T* c, int threads) {
  for (int64_t bi = 0; bi < s.batch; ++bi)
    matmul<T>(a.transposed, b.transposed, s.m, s.n, s.k, a.data + bi * s.m * s.k, b.data + bi * s.k * s.n,
              c + bi * s.m * s.n, threads);
}

template <typename T>
Status runAs(const RuntimeCall& call, const DotShape& s, ElementType native) {
  const Instruction& instr = call.instr;
  size_t batch = batchDims(instr);
  size_t contracting = instr.attrs().getInts(AttrKey::kLhsContractingDims).size();
  const Literal& lhs = *call.operands[0];
  const Literal& rhs = *call.operands[1];
  GemmOperand<T> a = gemmOperand<T>(lhs, s.lhsPerm, batch, freeDims(lhs.shape(), batch, contracting), native);
  GemmOperand<T> b = gemmOperand<T>(rhs, s.rhsPerm, batch, contracting, native);
  int threads = call.pool.workers() + 1;
  Literal& out = call.result;
  if (out.type() == native && !std::is_same_v<T, uint64_t>) {
    batchedProduct(s, a, b, out.template data<T>(), threads);
    return okStatus();
  }
  std::vector<T> c(static_cast<size_t>(s.batch * s.m * s.n));
  batchedProduct(s, a, b, c.data(), threads);
  ResultWriter writer(out, lhs, rhs);
  for (size_t i = 0; i < c.size(); ++i) writer.write(static_cast<int64_t>(i), c[i]);
  return okStatus();
}

Status runDot(const RuntimeCall& call) {
  HLO_ASSIGN_OR_RETURN(DotShape s, classify(call.instr));
  switch (s.compute) {
    case Compute::kFloat: return runAs<float>(call, s, ElementType::kF32);
    case Compute::kDouble: return runAs<double>(call, s, ElementType::kF64);
    case Compute::kComplex: return runAs<std::complex<double>>(call, s, ElementType::kC128);
    case Compute::kInt: return runAs<uint64_t>(call, s, ElementType::kU64);
  }
  return errorStatus("cpu: internal error: dot compute type");
}

}  // namespace

StatusOr<RuntimePlan> planDot(llvm::Module&, const Instruction& instr, const std::string&) {
  HLO_RETURN_IF_ERROR(classify(instr).status());
  return RuntimePlan{runDot, {}};
}

}  // namespace hlo::cpu
