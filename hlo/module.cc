// Module: computation ownership and lookup.
#include "hlo/module.h"

#include <algorithm>

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

}  // namespace hlo
