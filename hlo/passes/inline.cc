// inline: replaces each `call` instruction by a copy of the computation it
// calls, then removes the computations nothing reachable calls any more.
//
// Algorithm:
//   1. In each computation, find the call instructions (to_apply=%callee).
//   2. For one call: copy every non-parameter instruction of the callee into
//      the caller, in the callee's order, with callee parameter k replaced by
//      the call's operand k and names made unique in the caller; copy the
//      callee's control edges among the copies.
//   3. Point every use of the call at the copy of the callee's root and
//      remove the call.
//   4. Repeat while calls remain (an inlined body may itself hold calls),
//      re-sort the caller so definitions precede uses, and finally remove the
//      computations not reachable from the entry.
//
// Left alone: fusion, while, conditional, map/reduce/sort reducers, async
// and custom-call computations (only the `call` opcode is inlined); calls with
// control edges of their own; and calls into a computation of another
// execution thread.
#include <unordered_map>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

bool inlinable(const Instruction& i) {
  if (i.opcode() != Opcode::kCall) return false;
  const Computation* callee = i.attrs().getComputation(AttrKey::kToApply);
  if (!callee) {
    const AttrValue* calls = i.attrs().find(AttrKey::kCalls);
    callee = calls && calls->comps.size() == 1 ? calls->comps[0] : nullptr;
  }
  return callee && callee != i.parent() && callee->root() &&
         callee->executionThread() == i.parent()->executionThread() &&
         !i.hasControlEdges();
}

Computation* calleeOf(const Instruction& call) {
  if (Computation* c = call.attrs().getComputation(AttrKey::kToApply)) return c;
  return call.attrs().find(AttrKey::kCalls)->comps[0];
}

void inlineCall(Computation& caller, Instruction* call, NameUniquer& names) {
  const Computation& callee = *calleeOf(*call);
  std::unordered_map<const Instruction*, Instruction*> copyOf;
  for (const auto& instr : callee.instructions()) {
    if (instr->opcode() == Opcode::kParameter) {
      copyOf[instr.get()] = call->operand(static_cast<int>(instr->parameterNumber()));
      continue;
    }
    std::vector<Instruction*> operands;
    for (const Instruction* op : instr->operands()) operands.push_back(copyOf.at(op));
    Instruction* copy = cloneInstruction(caller, *instr, operands, names.make(instr->name()));
    for (const Instruction* pred : instr->controlPredecessors())
      caller.addControlDependency(copyOf.at(pred), copy);
    copyOf[instr.get()] = copy;
  }
  caller.replaceAllUses(call, copyOf.at(callee.root()));
  caller.detach(call);  // removed with the others of its round, in one pass
}

bool inlineCalls(Computation& caller) {
  NameUniquer names(caller);
  bool changed = false;
  while (true) {
    std::vector<Instruction*> calls;
    for (const auto& instr : caller.instructions())
      if (inlinable(*instr)) calls.push_back(instr.get());
    if (calls.empty()) break;
    for (Instruction* call : calls) inlineCall(caller, call, names);
    caller.removeDetached();
    changed = true;
  }
  if (changed) {
    Status sorted = caller.sortTopologically();
    assert(sorted.ok() && "inlining made a cycle");
    (void)sorted;
  }
  return changed;
}

}  // namespace

bool runInline(Module& module) {
  bool changed = false;
  std::vector<Computation*> callers;
  for (const auto& comp : module.computations()) callers.push_back(comp.get());
  for (Computation* caller : callers) changed |= inlineCalls(*caller);
  if (changed) removeUnreachableComputations(module);
  return changed;
}

}  // namespace hlo
