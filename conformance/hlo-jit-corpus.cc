// hlo-jit-corpus: compiles every valid module of the XLA corpus with the CPU
// JIT, runs it on seeded inputs and compares the result with the reference
// interpreter's, and checks each outcome against the expectations file.
//
// --engine=gpu-host does the same with the GPU backend's kernels on the host
// grid runner (backends/gpu/gpu_host.cc). --engine=gpu compiles each module
// for the GPU (sm_90 PTX) and assembles the PTX with the CUDA toolkit's
// ptxas, running nothing: ok is "compiles and assembles" (the GPU compile
// corpus; it needs no GPU).
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
#include "backends/gpu/gpu_options.h"
#include "interp/evaluator.h"
#include "jit/executable.h"

namespace {

using hlo::conformance::Outcome;
using Config = hlo::conformance::CorpusFlags;

// cpu (the default), gpu-host or gpu.
std::string engine = "cpu";

hlo::jit::CompileOptions compileOptions(const Config& config) {
  hlo::jit::CompileOptions options;
  if (engine == "gpu") {
    hlo::gpu::GpuOptions gpu;
    gpu.sm = "sm_90";
    gpu.assembleFor = "sm_90";
    options = hlo::gpu::withGpuOptions(options, gpu);
  } else {
    // One thread: the runner already runs one module per CPU.
    options = hlo::cpu::withCpuOptions(options, hlo::cpu::cpuThreads(1));
  }
  options.maxMemoryBytes = config.maxMemory;
  options.maxWhileIterations = config.maxWhileIterations;
  return options;
}

// A module too large to run is still compiled: whether the JIT takes the
// largest dumps is worth knowing without a comparison.
Outcome compileOnly(const hlo::Module& module, const Config& config, const Outcome& tooLarge) {
  hlo::conformance::reportProgress("compile");
  auto exe = hlo::jit::compile(module, engine, compileOptions(config));
  if (!exe.ok()) return {hlo::conformance::compileCategory(exe.status().message()), exe.status().message()};
  return {tooLarge.status, tooLarge.detail + "; compiles"};
}

// --engine=gpu: compiled and its PTX assembled, or why not.
Outcome compileForGpu(const std::string& path, const Config& config) {
  std::unique_ptr<hlo::Module> tooLarge;
  auto loaded = hlo::conformance::loadModule(path, config, &tooLarge);
  const hlo::Module* module = tooLarge.get();
  if (auto* m = std::get_if<hlo::conformance::LoadedModule>(&loaded)) module = m->module.get();
  if (!module) return std::get<Outcome>(loaded);
  hlo::conformance::reportProgress("compile");
  auto exe = hlo::jit::compile(*module, "gpu", compileOptions(config));
  if (!exe.ok()) return {hlo::conformance::compileCategory(exe.status().message()), exe.status().message()};
  return {"ok", ""};
}

Outcome runModule(const std::string& path, const Config& config) {
  if (engine == "gpu") return compileForGpu(path, config);
  std::unique_ptr<hlo::Module> tooLarge;
  auto loaded = hlo::conformance::loadModule(path, config, &tooLarge);
  if (auto* notRun = std::get_if<Outcome>(&loaded)) return tooLarge ? compileOnly(*tooLarge, config, *notRun) : *notRun;
  auto& m = std::get<hlo::conformance::LoadedModule>(loaded);
  hlo::interp::Options interpOptions = hlo::conformance::corpusEvaluationOptions(
      m.work, config.maxWork, config.maxMemory, config.maxWhileIterations);
  // A module the interpreter cannot run is skipped.
  if (m.topology.devices() > 1)
    return hlo::conformance::runAgainstInterpreterOnDevices(*m.module, m.topology, m.deviceArgs, interpOptions,
                                                            compileOptions(config), "skipped", engine);
  return hlo::conformance::runAgainstInterpreter(*m.module, m.args, interpOptions, compileOptions(config), "skipped",
                                                 engine);
}

int usage() {
  std::fprintf(stderr,
               "usage: hlo-jit-corpus --corpus=DIR [--engine=cpu|gpu-host|gpu] [--expectations=FILE] [--update]\n"
               "         [--filter=TEXT] [--jobs=N] [--timeout=SECONDS] [--max-work=N]\n"
               "         [--max-memory=BYTES] [--max-while-iterations=N] [--times=FILE]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // --engine is this program's own; the rest are the corpus programs'.
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (i > 0 && arg.starts_with("--engine=")) engine = arg.substr(9);
    else args.push_back(argv[i]);
  }
  if (engine != "cpu" && engine != "gpu-host" && engine != "gpu") {
    std::fprintf(stderr, "hlo-jit-corpus: --engine=%s: expected cpu, gpu-host or gpu\n", engine.c_str());
    return 2;
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
  Config config;
  config.maxWork = 2e8;  // each module also runs on the interpreter
  if (std::optional<int> rc = hlo::conformance::parseCorpusFlags(argc, argv, "hlo-jit-corpus", usage, config))
    return *rc;
  hlo::conformance::CorpusProgram program;
  program.name = engine == "cpu" ? "jit-corpus" : engine == "gpu" ? "gpu-compile-corpus" : "gpu-host-corpus";
  program.description = engine == "cpu" ? "JIT corpus run" : engine == "gpu" ? "GPU compile corpus run" : "GPU host grid corpus run";
  program.mayBeOk = {"disagree"};
  if (engine == "gpu")
    program.expectationsHeader =
        "# Corpus modules the GPU backend does not compile to PTX that ptxas assembles for sm_90\n"
        "# (see conformance/hlo-jit-corpus.cc, --engine=gpu). Regenerate with: build/bin/hlo-jit-corpus\n"
        "# --engine=gpu --corpus=../shared/corpus --expectations=conformance/gpu_compile_expectations.txt --update\n"
        "# file\toutcome\tdetail\n";
  else if (engine == "gpu-host")
    program.expectationsHeader =
        "# Corpus modules whose outcome on the GPU backend's host grid runner is not ok (see\n"
        "# conformance/hlo-jit-corpus.cc, --engine=gpu-host). Regenerate with: build/bin/hlo-jit-corpus\n"
        "# --engine=gpu-host --corpus=../shared/corpus --expectations=conformance/gpu_host_expectations.txt --update\n"
        "# A dot's values may differ from the interpreter's by the rounding bound of their float sums.\n"
        "# file\toutcome\tdetail\n";
  else
    program.expectationsHeader =
        "# Corpus modules whose CPU JIT outcome is not ok (see conformance/hlo-jit-corpus.cc).\n"
        "# Regenerate with: build/bin/hlo-jit-corpus --corpus=../shared/corpus "
        "--expectations=conformance/jit_expectations.txt --update\n"
        "# A dot's or convolution's values in a result may differ from the interpreter's by the\n"
        "# rounding bound of their float sums (conformance/contraction_bound.h). Every `disagree` left\n"
        "# is a dot whose rounding is carried on by arithmetic (a bias, an activation, a product of\n"
        "# dots, a conversion to integers) past what that bound covers, most a bf16 or f16 result on\n"
        "# the other side of a rounding boundary, or a product of dots whose sums overflow (inf, -inf\n"
        "# or NaN then depends on the order of the terms). Which elements cross depends on the kernels OpenBLAS\n"
        "# picks for the CPU, so such a module also passes when it agrees. f32 reductions agree: the\n"
        "# interpreter sums in double and rounds once (hlo/exact_sum.h), the JIT into f64 totals (f32\n"
        "# blocks only for terms that cannot be negative).\n"
        "# A too-large module is compiled, not run (\"compiles\").\n"
        "# file\toutcome\tdetail\n";
  return hlo::conformance::runCorpus(program, config, [&](const std::string& path) { return runModule(path, config); });
}
