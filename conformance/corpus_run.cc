#include "conformance/corpus_run.h"

#include <chrono>
#include <cstdio>

#include "conformance/expectations.h"
#include "conformance/multi_device.h"
#include "conformance/work_estimate.h"
#include "hlo/verifier.h"
#include "interp/random_inputs.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

namespace hlo::conformance {

int runCorpus(const CorpusProgram& program, const CorpusFlags& flags,
              const std::function<Outcome(const std::string& path)>& task) {
  std::optional<CorpusModules> modules = readCorpusModules(flags.corpus, flags.filter);
  if (!modules) {
    std::printf("corpus not found at %s: %s skipped\n%s: 0 passed, 0 failed, 1 skipped\n", flags.corpus.c_str(),
                program.description.c_str(), program.name.c_str());
    return 0;
  }
  auto expected = readExpectations(flags.expectationsPath);
  const std::vector<std::string>& files = modules->files;
  std::vector<std::string> paths;
  for (const std::string& f : files) paths.push_back(modules->root + "/" + f);

  ChildLimits limits;
  limits.timeoutSeconds = flags.timeoutSeconds;
  limits.addressSpaceBytes = program.addressSpaceBytes;
  auto start = std::chrono::steady_clock::now();
  std::vector<Outcome> outcomes = runInChildren(paths, flags.jobs, limits, task);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Tally tally = checkOutcomes(files, outcomes, expected, program.notRun, program.mayBeOk);
  if (flags.update && !flags.expectationsPath.empty())
    writeExpectations(flags.expectationsPath, program.expectationsHeader, tally.expectationLines);
  if (!flags.timesPath.empty()) writeTimes(flags.timesPath, files, outcomes);
  std::printf("%s modules: %zu (visible, no expected error)\n", program.name.c_str(), files.size());
  double cpuTotal = printOutcomeSummary(tally, files, outcomes);
  if (program.extraSummary) program.extraSummary(outcomes);
  std::printf("  %.1f s of CPU time, %.1f s of wall time with %d jobs\n"
              "  (max work %.3g, timeout %g s of CPU, while limit %lld, memory limit %lld bytes)\n",
              cpuTotal, seconds, flags.jobs, flags.maxWork, flags.timeoutSeconds,
              static_cast<long long>(flags.maxWhileIterations), static_cast<long long>(flags.maxMemory));
  std::printf("%s: %d passed, %d failed, %d skipped\n", program.name.c_str(), tally.passed, tally.failed,
              tally.skipped);
  return tally.failed ? 1 : 0;
}

std::variant<LoadedModule, Outcome> loadModule(const std::string& path, const CorpusFlags& flags,
                                               std::unique_ptr<Module>* tooLarge) {
  LoadedModule loaded;
  std::optional<std::string> text = readInput(path);
  if (!text) return Outcome{"skipped", "cannot read"};
  loaded.text = std::move(*text);
  auto module = parseModule(loaded.text);
  if (!module.ok()) return Outcome{"skipped", "parse error: " + module.status().message()};
  Status verified = verify(**module);
  if (!verified.ok()) return Outcome{"skipped", "verify error: " + verified.message()};
  loaded.module = std::move(module).value();
  auto devices = chooseTopology(*loaded.module, std::nullopt, std::nullopt);
  if (!devices.ok()) return Outcome{"skipped", devices.status().message()};
  loaded.topology = devices->topology;
  int64_t n = loaded.topology.devices();
  loaded.work = moduleWork(*loaded.module, n);
  char buf[96];
  std::snprintf(buf, sizeof buf, "estimated work %.3g%s", loaded.work,
                n > 1 ? (" on " + std::to_string(n) + " devices").c_str() : "");
  auto over = [&](const char* why) {
    if (tooLarge) *tooLarge = std::move(loaded.module);
    return Outcome{"too-large", why};
  };
  if (loaded.work > flags.maxWork) return over(buf);
  if (n > kMaxCorpusDevices)
    return over(("runs on " + loaded.topology.toString() + ", more than " + std::to_string(kMaxCorpusDevices) +
                 " devices")
                    .c_str());
  const Computation* entry = loaded.module->entry();
  if (argumentsOverMemory(*entry, flags.maxMemory)) return over("arguments over the memory limit");
  loaded.args = interp::randomArguments(*entry, 0);
  if (n > 1)
    for (int64_t d = 0; d < n; ++d) loaded.deviceArgs.push_back(interp::randomArguments(*entry, deviceSeed(0, d)));
  return loaded;
}

}  // namespace hlo::conformance
