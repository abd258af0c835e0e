// hlo-reduce's built-in interestingness tests: what a candidate module does
// on the engines, found out in a child process (conformance/child_runner.h)
// so that a crash or an endless loop costs one candidate, not the reducer.
//
//   --engines-disagree=A,B  A and B both run it, on the same seeded random
//                           arguments, and their results differ by more
//                           than the conformance harness allows (per-type
//                           tolerances, the contraction bound of dots)
//   --crashes=E             E dies of a signal on it (a segfault, an
//                           abort, a sanitizer's report)
//   --error-matches=RE      compiling or running it on --engine (default
//                           cpu) fails with a message RE (RE2) finds
//
// A run that fails otherwise, or runs out of time, is not interesting: a
// reduction must keep the failure it started from, not trade it for another.
#pragma once

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include <re2/re2.h>

#include "conformance/child_runner.h"
#include "conformance/contraction_bound.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace hlo::reduce_tests {

struct BuiltinTest {
  enum class Kind { kEnginesDisagree, kCrashes, kErrorMatches };
  Kind kind = Kind::kEnginesDisagree;
  std::string engine, other;       // the engine; kEnginesDisagree: and the one it is compared with
  std::shared_ptr<const RE2> pattern;  // kErrorMatches
  uint64_t seed = 0;               // the arguments' (hlo-run --random-seed)
  int64_t maxWhileIterations = 0;  // 0: none
  double timeoutSeconds = 10;
  // For testing the reducer itself: the child crashes, as an engine bug
  // would, on a candidate that holds an instruction of this opcode.
  std::string plantedCrash;
};

// The interpreter's options for `test`'s runs and comparisons.
inline interp::Options interpOptionsOf(const BuiltinTest& test) {
  interp::Options options;
  options.maxWhileIterations = test.maxWhileIterations;
  return options;
}

// Engine `engine` on `module`: its result, or why it has none.
inline StatusOr<Literal> runOn(const std::string& engine, const Module& module, std::span<const Literal> args,
                               const BuiltinTest& test) {
  if (engine == "interp") return interp::evaluate(module, args, interpOptionsOf(test));
  jit::CompileOptions options;
  options.maxWhileIterations = test.maxWhileIterations;
  options.useCache = false;  // every candidate is compiled once
  StatusOr<std::unique_ptr<jit::Executable>> exe = jit::compile(module, engine, options);
  if (!exe.ok()) return exe.status();
  return (*exe)->run(args);
}

// What became of `text` (a candidate, which parses and verifies) in the
// child: "interesting", else "dull" with why.
inline conformance::Outcome examine(const std::string& text, const BuiltinTest& test) {
  StatusOr<std::unique_ptr<Module>> module = parseModule(text);
  if (!module.ok()) return {"dull", "does not parse: " + module.status().message()};
  if (!test.plantedCrash.empty())
    for (const auto& computation : (*module)->computations())
      for (const auto& instr : computation->instructions())
        if (opcodeName(instr->opcode()) == test.plantedCrash) std::raise(SIGSEGV);
  std::vector<Literal> args = interp::randomArguments(*(*module)->entry(), test.seed);
  conformance::reportProgress(test.engine);
  StatusOr<Literal> result = runOn(test.engine, **module, args, test);
  switch (test.kind) {
    case BuiltinTest::Kind::kCrashes:
      return {"dull", result.ok() ? "ran" : "failed: " + result.status().message()};
    case BuiltinTest::Kind::kErrorMatches:
      if (result.ok()) return {"dull", "ran"};
      if (RE2::PartialMatch(result.status().message(), *test.pattern)) return {"interesting", ""};
      return {"dull", "another error: " + result.status().message()};
    case BuiltinTest::Kind::kEnginesDisagree: {
      if (!result.ok()) return {"dull", test.engine + " failed: " + result.status().message()};
      conformance::reportProgress(test.other);
      StatusOr<Literal> other = runOn(test.other, **module, args, test);
      if (!other.ok()) return {"dull", test.other + " failed: " + other.status().message()};
      conformance::EngineComparison c =
          conformance::compareEngines(**module, args, interpOptionsOf(test), *other, *result);
      return c.agree ? conformance::Outcome{"dull", "they agree"}
                     : conformance::Outcome{"interesting", c.plain.firstMismatch};
    }
  }
  return {"dull", ""};
}

// Whether each of `texts` is interesting to `test`, `jobs` children at a
// time; `why`, when given, gets each child's outcome and detail.
inline std::vector<bool> interestingEach(const std::vector<std::string>& texts, const BuiltinTest& test, int jobs,
                                         std::vector<std::string>* why = nullptr) {
  conformance::ChildLimits limits;
  limits.timeoutSeconds = test.timeoutSeconds;
  std::vector<conformance::Outcome> outcomes =
      conformance::runInChildren(texts, jobs, limits, [&](const std::string& t) { return examine(t, test); });
  std::vector<bool> verdicts;
  for (const conformance::Outcome& o : outcomes) {
    verdicts.push_back(test.kind == BuiltinTest::Kind::kCrashes ? o.status == "crash" : o.status == "interesting");
    if (why) why->push_back(o.status + (o.detail.empty() ? "" : ": " + o.detail));
  }
  return verdicts;
}

inline bool interesting(const std::string& text, const BuiltinTest& test, std::string* why = nullptr) {
  std::vector<std::string> whys;
  bool verdict = interestingEach({text}, test, 1, &whys)[0];
  if (why) *why = whys[0];
  return verdict;
}

// The hlo-run command lines that show the failure on `file`.
inline std::string reproducer(const BuiltinTest& test, const std::string& file) {
  std::string common = " --random-seed=" + std::to_string(test.seed) +
                       (test.maxWhileIterations ? " --max-while-iterations=" + std::to_string(test.maxWhileIterations)
                                                : "") + " '" + file + "'";
  switch (test.kind) {
    case BuiltinTest::Kind::kEnginesDisagree:
      if (test.engine == "interp" || test.other == "interp") {
        const std::string& jit = test.engine == "interp" ? test.other : test.engine;
        if (jit != "interp") return "hlo-run --engine=" + jit + " --compare=interp" + common;
      }
      return "hlo-run --engine=" + test.engine + common + "; hlo-run --engine=" + test.other + common;
    case BuiltinTest::Kind::kCrashes:
    case BuiltinTest::Kind::kErrorMatches:
      break;
  }
  return "hlo-run --engine=" + test.engine + common;
}

}  // namespace hlo::reduce_tests
