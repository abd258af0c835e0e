// cse: common-subexpression elimination.
//
// Two instructions of one computation that compute the same value from the
// same operands are merged: users of the later one use the earlier one.
//
// Algorithm:
//   1. Walk each computation in def-before-use order, so an instruction's
//      operands have already been merged when it is visited.
//   2. Look the instruction up in a table of earlier candidates, hashed by
//      opcode, shape and operands (operands sorted for commutative opcodes).
//   3. Two instructions are the same when opcode, shape (with layout),
//      operands (in any order for a commutative binary opcode), parameter
//      number, literal and attributes agree. Attributes are compared field by
//      field, except metadata (ignored) and called computations, which match
//      when identical or structurally equal (same instructions, shapes,
//      attributes and operand wiring, compared recursively).
//   4. If an earlier one matches, replace every use and remove the later one;
//      otherwise add it to the table.
//
// Never merged: parameters, side-effecting instructions (rng, collectives,
// infeed, side-effecting custom-calls, callers of side-effecting
// computations), custom-calls of any kind (their targets may not be pure),
// anything producing a token, instructions with control edges, and constants
// whose values the text elided. Identical computations are not merged with
// each other; dce removes those left unused.
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"
#include "hlo/structural_equality.h"

namespace hlo {
namespace {

bool containsToken(const Shape& s) {
  if (s.isToken()) return true;
  for (const Shape& e : s.tupleElements())
    if (containsToken(e)) return true;
  return false;
}

bool mayMerge(const Instruction& i, SideEffects& effects) {
  Opcode op = i.opcode();
  return op != Opcode::kParameter && op != Opcode::kCustomCall && !effects.of(i) &&
         !containsToken(i.shape()) && !i.hasControlEdges() && (!i.hasLiteral() || !i.literal().elided());
}

// structuralHash, the operands (in either order for a commutative opcode)
// and the first literal values.
size_t hashOf(const Instruction& i) {
  size_t h = structuralHash(i);
  std::vector<const Instruction*> ops(i.operands().begin(), i.operands().end());
  if (isCommutative(i.opcode())) std::sort(ops.begin(), ops.end());
  for (const Instruction* op : ops) hashCombine(h, std::hash<const Instruction*>()(op));
  if (const Literal* lit = knownLiteral(i))
    for (int64_t k = 0; k < std::min<int64_t>(lit->elementCount(), 8) && lit->shape().isArray(); ++k)
      hashCombine(h, lit->bitsAt(k));
  return h;
}

bool cseComputation(Computation& comp, SideEffects& effects, StructuralMatcher& matcher) {
  std::unordered_map<size_t, std::vector<Instruction*>> table;
  std::vector<Instruction*> order;
  for (const auto& instr : comp.instructions()) order.push_back(instr.get());
  bool changed = false;
  auto identical = [](const Instruction* p, const Instruction* q) { return p == q; };
  for (Instruction* instr : order) {
    if (!mayMerge(*instr, effects)) continue;
    std::vector<Instruction*>& bucket = table[hashOf(*instr)];
    auto match = std::find_if(bucket.begin(), bucket.end(), [&](Instruction* earlier) {
      return matcher.sameInstruction(*earlier, *instr, identical);
    });
    if (match == bucket.end()) {
      bucket.push_back(instr);
      continue;
    }
    comp.replaceAllUses(instr, *match);
    comp.remove(instr);
    changed = true;
  }
  return changed;
}

}  // namespace

bool runCse(Module& module) {
  SideEffects effects;
  StructuralMatcher matcher;
  bool changed = false;
  for (const auto& comp : module.computations()) changed |= cseComputation(*comp, effects, matcher);
  return changed;
}

}  // namespace hlo
