#include "conformance/corpus_flags.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "hlo/file_io.h"

namespace hlo::conformance {

std::optional<int> parseCorpusFlags(int argc, char** argv, const char* program, int (*usage)(),
                                    CorpusFlags& flags) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  flags.jobs = cpus > 0 ? static_cast<int>(cpus) : 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    std::string name = arg.substr(0, eq);
    char* end = nullptr;
    double number = value.empty() ? -1 : std::strtod(value.c_str(), &end);
    bool numeric = end && *end == '\0' && number >= 0;
    if (name == "--corpus") flags.corpus = value;
    else if (name == "--expectations") flags.expectationsPath = value;
    else if (arg == "--update") flags.update = true;
    else if (name == "--filter") flags.filter = value;
    else if (name == "--times") flags.timesPath = value;
    else if (name == "--jobs" && numeric && number >= 1) flags.jobs = static_cast<int>(number);
    else if (name == "--timeout" && numeric && number > 0) flags.timeoutSeconds = number;
    else if (name == "--max-work" && numeric) flags.maxWork = number;
    else if (name == "--max-memory" && hlo::parseByteCount(value)) flags.maxMemory = *hlo::parseByteCount(value);
    else if (name == "--max-while-iterations" && numeric && number >= 1) flags.maxWhileIterations = static_cast<int64_t>(number);
    else return usage();
  }
  if (flags.update && !flags.filter.empty()) {
    std::fprintf(stderr, "%s: --update rewrites every module's line; it cannot take --filter\n", program);
    return 2;
  }
  return std::nullopt;
}

}  // namespace hlo::conformance
