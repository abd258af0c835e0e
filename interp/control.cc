// Interpreter ops for control flow: call and fusion, while, conditional.
// (The async wrappers are in single_device_ops.cc.)
#include "hlo/conditional_branch.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// The single computation of call (to_apply) or fusion / async (calls).
const Computation* calledComputation(const Instruction& instr) {
  if (Computation* c = instr.attrs().getComputation(AttrKey::kToApply)) return c;
  return instr.attrs().getComputation(AttrKey::kCalls);
}

bool isTrue(const Literal& pred) { return pred.bitsAt(0) != 0; }

}  // namespace

StatusOr<Literal> evalCall(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Computation* callee = calledComputation(instr);
  if (!callee) return EvalContext::unsupported(instr, "no called computation");
  return ctx.call(*callee, ops);
}

StatusOr<Literal> evalWhile(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Computation* condition = instr.attrs().getComputation(AttrKey::kCondition);
  const Computation* body = instr.attrs().getComputation(AttrKey::kBody);
  if (!condition || !body) return EvalContext::unsupported(instr, "missing condition or body");
  Literal state = *ops[0];
  int64_t limit = ctx.options().maxWhileIterations;
  for (int64_t iteration = 0;; ++iteration) {
    HLO_ASSIGN_OR_RETURN(Literal keepGoing, ctx.call(*condition, {&state}));
    if (!isTrue(keepGoing)) return state;
    if (limit > 0 && iteration >= limit)
      return errorStatus("while '" + instr.name() + "' did not finish within " +
                             std::to_string(limit) + " iterations (--max-while-iterations)",
                         instr.loc());
    HLO_ASSIGN_OR_RETURN(state, ctx.call(*body, {&state}));
  }
}

// Predicate form (true_computation / false_computation) or index form
// (branch_computations), hlo/conditional_branch.h.
StatusOr<Literal> evalConditional(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& selector = *ops[0];
  std::vector<Computation*> branches = instr.attrs().conditionalBranches();
  if (branches.empty()) return EvalContext::unsupported(instr, "no branch computations");
  int64_t n = static_cast<int64_t>(branches.size());
  int64_t index = conditionalBranch(selector, n);
  if (index >= n || !branches[index] || static_cast<size_t>(index + 1) >= ops.size())
    return EvalContext::unsupported(instr, "missing branch computation or operand");
  return ctx.call(*branches[index], Operands(ops.data() + index + 1, 1));
}

}  // namespace hlo::interp
