// hlo-jit-fuzz: differential testing of the CPU JIT against the reference
// interpreter on random modules (conformance/random_module.h).
//
// Seed s gives one module and its arguments (`hlo-run --random-seed=s`'s);
// each runs in its own forked process (conformance/child_runner.h), is
// compiled and run by the JIT and by the interpreter, and the results are
// compared with the harness's per-type tolerance (float dot products in the
// result within their sums' rounding bound). Every seed must agree:
//   ok                        both ran and agree
//   invalid                   the generator wrote a module that does not
//                             parse or verify
//   disagree                  the results differ (the first mismatch in the
//                             detail)
//   cannot-compile: <opcode>  the JIT refused an instruction
//   error                     one engine failed (the interpreter, or the JIT
//                             otherwise)
//   timeout, crash
// A failing seed prints how to reproduce it; --keep=DIR writes its module
// there (fuzz_<seed>.hlo), to run with
//   hlo-run --engine=cpu --compare=interp --random-seed=<seed> DIR/fuzz_<seed>.hlo
// --print writes the seeds' modules to standard output instead of running
// them.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "conformance/child_runner.h"
#include "conformance/jit_against_interp.h"
#include "conformance/random_module.h"
#include "hlo/verifier.h"
#include "interp/random_inputs.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace {

using hlo::conformance::Outcome;

struct Flags {
  uint64_t first = 0, count = 300;
  int jobs = 2;
  std::string keep;
  bool print = false;
};

Outcome runSeed(uint64_t seed) {
  const std::string text = hlo::conformance::randomModule(seed);
  auto module = hlo::parseModule(text);
  if (!module.ok()) return {"invalid", "parse: " + module.status().message()};
  hlo::Status verified = hlo::verify(**module);
  if (!verified.ok()) return {"invalid", "verify: " + verified.message()};
  std::vector<hlo::Literal> args = hlo::interp::randomArguments(*(*module)->entry(), seed);
  hlo::jit::CompileOptions options;
  options.threads = 1;  // one module per CPU already
  options.useCache = false;
  // Both engines must run every generated module.
  return hlo::conformance::runAgainstInterpreter(**module, args, {}, options, "error");
}

int usage() {
  std::fprintf(stderr, "usage: hlo-jit-fuzz [--seeds=FIRST:COUNT] [--jobs=N] [--keep=DIR] [--print]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--seeds=", 0) == 0) {
      std::string v = arg.substr(8);
      size_t colon = v.find(':');
      if (colon == std::string::npos) return usage();
      flags.first = std::strtoull(v.substr(0, colon).c_str(), nullptr, 10);
      flags.count = std::strtoull(v.substr(colon + 1).c_str(), nullptr, 10);
    } else if (arg.rfind("--jobs=", 0) == 0) {
      flags.jobs = std::max(1, std::atoi(arg.c_str() + 7));
    } else if (arg.rfind("--keep=", 0) == 0) {
      flags.keep = arg.substr(7);
    } else if (arg == "--print") {
      flags.print = true;
    } else {
      return usage();
    }
  }
  if (flags.print) {
    for (uint64_t s = flags.first; s < flags.first + flags.count; ++s)
      std::printf("%s\n", hlo::conformance::randomModule(s).c_str());
    return 0;
  }
  std::vector<std::string> seeds;
  for (uint64_t s = flags.first; s < flags.first + flags.count; ++s) seeds.push_back(std::to_string(s));
  hlo::conformance::ChildLimits limits;
  limits.timeoutSeconds = hlo::conformance::kAddressSanitizer ? 200 : 40;
  std::vector<Outcome> outcomes = hlo::conformance::runInChildren(
      seeds, flags.jobs, limits, [](const std::string& s) { return runSeed(std::strtoull(s.c_str(), nullptr, 10)); });
  int passed = 0, failed = 0;
  for (size_t i = 0; i < seeds.size(); ++i) {
    if (outcomes[i].status == "ok") {
      ++passed;
      continue;
    }
    ++failed;
    std::printf("FAIL seed %s: %s%s%s\n", seeds[i].c_str(), outcomes[i].status.c_str(),
                outcomes[i].detail.empty() ? "" : ": ", outcomes[i].detail.c_str());
    if (!flags.keep.empty()) {
      std::string path = flags.keep + "/fuzz_" + seeds[i] + ".hlo";
      std::ofstream(path) << hlo::conformance::randomModule(std::strtoull(seeds[i].c_str(), nullptr, 10));
      std::printf("  reproduce: hlo-run --engine=cpu --compare=interp --random-seed=%s %s\n", seeds[i].c_str(),
                  path.c_str());
    }
  }
  std::printf("jit-fuzz: %d passed, %d failed, 0 skipped\n", passed, failed);
  return failed ? 1 : 0;
}
