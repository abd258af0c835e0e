// The JIT driver: copy the module, run the target's pass pipeline, hand the
// result to the target's backend.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/cpu/program.h"
#include "hlo/passes/pass.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "jit/executable.h"

namespace hlo::jit {

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("HLO_CACHE_DIR"); dir && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/hlo";
  return "";
}

StatusOr<std::unique_ptr<Executable>> compile(const Module& module, Target target, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  // The passes rewrite in place; the caller's module stays as it was.
  std::unique_ptr<Module> copy = module.clone();
  interp::installConstantFolding();  // the `fold` pass evaluates with the interpreter
  const char* targetName = "cpu";
  switch (target) {
    case Target::kCpu: targetName = "cpu"; break;
  }
  std::optional<std::vector<std::string>> passes = pipelineFor(targetName);
  if (!passes) return errorStatus(std::string("jit: no pass pipeline for ") + targetName);
  if (!options.fuse) std::erase(*passes, std::string("fusion"));
  std::vector<TraceEvent> phases;
  {
    TraceScope scope(&phases, "pass pipeline", "compile");
    HLO_RETURN_IF_ERROR(runPipeline(*copy, *passes));
  }
  Status verified = verify(*copy);
  if (!verified.ok()) return errorStatus("jit: internal error: the pipeline left an invalid module: " + verified.message());
  if (options.verbose)
    std::fprintf(stderr, "hlo-run: %s: pass pipeline %.3g ms\n", targetName,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3);
  if (!options.dumpDir.empty()) {
    std::ofstream out(options.dumpDir + "/module.after-passes.hlo", std::ios::trunc);
    out << printModule(*copy);
    if (!out) return errorStatus("jit: cannot write " + options.dumpDir + "/module.after-passes.hlo");
  }
  StatusOr<std::unique_ptr<Executable>> exe = errorStatus("jit: unknown target");
  switch (target) {
    case Target::kCpu: exe = cpu::compileModule(std::move(copy), options); break;
  }
  if (exe.ok()) {
    std::vector<TraceEvent>& trace = (*exe)->mutableTrace();
    trace.insert(trace.begin(), phases.begin(), phases.end());
  }
  return exe;
  return errorStatus("jit: unknown target");
}

}  // namespace hlo::jit
