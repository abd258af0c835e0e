// The skeleton every child-process corpus program shares (hlo-interp-corpus,
// hlo-pass-corpus, hlo-jit-corpus): read the manifest and the expectations,
// run one task per module in child processes, check the outcomes, rewrite
// the expectations on --update, and print the summary ending in
// "<name>: N passed, N failed, N skipped".
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "conformance/child_runner.h"
#include "conformance/corpus_flags.h"
#include "hlo/collectives.h"
#include "hlo/literal.h"
#include "hlo/module.h"

namespace hlo::conformance {

struct CorpusProgram {
  std::string name;         // "jit-corpus": the prefix of the summary lines
  std::string description;  // "JIT corpus run": what "corpus not found" skips
  // Comment lines (each ending in a newline) heading the expectations file.
  std::string expectationsHeader;
  // Outcomes that count as skipped when the expectations do not list them.
  std::set<std::string> notRun = {"skipped"};
  // Listed outcomes that also pass when the module turns out ok: results
  // at the mercy of float rounding that a different CPU's kernels round
  // the other way.
  std::set<std::string> mayBeOk;
  int64_t addressSpaceBytes = 0;  // per child; 0 for no limit
  // Printed after the outcome table, before the totals (may be empty).
  std::function<void(const std::vector<Outcome>&)> extraSummary;
};

// Runs `task` on every module the flags select; returns the exit status
// (1 when a module's outcome is not the expected one).
int runCorpus(const CorpusProgram& program, const CorpusFlags& flags,
              const std::function<Outcome(const std::string& path)>& task);

// A module read for a run: parsed, verified, under the work cap, and its
// seeded arguments (as `hlo-run --random-seed=0` makes them).
struct LoadedModule {
  std::string text;
  std::unique_ptr<Module> module;
  double work = 0;  // of the whole run: every device's
  std::vector<Literal> args;
  // The devices it runs on (the header's, or what its collectives need);
  // with several, each device's arguments (device 0's are `args`).
  collectives::Topology topology;
  std::vector<std::vector<Literal>> deviceArgs;
};

// The most devices a corpus module runs on (threads of one child process).
constexpr int64_t kMaxCorpusDevices = 32;

// Reads `path` for a run, or says why not: "skipped" (unreadable, a parse or
// verify error) or "too-large" (estimated work over flags.maxWork, or
// arguments over flags.maxMemory). A too-large module, parsed and verified,
// is handed to `tooLarge` when given.
std::variant<LoadedModule, Outcome> loadModule(const std::string& path, const CorpusFlags& flags,
                                               std::unique_ptr<Module>* tooLarge = nullptr);

}  // namespace hlo::conformance
