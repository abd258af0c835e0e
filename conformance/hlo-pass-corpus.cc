// hlo-pass-corpus: checks, over every valid module of the XLA corpus, that
// the passes keep the module's meaning: the reference interpreter gives the
// same result before and after each pass, and the module still verifies.
//
// Modules: those of hlo-interp-corpus (visible/ with an empty expect_error
// column), each in its own forked process (conformance/child_runner.h), with
// the arguments of `hlo-run --random-seed=0`. For each module:
//   1. evaluate it as parsed: the reference result;
//   2. for each registered pass (hlo/passes/registry.cc), alone, on a fresh
//      parse: run it (through runPipeline), verify, evaluate, compare;
//   3. run the whole cpu pipeline on a fresh parse, verifying after every
//      pass; evaluate the end result and compare. When it differs, run the
//      pipeline again evaluating after every pass, to name the first pass
//      after which the result differs.
// So a module is evaluated about as many times as there are passes, plus two.
// Results compare exactly for integers and pred, and within the tolerance of
// their element type for floats and complex numbers (defaultTolerance in
// conformance/compare.cc: f64 1e-12 absolute + 1e-10 relative, f32 1e-5 +
// 1e-4, f16 1e-2 + 1e-2, bf16 2e-2 + 2e-2, narrower floats 0.125 + 0.125);
// NaN equals NaN, infinities must match.
// Outcomes:
//   ok                          every pass and the pipeline keep the result
//   changed: <pass>             the pass alone changes the result, or the
//                               module no longer evaluates after it
//   verify-error: <pass>        the module does not verify after the pass
//   pass-error: <pass>          runPipeline returned an error
//   ... cpu pipeline (<pass>)   the same, found in the pipeline, at <pass>
//   timeout, crash              as in hlo-interp-corpus; the detail names the
//                               pass (or evaluation) under way
//   skipped                     does not parse or verify
//   too-large                   estimated work over --max-work, or arguments
//                               over the memory limit (conformance/work_estimate.h)
//   not-evaluated               the interpreter cannot evaluate the module as
//                               parsed (unsupported op, while-limit, ...), so
//                               there is nothing to compare with
// A too-large or not-evaluated module of at most 10,000 instructions still
// goes through steps 2 and 3 without the evaluations: a pass that breaks its
// verification fails it. (Bigger ones are left out to keep the run short:
// the few above that in the corpus take seconds each to compile.)
// The first failure found is the outcome; the detail gives its message (for
// `changed`, the first differing element) and lists the others. skipped,
// too-large and not-evaluated count as skipped, not failed. Every module is
// expected to be ok unless the expectations file lists it (the format of
// hlo-interp-corpus); --update rewrites the file with every outcome that is
// neither ok nor skipped. To look at one: `hlo-opt --bisect --passes=<pass>`.
//
// --stats measures instead of checking: instructions, fusions, the kernels'
// memory traffic and buffer bytes over the corpus, before and after the cpu
// pipeline (conformance/pass_corpus_stats.h); nothing is evaluated and no
// expectations are read.
//
// Limits (defaults): --max-work=3e6, a tenth of hlo-interp-corpus's, as each
// module is evaluated about ten times; the other limits as hlo-interp-corpus:
// --timeout=40 CPU seconds (200 in AddressSanitizer builds),
// --max-memory=1G, --max-while-iterations=10000, --jobs = the number of CPUs.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/child_runner.h"
#include "conformance/corpus_flags.h"
#include "conformance/corpus_run.h"
#include "conformance/compare.h"
#include "conformance/expectations.h"
#include "conformance/pass_corpus_stats.h"
#include "conformance/work_estimate.h"
#include "hlo/passes/pass.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

