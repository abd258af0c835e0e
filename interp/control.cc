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

// async-start's value is ((operands...), result, context...). The wrapped
// computation runs as soon as every one of its operands is bound: at the
// start, or at the async-update that supplies the last of them (XLA allows
// `fusion-start()` followed by `async-update(start, p0, p1)`). async-done picks
// out the result; it refuses a state whose operands were never all bound, so a
// zero-filled placeholder is never passed off as the result.
// copy-start is ((copy), source, context) in the same spirit.
namespace {

// The operands recorded in an async state's first element.
std::vector<const Literal*> boundOperands(const Literal& state) {
  const Literal& slot = state.tupleElements()[0];
  std::vector<const Literal*> bound;
  if (slot.shape().isTuple())
    for (const Literal& operand : slot.tupleElements()) bound.push_back(&operand);
  else
    bound.push_back(&slot);
  return bound;
}

// A fresh state of `shape` holding `operands` and, once they are all there,
// the wrapped computation's result (or `earlier`'s, when it already ran).
StatusOr<Literal> makeAsyncState(EvalContext& ctx, const Instruction& instr, const Computation& callee,
                                 const std::vector<const Literal*>& operands, const Literal* earlier) {
  Literal state(instr.shape());
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return EvalContext::unsupported(instr, "unexpected async state shape");
  Literal& slot = state.tupleElements()[0];
  if (slot.shape().isTuple() && slot.tupleElements().size() == operands.size()) {
    for (size_t i = 0; i < operands.size(); ++i) slot.tupleElements()[i] = *operands[i];
  } else if (operands.size() == 1 && !slot.shape().isTuple()) {
    slot = *operands[0];
  } else if (!operands.empty()) {
    return EvalContext::unsupported(instr, "async state does not hold its operands");
  }
  if (static_cast<int>(operands.size()) != callee.parameterCount()) return state;
  if (earlier && static_cast<int>(boundOperands(*earlier).size()) == callee.parameterCount() &&
      earlier->tupleElements()[1].shape().compatible(state.tupleElements()[1].shape())) {
    state.tupleElements()[1] = earlier->tupleElements()[1];
    return state;
  }
  HLO_ASSIGN_OR_RETURN(state.tupleElements()[1], ctx.call(callee, operands));
  return state;
}

}  // namespace

StatusOr<Literal> evalAsyncStart(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (instr.opcode() == Opcode::kCopyStart) {
    Literal state(instr.shape());
    if (!state.shape().isTuple() || state.tupleElements().size() < 2)
      return EvalContext::unsupported(instr, "unexpected async state shape");
    state.tupleElements()[0] = *ops[0];
    state.tupleElements()[1] = *ops[0];
    return state;
  }
  const Computation* callee = instr.attrs().getComputation(AttrKey::kCalls);
  if (!callee) return EvalContext::unsupported(instr, "no wrapped computation");
  return makeAsyncState(ctx, instr, *callee, std::vector<const Literal*>(ops.begin(), ops.end()), nullptr);
}

// An update passes the state on; extra operands bind more of the wrapped
// computation's parameters.
StatusOr<Literal> evalAsyncUpdate(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& state = *ops[0];
  const Computation* callee = instr.attrs().getComputation(AttrKey::kCalls);
  // An update may also restate the state's shape, e.g. with the result slot
  // that the start left as ().
  if (ops.size() == 1 && (!callee || state.shape().compatible(instr.shape()))) return state;
  if (!callee) return EvalContext::unsupported(instr, "operands bound by an update of an unknown wrapped computation");
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return EvalContext::unsupported(instr, "operand is not an async state");
  std::vector<const Literal*> operands = boundOperands(state);
  operands.insert(operands.end(), ops.begin() + 1, ops.end());
  return makeAsyncState(ctx, instr, *callee, operands, &state);
}

StatusOr<Literal> evalAsyncDone(EvalContext&, const Instruction& instr, Operands ops) {
  const Literal& state = *ops[0];
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return EvalContext::unsupported(instr, "operand is not an async state");
  if (instr.opcode() == Opcode::kCopyDone) return state.tupleElements()[0];
  const Computation* callee = instr.attrs().getComputation(AttrKey::kCalls);
  if (callee && static_cast<int>(boundOperands(state).size()) != callee->parameterCount())
    return EvalContext::unsupported(instr, "the wrapped computation's operands were never all bound");
  return state.tupleElements()[1];
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
