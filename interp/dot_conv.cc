// Interpreter ops: dot, ragged-dot and scaled-dot (convolution lives in
// interp/convolution.cc).
//
// Algorithm (dot):
//   1. Classify the operand dimensions: batch (in the order the attribute
//      lists them), free (in increasing order), contracting (listed order).
//   2. Copy lhs into a dense [batch, m, k] buffer and rhs into [batch, k, n]
//      of the accumulation type (interp/dense.h: uint64 wrapping for
//      integers, double for floats, complex<double> for complex).
//   3. Multiply with an i-k-j loop; each result element sums its products in
//      increasing (row-major) contracting index.
//   4. The result is [batch..., lhs free..., rhs free...] row-major, which is
//      exactly the [batch, m, n] buffer: round or wrap it into the result type.
// Operands are converted to the accumulation type of the *result* type, so
// s8 x s8 -> s32 and bf16 x bf16 -> f32 need no special case.
#include <algorithm>
#include <complex>

#include "hlo/block_scaled_dot_call.h"
#include "hlo/contraction.h"
#include "interp/dense.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// The dimension analysis lives in hlo/contraction.h, shared with the CPU
// backend's library ops; a malformed instruction is an unsupported one here.
using DotPlan = DotDims;

StatusOr<DotPlan> planDot(const Instruction& instr, const Shape& lhs, const Shape& rhs,
                          const std::vector<int64_t>& rhsGroup = {}) {
  StatusOr<DotDims> p = dotDims(instr.attrs(), lhs, rhs, rhsGroup);
  if (!p.ok()) return EvalContext::unsupported(instr, p.status().message());
  return p;
}

// Bytes of the dense buffers, refused up front like any allocation.
Status checkScratch(EvalContext& ctx, const Instruction& instr, int64_t elements, int64_t elementBytes) {
  return ctx.checkMemory(elements * elementBytes, instr);
}

template <typename T>
StatusOr<Literal> dotAs(EvalContext& ctx, const Instruction& instr, const std::vector<T>& a,
                        const std::vector<T>& b, const DotPlan& p) {
  HLO_RETURN_IF_ERROR(checkScratch(ctx, instr, p.batch * p.m * p.n, sizeof(T)));
  std::vector<T> c(static_cast<size_t>(p.batch * p.m * p.n), T{});
  batchMatmul(a.data(), b.data(), c.data(), p.batch, p.m, p.k, p.n);
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  storeAll(instr, c, out);
  return out;
}

template <typename T>
StatusOr<Literal> plainDot(EvalContext& ctx, const Instruction& instr, const Literal& lhs,
                           const Literal& rhs, const DotPlan& p) {
  HLO_RETURN_IF_ERROR(checkScratch(ctx, instr, lhs.elementCount() + rhs.elementCount(), sizeof(T)));
  return dotAs<T>(ctx, instr, gatherAs<T>(lhs, p.lhsPerm), gatherAs<T>(rhs, p.rhsPerm), p);
}

Status checkResultCount(const Instruction& instr, int64_t expected) {
  if (!instr.shape().isArray() || instr.shape().elementCount() != expected)
    return EvalContext::unsupported(instr, "result shape " + instr.shape().toString(false) +
                                               " does not match the operands");
  return okStatus();
}

}  // namespace

StatusOr<Literal> evalDot(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (instr.attrs().has(AttrKey::kSparsity)) return EvalContext::unsupported(instr, "sparse operands");
  if (ops.size() != 2) return EvalContext::unsupported(instr, "expected 2 operands");
  const Literal& lhs = *ops[0];
  const Literal& rhs = *ops[1];
  HLO_ASSIGN_OR_RETURN(DotPlan p, planDot(instr, lhs.shape(), rhs.shape()));
  HLO_RETURN_IF_ERROR(checkResultCount(instr, p.batch * p.m * p.n));
  switch (accKindFor(instr.shape().type(), lhs.type(), rhs.type())) {
    case AccKind::kInt: return plainDot<uint64_t>(ctx, instr, lhs, rhs, p);
    case AccKind::kReal: return plainDot<double>(ctx, instr, lhs, rhs, p);
    case AccKind::kComplex: return plainDot<std::complex<double>>(ctx, instr, lhs, rhs, p);
  }
  return EvalContext::unsupported(instr);
}

// ---- scaled-dot ------------------------------------------------------------
//
// The operands are dequantized as hlo/contraction.h says (forEachScaled).
// The products are exact in double (XLA's rewrite rounds the dequantized
// operands to an intermediate type); an integer result takes the sum
// truncated toward zero.

namespace {

template <typename T>
std::vector<T> dequantize(const Literal& x, const Literal& scale, const std::vector<int64_t>& perm) {
  std::vector<T> out;
  out.reserve(static_cast<size_t>(x.elementCount()));
  forEachScaled(x.shape(), scale.shape(), perm,
                [&](int64_t offset, int64_t s) { out.push_back(readAs<T>(x, offset) * readAs<T>(scale, s)); });
  return out;
}

Status checkScale(const Instruction& instr, const Shape& x, const Shape& s) {
  Status fits = checkDotScale(x, s);
  return fits.ok() ? fits : EvalContext::unsupported(instr, fits.message());
}

template <typename T>
StatusOr<Literal> scaledDotAs(EvalContext& ctx, const Instruction& instr, Operands ops, const DotPlan& p) {
  HLO_RETURN_IF_ERROR(checkScratch(ctx, instr, ops[0]->elementCount() + ops[1]->elementCount(), sizeof(T)));
  return dotAs<T>(ctx, instr, dequantize<T>(*ops[0], *ops[2], p.lhsPerm), dequantize<T>(*ops[1], *ops[3], p.rhsPerm), p);
}

}  // namespace

