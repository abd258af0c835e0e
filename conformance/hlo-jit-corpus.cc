// hlo-jit-corpus: compiles every valid module of the XLA corpus with the CPU
// JIT, runs it on seeded inputs and compares the result with the reference
// interpreter's, and checks each outcome against the expectations file.
//
// Modules and arguments as hlo-interp-corpus (visible/ modules with no
// expected error; `hlo-run --random-seed=0` arguments), each in its own
// forked process. Outcomes:
//   ok                       compiled, ran, and agrees with the interpreter
//   cannot-compile: <opcode> the JIT refused an instruction (the first one)
//   disagree                 a result differs beyond the harness tolerance
//                            (and, for a dot's or convolution's values,
//                            beyond the rounding bound of its float sums)
//   error                    the JIT failed at run time
//   too-large                the estimated work is over --max-work: compiled
//                            but not run (the interpreter could not afford
//                            the comparison), unless it holds more than
//                            kMaxCompileOnly instructions; a refusal to
//                            compile it is cannot-compile or error as above
//   timeout, crash           as in conformance/child_runner.h
//   skipped                  does not parse or verify, or the interpreter
//                            itself fails on it (hlo-interp-corpus's business)
// Every module is expected to be ok unless the expectations file lists it
// (<file> TAB <outcome> TAB <detail>); --update rewrites the file.
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "backends/cpu/cpu_options.h"
#include "conformance/child_runner.h"
#include "conformance/compare.h"
#include "conformance/corpus_flags.h"
#include "conformance/corpus_run.h"
#include "conformance/jit_against_interp.h"
#include "conformance/work_estimate.h"
#include "interp/evaluator.h"
#include "jit/executable.h"

namespace {

using hlo::conformance::Outcome;
using Config = hlo::conformance::CorpusFlags;

hlo::jit::CompileOptions compileOptions(const Config& config) {
  // One thread: the runner already runs one module per CPU.
  hlo::jit::CompileOptions options = hlo::cpu::withCpuOptions({}, hlo::cpu::cpuThreads(1));
  options.maxMemoryBytes = config.maxMemory;
  options.maxWhileIterations = config.maxWhileIterations;
  return options;
}

// A module too large to run is still compiled: whether the JIT takes the
// largest dumps is worth knowing without a comparison.
Outcome compileOnly(const hlo::Module& module, const Config& config, const Outcome& tooLarge) {
  hlo::conformance::reportProgress("compile");
  auto exe = hlo::jit::compile(module, "cpu", compileOptions(config));
  if (!exe.ok()) return {hlo::conformance::compileCategory(exe.status().message()), exe.status().message()};
  return {tooLarge.status, tooLarge.detail + "; compiles"};
}

Outcome runModule(const std::string& path, const Config& config) {
  std::unique_ptr<hlo::Module> tooLarge;
  auto loaded = hlo::conformance::loadModule(path, config, &tooLarge);
  if (auto* notRun = std::get_if<Outcome>(&loaded)) return tooLarge ? compileOnly(*tooLarge, config, *notRun) : *notRun;
  auto& m = std::get<hlo::conformance::LoadedModule>(loaded);
  hlo::interp::Options interpOptions = hlo::conformance::corpusEvaluationOptions(
      m.work, config.maxWork, config.maxMemory, config.maxWhileIterations);
  // A module the interpreter cannot run is skipped.
  return hlo::conformance::runAgainstInterpreter(*m.module, m.args, interpOptions, compileOptions(config), "skipped");
}

int usage() {
  std::fprintf(stderr,
               "usage: hlo-jit-corpus --corpus=DIR [--expectations=FILE] [--update]\n"
               "         [--filter=TEXT] [--jobs=N] [--timeout=SECONDS] [--max-work=N]\n"
               "         [--max-memory=BYTES] [--max-while-iterations=N] [--times=FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  config.maxWork = 2e8;  // each module also runs on the interpreter
  if (std::optional<int> rc = hlo::conformance::parseCorpusFlags(argc, argv, "hlo-jit-corpus", usage, config))
    return *rc;
  hlo::conformance::CorpusProgram program;
  program.name = "jit-corpus";
  program.description = "JIT corpus run";
  program.mayBeOk = {"disagree"};
  program.expectationsHeader =
      "# Corpus modules whose CPU JIT outcome is not ok (see conformance/hlo-jit-corpus.cc).\n"
      "# Regenerate with: build/bin/hlo-jit-corpus --corpus=../shared/corpus "
      "--expectations=conformance/jit_expectations.txt --update\n"
      "# A dot's or convolution's values in a result may differ from the interpreter's by the\n"
      "# rounding bound of their float sums (conformance/contraction_bound.h). Every `disagree` left\n"
      "# is a dot whose rounding is carried on by arithmetic (a bias, an activation, a product of\n"
      "# dots, a conversion to integers) past what that bound covers, most a bf16 or f16 result on\n"
      "# the other side of a rounding boundary. Which elements cross depends on the kernels OpenBLAS\n"
      "# picks for the CPU, so such a module also passes when it agrees. f32 reductions agree: the\n"
      "# interpreter sums in double and rounds once (hlo/exact_sum.h), the JIT into f64 totals (f32\n"
      "# blocks only for terms that cannot be negative).\n"
      "# A too-large module is compiled, not run (\"compiles\").\n"
      "# file\toutcome\tdetail\n";
  return hlo::conformance::runCorpus(program, config, [&](const std::string& path) { return runModule(path, config); });
}
