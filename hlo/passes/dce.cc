// dce: dead-code elimination.
//
// Removes instructions whose results nobody uses and that do nothing else,
// and computations that nothing reachable from the entry calls.
//
// Algorithm:
//   1. In each computation, mark live the root, the parameters, every
//      instruction with a side effect (SideEffects: side-effecting opcodes,
//      custom-calls marked custom_call_has_side_effect, callers of such
//      computations) and every instruction with control edges.
//   2. Walk operands backwards from the live set, marking them live.
//   3. Remove the unmarked instructions, users before operands.
//   4. Remove the computations not reachable from the entry, transitively.
//
// Left alone: parameters (a computation's signature never changes here),
// unused elements of tuples and of while-loop state, and instructions
// ordered by control dependencies, even when nothing reads their result.
#include <unordered_set>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

bool removeDeadInstructions(Computation& comp, SideEffects& effects) {
  std::unordered_set<const Instruction*> live;
  std::vector<const Instruction*> stack;
  for (const auto& instr : comp.instructions())
    if (!isRemovableWhenUnused(*instr, effects)) stack.push_back(instr.get());
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (!live.insert(i).second) continue;
    for (const Instruction* op : i->operands()) stack.push_back(op);
  }
  // Instructions are in def-before-use order, so walking backwards removes
  // every user before its operands.
  std::vector<Instruction*> dead;
  for (auto it = comp.instructions().rbegin(); it != comp.instructions().rend(); ++it)
    if (!live.count(it->get())) dead.push_back(it->get());
  for (Instruction* i : dead) comp.remove(i);
  return !dead.empty();
}

}  // namespace

bool runDce(Module& module) {
  SideEffects effects;
  bool changed = false;
  for (const auto& comp : module.computations()) changed |= removeDeadInstructions(*comp, effects);
  changed |= removeUnreachableComputations(module);
  return changed;
}

}  // namespace hlo
