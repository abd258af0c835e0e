// The JIT driver: copy the module, run the target's pass pipeline, hand the
// result to the target's backend.
#include <chrono>
#include <cstdio>
#include <string>

#include "backends/cpu/program.h"
#include "hlo/passes/pass.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace hlo::jit {

StatusOr<std::unique_ptr<Executable>> compile(const Module& module, Target target, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  // The passes rewrite in place; a printed and re-read copy leaves the
  // caller's module as it was (printing is a parse fixed point).
  std::string text = printModule(module);
  auto copy = parseModule(text);
  if (!copy.ok()) return errorStatus("jit: internal error: cannot copy the module: " + copy.status().message());
  interp::installConstantFolding();  // the `fold` pass evaluates with the interpreter
  const char* targetName = "cpu";
  switch (target) {
    case Target::kCpu: targetName = "cpu"; break;
  }
  std::optional<std::vector<std::string>> passes = pipelineFor(targetName);
  if (!passes) return errorStatus(std::string("jit: no pass pipeline for ") + targetName);
  HLO_RETURN_IF_ERROR(runPipeline(**copy, *passes));
  Status verified = verify(**copy);
  if (!verified.ok()) return errorStatus("jit: internal error: the pipeline left an invalid module: " + verified.message());
  if (options.verbose)
    std::fprintf(stderr, "hlo-run: %s: pass pipeline %.3g ms\n", targetName,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3);
  switch (target) {
    case Target::kCpu: return cpu::compileModule(std::move(copy).value(), options);
  }
  return errorStatus("jit: unknown target");
}

}  // namespace hlo::jit
