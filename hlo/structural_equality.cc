#include "hlo/structural_equality.h"

namespace hlo {
namespace {

bool sameIds(const std::vector<Instruction*>& a, const std::vector<Instruction*>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]->id() != b[i]->id()) return false;
  return true;
}

}  // namespace

size_t structuralHash(const Instruction& instr) {
  size_t h = static_cast<size_t>(instr.opcode()) * 1000003u;
  hashCombine(h, static_cast<size_t>(instr.shape().type()));
  for (int64_t d : instr.shape().dims()) hashCombine(h, static_cast<size_t>(d));
  for (const Computation* c : instr.calledComputations()) hashCombine(h, static_cast<size_t>(c->instructionCount()));
  return h;
}

bool StructuralMatcher::sameInstruction(const Instruction& a, const Instruction& b,
                                        const std::function<bool(const Instruction*, const Instruction*)>& sameOperand) {
  if (a.opcode() != b.opcode() || !(a.shape() == b.shape()) || a.parameterNumber() != b.parameterNumber() ||
      a.operandCount() != b.operandCount())
    return false;
  if (a.hasLiteral() != b.hasLiteral()) return false;
  if (a.hasLiteral() && (a.literal().elided() || b.literal().elided() || !(a.literal() == b.literal()))) return false;
  if (!sameAttributes(a.attrs(), b.attrs())) return false;
  if (a.operandCount() == 2 && isCommutative(a.opcode()) && sameOperand(a.operand(0), b.operand(1)) &&
      sameOperand(a.operand(1), b.operand(0)))
    return true;
  for (int i = 0; i < a.operandCount(); ++i)
    if (!sameOperand(a.operand(i), b.operand(i))) return false;
  return true;
}

bool StructuralMatcher::sameComputation(const Computation* a, const Computation* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  auto key = std::make_pair(a, b);
  if (auto it = known_.find(key); it != known_.end()) return it->second;
  known_[key] = false;  // guards against cycles in malformed input
  bool same = a->instructionCount() == b->instructionCount() && a->executionThread() == b->executionThread() &&
              a->parameterCount() == b->parameterCount() && a->root() && b->root() &&
              a->root()->id() == b->root()->id();
  for (int i = 0; same && i < a->instructionCount(); ++i) {
    const Instruction& x = *a->instructions()[i];
    const Instruction& y = *b->instructions()[i];
    same = sameIds(x.controlPredecessors(), y.controlPredecessors()) &&
           sameInstruction(x, y, [](const Instruction* p, const Instruction* q) { return p->id() == q->id(); });
  }
  known_[key] = same;
  return same;
}

bool StructuralMatcher::sameAttributes(const Attributes& a, const Attributes& b) {
  auto skip = [](AttrKey k) { return k == AttrKey::kMetadata; };
  auto ia = a.all().begin(), ib = b.all().begin();
  while (true) {
    while (ia != a.all().end() && skip(ia->first)) ++ia;
    while (ib != b.all().end() && skip(ib->first)) ++ib;
    if (ia == a.all().end() || ib == b.all().end()) return ia == a.all().end() && ib == b.all().end();
    if (ia->first != ib->first) return false;
    AttrKind kind = attrKind(ia->first);
    if (kind == AttrKind::kComputation || kind == AttrKind::kComputationList) {
      const auto& ca = ia->second.comps;
      const auto& cb = ib->second.comps;
      if (ca.size() != cb.size()) return false;
      for (size_t i = 0; i < ca.size(); ++i)
        if (!sameComputation(ca[i], cb[i])) return false;
    } else if (!(ia->second == ib->second)) {
      return false;
    }
    ++ia, ++ib;
  }
}

}  // namespace hlo
