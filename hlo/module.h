// Module: the computations of one HLO program and its header attributes.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hlo/computation.h"

namespace hlo {

class Module {
 public:
  explicit Module(std::string name = "module") : name_(std::move(name)) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;

  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  // A deep copy: every computation and instruction (attributes, literals,
  // locations, control edges) anew, with references between computations
  // pointing into the copy. It prints exactly as this module does.
  std::unique_ptr<Module> clone() const;
  // Adds a copy of `computation` (of this module) named `name`, placed just
  // before it; the copy calls the computations it calls.
  Computation* cloneComputation(const Computation& computation, std::string name);

  // Computations in printing order: callees before callers, entry last.
  const std::vector<std::unique_ptr<Computation>>& computations() const { return computations_; }
  Computation* add(std::unique_ptr<Computation> computation);
  Computation* addComputation(std::string name);
  // A new computation placed just before `before` in the module's order, as
  // XLA prints callees before their callers (a new fused computation goes in
  // front of the computation that calls it).
  Computation* addComputationBefore(std::string name, const Computation* before);
  Computation* find(std::string_view name) const;
  // Removes a computation nothing calls.
  void remove(Computation* computation);

  Computation* entry() const { return entry_; }
  void setEntry(Computation* c) { entry_ = c; }

  // Header attributes after `HloModule name,` kept verbatim in order, e.g.
  // {"entry_computation_layout", "{(f32[2]{0})->f32[2]{0}}"},
  // {"is_scheduled", "true"}.
  std::vector<std::pair<std::string, std::string>>& headerAttributes() { return header_; }
  const std::vector<std::pair<std::string, std::string>>& headerAttributes() const {
    return header_;
  }
  // Stack-frame index sections (FileNames, FunctionNames, FileLocations,
  // StackFrames), kept verbatim.
  std::string& stackFrameText() { return stackFrames_; }
  const std::string& stackFrameText() const { return stackFrames_; }

 private:
  std::string name_;
  std::vector<std::unique_ptr<Computation>> computations_;
  Computation* entry_ = nullptr;
  std::vector<std::pair<std::string, std::string>> header_;
  std::string stackFrames_;
};

}  // namespace hlo
