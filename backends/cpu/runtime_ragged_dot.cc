// Library op: ragged-dot (modes and groups: hlo/contraction.h's
// RaggedDotPlan, shared with the interpreter), as one matrix product per run
// of consecutive rows (free mode) or contracting indices (contracting mode)
// that share a group.
//
// Algorithm:
//   1. Plan the dimensions and give every lhs element its group.
//   2. Pack the operands into the compute type (runtime_blas.h): lhs as
//      [B, M, K] (free, batch modes) or [B, K, M] (contracting mode); rhs as
//      [G, B, K, N] (free mode) or [B, K, N].
//   3. free: per batch, each run of rows of group g is one product of its
//      [rows, K] block with rhs group g; rows in no group stay zero.
//      contracting: per batch, each run of k of group g adds the product of
//      the lhs block [kRun, M] (transposed) and the rhs rows [kRun, N] into
//      result group g. batch: an ordinary dot.
//   4. Write the results into the result type.
#include <complex>
#include <vector>

#include "backends/cpu/runtime_blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/contraction.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

using Mode = RaggedDotPlan::Mode;

StatusOr<RaggedDotPlan> classify(const Instruction& instr) {
  if (instr.operandCount() != 3) return jit::cannotCompile(instr, "expected lhs, rhs and group_sizes");
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  const Shape& sizes = instr.operand(2)->shape();
  const Shape& out = instr.shape();
  if (!lhs.isArray() || !rhs.isArray() || !sizes.isArray() || !out.isArray())
    return jit::cannotCompile(instr, "operands and result must be arrays");
  if (lhs.isDynamic() || rhs.isDynamic() || sizes.isDynamic() || out.isDynamic())
    return jit::cannotCompile(instr, "dynamic dimensions are not supported");
  if (!isNumeric(lhs.type()) || !isNumeric(rhs.type()) || !isNumeric(out.type()))
    return jit::cannotCompile(instr, "element type " + std::string(elementTypeName(out.type())) + " is not supported");
  StatusOr<RaggedDotPlan> plan = raggedDotPlan(instr.attrs(), lhs, rhs, sizes);
  if (!plan.ok()) return jit::cannotCompile(instr, plan.status().message());
  const DotDims& d = plan->dot;
  int64_t expected = (plan->mode == Mode::kContracting ? plan->groups : 1) * d.batch * d.m * d.n;
  if (out.elementCount() != expected) return jit::cannotCompile(instr, "the result shape does not match the operands");
  return plan;
}

// lhsPerm (batch + free + contracting) reordered to batch + contracting + free.
std::vector<int64_t> contractingFirst(const RaggedDotPlan& plan, size_t batch) {
  const std::vector<int64_t>& perm = plan.dot.lhsPerm;
  size_t free = plan.dot.lhsFree.size();
  std::vector<int64_t> out(perm.begin(), perm.begin() + batch);
  out.insert(out.end(), perm.begin() + batch + free, perm.end());
  out.insert(out.end(), perm.begin() + batch, perm.begin() + batch + free);
  return out;
}

template <typename T>
Status runAs(const RuntimeCall& call, const RaggedDotPlan& plan) {
  const Instruction& instr = call.instr;
  const Literal& lhs = *call.operands[0];
  const Literal& rhs = *call.operands[1];
  const Literal& sizes = *call.operands[2];
  const DotDims& d = plan.dot;
  const int64_t B = d.batch, M = d.m, K = d.k, N = d.n;
  int threads = call.pool.workers() + 1;
  size_t batchDims = instr.attrs().getInts(AttrKey::kLhsBatchDims).size();
  bool contracting = plan.mode == Mode::kContracting;

  std::vector<T> a(static_cast<size_t>(lhs.elementCount())), b(static_cast<size_t>(rhs.elementCount()));
  pack(lhs, contracting ? contractingFirst(plan, batchDims) : d.lhsPerm, a.data());
  pack(rhs, d.rhsPerm, b.data());
  std::vector<T> c(static_cast<size_t>(call.result.elementCount()), T{});

  if (plan.mode == Mode::kBatch) {
    for (int64_t bi = 0; bi < B; ++bi)
      matmul<T>(false, false, M, N, K, a.data() + bi * M * K, b.data() + bi * K * N, c.data() + bi * M * N, threads);
  } else if (M > 0 && K > 0) {
    std::vector<int32_t> groupOf =
        raggedGroups(plan, lhs.shape(), sizes.shape(), [&](int64_t i) { return readInt(sizes, i); });
    // In free mode a row's group does not depend on k; in contracting mode
    // k's group does not depend on the row (the groups' prefix dimensions
    // are never of the other kind).
    auto groupAt = [&](int64_t bi, int64_t i, int64_t kk) { return groupOf[static_cast<size_t>((bi * M + i) * K + kk)]; };
    std::vector<T> partial(contracting ? static_cast<size_t>(M * N) : 0);
    for (int64_t bi = 0; bi < B; ++bi) {
      int64_t length = contracting ? K : M;
      for (int64_t start = 0; start < length;) {
        int32_t g = contracting ? groupAt(bi, 0, start) : groupAt(bi, start, 0);
        int64_t end = start + 1;
        while (end < length && (contracting ? groupAt(bi, 0, end) : groupAt(bi, end, 0)) == g) ++end;
        if (g >= 0 && !contracting) {
          matmul<T>(false, false, end - start, N, K, a.data() + (bi * M + start) * K,
                    b.data() + (g * B + bi) * K * N, c.data() + (bi * M + start) * N, threads);
        } else if (g >= 0) {
          matmul<T>(true, false, M, N, end - start, a.data() + (bi * K + start) * M,
                    b.data() + (bi * K + start) * N, partial.data(), threads);
          T* out = c.data() + (g * B + bi) * M * N;
          for (int64_t i = 0; i < M * N; ++i) out[i] += partial[i];
        }
        start = end;
      }
    }
  }
  ResultWriter writer(call.result, lhs, rhs);
  for (size_t i = 0; i < c.size(); ++i) writer.write(static_cast<int64_t>(i), c[i]);
  return okStatus();
}

Status runRaggedDot(const RuntimeCall& call) {
  HLO_ASSIGN_OR_RETURN(RaggedDotPlan plan, classify(call.instr));
  const Instruction& instr = call.instr;
  Compute compute =
      computeTypeFor(instr.operand(0)->shape().type(), instr.operand(1)->shape().type(), instr.shape().type());
  return withComputeType(compute, [&](auto t) { return runAs<decltype(t)>(call, plan); });
}

}  // namespace

StatusOr<RuntimePlan> planRaggedDot(HelperModule&, const Instruction& instr, const std::string&) {
  HLO_RETURN_IF_ERROR(classify(instr).status());
  return RuntimePlan{runRaggedDot, {}};
}

}  // namespace hlo::cpu
