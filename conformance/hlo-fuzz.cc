// hlo-fuzz: differential fuzzing of every engine against the reference
// interpreter, on random modules.
//
//   hlo-fuzz [--seeds=FIRST:COUNT | --seeds=FIRST --time=DURATION] [--oracle=A,B,...]
//            [--generator=ops|chains] [--mutate=unbounded|deep] [--jobs=N]
//            [--keep=DIR] [--no-reduce] [--coverage] [--coverage-only] [--print]
//
// Seed s gives one module (the generator's) and its arguments (`hlo-run
// --random-seed=s`'s). The generators:
//   ops      every opcode with a meaning on one device, every element type,
//            edge values, control flow and runtime sizes
//            (conformance/fuzz_generator.h): the default
//   chains   chains of elementwise ops, reductions, products, gathers and
//            loops over one type and shape (conformance/random_module.h)
// --profile=xla keeps the ops modules to what XLA:CPU takes (the default
// when xla is among the oracles; fuzz_generator.h).
// The oracles (conformance/fuzz_oracles.h): cpu (the default), gpu,
// gpu-host, pipeline, pass:NAME, passes, and xla: XLA:CPU itself, through
// conformance/xla_oracle.py and the Python of `make xla-env` (--python=PATH
// to use another), many modules per Python process. Each module runs in its
// own forked process (conformance/child_runner.h), so a crash or a hang
// fails one module. Outcomes:
//   ok              the oracle agrees with the interpreter
//   disagree        it does not (the first mismatch in the detail)
//   invalid         the generator wrote a module that does not parse, verify
//                   or run on the interpreter
//   error, cannot-compile: OP, timeout, crash
// A finding prints its seed, its outcome, which side it shows wrong and the
// command that reproduces it. With --keep=DIR the module is written there
// (<generator>_<seed>.hlo) and reduced by the same test (conformance/
// reducer.h) to <generator>_<seed>.reduced.hlo, unless --no-reduce.
// Skipped, not failed: gpu-host and gpu refusals (cannot-compile: an op no
// GPU kernel computes yet), gpu with no GPU present, and modules XLA refuses
// or cannot be given (the oracle's own outcomes).
//
// --time=30m (s, m or h) runs a campaign: seeds from FIRST on until the
// time is spent, with a progress line (modules/s, coverage, findings) after
// each batch. --coverage prints how many instructions of each opcode and
// element type the modules held; --coverage-only prints only that, running
// nothing. --print writes the modules instead of running them.
//
// --module=FILE runs the oracles on that module instead of the generator's
// (its arguments those of each seed; --seeds=S gives one).
//
// --mutate (chains, cpu) feeds the engines input of a shape bad or big
// input takes (conformance/fuzz_mutations.h).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "conformance/child_runner.h"
#include "conformance/fuzz_coverage.h"
#include "conformance/fuzz_generator.h"
#include "conformance/fuzz_mutations.h"
#include "conformance/fuzz_oracles.h"
#include "conformance/fuzz_xla.h"
#include "conformance/random_module.h"
#include "conformance/reducer.h"
#include "hlo/file_io.h"
#include "hlo/printer.h"

namespace {

namespace fs = std::filesystem;
namespace fuzz = hlo::conformance::fuzz;
using hlo::conformance::Outcome;

struct Flags {
  uint64_t first = 0, count = 300;
  double seconds = 0;  // --time: a campaign
  std::vector<std::string> oracles = {"cpu"};
  std::string generator = "ops";
  // ops: what the modules may hold; --profile, else xla when XLA is an oracle.
  fuzz::Profile profile = fuzz::Profile::kAll;
  bool profileGiven = false;
  std::string mutate;  // "", "unbounded" or "deep"
  int jobs = 2;
  std::string keep, python;
  std::string file;  // --module: this module instead of the generator's
  bool reduce = true, coverage = false, coverageOnly = false, print = false;
};

constexpr const char* kUsage =
    "usage: hlo-fuzz [--seeds=FIRST:COUNT | --seeds=FIRST --time=DURATION] [--oracle=A,B,...]\n"
    "                [--generator=ops|chains] [--mutate=unbounded|deep] [--jobs=N] [--keep=DIR]\n"
    "                [--no-reduce] [--coverage] [--coverage-only] [--print] [--python=PATH]\n"
    "                [--module=FILE] [--profile=all|xla]\n"
    "  oracles: cpu gpu gpu-host pipeline pass:NAME passes xla planted-bug (default cpu)\n";

int usage(const std::string& why) {
  std::fprintf(stderr, "hlo-fuzz: %s\n%s", why.c_str(), kUsage);
  return 2;
}

std::string moduleOf(const Flags& flags, uint64_t seed) {
  if (!flags.file.empty()) return *hlo::readInput(flags.file);
  if (flags.mutate == "deep") return fuzz::deepChainModule(seed);
  if (flags.generator == "chains") return hlo::conformance::randomModule(seed);
  return fuzz::generateModule(seed, flags.profile);
}

// "90s", "30m", "1h", "2.5h" -> seconds; 0 when malformed.
double parseDuration(const std::string& text) {
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || value <= 0) return 0;
  std::string unit(end);
  if (unit.empty() || unit == "s") return value;
  if (unit == "m") return value * 60;
  if (unit == "h") return value * 3600;
  return 0;
}

