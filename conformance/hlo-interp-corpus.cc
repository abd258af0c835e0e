// hlo-interp-corpus: runs every valid module of the XLA corpus through the
// reference interpreter, with seeded inputs, and compares each outcome with
// the checked-in expectations.
//
// Modules: visible/ with an empty expect_error column. Each runs in its own
// forked process, so a crash or a hang fails that module, not the run. The
// arguments are those of `hlo-run --random-seed=0` (interp/random_inputs.h).
// Outcomes:
//   ok                      the run finished
//   too-large               the estimated work (below) is over --max-work, or
//                           the arguments alone exceed the memory limit; not run
//   unsupported: <opcode>   the interpreter refused an instruction
//   memory-limit            live values would pass --max-memory
//   while-limit             a while loop ran past --max-while-iterations
//   internal-error          an op produced a value of the wrong shape
//   error                   any other run-time error
//   timeout                 the process used more than --timeout seconds of CPU
//                           time (40 by default; CPU time, not wall time, so a
//                           busy machine does not change outcomes), or ran 10
//                           times as long in wall time
//   crash                   the process died (a signal, an uncaught abort)
//   skipped                 does not parse or verify (hlo-corpus-check's
//                           business); counted as skipped, not run
// Every module is expected to be ok unless the expectations file lists it:
//   <file> <TAB> <outcome> <TAB> <detail>
// A module whose outcome differs fails, in either direction. --update rewrites
// the file from this run (every outcome but ok and skipped).
//
// Work estimate: conformance/work_estimate.h, a static count of scalar
// operations from the instruction shapes. Every computation is counted once,
// so a while loop may do far more: loops stop after --max-while-iterations
// (10000), or after fewer for a module whose estimate W is large,
// 10 x min(max-work, 2e8) / W iterations (but at least 10), so a never-ending
// loop with a big body ends as while-limit well before --timeout.
//
// Limits (defaults): --max-work=2e9 (the costliest modules under it take about
// ten seconds of CPU; the whole corpus about six minutes of CPU, so about
// three minutes of wall time on two cores), --timeout=40 CPU seconds (200 in
// AddressSanitizer builds), --max-memory=1G for the interpreter's live values
// (and three times that plus 1 GiB of address space for the whole process,
// outside AddressSanitizer builds), --max-while-iterations=10000, --jobs = the
// number of CPUs.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "conformance/corpus_flags.h"
#include "conformance/corpus_run.h"
#include "conformance/multi_device.h"
#include "conformance/work_estimate.h"
#include "interp/evaluator.h"

namespace {

using hlo::conformance::Outcome;

using Config = hlo::conformance::CorpusFlags;

// The category of a run-time error message.
std::string errorCategory(const std::string& message) {
  if (message.rfind("unsupported: ", 0) == 0) {
    size_t end = message.find_first_of(" :", 13);
    return "unsupported: " + message.substr(13, end == std::string::npos ? end : end - 13);
  }
  if (message.find("(--max-memory)") != std::string::npos) return "memory-limit";
  if (message.find("(--max-while-iterations)") != std::string::npos) return "while-limit";
  if (message.rfind("internal error", 0) == 0) return "internal-error";
  return "error";
}

// Loads and runs one module (in the child process).
Outcome runModule(const std::string& path, const Config& config) {
  auto loaded = hlo::conformance::loadModule(path, config);
  if (auto* notRun = std::get_if<Outcome>(&loaded)) return *notRun;
  auto& m = std::get<hlo::conformance::LoadedModule>(loaded);
  hlo::interp::Options options = hlo::conformance::corpusEvaluationOptions(
      m.work, config.maxWork, config.maxMemory, config.maxWhileIterations);
  int64_t devices = m.topology.devices();
  char buf[96];
  std::snprintf(buf, sizeof buf, "estimated work %.3g%s", m.work,
                devices > 1 ? (" on " + m.topology.toString()).c_str() : "");
  if (devices > 1) {
    // The memory limit is the whole run's.
    options.maxMemoryBytes /= devices;
    auto outcomes = hlo::conformance::runOnEveryDevice(*m.module, m.topology, m.deviceArgs, nullptr, options);
    if (auto failed = hlo::conformance::firstFailure(outcomes))
      return {errorCategory(failed->second.message()),
              "device " + std::to_string(failed->first) + ": " + failed->second.message()};
    return {"ok", buf};
  }
  auto result = hlo::interp::evaluate(*m.module, m.args, options);
  if (!result.ok()) return {errorCategory(result.status().message()), result.status().message()};
  return {"ok", buf};
}

int usage() {
  std::fprintf(stderr,
               "usage: hlo-interp-corpus --corpus=DIR [--expectations=FILE] [--update]\n"
               "         [--filter=TEXT] [--jobs=N] [--timeout=SECONDS] [--max-work=N]\n"
               "         [--max-memory=BYTES] [--max-while-iterations=N] [--times=FILE]\n"
               "  --times=FILE writes each module's outcome, CPU seconds and detail (to tune --max-work)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  config.maxWork = 2e9;
  if (std::optional<int> rc = hlo::conformance::parseCorpusFlags(argc, argv, "hlo-interp-corpus", usage, config)) return *rc;
  hlo::conformance::CorpusProgram program;
  program.name = "interp-corpus";
  program.description = "interpreter corpus run";
  program.expectationsHeader =
      "# Corpus modules whose interpreter outcome is not ok (see conformance/hlo-interp-corpus.cc).\n"
      "# Regenerate with: build/bin/hlo-interp-corpus --corpus=../shared/corpus "
      "--expectations=conformance/interp_expectations.txt --update\n"
      "# file\toutcome\tdetail\n";
  // A backstop for allocations the interpreter does not account for.
  program.addressSpaceBytes = config.maxMemory * 3 + (int64_t{1} << 30);
  return hlo::conformance::runCorpus(program, config, [&](const std::string& path) { return runModule(path, config); });
}