namespace {

using hlo::conformance::Outcome;
using hlo::conformance::reportProgress;

constexpr const char kPipeline[] = "cpu";
constexpr const char kRewrittenBy[] = "; rewritten by: ";
// The most instructions of a module not evaluated whose passes are verified.
constexpr double kMaxVerifiedInstructions = 10000;

using Config = hlo::conformance::CorpusFlags;

// The input's arguments and result, which every pass must keep.
struct Reference {
  std::vector<hlo::Literal> args;
  hlo::Literal result;
  hlo::interp::Options options;
};

struct Failure {
  std::string status;  // "changed: <pass>", ...
  std::string detail;
};

// Evaluates `module` on the reference arguments: why its result is not the
// reference's, or nullopt when it is.
std::optional<std::string> differs(const hlo::Module& module, const Reference& ref) {
  auto result = hlo::interp::evaluate(module, ref.args, ref.options);
  if (!result.ok()) return "the module no longer evaluates: " + result.status().message();
  hlo::Comparison c = hlo::compareWithTypeTolerances(*result, ref.result);
  if (c.equal) return std::nullopt;
  return c.firstMismatch + " (" + std::to_string(c.mismatches) +
         (c.mismatches == 1 ? " element differs)" : " elements differ)");
}

// Runs `passes` on `module` through runPipeline, verifying after each and,
// with `evaluateEach`, comparing its result with the reference after each.
// `name(pass)` names a pass in a failure; `changed` collects what the passes
// report.
std::optional<Failure> runChecked(hlo::Module& module, const std::vector<std::string>& passes,
                                  const Reference& ref, bool evaluateEach,
                                  const std::function<std::string(std::string_view)>& name,
                                  bool& changed) {
  std::optional<Failure> failure;
  hlo::PipelineOptions options;
  options.constantEvaluator = hlo::interp::constantEvaluator();  // `fold` computes as the interpreter does
  options.afterPass = [&](const hlo::PassEvent& e) -> hlo::Status {
    changed = changed || e.changed;
    std::string pass = name(e.pass);
    hlo::Status verified = hlo::verify(e.module);
    if (!verified.ok()) failure = Failure{"verify-error: " + pass, verified.message()};
    if (!failure && evaluateEach) {
      reportProgress("evaluation after " + pass);
      if (std::optional<std::string> why = differs(e.module, ref)) failure = Failure{"changed: " + pass, *why};
    }
    if (failure) return hlo::errorStatus("stop");
    if (static_cast<size_t>(e.index) < passes.size()) reportProgress("pass " + name(passes[e.index]));
    return hlo::okStatus();
  };
  if (!passes.empty()) reportProgress("pass " + name(passes[0]));
  hlo::Status ran = hlo::runPipeline(module, passes, options);
  if (failure) return failure;
  if (!ran.ok()) return Failure{"pass-error: " + name(passes.size() == 1 ? passes[0] : ""), ran.message()};
  return std::nullopt;
}

std::unique_ptr<hlo::Module> parse(const std::string& text) {
  auto module = hlo::parseModule(text);
  return module.ok() ? std::move(*module) : nullptr;
}

std::string inPipeline(std::string_view pass) {
  return std::string(kPipeline) + " pipeline" + (pass.empty() ? "" : " (" + std::string(pass) + ")");
}

// Runs each registered pass alone, then the pipeline, each on a fresh parse
// of `text`, verifying after every pass and, given a reference, comparing
// the results with it. Returns the failures; `rewritten` gets what reported
// a change without failing.
std::vector<Failure> checkPasses(const std::string& text, const Reference* ref,
                                 std::vector<std::string>& rewritten) {
  static const Reference kNone;
  std::vector<Failure> failures;
  for (const hlo::PassInfo& pass : hlo::registeredPasses()) {
    std::unique_ptr<hlo::Module> fresh = parse(text);
    bool changed = false;
    auto same = [](std::string_view p) { return std::string(p); };
    if (auto failure = runChecked(*fresh, {std::string(pass.name)}, ref ? *ref : kNone, ref != nullptr, same,
                                   changed))
      failures.push_back(*failure);
    else if (changed)
      rewritten.push_back(std::string(pass.name));
  }

  std::vector<std::string> pipeline = *hlo::pipelineFor(kPipeline);
  std::unique_ptr<hlo::Module> fresh = parse(text);
  bool changed = false;
  std::optional<Failure> failure = runChecked(*fresh, pipeline, kNone, false, inPipeline, changed);
  if (!failure && ref) {
    reportProgress("evaluation after the " + inPipeline(""));
    if (std::optional<std::string> why = differs(*fresh, *ref)) {
      // Again, evaluating after every pass, to find the pass.
      fresh = parse(text);
      failure = runChecked(*fresh, pipeline, *ref, true, inPipeline, changed);
      if (!failure) failure = Failure{"changed: " + inPipeline(""), *why + "; no single pass changes it"};
    }
  }
  if (failure) failures.push_back(*failure);
  else if (changed) rewritten.push_back(inPipeline(""));
  return failures;
}

// The first failure, with the others listed in its detail.
Outcome failed(const std::vector<Failure>& failures) {
  std::string detail = failures[0].detail.substr(0, 200);
  for (size_t i = 1; i < failures.size(); ++i) detail += (i == 1 ? " [also " : ", ") + failures[i].status;
  if (failures.size() > 1) detail += "]";
  return {failures[0].status, detail};
}

// Checks one module (in the child process). A module that is not evaluated
// (too costly, or the interpreter cannot run it) still has every pass
// verified.
Outcome checkModule(const std::string& path, const Config& config) {
  reportProgress("parsing");
  std::optional<std::string> text = hlo::readInput(path);
  if (!text) return {"skipped", "cannot read"};
  auto module = hlo::parseModule(*text);
  if (!module.ok()) return {"skipped", "parse error: " + module.status().message()};
  hlo::Status verified = hlo::verify(**module);
  if (!verified.ok()) return {"skipped", "verify error: " + verified.message()};
  std::vector<std::string> rewritten;  // what reported a change and kept the result
  double instructions = 0;
  for (const auto& computation : (*module)->computations()) instructions += computation->instructionCount();
  auto notRun = [&](const std::string& status, const std::string& detail) -> Outcome {
    if (instructions > kMaxVerifiedInstructions) return {status, detail};
    std::vector<Failure> failures = checkPasses(*text, nullptr, rewritten);
    return failures.empty() ? Outcome{status, detail} : failed(failures);
  };
  double work = hlo::conformance::moduleWork(**module);
  char buf[64];
  std::snprintf(buf, sizeof buf, "estimated work %.3g", work);
  if (work > config.maxWork) return notRun("too-large", buf);
  const hlo::Computation* entry = (*module)->entry();
  if (hlo::conformance::argumentsOverMemory(*entry, config.maxMemory))
    return notRun("too-large", "arguments over the memory limit");

  Reference ref;
  ref.args = hlo::interp::randomArguments(*entry, 0);
  ref.options = hlo::conformance::corpusEvaluationOptions(work, config.maxWork, config.maxMemory,
                                                           config.maxWhileIterations);
  reportProgress("evaluation of the input");
  auto result = hlo::interp::evaluate(**module, ref.args, ref.options);
  if (!result.ok()) return notRun("not-evaluated", result.status().message());
  ref.result = std::move(*result);

  std::vector<Failure> failures = checkPasses(*text, &ref, rewritten);
  if (!failures.empty()) return failed(failures);
  std::string detail = buf;
  for (size_t i = 0; i < rewritten.size(); ++i) detail += (i ? ", " : kRewrittenBy) + rewritten[i];
  return {"ok", detail};
}

// How many ok modules each pass (and the pipeline) rewrote, from their details.
std::map<std::string, int> rewriteCounts(const std::vector<Outcome>& outcomes) {
  std::map<std::string, int> counts;
  for (const Outcome& o : outcomes) {
    size_t at = o.detail.find(kRewrittenBy);
    if (o.status != "ok" || at == std::string::npos) continue;
    std::string list = o.detail.substr(at + sizeof kRewrittenBy - 1);
    for (size_t begin = 0; begin <= list.size();) {
      size_t end = list.find(", ", begin);
      if (end == std::string::npos) end = list.size();
      ++counts[list.substr(begin, end - begin)];
      begin = end + 2;
    }
  }
  return counts;
}

int usage() {
  std::fprintf(stderr,
               "usage: hlo-pass-corpus --corpus=DIR [--expectations=FILE] [--update]\n"
               "         [--filter=TEXT] [--jobs=N] [--timeout=SECONDS] [--max-work=N]\n"
               "         [--max-memory=BYTES] [--max-while-iterations=N] [--times=FILE]\n"
               "         [--stats]\n"
               "  --times=FILE writes each module's outcome, CPU seconds and detail (to tune --max-work)\n"
               "  --stats reports what the cpu pipeline does to the corpus (instructions, fusions,\n"
               "          memory traffic, buffer bytes) instead of checking results\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  config.maxWork = 3e6;
  // --stats is this program's own; the shared parser reads the rest.
  bool stats = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::string_view(argv[i]) == "--stats") stats = true;
    else args.push_back(argv[i]);
  }
  if (std::optional<int> rc = hlo::conformance::parseCorpusFlags(static_cast<int>(args.size()), args.data(),
                                                                 "hlo-pass-corpus", usage, config))
    return *rc;
  if (stats) {
    std::optional<hlo::conformance::CorpusModules> modules =
        hlo::conformance::readCorpusModules(config.corpus, config.filter);
    if (!modules) {
      std::printf("corpus not found at %s: pass statistics skipped\n", config.corpus.c_str());
      return 0;
    }
    std::vector<std::string> paths;
    for (const std::string& f : modules->files) paths.push_back(modules->root + "/" + f);
    hlo::conformance::ChildLimits limits;
    limits.timeoutSeconds = config.timeoutSeconds;
    auto startTime = std::chrono::steady_clock::now();
    std::vector<Outcome> measured = hlo::conformance::runInChildren(
        paths, config.jobs, limits,
        [&](const std::string& path) { return hlo::conformance::measurePipeline(path, kPipeline); });
    hlo::conformance::printPipelineStats(measured, kPipeline);
    if (!config.timesPath.empty()) hlo::conformance::writeTimes(config.timesPath, modules->files, measured);
    std::printf("  %.1f s of wall time with %d jobs\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime).count(), config.jobs);
    return 0;
  }
  hlo::conformance::CorpusProgram program;
  program.name = "pass-corpus";
  program.description = "pass corpus run";
  program.expectationsHeader =
      "# Corpus modules on which a pass or the cpu pipeline does not keep the interpreter's\n"
      "# result or breaks verification, or the check times out or crashes\n"
      "# (see conformance/hlo-pass-corpus.cc). Regenerate with:\n"
      "# build/bin/hlo-pass-corpus --corpus=../shared/corpus "
      "--expectations=conformance/pass_expectations.txt --update\n"
      "# file\toutcome\tdetail\n";
  program.notRun = {"skipped", "too-large", "not-evaluated"};
  // A backstop for allocations the interpreter does not account for.
  program.addressSpaceBytes = config.maxMemory * 3 + (int64_t{1} << 30);
  program.extraSummary = [](const std::vector<Outcome>& outcomes) {
    std::string passList;
    for (const hlo::PassInfo& pass : hlo::registeredPasses())
      passList += (passList.empty() ? "" : ", ") + std::string(pass.name);
    std::printf("  checked: each of %zu passes alone (%s), and the %s pipeline\n",
                hlo::registeredPasses().size(), passList.c_str(), kPipeline);
    std::printf("  ok modules each pass rewrote (reported a change):\n");
    std::map<std::string, int> rewrites = rewriteCounts(outcomes);
    for (const hlo::PassInfo& pass : hlo::registeredPasses())
      std::printf("  %6d  %s\n", rewrites[std::string(pass.name)], std::string(pass.name).c_str());
    std::printf("  %6d  %s pipeline\n", rewrites[std::string(kPipeline) + " pipeline"], kPipeline);
  };
  return hlo::conformance::runCorpus(program, config, [&](const std::string& path) { return checkModule(path, config); });
}