// Whether `outcome` of `oracle` passed, is a finding, or is skipped.
enum class Verdict { kPassed, kFailed, kSkipped };
Verdict verdictOf(const std::string& oracle, const Outcome& outcome) {
  if (outcome.status == "ok") return Verdict::kPassed;
  if (outcome.status.rfind("skipped", 0) == 0) return Verdict::kSkipped;
  if ((oracle == "gpu-host" || oracle == "gpu") && outcome.status.rfind("cannot-compile", 0) == 0)
    return Verdict::kSkipped;
  return Verdict::kFailed;
}

Outcome runOne(const Flags& flags, uint64_t seed, const std::string& oracle) {
  if (flags.mutate == "unbounded") return fuzz::runUnboundedSeed(seed);
  return fuzz::runOracle(moduleOf(flags, seed), oracle, seed);
}

// Reduces `text` while `oracle` gives the same outcome on it; the reduced
// text, or empty when it could not.
std::string reduceFinding(const Flags& flags, const std::string& text, const std::string& oracle, uint64_t seed,
                          const Outcome& finding) {
  auto module = hlo::parseModule(text);
  if (!module.ok()) return "";
  std::fprintf(stderr, "hlo-fuzz: reducing seed %llu (%s)\n", static_cast<unsigned long long>(seed), oracle.c_str());
  hlo::conformance::ReduceOptions options;
  options.jobs = flags.jobs;
  options.maxTests = 2000;
  hlo::conformance::ChildLimits limits;
  limits.timeoutSeconds = 20;
  // XLA's candidates go through one Python process per batch, which pays
  // for jax's start-up once: more of them are tested together.
  if (oracle == "xla") options.jobs = std::max(flags.jobs, 8);
  options.interestingEach = [&](const std::vector<std::string>& texts) {
    std::vector<Outcome> outcomes =
        oracle == "xla"
            ? fuzz::runOnXla(texts, std::vector<uint64_t>(texts.size(), seed), flags.jobs, flags.python)
            : hlo::conformance::runInChildren(texts, flags.jobs, limits,
                                              [&](const std::string& t) { return fuzz::runOracle(t, oracle, seed); });
    std::vector<bool> verdicts;
    for (const Outcome& o : outcomes) verdicts.push_back(o.status == finding.status);
    return verdicts;
  };
  options.interesting = [&](const std::string& t) -> bool { return options.interestingEach({t})[0]; };
  auto reduced = hlo::conformance::reduceModule(**module, options);
  if (!reduced.ok()) {
    std::fprintf(stderr, "hlo-fuzz: seed %llu not reduced: %s\n", static_cast<unsigned long long>(seed),
                 reduced.status().message().c_str());
    return "";
  }
  std::fprintf(stderr, "hlo-fuzz: seed %llu reduced from %lld to %lld instructions in %lld tests\n",
               static_cast<unsigned long long>(seed), static_cast<long long>(reduced->instructionsBefore),
               static_cast<long long>(reduced->instructionsAfter), static_cast<long long>(reduced->tests));
  return hlo::printModule(*reduced->module);
}

void report(const Flags& flags, uint64_t seed, const std::string& oracle, const Outcome& outcome) {
  std::printf("FAIL seed %llu (%s): %s%s%s\n", static_cast<unsigned long long>(seed), oracle.c_str(),
              outcome.status.c_str(), outcome.detail.empty() ? "" : ": ", outcome.detail.c_str());
  std::printf("  wrong: %s\n", fuzz::wrongSide(oracle, outcome).c_str());
  std::fflush(stdout);
  std::string file = "fuzz_" + std::to_string(seed) + ".hlo";
  if (!flags.keep.empty() && flags.mutate != "unbounded") {
    const std::string text = moduleOf(flags, seed);
    file = flags.keep + "/" + flags.generator + "_" + std::to_string(seed) + ".hlo";
    std::ofstream(file) << text;
    if (flags.reduce && outcome.status != "timeout") {
      std::string reduced = reduceFinding(flags, text, oracle, seed, outcome);
      if (!reduced.empty()) {
        file = flags.keep + "/" + flags.generator + "_" + std::to_string(seed) + ".reduced.hlo";
        std::ofstream(file) << reduced;
      }
    }
  } else if (flags.keep.empty()) {
    std::printf("  (--keep=DIR writes the module)\n");
  }
  std::printf("  reproduce: %s\n", oracle == "xla" ? fuzz::xlaReproducer(seed, file).c_str()
                                                 : fuzz::reproducer(oracle, seed, file, outcome.detail).c_str());
  std::fflush(stdout);
}

