// Bisecting a pipeline with the interpreter: the module is evaluated on seeded
// inputs before the passes and after each, and the first pass whose module
// computes something else is named, with what it changed. hlo-opt --bisect
// runs it over registered passes; a pass being written can be checked the
// same way before it is registered (docs/tutorial/06-yardstick.md).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "hlo/module.h"
#include "hlo/passes/pass.h"
#include "hlo/status.h"

namespace hlo {

struct BisectFinding {
  int badPass = 0;     // 1-based position of the first pass that changed the result; 0 when none did
  std::string report;  // the lines to print: that pass, the first mismatch and the pass's diff, or that all agree
};

// Results are compared exactly (NaN equals NaN). An error when the module
// cannot be evaluated before the passes, or a pass leaves it unverifiable or
// unevaluable.
StatusOr<BisectFinding> bisectPasses(Module& module, std::span<const PassInfo> passes, uint64_t seed);

}  // namespace hlo
