// The pass registry and the per-target pipelines: the one table of passes by
// name, and the one place each target's pass list is written down.
#include "hlo/passes/pass.h"

namespace hlo {
namespace {

// Keep sorted by name: `hlo-opt --list-passes` prints it as is.
const PassInfo kPasses[] = {
    {"batchnorm-expander", runBatchNormExpander, "batch-norm-training/-inference/-grad as broadcasts, elementwise ops, add-reductions and rsqrt"},
    {"buffer-assignment", runBufferAssignment, "analysis: arena offsets by liveness with reuse; changes nothing (hlo-opt prints it)"},
    {"column-reduction-split", runColumnReductionSplit, "a reduction of 1M+ elements over leading dimensions to at most 4096 results becomes a reduction of 256 slices, then of their partials"},
    {"cse", runCse, "merge identical pure instructions (same opcode, shape, operands, attributes)"},
    {"custom-call-decomposer", runCustomCallDecomposer, "custom calls that stand for HLO (TopK, cuDNN's forward convolution, block-scaled dot, builder math) as that HLO"},
    {"dce", runDce, "remove unused pure instructions and computations not reachable from ENTRY"},
    {"fold", runFold, "constant folding: evaluate pure instructions of constants (results up to 1024 elements)",
     /*needsConstantEvaluator=*/true},
    {"fusion", runFusion, "producer-consumer loop and input fusion, then sibling multi-output fusion"},
    {"inline", runInline, "inline every call instruction, then drop unreachable computations"},
    {"reduction-split", runReductionSplit, "a reduction of 1M+ elements to a scalar becomes rows reduced in parallel, then their partials"},
    {"simplify", runSimplify, "algebraic simplification: a table of small rewrite rules (x+0, --x, ...)"},
    {"topk-decomposer", runTopKDecomposer, "the topk op as a stable sort of its operand and an iota, then slices"},
    {"tuple-simplify", runTupleSimplify, "get-tuple-element of tuple, and tuple of get-tuple-elements"},
    {"while-simplify", runWhileSimplify, "replace a while loop that runs zero times by its init value"},
};

}  // namespace

std::span<const PassInfo> registeredPasses() { return kPasses; }

const PassInfo* findPass(std::string_view name) {
  for (const PassInfo& p : kPasses)
    if (p.name == name) return &p;
  return nullptr;
}

std::span<const PipelineInfo> registeredPipelines() {
  // Target-independent clean-up first, then fusion and the dce that drops
  // what fusion absorbed; layout and buffer assignment are to come.
  static const PipelineInfo kPipelines[] = {
      {"cpu", {"custom-call-decomposer", "inline", "batchnorm-expander", "simplify", "fold", "tuple-simplify", "while-simplify", "simplify", "cse", "dce",
               "reduction-split", "fusion", "dce"}},
      {"gpu", {"custom-call-decomposer", "topk-decomposer", "inline", "batchnorm-expander", "simplify", "fold", "tuple-simplify", "while-simplify", "simplify", "cse", "dce",
               "reduction-split", "column-reduction-split", "fusion", "dce"}},
  };
  return kPipelines;
}

std::optional<std::vector<std::string>> pipelineFor(std::string_view target) {
  for (const PipelineInfo& p : registeredPipelines())
    if (p.target == target) return std::vector<std::string>(p.passes.begin(), p.passes.end());
  return std::nullopt;
}

}  // namespace hlo
