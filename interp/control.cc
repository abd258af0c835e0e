// Interpreter ops for control flow: call and fusion, while, conditional, the
// async wrappers, and the custom calls that have a single-device meaning.
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
// (branch_computations); an index out of range runs the last branch.
StatusOr<Literal> evalConditional(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& selector = *ops[0];
  std::vector<Computation*> branches;
  if (Computation* t = instr.attrs().getComputation(AttrKey::kTrueComputation))
    branches = {t, instr.attrs().getComputation(AttrKey::kFalseComputation)};
  else if (const AttrValue* list = instr.attrs().find(AttrKey::kBranchComputations))
    branches = list->comps;
  if (branches.empty()) return EvalContext::unsupported(instr, "no branch computations");
  int64_t n = static_cast<int64_t>(branches.size());
  int64_t index;
  if (selector.type() == ElementType::kPred) {
    index = selector.bitsAt(0) ? 0 : 1;  // true runs branch 0, false branch 1
  } else {
    index = static_cast<int32_t>(selector.bitsAt(0));
    if (index < 0 || index >= n) index = n - 1;
  }
  // Branch i takes operand i + 1.
  if (index >= n || !branches[index] || static_cast<size_t>(index + 1) >= ops.size())
    return EvalContext::unsupported(instr, "missing branch computation or operand");
  return ctx.call(*branches[index], Operands(ops.data() + index + 1, 1));
}

// async-start's value is ((operands...), result, context...): the wrapped
// computation runs at once, and async-done picks out the result.
// copy-start is ((copy), source, context) in the same spirit.
StatusOr<Literal> evalAsyncStart(EvalContext& ctx, const Instruction& instr, Operands ops) {
  Literal state(instr.shape());
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return EvalContext::unsupported(instr, "unexpected async state shape");
  if (instr.opcode() == Opcode::kCopyStart) {
    state.tupleElements()[0] = *ops[0];
    state.tupleElements()[1] = *ops[0];
    return state;
  }
  const Computation* callee = instr.attrs().getComputation(AttrKey::kCalls);
  if (!callee) return EvalContext::unsupported(instr, "no wrapped computation");
  Literal& operands = state.tupleElements()[0];
  if (operands.shape().isTuple() && operands.tupleElements().size() == ops.size()) {
    for (size_t i = 0; i < ops.size(); ++i) operands.tupleElements()[i] = *ops[i];
  } else if (ops.size() == 1) {
    operands = *ops[0];
  }
  HLO_ASSIGN_OR_RETURN(state.tupleElements()[1], ctx.call(*callee, ops));
  return state;
}

StatusOr<Literal> evalAsyncUpdate(EvalContext&, const Instruction&, Operands ops) { return *ops[0]; }

StatusOr<Literal> evalAsyncDone(EvalContext&, const Instruction& instr, Operands ops) {
  const Literal& state = *ops[0];
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return EvalContext::unsupported(instr, "operand is not an async state");
  int index = instr.opcode() == Opcode::kCopyDone ? 0 : 1;
  return state.tupleElements()[index];
}

// Custom calls are opaque, except the sharding annotations that are the
// identity on one device.
StatusOr<Literal> evalCustomCall(EvalContext&, const Instruction& instr, Operands ops) {
  std::string_view target = instr.attrs().getString(AttrKey::kCustomCallTarget);
  bool identity = target == "Sharding" || target == "SPMDFullToShardShape" ||
                  target == "SPMDShardToFullShape" || target == "MoveToHost" ||
                  target == "MoveToDevice" || target == "annotate_device_placement";
  if (identity && ops.size() == 1 && ops[0]->shape().compatible(instr.shape())) return *ops[0];
  return EvalContext::unsupported(instr, "custom-call target \"" + std::string(target) + "\"");
}

}  // namespace hlo::interp