StatusOr<Literal> evalScaledDot(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops.size() != 4) return EvalContext::unsupported(instr, "expected lhs, rhs, lhs_scale, rhs_scale");
  HLO_ASSIGN_OR_RETURN(DotPlan p, planDot(instr, ops[0]->shape(), ops[1]->shape()));
  HLO_RETURN_IF_ERROR(checkResultCount(instr, p.batch * p.m * p.n));
  HLO_RETURN_IF_ERROR(checkScale(instr, ops[0]->shape(), ops[2]->shape()));
  HLO_RETURN_IF_ERROR(checkScale(instr, ops[1]->shape(), ops[3]->shape()));
  switch (accKindFor(instr.shape().type(), ops[0]->type(), ops[1]->type())) {
    case AccKind::kInt:  // the dequantized operands are real: sum in double, truncate
    case AccKind::kReal: return scaledDotAs<double>(ctx, instr, ops, p);
    case AccKind::kComplex: return scaledDotAs<std::complex<double>>(ctx, instr, ops, p);
  }
  return EvalContext::unsupported(instr);
}

// The block-scaled dot custom call (hlo/block_scaled_dot_call.h): the
// scaled-dot it stands for.
StatusOr<Literal> evalBlockScaledDotCall(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (Status form = checkBlockScaledDotCall(instr); !form.ok()) return EvalContext::unsupported(instr, form.message());
  Instruction dot(Opcode::kScaledDot, instr.name(), instr.shape());
  dot.setLoc(instr.loc());
  setBlockScaledDotDims(instr, dot);
  return evalScaledDot(ctx, dot, ops);
}

// ---- ragged-dot ------------------------------------------------------------
//
// The modes and groups are hlo/contraction.h's RaggedDotPlan. This is XLA's
// RaggedDotRewriter (mask the lhs per group, then dot) and JAX's reference,
// except that a row only ever meets its own group's rhs: masked-out zeros
// are never multiplied by another group's inf or NaN.

namespace {

template <typename T>
StatusOr<Literal> raggedDotAs(EvalContext& ctx, const Instruction& instr, const Literal& lhs,
                              const Literal& rhs, const RaggedDotPlan& rp, const std::vector<int32_t>& groupOf) {
  const DotPlan& p = rp.dot;
  bool contracting = rp.mode == RaggedDotPlan::Mode::kContracting;
  int64_t outCount = (contracting ? rp.groups : 1) * p.batch * p.m * p.n;
  HLO_RETURN_IF_ERROR(checkResultCount(instr, outCount));
  HLO_RETURN_IF_ERROR(checkScratch(ctx, instr, lhs.elementCount() + rhs.elementCount() + outCount, sizeof(T)));
  std::vector<T> a = gatherAs<T>(lhs, p.lhsPerm);
  std::vector<T> b = gatherAs<T>(rhs, p.rhsPerm);  // [g, batch, k, n] or [batch, k, n]
  std::vector<T> c(static_cast<size_t>(outCount), T{});
  for (int64_t bi = 0; bi < p.batch; ++bi) {
    for (int64_t i = 0; i < p.m; ++i) {
      for (int64_t kk = 0; kk < p.k; ++kk) {
        int64_t aIndex = (bi * p.m + i) * p.k + kk;
        int32_t j = groupOf[aIndex];
        if (j < 0) continue;
        T* cRow = c.data() + ((contracting ? j * p.batch : 0) + bi) * p.m * p.n + i * p.n;
        const T* bRow = b.data() + ((contracting ? 0 : j * p.batch) + bi) * p.k * p.n + kk * p.n;
        T av = a[aIndex];
        for (int64_t jj = 0; jj < p.n; ++jj) cRow[jj] += av * bRow[jj];
      }
    }
  }
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  storeAll(instr, c, out);
  return out;
}

}  // namespace

StatusOr<Literal> evalRaggedDot(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops.size() != 3) return EvalContext::unsupported(instr, "expected lhs, rhs and group_sizes");
  const Literal& lhs = *ops[0];
  const Literal& rhs = *ops[1];
  const Literal& sizes = *ops[2];
  StatusOr<RaggedDotPlan> rp = raggedDotPlan(instr.attrs(), lhs.shape(), rhs.shape(), sizes.shape());
  if (!rp.ok()) return EvalContext::unsupported(instr, rp.status().message());
  if (rp->mode == RaggedDotPlan::Mode::kBatch) {  // an ordinary dot
    HLO_RETURN_IF_ERROR(checkResultCount(instr, rp->dot.batch * rp->dot.m * rp->dot.n));
    switch (accKindFor(instr.shape().type(), lhs.type(), rhs.type())) {
      case AccKind::kInt: return plainDot<uint64_t>(ctx, instr, lhs, rhs, rp->dot);
      case AccKind::kReal: return plainDot<double>(ctx, instr, lhs, rhs, rp->dot);
      case AccKind::kComplex: return plainDot<std::complex<double>>(ctx, instr, lhs, rhs, rp->dot);
    }
  }
  std::vector<int32_t> groupOf =
      raggedGroups(*rp, lhs.shape(), sizes.shape(), [&](int64_t i) { return readInt(sizes, i); });
  switch (accKindFor(instr.shape().type(), lhs.type(), rhs.type())) {
    case AccKind::kInt: return raggedDotAs<uint64_t>(ctx, instr, lhs, rhs, *rp, groupOf);
    case AccKind::kReal: return raggedDotAs<double>(ctx, instr, lhs, rhs, *rp, groupOf);
    case AccKind::kComplex: return raggedDotAs<std::complex<double>>(ctx, instr, lhs, rhs, *rp, groupOf);
  }
  return EvalContext::unsupported(instr);
}

}  // namespace hlo::interp
