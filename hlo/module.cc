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

std::unique_ptr<Module> Module::clone() const {
  auto out = std::make_unique<Module>(name_);
  out->header_ = header_;
  out->stackFrames_ = stackFrames_;
  std::unordered_map<const Computation*, Computation*> computations;
  for (const auto& c : computations_) computations[c.get()] = out->addComputation(c->name());
  for (const auto& c : computations_) {
    Computation* copy = computations.at(c.get());
    copy->setLoc(c->loc());
    copy->setExecutionThread(c->executionThread());
    copy->setInline(c->isInline());
    // Instructions first, then the edges between them (an operand may be
    // defined after its user in a module that is not yet sorted).
    std::unordered_map<const Instruction*, Instruction*> instructions;
    for (const auto& i : c->instructions()) {
      auto n = std::make_unique<Instruction>(i->opcode(), i->name(), i->shape());
      n->attrs() = i->attrs();
      for (const auto& [key, value] : i->attrs().all())
        if (!value.comps.empty()) {
          AttrValue& remapped = *n->attrs().find(key);
          for (Computation*& callee : remapped.comps)
            if (auto it = computations.find(callee); it != computations.end()) callee = it->second;
        }
      n->setParameterNumber(i->parameterNumber());
      if (i->hasLiteral()) n->setLiteral(i->literal());
      n->setLoc(i->loc());
      instructions[i.get()] = copy->add(std::move(n));
    }
    for (const auto& i : c->instructions()) {
      Instruction* n = instructions.at(i.get());
      for (const Instruction* op : i->operands()) copy->addOperand(n, instructions.at(op));
      for (const Instruction* pred : i->controlPredecessors())
        copy->addControlDependency(instructions.at(pred), n);
    }
    if (c->root()) copy->setRoot(instructions.at(c->root()));
  }
  if (entry_) out->entry_ = computations.at(entry_);
  return out;
}

}  // namespace hlo
