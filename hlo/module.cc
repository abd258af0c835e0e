// Module: computation ownership and lookup.
#include "hlo/module.h"

#include <algorithm>
#include <unordered_map>

namespace hlo {

Computation* Module::add(std::unique_ptr<Computation> computation) {
  computation->setParent(this);
  computations_.push_back(std::move(computation));
  return computations_.back().get();
}

Computation* Module::addComputation(std::string name) {
  return add(std::make_unique<Computation>(std::move(name)));
}

Computation* Module::addComputationBefore(std::string name, const Computation* before) {
  auto computation = std::make_unique<Computation>(std::move(name));
  computation->setParent(this);
  auto at = std::find_if(computations_.begin(), computations_.end(),
                         [&](const auto& c) { return c.get() == before; });
  return computations_.insert(at, std::move(computation))->get();
}

Computation* Module::find(std::string_view name) const {
  for (const auto& c : computations_)
    if (c->name() == name) return c.get();
  return nullptr;
}

void Module::remove(Computation* computation) {
  if (entry_ == computation) entry_ = nullptr;
  std::erase_if(computations_, [&](const auto& p) { return p.get() == computation; });
}

namespace {

// Copies the instructions of `from` into `into` (empty), with the edges
// between them; calls into a computation `callees` maps go to its image.
void copyInstructions(const Computation& from, Computation& into,
                      const std::unordered_map<const Computation*, Computation*>& callees) {
  into.setLoc(from.loc());
  into.setExecutionThread(from.executionThread());
  into.setInline(from.isInline());
  // Instructions first, then the edges between them (an operand may be
  // defined after its user in a module that is not yet sorted).
  std::unordered_map<const Instruction*, Instruction*> instructions;
  for (const auto& i : from.instructions()) {
    auto n = std::make_unique<Instruction>(i->opcode(), i->name(), i->shape());
    n->attrs() = i->attrs();
    for (const auto& [key, value] : i->attrs().all())
      if (!value.comps.empty()) {
        AttrValue& remapped = *n->attrs().find(key);
        for (Computation*& callee : remapped.comps)
          if (auto it = callees.find(callee); it != callees.end()) callee = it->second;
      }
    n->setParameterNumber(i->parameterNumber());
    if (i->hasLiteral()) n->setLiteral(i->literal());
    n->setLoc(i->loc());
    instructions[i.get()] = into.add(std::move(n));
  }
  for (const auto& i : from.instructions()) {
    Instruction* n = instructions.at(i.get());
    for (const Instruction* op : i->operands()) into.addOperand(n, instructions.at(op));
    for (const Instruction* pred : i->controlPredecessors()) into.addControlDependency(instructions.at(pred), n);
  }
  if (from.root()) into.setRoot(instructions.at(from.root()));
}

}  // namespace

std::unique_ptr<Module> Module::clone() const {
  auto out = std::make_unique<Module>(name_);
  out->header_ = header_;
  out->stackFrames_ = stackFrames_;
  std::unordered_map<const Computation*, Computation*> computations;
  for (const auto& c : computations_) computations[c.get()] = out->addComputation(c->name());
  for (const auto& c : computations_) copyInstructions(*c, *computations.at(c.get()), computations);
  if (entry_) out->entry_ = computations.at(entry_);
  return out;
}

Computation* Module::cloneComputation(const Computation& computation, std::string name) {
  Computation* copy = addComputationBefore(std::move(name), &computation);
  copyInstructions(computation, *copy, {});
  return copy;
}

}  // namespace hlo
