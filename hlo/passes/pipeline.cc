// The pass driver: runs passes, by name or as given, verifies after each if asked, and
// reports each result to the caller's callback.
#include "hlo/passes/pass.h"

#include "hlo/verifier.h"

namespace hlo {

Status runPipeline(Module& module, const std::vector<std::string>& passNames,
                   const PipelineOptions& options) {
  std::vector<PassInfo> passes;
  for (const std::string& name : passNames) {
    const PassInfo* pass = findPass(name);
    if (!pass) return errorStatus("unknown pass '" + name + "' (see --list-passes)");
    passes.push_back(*pass);
  }
  return runPasses(module, passes, options);
}

Status runPasses(Module& module, std::span<const PassInfo> passes, const PipelineOptions& options) {
  for (const PassInfo& pass : passes)
    if (pass.needsConstantEvaluator && !options.constantEvaluator)
      return errorStatus("pass '" + std::string(pass.name) +
                         "' needs a constant evaluator (PipelineOptions::constantEvaluator; "
                         "interp::constantEvaluator() is the interpreter's)");
  ConstantEvaluatorScope evaluator(options.constantEvaluator);
  for (size_t i = 0; i < passes.size(); ++i) {
    const PassInfo& pass = passes[i];
    bool changed = pass.run(module);
    if (options.verifyEach) {
      Status verified = verify(module);
      if (!verified.ok())
        return errorStatus("after pass '" + std::string(pass.name) +
                           "': the module does not verify: " + verified.message());
    }
    if (options.afterPass) {
      PassEvent event{static_cast<int>(i + 1), pass.name, changed, module};
      HLO_RETURN_IF_ERROR(options.afterPass(event));
    }
  }
  return okStatus();
}

}  // namespace hlo
