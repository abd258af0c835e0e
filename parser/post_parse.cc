// The module parser's last stage: async links, shape inference for
// shape-less instructions, and the checks that need operand shapes.
#include "parser/post_parse.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "hlo/shape_inference.h"

namespace hlo {
namespace {

// The async-start at the beginning of `state`'s chain of async-updates, or
// null when the state comes from elsewhere (a parameter, a tuple element).
Instruction* chainStart(Instruction* state) {
  while (state->opcode() == Opcode::kAsyncUpdate && state->operandCount() > 0) state = state->operand(0);
  return state->opcode() == Opcode::kAsyncStart ? state : nullptr;
}

std::string_view executionThread(const Instruction& i) {
  return i.attrs().has(AttrKey::kAsyncExecutionThread) ? i.attrs().getString(AttrKey::kAsyncExecutionThread)
                                                       : std::string_view("main");
}

// XLA's UpdateAsyncWrappedComputation: the wrapped computation's parameters
// take `operandShapes` (parameters missing so far are added and passed to the
// root), and the root takes `result`.
void updateWrapped(Computation& wrapped, const std::vector<Shape>& operandShapes, const Shape* result) {
  Instruction* root = wrapped.root();
  bool added = false;
  for (int i = 0; i < static_cast<int>(operandShapes.size()); ++i) {
    if (i < wrapped.parameterCount() && wrapped.parameter(i)) {
      wrapped.parameter(i)->setShape(operandShapes[i]);
      continue;
    }
    auto owned = std::make_unique<Instruction>(Opcode::kParameter, "param." + std::to_string(i), operandShapes[i]);
    owned->setParameterNumber(i);  // before add(), which registers parameters
    owned->setLoc(root->loc());
    wrapped.addOperand(root, wrapped.add(std::move(owned)));
    added = true;
  }
  if (result) root->setShape(*result);
  if (added) (void)wrapped.sortTopologically();  // the new parameters follow the root
}

// The callee of a wrapped call or fusion decides its parameters (XLA does
// this when it builds the computation for `call-start` / `fusion-start`).
void syncWithCallee(Computation& wrapped) {
  const Instruction* root = wrapped.root();
  AttrKey key = root->opcode() == Opcode::kCall ? AttrKey::kToApply : AttrKey::kCalls;
  if (root->opcode() != Opcode::kCall && root->opcode() != Opcode::kFusion) return;
  const Computation* callee = root->attrs().getComputation(key);
  if (!callee || !callee->root()) return;
  std::vector<Shape> shapes;
  for (const Instruction* p : callee->parameters()) shapes.push_back(p ? p->shape() : Shape());
  updateWrapped(wrapped, shapes, &callee->root()->shape());
}

// `X-update` / `X-done` sugar restates the chain's shapes, which the
// wrapped computation follows.
void followSugarShapes(const ParsedFacts::AsyncUse& use, Instruction& start, Computation& wrapped) {
  const Shape& shape = use.instr->shape();
  if (use.instr->opcode() == Opcode::kAsyncUpdate) {
    if (shape.isTuple() && shape.tupleSize() >= 2 && shape.tupleElement(0).isTuple())
      updateWrapped(wrapped, shape.tupleElement(0).tupleElements(), &shape.tupleElement(1));
    return;
  }
  const Shape& startShape = start.shape();
  if (startShape.isTuple() && startShape.tupleSize() >= 1 && startShape.tupleElement(0).isTuple())
    updateWrapped(wrapped, startShape.tupleElement(0).tupleElements(), &shape);
}

// An async-update/-done takes its start's computation; what it names itself
// (calls=, async_execution_thread=, or the X of `X-done`) must agree.
Status linkAsyncUse(const ParsedFacts::AsyncUse& use, const std::vector<Computation*>& sugarWrapped,
                    Cursor& c) {
  Instruction* instr = use.instr;
  if (instr->operandCount() < 1)
    return c.errorAt(use.pos, "'" + instr->name() + "' needs the async state as its operand");
  Instruction* state = instr->operand(0);
  if (state->opcode() == Opcode::kAsyncDone)
    return c.errorAt(use.pos, "operand of '" + instr->name() + "' is already done");
  Instruction* start = chainStart(state);
  if (!start) return okStatus();
  Computation* wrapped = start->attrs().getComputation(AttrKey::kCalls);
  Computation* named = instr->attrs().getComputation(AttrKey::kCalls);
  if (named && wrapped && named != wrapped)
    return c.errorAt(use.pos, "Expect async_wrapped_computation to be " + wrapped->name() + ", but got " +
                                  named->name());
  if (use.wrapped && wrapped && wrapped->root() && wrapped->root()->opcode() != *use.wrapped)
    return c.errorAt(use.pos, "'" + instr->name() + "' does not match the operation its operand wraps");
  if (instr->attrs().has(AttrKey::kAsyncExecutionThread) && executionThread(*instr) != executionThread(*start))
    return c.errorAt(use.pos, "Expect async_execution_thread to be " + std::string(executionThread(*start)) +
                                  ", but got " + std::string(executionThread(*instr)));
  if (wrapped && !named) instr->attrs().setComputation(AttrKey::kCalls, wrapped);
  bool sugar = wrapped && std::find(sugarWrapped.begin(), sugarWrapped.end(), wrapped) != sugarWrapped.end();
  if (use.wrapped && sugar && use.hasShape) followSugarShapes(use, *start, *wrapped);
  return okStatus();
}

// Computations in post-order of the call graph: callees before callers.
std::vector<Computation*> calleesFirst(const Module& module) {
  std::vector<Computation*> order;
  std::unordered_set<Computation*> seen;
  std::vector<std::pair<Computation*, std::vector<Computation*>>> stack;
  auto push = [&](Computation* comp) {
    seen.insert(comp);
    std::vector<Computation*> callees;
    for (const auto& i : comp->instructions())
      for (Computation* callee : i->calledComputations())
        if (callee && !seen.count(callee)) callees.push_back(callee);
    stack.push_back({comp, std::move(callees)});
  };
  for (const auto& top : module.computations()) {
    if (seen.count(top.get())) continue;
    push(top.get());
    while (!stack.empty()) {
      std::vector<Computation*>& callees = stack.back().second;
      if (callees.empty()) {
        order.push_back(stack.back().first);
        stack.pop_back();
        continue;
      }
      Computation* next = callees.back();
      callees.pop_back();
      if (!seen.count(next)) push(next);
    }
  }
  return order;
}

Status inferShapes(const Module& module, const std::vector<Instruction*>& needsShape) {
  if (needsShape.empty()) return okStatus();
  std::unordered_set<Instruction*> pending(needsShape.begin(), needsShape.end());
  for (Computation* comp : calleesFirst(module)) {
    for (const auto& instr : comp->instructions()) {
      if (!pending.count(instr.get())) continue;
      StatusOr<Shape> inferred = inferShape(*instr);
      if (!inferred.ok()) return inferred.status().withLoc(instr->loc());
      instr->setShape(std::move(inferred).value());
    }
  }
  return okStatus();
}

Status checkOperandShapes(const std::vector<ParsedFacts::OperandShape>& declared, Cursor& c) {
  for (const ParsedFacts::OperandShape& d : declared)
    HLO_RETURN_IF_ERROR(checkDeclaredShape(d.declared, *d.user->operand(d.index), d.pos, c));
  return okStatus();
}

Status checkSignatures(const std::vector<ParsedFacts::Signature>& signatures, Cursor& c) {
  for (const ParsedFacts::Signature& sig : signatures) {
    const Computation* comp = sig.computation;
    // XLA ignores the parameter list of a signature; only the result must agree.
    if (!comp->root()->shape().compatible(sig.result))
      return c.errorAt(sig.pos, "computation '" + comp->name() + "' returns " +
                                    comp->root()->shape().toString() + " but its signature says " +
                                    sig.result.toString());
  }
  return okStatus();
}

// A conditional on pred[] names true_computation/false_computation; on s32[]
// it names branch_computations (XLA's parser refuses the other spelling).
Status checkConditional(const Instruction& instr) {
  if (instr.operandCount() == 0) return okStatus();
  const Shape& index = instr.operand(0)->shape();
  if (!index.isScalar()) return okStatus();  // the verifier reports it
  const Attributes& a = instr.attrs();
  if (index.type() == ElementType::kPred && a.has(AttrKey::kBranchComputations))
    return errorStatus("unexpected attribute \"branch_computations\" on conditional '" + instr.name() +
                           "': a pred[] branch index takes true_computation and false_computation",
                       instr.loc());
  if (index.type() == ElementType::kS32 &&
      (a.has(AttrKey::kTrueComputation) || a.has(AttrKey::kFalseComputation)))
    return errorStatus("unexpected attribute \"true_computation\" on conditional '" + instr.name() +
                           "': an s32[] branch index takes branch_computations",
                       instr.loc());
  return okStatus();
}

// operand_layout_constraints={...}: one shape per operand, compatible with
// it. (XLA also wants layouts, but its parser gives every shape written
// without one the default layout, so text cannot break that rule.)
Status checkLayoutConstraints(const Instruction& instr) {
  const AttrValue* constraints = instr.attrs().find(AttrKey::kOperandLayoutConstraints);
  if (!constraints) return okStatus();
  auto fail = [&](const std::string& message) {
    return errorStatus("custom-call '" + instr.name() + "': " + message, instr.loc());
  };
  const std::vector<Shape>& shapes = constraints->shapes;
  if (static_cast<int>(shapes.size()) != instr.operandCount())
    return fail("Expected " + std::to_string(instr.operandCount()) + " operand layout constraints, " +
                std::to_string(shapes.size()) + " given");
  for (int i = 0; i < instr.operandCount(); ++i) {
    if (!shapes[i].sameTypeAndDims(instr.operand(i)->shape()))
      return fail("operand layout constraint " + shapes[i].toString() + " for operand " +
                  std::to_string(i) + " is not compatible with operand shape " +
                  instr.operand(i)->shape().toString());
  }
  return okStatus();
}

}  // namespace

Status checkDeclaredShape(const Shape& declared, const Instruction& operand, size_t pos, Cursor& c) {
  if (declared.sameTypeAndDims(operand.shape())) return okStatus();
  return c.errorAt(pos, "the declared operand shape " + declared.toString() +
                            " is not compatible with the shape " + operand.shape().toString() + " of '" +
                            operand.name() + "'");
}

Status completeModule(Module& module, ParsedFacts& facts, Cursor& c) {
  for (Computation* wrapped : facts.sugarWrapped) syncWithCallee(*wrapped);
  for (const ParsedFacts::AsyncUse& use : facts.asyncUses)
    HLO_RETURN_IF_ERROR(linkAsyncUse(use, facts.sugarWrapped, c));
  HLO_RETURN_IF_ERROR(inferShapes(module, facts.needsShape));
  HLO_RETURN_IF_ERROR(checkOperandShapes(facts.operandShapes, c));
  HLO_RETURN_IF_ERROR(checkSignatures(facts.signatures, c));
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() == Opcode::kConditional) HLO_RETURN_IF_ERROR(checkConditional(*instr));
      if (instr->opcode() == Opcode::kCustomCall) HLO_RETURN_IF_ERROR(checkLayoutConstraints(*instr));
    }
  }
  return okStatus();
}

}  // namespace hlo
