// Running conformance/xla_oracle.py --batch from C++: what hlo-xla-corpus and
// hlo-fuzz's xla oracle share. The oracle's job and result files are
// described in the script.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace hlo::conformance {

struct XlaBatch {
  std::string python;                             // the Python of `make xla-env`
  std::string oracle = "conformance/xla_oracle.py";
  double timeoutSeconds = 60;                     // per module, the worker's CPU time
  int workers = 1;
  std::string log;                                // worker N writes LOG.N
  std::vector<std::string> environment;           // NAME=VALUE set for the oracle
};

// Runs the jobs of `jobsPath` (MODULE <TAB> INPUTS <TAB> OUTPUTS lines) and
// waits; false when the oracle could not be run or failed as a whole.
bool runXlaBatch(const XlaBatch& batch, const std::string& jobsPath, const std::string& resultsPath);

// The results file: module path -> (outcome, detail).
std::map<std::string, std::pair<std::string, std::string>> readXlaResults(const std::string& path);

}  // namespace hlo::conformance
