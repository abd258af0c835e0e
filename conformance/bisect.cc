#include "conformance/bisect.h"

#include "conformance/compare.h"
#include "hlo/passes/diff.h"
#include "hlo/printer.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"

namespace hlo {
namespace {

// Bytes of the arrays in `shape`, as a double so huge shapes cannot overflow.
double shapeBytes(const Shape& shape) {
  if (!shape.isArray()) {
    double sum = 0;
    for (const Shape& e : shape.tupleElements()) sum += shapeBytes(e);
    return sum;
  }
  double n = storageBytes(shape.type());
  for (int64_t d : shape.dims()) n *= static_cast<double>(d);
  return n;
}

}  // namespace

StatusOr<BisectFinding> bisectPasses(Module& module, std::span<const PassInfo> passes, uint64_t seed) {
  if (!module.entry()) return errorStatus("the module has no entry computation");
  double bytes = 0;
  for (const Instruction* p : module.entry()->parameters()) bytes += p ? shapeBytes(p->shape()) : 0;
  if (bytes > static_cast<double>(interp::Options().maxMemoryBytes))
    return errorStatus("cannot evaluate the input module: its parameters need " +
                       std::to_string(bytes / (1 << 30)) + " GiB");
  const std::vector<Literal> args = interp::randomArguments(*module.entry(), seed);
  auto expected = interp::evaluate(module, args);
  if (!expected.ok()) return errorStatus("cannot evaluate the input module: " + expected.status().message());

  const std::string seedText = "(seed " + std::to_string(seed) + ")";
  BisectFinding finding;
  std::string previous = printModule(module);
  PipelineOptions options;
  options.constantEvaluator = interp::constantEvaluator();  // `fold` computes as the interpreter does
  options.verifyEach = true;
  options.afterPass = [&](const PassEvent& e) -> Status {
    std::string current = printModule(e.module);
    auto actual = interp::evaluate(e.module, args);
    if (!actual.ok())
      return errorStatus("after pass " + std::to_string(e.index) + " '" + std::string(e.pass) +
                         "' the module no longer evaluates: " + actual.status().message());
    Comparison c = compareLiterals(*actual, *expected, Tolerance{});
    if (!c.equal) {
      const std::string label = std::to_string(e.index) + "." + std::string(e.pass);
      finding.badPass = e.index;
      finding.report = "bisect: pass " + std::to_string(e.index) + " '" + std::string(e.pass) +
                       "' changes the result " + seedText + ": " + c.firstMismatch + "\n" +
                       unifiedDiff(previous, current, "before " + label, "after " + label);
      return errorStatus("");  // stop here
    }
    previous = std::move(current);
    return okStatus();
  };
  Status ran = runPasses(module, passes, options);
  if (finding.badPass) return finding;
  HLO_RETURN_IF_ERROR(ran);
  finding.report = "bisect: all " + std::to_string(passes.size()) + " passes keep the result " + seedText + "\n";
  return finding;
}

}  // namespace hlo
