// `hlo-pass-corpus --stats`: what a target's pipeline does to the corpus as a
// whole — instructions, fusions, the kernels' memory traffic (the model of
// hlo/passes/stats.h) before and after fusion, and buffer bytes with and
// without reuse — rather than whether it keeps each module's meaning.
#pragma once

#include <string>
#include <vector>

#include "conformance/child_runner.h"

namespace hlo::conformance {

// Measures one module (in a child process): as parsed, just before the
// pipeline's first fusion pass, and after the whole pipeline. The figures
// travel in the outcome's detail; the status is "ok", "skipped" (does not
// parse or verify) or "pass-error".
Outcome measurePipeline(const std::string& path, const std::string& pipeline);

// Adds up the outcomes of measurePipeline and prints the report.
void printPipelineStats(const std::vector<Outcome>& outcomes, const std::string& pipeline);

}  // namespace hlo::conformance
