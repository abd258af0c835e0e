// The corpus programs' shared bookkeeping: which modules of the corpus a run
// covers (MANIFEST.tsv), the checked-in file of expected outcomes, checking
// a run's outcomes against it, and the summary they print.
//
// An expectations file has one line per module whose outcome is not ok:
//   <file> <TAB> <outcome> <TAB> <detail>
// ('#' lines are comments). A module not listed is expected to be ok.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conformance/child_runner.h"

namespace hlo::conformance {

struct CorpusModules {
  std::string root;                // the folder holding MANIFEST.tsv
  std::vector<std::string> files;  // relative to root, in the manifest's order
};

// The rows of MANIFEST.tsv under visible/ with an empty expect_error column,
// whose file name contains `filter` (every one when it is empty). `corpus` is
// the corpus root or its xla/ folder; nullopt when neither has a manifest.
std::optional<CorpusModules> readCorpusModules(const std::string& corpus, const std::string& filter);

struct Expectation {
  std::string status;
  std::string detail;
};

// file -> expected outcome. An empty path, or a file that cannot be read,
// lists nothing.
std::map<std::string, Expectation> readExpectations(const std::string& path);

// Writes `header` (comment lines, each ending in a newline), then `lines`.
void writeExpectations(const std::string& path, const std::string& header,
                       const std::vector<std::string>& lines);

struct Tally {
  int passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int> byOutcome;  // status -> modules
  // "<file>\t<status>\t<detail>" for every outcome that is neither ok nor in
  // notRun: the lines --update writes.
  std::vector<std::string> expectationLines;
};

// Checks outcomes[i] of files[i] against `expected`: a module passes when its
// status is the listed one (ok when not listed), fails otherwise (printing
// "FAIL <file>: expected <status>, got <status>: <detail>"), and is skipped
// when it is not listed and its status is in `notRun`. A module listed with a
// status in `mayBeOk` also passes when it is ok (printing "NOTE <file>:
// listed as <status>, ok here").
Tally checkOutcomes(const std::vector<std::string>& files, const std::vector<Outcome>& outcomes,
                    const std::map<std::string, Expectation>& expected,
                    const std::set<std::string>& notRun, const std::set<std::string>& mayBeOk = {});

// Each module's outcome, CPU seconds and detail, one tab-separated line each.
void writeTimes(const std::string& path, const std::vector<std::string>& files,
                const std::vector<Outcome>& outcomes);

// Prints the modules per outcome, most first, then the five that took the
// most CPU time; returns the CPU seconds of all.
double printOutcomeSummary(const Tally& tally, const std::vector<std::string>& files,
                           const std::vector<Outcome>& outcomes);

}  // namespace hlo::conformance