struct Tally {
  int64_t passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int64_t> skips;  // by outcome
  std::map<std::string, double> cpuSeconds;  // by oracle: the children's
  std::map<std::string, double> seconds;     // by oracle: wall time
  std::map<std::string, int64_t> modules;    // by oracle
};

// Runs the seeds [first, first + count) through every oracle.
void runBatch(const Flags& flags, uint64_t first, uint64_t count, Tally& tally, fuzz::Coverage* coverage) {
  std::vector<uint64_t> seeds;
  for (uint64_t s = first; s < first + count; ++s) seeds.push_back(s);
  if (coverage)
    for (uint64_t s : seeds)
      if (auto m = hlo::parseModule(moduleOf(flags, s)); m.ok()) coverage->add(**m);
  for (const std::string& oracle : flags.oracles) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<Outcome> outcomes;
    if (oracle == "xla") {
      std::vector<std::string> texts;
      for (uint64_t s : seeds) texts.push_back(moduleOf(flags, s));
      outcomes = fuzz::runOnXla(texts, seeds, flags.jobs, flags.python);
    } else {
      std::vector<std::string> inputs;
      for (uint64_t s : seeds) inputs.push_back(std::to_string(s));
      hlo::conformance::ChildLimits limits;
      limits.timeoutSeconds = hlo::conformance::kAddressSanitizer ? 200 : 40;
      outcomes = hlo::conformance::runInChildren(inputs, flags.jobs, limits, [&](const std::string& s) {
        return runOne(flags, std::strtoull(s.c_str(), nullptr, 10), oracle);
      });
    }
    tally.seconds[oracle] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (size_t i = 0; i < seeds.size(); ++i) {
      tally.cpuSeconds[oracle] += outcomes[i].cpuSeconds;
      ++tally.modules[oracle];
      switch (verdictOf(oracle, outcomes[i])) {
        case Verdict::kPassed: ++tally.passed; break;
        case Verdict::kSkipped:
          ++tally.skipped;
          ++tally.skips[oracle + ": " + outcomes[i].status];
          break;
        case Verdict::kFailed:
          ++tally.failed;
          report(flags, seeds[i], oracle, outcomes[i]);
          break;
      }
    }
  }
}

