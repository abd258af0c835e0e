// tuple-simplify: removes tuples that are built only to be taken apart.
//
// Two rules:
//   get-tuple-element(tuple(a0, ..., an), k)               -> ak
//   tuple(get-tuple-element(t, 0), ..., get-tuple-element(t, n-1)) -> t
//     when t has exactly n elements and the same shape as the new tuple.
//
// Algorithm:
//   1. Walk each computation in def-before-use order, so an instruction's
//      operands are already simplified when it is visited.
//   2. Apply the rule for its opcode; on a match, point every use at the
//      replacement.
//   3. Remove the replaced instructions and the operands only they used.
//
// Left alone: get-tuple-element of a constant tuple, of a parameter or of a
// while/call result (no tuple instruction to look through), tuples that
// repeat, skip or reorder elements, and instructions with control edges.
#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

// get-tuple-element(tuple(a0, ..., an), k) -> ak.
Instruction* elementOfTuple(Instruction& gte) {
  Instruction* tuple = gte.operand(0);
  int64_t k = gte.attrs().getInt(AttrKey::kIndex, -1);
  if (tuple->opcode() != Opcode::kTuple || k < 0 || k >= tuple->operandCount()) return nullptr;
  Instruction* element = tuple->operand(static_cast<int>(k));
  return interchangeable(gte.shape(), element->shape()) ? element : nullptr;
}

// tuple(gte(t, 0), ..., gte(t, n-1)) -> t.
Instruction* tupleOfElements(Instruction& tuple) {
  if (tuple.operandCount() == 0) return nullptr;
  Instruction* source = nullptr;
  for (int k = 0; k < tuple.operandCount(); ++k) {
    const Instruction* gte = tuple.operand(k);
    if (gte->opcode() != Opcode::kGetTupleElement || gte->attrs().getInt(AttrKey::kIndex, -1) != k)
      return nullptr;
    if (source && gte->operand(0) != source) return nullptr;
    source = gte->operand(0);
  }
  if (source->shape().tupleSize() != tuple.operandCount() ||
      !interchangeable(tuple.shape(), source->shape()))
    return nullptr;
  return source;
}

bool simplifyTuples(Computation& comp, SideEffects& effects) {
  std::vector<Instruction*> order, replaced;
  for (const auto& instr : comp.instructions()) order.push_back(instr.get());
  for (Instruction* instr : order) {
    if (instr->hasControlEdges()) continue;
    Instruction* with = nullptr;
    if (instr->opcode() == Opcode::kGetTupleElement) with = elementOfTuple(*instr);
    if (instr->opcode() == Opcode::kTuple) with = tupleOfElements(*instr);
    if (!with) continue;
    comp.replaceAllUses(instr, with);
    replaced.push_back(instr);
  }
  removeDeadChains(comp, replaced, effects);
  return !replaced.empty();
}

}  // namespace

bool runTupleSimplify(Module& module) {
  SideEffects effects;
  bool changed = false;
  for (const auto& comp : module.computations()) changed |= simplifyTuples(*comp, effects);
  return changed;
}

}  // namespace hlo
