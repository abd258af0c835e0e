// hlo-fuzz's xla oracle: random modules on XLA:CPU itself, through
// conformance/xla_oracle.py --batch (one Python process importing jax
// once, its workers replaced after a crash), each result compared with the
// reference interpreter's as the conformance harness compares engines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conformance/child_runner.h"

namespace hlo::conformance::fuzz {

// The outcome of each of `texts` (module i on the arguments of seeds[i]):
// ok, disagree, invalid (the interpreter does not run it), or "skipped: xla
// <outcome>" when XLA refuses it or the oracle cannot give it its inputs
// (the oracle's own outcomes: refused, unsupported, error, timeout, crash);
// every module "skipped: no xla" when `python` (default the repository's
// build/xla-venv/bin/python, of `make xla-env`, found beside the running
// program's build/bin) is not there.
std::vector<Outcome> runOnXla(const std::vector<std::string>& texts, const std::vector<uint64_t>& seeds, int jobs,
                              std::string python);

// The commands that show an xla finding on `file`.
std::string xlaReproducer(uint64_t seed, const std::string& file);

}  // namespace hlo::conformance::fuzz
