// Helpers shared by the passes.
#include "hlo/passes/pass_util.h"

#include <algorithm>

namespace hlo {

bool SideEffects::of(const Instruction& instr) {
  if (opcodeHasSideEffect(instr.opcode())) return true;
  if (instr.opcode() == Opcode::kCustomCall &&
      instr.attrs().getBool(AttrKey::kCustomCallHasSideEffect))
    return true;
  for (const Computation* callee : instr.calledComputations())
    if (callee && of(*callee)) return true;
  return false;
}

bool SideEffects::of(const Computation& comp) {
  auto it = cache_.find(&comp);
  if (it != cache_.end()) return it->second;
  cache_[&comp] = false;  // the call graph is acyclic; this only guards bad input
  bool any = false;
  for (const auto& instr : comp.instructions())
    if (of(*instr)) {
      any = true;
      break;
    }
  cache_[&comp] = any;
  return any;
}

bool isRemovableWhenUnused(const Instruction& instr, SideEffects& effects) {
  return instr.opcode() != Opcode::kParameter && instr.parent()->root() != &instr &&
         !instr.hasControlEdges() && !effects.of(instr);
}

int removeDeadChains(Computation& comp, std::vector<Instruction*> candidates,
                     SideEffects& effects) {
  int removed = 0;
  std::vector<Instruction*> stack = std::move(candidates);
  std::unordered_set<Instruction*> gone;  // checked before a pointer is read
  while (!stack.empty()) {
    Instruction* i = stack.back();
    stack.pop_back();
    if (gone.count(i) || !i->users().empty() || !isRemovableWhenUnused(*i, effects)) continue;
    std::vector<Instruction*> operands = i->operands();
    comp.remove(i);
    gone.insert(i);
    ++removed;
    stack.insert(stack.end(), operands.begin(), operands.end());
  }
  return removed;
}

std::unordered_set<const Computation*> reachableComputations(const Module& module) {
  std::unordered_set<const Computation*> seen;
  std::vector<const Computation*> stack;
  if (module.entry()) stack.push_back(module.entry());
  while (!stack.empty()) {
    const Computation* c = stack.back();
    stack.pop_back();
    if (!seen.insert(c).second) continue;
    for (const auto& instr : c->instructions())
      for (const Computation* callee : instr->calledComputations())
        if (callee) stack.push_back(callee);
  }
  return seen;
}

bool removeUnreachableComputations(Module& module) {
  if (!module.entry()) return false;
  std::unordered_set<const Computation*> live = reachableComputations(module);
  std::vector<Computation*> dead;
  for (const auto& c : module.computations())
    if (!live.count(c.get())) dead.push_back(c.get());
  for (Computation* c : dead) module.remove(c);
  return !dead.empty();
}

NameUniquer::NameUniquer(const Computation& comp) {
  for (const auto& instr : comp.instructions()) used_.insert(instr->name());
}

std::string NameUniquer::make(std::string_view base) {
  std::string name(base);
  if (used_.insert(name).second) return name;
  // `add.3` taken: try `add.1`, `add.2`, ... rather than `add.3.1`.
  size_t dot = base.find_last_of('.');
  if (dot != std::string_view::npos && dot + 1 < base.size() &&
      base.find_first_not_of("0123456789", dot + 1) == std::string_view::npos)
    base = base.substr(0, dot);
  // Every suffix below next_[base] is taken, so the search starts there
  // (copying one name many times would otherwise probe 1, 2, ... each time).
  int& next = next_[std::string(base)];
  for (int n = std::max(next, 1);; ++n) {
    name = std::string(base) + "." + std::to_string(n);
    if (used_.insert(name).second) {
      next = n + 1;
      return name;
    }
  }
}

Instruction* cloneInstruction(Computation& into, const Instruction& src,
                              std::vector<Instruction*> operands, std::string name) {
  auto copy = std::make_unique<Instruction>(src.opcode(), std::move(name), src.shape());
  copy->attrs() = src.attrs();
  copy->setParameterNumber(src.parameterNumber());
  if (src.hasLiteral()) copy->setLiteral(src.literal());
  copy->setLoc(src.loc());
  Instruction* added = into.add(std::move(copy));
  for (Instruction* op : operands) into.addOperand(added, op);
  return added;
}

bool interchangeable(const Shape& a, const Shape& b) {
  if (!a.compatible(b)) return false;
  if (a.isArray()) return a.minorToMajor() == b.minorToMajor();
  if (a.isTuple())
    for (int i = 0; i < a.tupleSize(); ++i)
      if (!interchangeable(a.tupleElement(i), b.tupleElement(i))) return false;
  return true;
}

const Literal* knownLiteral(const Instruction& instr) {
  if (instr.opcode() != Opcode::kConstant || !instr.hasLiteral() || instr.literal().elided())
    return nullptr;
  return &instr.literal();
}

}  // namespace hlo
