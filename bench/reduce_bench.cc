// hlo-reduce's reducer (conformance/reducer.h) on three large modules of
// XLA's corpus ($HLO_CORPUS, else ../shared/corpus; skipped with a message
// when absent): how small each gets, in how many tests and how long.
//
// Each test looks only at the candidate's text (an RE2 search), so the time
// is the reducer's own: the edits, the verifier, the printing and dce of
// every candidate, which a test that runs an engine adds its run to.
//   mobilenet_v2        a 3x3 convolution is still there
//   llama31_405b_fp8    a divide whose result is f32 feeds a reduce
//   jax issue 33666     a dynamic-slice of a loop's carried value is there
// The closing table gives instructions before and after, tests and seconds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <re2/re2.h>

#include "conformance/reducer.h"
#include "hlo/file_io.h"
#include "hlo/verifier.h"
#include "parser/parser.h"

namespace {

struct Case {
  const char* label;
  const char* file;     // under <corpus>/xla/visible
  const char* pattern;  // what the candidate must still hold
};

const Case kCases[] = {
    {"mobilenet_v2", "xla_tools_data_benchmarking_mobilenet_v2.hlo__1.hlo", R"(convolution\([^\n]*size=3x3)"},
    {"llama31_405b_fp8", "xla_tools_benchmarks_hlo_hlo_llama31_405b_fp8_16x8.hlo__1.hlo",
     R"((?s)(\S+) = f32\[[^\]]*\][^\n]* divide\(.*reduce\([^\n]*)"},
    {"jax_issue_33666", "xla_backends_cpu_benchmarks_hlo_jax.issue.33666.linx.slow_0428.module_0006.hlo__1.hlo",
     R"(dynamic-slice\(%?get-tuple-element)"},
};

}  // namespace

int main() {
  const char* env = std::getenv("HLO_CORPUS");
  const std::filesystem::path root = std::filesystem::path(env ? env : "../shared/corpus") / "xla" / "visible";
  if (!std::filesystem::is_directory(root)) {
    std::printf("reduce_bench: no corpus at %s; skipped\n", root.c_str());
    return 0;
  }
  std::printf("%-18s %8s %7s %7s %8s\n", "module", "before", "after", "tests", "seconds");
  for (const Case& c : kCases) {
    std::optional<std::string> text = hlo::readInput((root / c.file).string());
    if (!text) {
      std::printf("%-18s not in the corpus; skipped\n", c.label);
      continue;
    }
    auto module = hlo::parseModule(*text);
    if (!module.ok() || !hlo::verify(**module).ok()) {
      std::printf("%-18s does not parse or verify; skipped\n", c.label);
      continue;
    }
    const RE2 pattern(c.pattern);
    hlo::conformance::ReduceOptions options;
    options.interesting = [&](const std::string& candidate) { return RE2::PartialMatch(candidate, pattern); };
    const auto start = std::chrono::steady_clock::now();
    auto reduced = hlo::conformance::reduceModule(**module, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!reduced.ok()) {
      std::printf("%-18s %s\n", c.label, reduced.status().message().c_str());
      return 1;
    }
    std::printf("%-18s %8lld %7lld %7lld %8.2f\n", c.label, static_cast<long long>(reduced->instructionsBefore),
                static_cast<long long>(reduced->instructionsAfter), static_cast<long long>(reduced->tests), seconds);
  }
  return 0;
}
