// while-simplify: replaces a while loop that provably runs zero times by its
// init value (the loop's result when the body never runs).
//
// A loop runs zero times when its condition, evaluated on the init value, is
// false. Two simple forms are recognised:
//   - the condition's root is a constant false;
//   - the condition's root is compare(a, b) of integer scalars, where each
//     side is a constant or get-tuple-element(param, k), and element k of the
//     init is a tuple operand that is a constant (the usual counted loop
//     `i < n` entered with i >= n).
//
// Algorithm:
//   1. For each while instruction, skip it if its condition has a side effect
//      (the condition runs once even for zero trips) or it has control edges.
//   2. Evaluate the condition's root on the init as above; give up on
//      anything else.
//   3. If it is false, point every use of the while at its init, and remove
//      the while (and whatever only it used).
//
// Left alone: loops whose trip count is not zero or not obvious, loop-
// invariant code, unused loop state, and unrolling; and conditions that
// compare floats.
#include <optional>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

// An integer scalar as a pair (is signed, value bits sign- or zero-extended).
struct IntValue {
  bool isSigned;
  int64_t value;
};

std::optional<IntValue> scalarInt(const Instruction* constant) {
  const Literal* lit = constant ? knownLiteral(*constant) : nullptr;
  if (!lit || !lit->shape().isScalar()) return std::nullopt;
  ElementType t = lit->type();
  if (!isInteger(t) && !isPred(t)) return std::nullopt;
  int width = storageBytes(t) * 8;
  uint64_t bits = lit->bitsAt(0);
  if (!isSigned(t)) return IntValue{false, static_cast<int64_t>(bits)};
  int64_t v = width == 64 ? static_cast<int64_t>(bits)
                          : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
  return IntValue{true, v};
}

// The value of a condition operand on the init: a constant, or
// get-tuple-element(param, k) where init operand k is a constant.
std::optional<IntValue> valueOnInit(const Instruction* x, const Instruction* init) {
  if (x->opcode() == Opcode::kConstant) return scalarInt(x);
  if (x->opcode() != Opcode::kGetTupleElement || x->operand(0)->opcode() != Opcode::kParameter ||
      init->opcode() != Opcode::kTuple)
    return std::nullopt;
  int64_t k = x->attrs().getInt(AttrKey::kIndex, -1);
  if (k < 0 || k >= init->operandCount()) return std::nullopt;
  return scalarInt(init->operand(static_cast<int>(k)));
}

bool compareInts(IntValue a, IntValue b, ComparisonDirection dir) {
  auto less = [&](IntValue x, IntValue y) {
    return x.isSigned ? x.value < y.value
                      : static_cast<uint64_t>(x.value) < static_cast<uint64_t>(y.value);
  };
  switch (dir) {
    case ComparisonDirection::kEq: return a.value == b.value;
    case ComparisonDirection::kNe: return a.value != b.value;
    case ComparisonDirection::kLt: return less(a, b);
    case ComparisonDirection::kGt: return less(b, a);
    case ComparisonDirection::kLe: return !less(b, a);
    case ComparisonDirection::kGe: return !less(a, b);
  }
  return true;
}

// The condition's value on the init, when one of the simple forms; else nullopt.
std::optional<bool> conditionOnInit(const Computation& cond, const Instruction* init) {
  const Instruction* root = cond.root();
  if (!root) return std::nullopt;
  if (root->opcode() == Opcode::kConstant) {
    std::optional<IntValue> v = scalarInt(root);
    if (!v) return std::nullopt;
    return v->value != 0;
  }
  if (root->opcode() != Opcode::kCompare) return std::nullopt;
  auto dir = parseComparisonDirection(root->attrs().getString(AttrKey::kDirection));
  std::optional<IntValue> a = valueOnInit(root->operand(0), init);
  std::optional<IntValue> b = valueOnInit(root->operand(1), init);
  if (!dir || !a || !b || a->isSigned != b->isSigned) return std::nullopt;
  return compareInts(*a, *b, *dir);
}

bool removeZeroTripLoops(Computation& comp, SideEffects& effects) {
  std::vector<Instruction*> loops, replaced;
  for (const auto& instr : comp.instructions())
    if (instr->opcode() == Opcode::kWhile) loops.push_back(instr.get());
  for (Instruction* loop : loops) {
    const Computation* cond = loop->attrs().getComputation(AttrKey::kCondition);
    Instruction* init = loop->operand(0);
    if (!cond || effects.of(*cond) || loop->hasControlEdges() || !interchangeable(loop->shape(), init->shape()))
      continue;
    if (conditionOnInit(*cond, init) != std::optional<bool>(false)) continue;
    comp.replaceAllUses(loop, init);
    replaced.push_back(loop);
  }
  // The loop itself goes even if its body has side effects: it never runs.
  for (Instruction* loop : replaced)
    if (loop->users().empty() && comp.root() != loop) {
      std::vector<Instruction*> operands = loop->operands();
      comp.remove(loop);
      removeDeadChains(comp, operands, effects);
    }
  return !replaced.empty();
}

}  // namespace

bool runWhileSimplify(Module& module) {
  SideEffects effects;
  bool changed = false;
  for (const auto& comp : module.computations()) changed |= removeZeroTripLoops(*comp, effects);
  return changed;
}

}  // namespace hlo
