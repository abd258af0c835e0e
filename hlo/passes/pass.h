// Passes: the pass signature, the registry, the per-target pipelines and the
// driver that runs a list of passes by name.
//
// A pass is a plain function `bool runX(Module&)` that rewrites the module in
// place and returns whether it changed anything. Every pass is registered once,
// by name, in hlo/passes/registry.cc; `hlo-opt --passes=` and `--list-passes`
// read that table, and so do the per-target pipelines below.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/module.h"
#include "hlo/passes/fold.h"
#include "hlo/status.h"

namespace hlo {

// Returns true when the module changed.
using PassFn = bool (*)(Module&);

struct PassInfo {
  std::string_view name;
  PassFn run;
  std::string_view help;  // one line, shown by `hlo-opt --list-passes`
  // It computes values with the pipeline's constant evaluator (fold.h).
  bool needsConstantEvaluator = false;
};

// Every pass, in the registry's order.
std::span<const PassInfo> registeredPasses();
// The pass called `name`, or nullptr.
const PassInfo* findPass(std::string_view name);

struct PipelineInfo {
  std::string_view target;               // "cpu", "gpu"
  std::vector<std::string_view> passes;  // run in this order
};

std::span<const PipelineInfo> registeredPipelines();
// The pass names of a target's pipeline; nullopt for an unknown target.
std::optional<std::vector<std::string>> pipelineFor(std::string_view target);

// What the driver reports after each pass.
struct PassEvent {
  int index;              // 1-based position in the pipeline
  std::string_view pass;  // its registered name
  bool changed;           // what the pass returned
  const Module& module;   // the module after the pass
};

struct PipelineOptions {
  // Run the verifier after every pass; a failure names the pass.
  bool verifyEach = false;
  // Called after each pass (after verification when verifyEach is set), for
  // printing, dumping or checking the result; an error stops the pipeline.
  std::function<Status(const PassEvent&)> afterPass;
  // What `fold` computes values with (interp::constantEvaluator()); a
  // pipeline holding a pass that needs one and given none is an error.
  ConstantEvaluator constantEvaluator;
};

// Runs the named passes in order. Unknown names are reported before any pass
// runs.
Status runPipeline(Module& module, const std::vector<std::string>& passNames,
                   const PipelineOptions& options = {});
// The same for passes given as they are, registered or not: a pass being
// written, or one planted to test the tools that check passes.
Status runPasses(Module& module, std::span<const PassInfo> passes, const PipelineOptions& options = {});

// The passes, one file each in hlo/passes/.
bool runBatchNormExpander(Module& module);  // batchnorm_expander.cc
bool runCustomCallDecomposer(Module& module);  // custom_call_decomposer.cc
bool runTopKDecomposer(Module& module);  // custom_call_decomposer.cc
bool runDce(Module& module);            // dce.cc
bool runCse(Module& module);            // cse.cc
bool runSimplify(Module& module);       // simplify.cc
bool runReductionSplit(Module& module);  // reduction_split.cc
bool runColumnReductionSplit(Module& module);  // reduction_split.cc
bool runInline(Module& module);         // inline.cc
bool runTupleSimplify(Module& module);  // tuple_simplify.cc
bool runWhileSimplify(Module& module);  // while_simplify.cc
bool runFusion(Module& module);         // fusion.cc
bool runFold(Module& module);           // fold.cc
// An analysis, not a rewrite: computes assignBuffers() (buffer_assignment.h)
// and returns false; hlo-opt prints the report when it runs.
bool runBufferAssignment(Module& module);  // buffer_assignment.cc

}  // namespace hlo