std::string suiteName(const Flags& flags) {
  std::string suite = "fuzz-" + (flags.mutate.empty() ? flags.generator : flags.mutate);
  for (const std::string& oracle : flags.oracles) suite += "-" + oracle;
  return suite;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  bool countGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name) -> std::optional<std::string> {
      std::string prefix = std::string(name) + "=";
      if (arg.rfind(prefix, 0) != 0) return std::nullopt;
      return arg.substr(prefix.size());
    };
    if (auto v = value("--seeds")) {
      size_t colon = v->find(':');
      flags.first = std::strtoull(v->substr(0, colon).c_str(), nullptr, 10);
      if (colon != std::string::npos) {
        flags.count = std::strtoull(v->substr(colon + 1).c_str(), nullptr, 10);
        countGiven = true;
      }
    } else if (auto v = value("--time")) {
      flags.seconds = parseDuration(*v);
      if (flags.seconds <= 0) return usage("--time takes a duration such as 90s, 30m or 1h");
    } else if (auto v = value("--oracle")) {
      flags.oracles.clear();
      size_t start = 0;
      while (start <= v->size()) {
        size_t comma = v->find(',', start);
        std::string oracle = v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (!fuzz::knownOracle(oracle)) return usage("unknown oracle '" + oracle + "'");
        flags.oracles.push_back(oracle);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (auto v = value("--generator")) {
      if (*v != "ops" && *v != "chains") return usage("--generator is ops or chains");
      flags.generator = *v;
    } else if (auto v = value("--profile")) {
      if (*v != "all" && *v != "xla") return usage("--profile is all or xla");
      flags.profile = *v == "xla" ? fuzz::Profile::kXla : fuzz::Profile::kAll;
      flags.profileGiven = true;
    } else if (auto v = value("--mutate")) {
      if (*v != "unbounded" && *v != "deep") return usage("--mutate is unbounded or deep");
      flags.mutate = *v;
    } else if (auto v = value("--jobs")) {
      flags.jobs = std::max(1, std::atoi(v->c_str()));
    } else if (auto v = value("--keep")) {
      flags.keep = *v;
    } else if (auto v = value("--module")) {
      if (!hlo::readInput(*v)) return usage("cannot read " + *v);
      flags.file = *v;
      if (!countGiven) flags.count = 1;
    } else if (auto v = value("--python")) {
      flags.python = *v;
    } else if (arg == "--no-reduce") {
      flags.reduce = false;
    } else if (arg == "--coverage") {
      flags.coverage = true;
    } else if (arg == "--coverage-only") {
      flags.coverage = flags.coverageOnly = true;
    } else if (arg == "--print") {
      flags.print = true;
    } else if (arg == "--help") {
      std::printf("%s", kUsage);
      return 0;
    } else {
      return usage("unknown argument '" + arg + "'");
    }
  }
  if (!flags.mutate.empty() && (flags.generator != "chains" || flags.oracles != std::vector<std::string>{"cpu"}))
    return usage("--mutate goes with --generator=chains and --oracle=cpu");
  if (!flags.profileGiven && std::count(flags.oracles.begin(), flags.oracles.end(), "xla"))
    flags.profile = fuzz::Profile::kXla;
  if (flags.seconds > 0 && countGiven) return usage("--time takes --seeds=FIRST, without a count");
  if (!flags.keep.empty()) {
    std::error_code error;
    fs::create_directories(flags.keep, error);
    if (error) return usage("cannot create " + flags.keep + ": " + error.message());
  }
  if (flags.print) {
    for (uint64_t s = flags.first; s < flags.first + flags.count; ++s) std::printf("%s\n", moduleOf(flags, s).c_str());
    return 0;
  }
  fuzz::Coverage coverage;
  if (flags.coverageOnly) {
    for (uint64_t s = flags.first; s < flags.first + flags.count; ++s)
      if (auto m = hlo::parseModule(moduleOf(flags, s)); m.ok()) coverage.add(**m);
    std::printf("coverage of %lld modules: %lld opcodes, %lld opcode x type pairs\n%s",
                static_cast<long long>(coverage.modules()), static_cast<long long>(coverage.opcodes()),
                static_cast<long long>(coverage.pairs()), coverage.report().c_str());
    return 0;
  }

  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (flags.seconds > 0) {
    const uint64_t batch = static_cast<uint64_t>(flags.jobs) * 16;
    for (uint64_t first = flags.first; elapsed() < flags.seconds; first += batch) {
      runBatch(flags, first, batch, tally, &coverage);
      std::fprintf(stderr, "[%.0f s] %lld modules, %.1f modules/s, %lld findings, %lld opcode x type pairs\n",
                   elapsed(), static_cast<long long>(coverage.modules()), coverage.modules() / elapsed(),
                   static_cast<long long>(tally.failed), static_cast<long long>(coverage.pairs()));
    }
  } else {
    runBatch(flags, flags.first, flags.count, tally, flags.coverage ? &coverage : nullptr);
  }
  // (Findings' reductions are not counted; XLA's CPU time is its Python
  // process's, which the children's do not include.)
  for (const auto& [oracle, n] : tally.modules)
    std::printf("  %s: %lld modules in %.1f s (%.1f modules/s, %d jobs), %.1f s of CPU in the children\n",
                oracle.c_str(), static_cast<long long>(n), tally.seconds[oracle],
                tally.seconds[oracle] > 0 ? n / tally.seconds[oracle] : 0.0, flags.jobs, tally.cpuSeconds[oracle]);
  for (const auto& [outcome, n] : tally.skips)
    std::printf("  skipped: %lld modules %s\n", static_cast<long long>(n), outcome.c_str());
  if (flags.coverage)
    std::printf("coverage of %lld modules: %lld opcodes, %lld opcode x type pairs\n%s",
                static_cast<long long>(coverage.modules()), static_cast<long long>(coverage.opcodes()),
                static_cast<long long>(coverage.pairs()), coverage.report().c_str());
  std::printf("%s: %lld passed, %lld failed, %lld skipped\n", suiteName(flags).c_str(),
              static_cast<long long>(tally.passed), static_cast<long long>(tally.failed),
              static_cast<long long>(tally.skipped));
  return tally.failed ? 1 : 0;
}
