// The command line shared by the corpus programs that run modules in child
// processes (hlo-interp-corpus, hlo-pass-corpus): where the corpus and the
// expectations are, which modules, and the limits of each run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "conformance/child_runner.h"

namespace hlo::conformance {

// The work cap, not the timeout, is what keeps runs short. The timeout is a
// safety net for a module the estimate gets badly wrong, loose enough that a
// slower machine does not turn a slow "ok" into a "timeout". Sanitizer
// builds run several times slower; they get more.
inline constexpr double kDefaultCorpusTimeout = kAddressSanitizer ? 200 : 40;

struct CorpusFlags {
  std::string corpus, expectationsPath, filter, timesPath;
  bool update = false;
  int jobs = 1;  // parseCorpusFlags sets the number of CPUs first
  double maxWork = 0;  // each program sets its own default
  int64_t maxMemory = int64_t{1} << 30;
  int64_t maxWhileIterations = 10000;
  double timeoutSeconds = kDefaultCorpusTimeout;  // CPU seconds
};

// Reads --corpus, --expectations, --update, --filter, --times, --jobs,
// --timeout, --max-work, --max-memory, --max-while-iterations into `flags`
// (whose fields hold the defaults). On a usage error returns the exit status
// to end with: usage()'s for an unknown flag, 2 after saying why for
// --update with --filter; nullopt when all is well.
std::optional<int> parseCorpusFlags(int argc, char** argv, const char* program, int (*usage)(),
                                    CorpusFlags& flags);

}  // namespace hlo::conformance
