// Library op: scaled-dot. Each operand is dequantized (multiplied by its
// scale, hlo/contraction.h's forEachScaled) into a packed [B, M, K] or
// [B, K, N] buffer of doubles, where the products are exact as in the
// interpreter, and the stack of products runs through dgemm.
#include <vector>

#include "backends/cpu/runtime_blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/contraction.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

StatusOr<DotDims> classify(const Instruction& instr) {
  if (instr.operandCount() != 4) return jit::cannotCompile(instr, "expected lhs, rhs, lhs_scale, rhs_scale");
  const Shape& out = instr.shape();
  for (const Instruction* op : instr.operands()) {
    const Shape& s = op->shape();
    if (!s.isArray() || s.isDynamic()) return jit::cannotCompile(instr, "operands must be static arrays");
    if (!isFloat(s.type()) && !isInteger(s.type()))
      return jit::cannotCompile(instr, "element type " + std::string(elementTypeName(s.type())) + " is not supported");
  }
  if (!out.isArray() || out.isDynamic() || !(isFloat(out.type()) || isInteger(out.type())))
    return jit::cannotCompile(instr, "the result must be a static float or integer array");
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  StatusOr<DotDims> dims = dotDims(instr.attrs(), lhs, rhs);
  if (!dims.ok()) return jit::cannotCompile(instr, dims.status().message());
  for (int i = 0; i < 2; ++i) {
    Status fits = checkDotScale(instr.operand(i)->shape(), instr.operand(2 + i)->shape());
    if (!fits.ok()) return jit::cannotCompile(instr, fits.message());
  }
  if (out.elementCount() != dims->batch * dims->m * dims->n)
    return jit::cannotCompile(instr, "the result shape does not match the operands");
  return dims;
}

std::vector<double> dequantize(const Literal& x, const Literal& scale, const std::vector<int64_t>& perm) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(x.elementCount()));
  forEachScaled(x.shape(), scale.shape(), perm, [&](int64_t offset, int64_t s) {
    out.push_back(readAs<double>(x, offset) * readAs<double>(scale, s));
  });
  return out;
}

Status runScaledDot(const RuntimeCall& call) {
  HLO_ASSIGN_OR_RETURN(DotDims d, classify(call.instr));
  const Literal& lhs = *call.operands[0];
  const Literal& rhs = *call.operands[1];
  std::vector<double> a = dequantize(lhs, *call.operands[2], d.lhsPerm);
  std::vector<double> b = dequantize(rhs, *call.operands[3], d.rhsPerm);
  std::vector<double> c(static_cast<size_t>(d.batch * d.m * d.n));
  int threads = call.pool.workers() + 1;
  for (int64_t bi = 0; bi < d.batch; ++bi)
    matmul<double>(false, false, d.m, d.n, d.k, a.data() + bi * d.m * d.k, b.data() + bi * d.k * d.n,
                   c.data() + bi * d.m * d.n, threads);
  // An integer result takes the sum rounded as XLA reads a float
  // contraction into integers (ResultWriter), as the interpreter does.
  ResultWriter writer(call.result, lhs, rhs);
  for (size_t i = 0; i < c.size(); ++i) writer.write(static_cast<int64_t>(i), c[i]);
  return okStatus();
}

}  // namespace

StatusOr<RuntimePlan> planScaledDot(HelperModule&, const Instruction& instr, const std::string&) {
  HLO_RETURN_IF_ERROR(classify(instr).status());
  return RuntimePlan{runScaledDot, {}};
}

}  // namespace hlo::cpu
