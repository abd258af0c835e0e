#include "conformance/xla_batch.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace hlo::conformance {

bool runXlaBatch(const XlaBatch& batch, const std::string& jobsPath, const std::string& resultsPath) {
  std::vector<std::string> argv = {batch.python, batch.oracle, "--batch", jobsPath, resultsPath,
                                   "--timeout=" + std::to_string(batch.timeoutSeconds),
                                   "--jobs=" + std::to_string(batch.workers)};
  if (!batch.log.empty()) argv.push_back("--log=" + batch.log);
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    for (const std::string& setting : batch.environment) putenv(const_cast<char*>(setting.c_str()));
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::map<std::string, std::pair<std::string, std::string>> readXlaResults(const std::string& path) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t a = line.find('\t');
    size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    if (b == std::string::npos) continue;
    out[line.substr(0, a)] = {line.substr(a + 1, b - a - 1), line.substr(b + 1)};
  }
  return out;
}

}  // namespace hlo::conformance
