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
//
// --engine=gpu-host fuzzes the GPU backend's kernels on the host grid
// runner instead (backends/gpu/gpu_host.cc); a seed whose module holds an
// op no GPU kernel computes yet (cannot-compile) counts as skipped there.
//
// --mutate=KIND feeds the engines input of a shape bad or big input takes:
//   unbounded  the seed's module with one instruction's declared shape given
//              an unbounded `?` dimension (the seed picks the instruction,
//              a fused or called computation's parameter included, and the
//              dimension). The verifier lets `?` stand for any size. The JIT
//              may refuse such a module (a clear error), and must where the
//              interpreter does: running what the interpreter refuses,
//              crashing, or running it to another answer fails.
//   deep       instead of the seed's module, a chain of 2,000 to 20,000
//              dependent elementwise ops (add, subtract, maximum, minimum,
//              negate, exactly rounded) on a small f32 or s32 array, as an
//              unrolled graph has: both engines must run it and agree.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "backends/cpu/cpu_options.h"
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
  std::string mutate;  // "", "unbounded" or "deep"
  std::string engine = "cpu";  // or "gpu-host"
};

// --mutate=deep's module for `seed`.
std::string deepChainModule(uint64_t seed) {
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  auto next = [&](uint64_t n) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state % n;
  };
  int length = 2000 + static_cast<int>(next(18001));
  int elements = 1 + static_cast<int>(next(16));
  std::string type = next(2) ? "f32" : "s32";
  std::string shape = type + "[" + std::to_string(elements) + "]";
  static const char* kOps[] = {"add", "subtract", "maximum", "minimum", "negate"};
  std::string text = "HloModule deep_chain\n\nENTRY %main (x: " + shape + ", y: " + shape + ") -> " + shape +
                     " {\n  %x = " + shape + " parameter(0)\n  %y = " + shape + " parameter(1)\n  %v0 = " + shape +
                     " copy(%x)\n";
  for (int k = 1; k <= length; ++k) {
    std::string op = kOps[next(5)];
    std::string prev = "%v" + std::to_string(k - 1);
    text += std::string(k == length ? "  ROOT " : "  ") + "%v" + std::to_string(k) + " = " + shape + " " + op + "(" +
            prev + (op == "negate" ? "" : next(2) ? ", %y" : ", %x") + ")\n";
  }
  return text + "}\n";
}

// --mutate=unbounded: the seed's module with one declared dimension made `?`.
Outcome runUnboundedSeed(uint64_t seed) {
  auto module = hlo::parseModule(hlo::conformance::randomModule(seed));
  if (!module.ok()) return {"invalid", "parse: " + module.status().message()};
  std::vector<hlo::Instruction*> candidates;
  for (const auto& comp : (*module)->computations())
    for (const auto& instr : comp->instructions()) {
      bool entryParameter = comp.get() == (*module)->entry() && instr->opcode() == hlo::Opcode::kParameter;
      if (instr->shape().isArray() && instr->shape().rank() > 0 && !entryParameter &&
          instr->opcode() != hlo::Opcode::kConstant)
        candidates.push_back(instr.get());
    }
  if (candidates.empty()) return {"ok", "nothing to mutate"};
  hlo::Instruction* victim = candidates[seed % candidates.size()];
  int dim = static_cast<int>((seed / candidates.size()) % victim->shape().rank());
  victim->mutableShape().setDim(dim, hlo::Shape::kUnboundedDim, true);
  std::string what = "'" + victim->name() + "' declared " + victim->shape().toString(false);
  if (!hlo::verify(**module).ok()) return {"ok", what + ": refused by the verifier"};
  std::vector<hlo::Literal> args = hlo::interp::randomArguments(*(*module)->entry(), seed);
  auto expected = hlo::interp::evaluate(**module, args, {});
  hlo::jit::CompileOptions options = hlo::cpu::withCpuOptions({}, hlo::cpu::cpuThreads(1));
  options.useCache = false;
  if (expected.ok()) {
    // The interpreter runs it (the value unread, or `?` standing for a size
    // the values give): the JIT refuses it, or runs it to the same answer.
    Outcome both = hlo::conformance::runAgainstInterpreter(**module, args, {}, options, "error");
    bool refused = both.status == "error" || both.status.rfind("cannot-compile", 0) == 0;
    return refused ? Outcome{"ok", what + ": the JIT refuses it: " + both.detail} : both;
  }
  auto exe = hlo::jit::compile(**module, "cpu", options);
  if (!exe.ok()) return {"ok", what + ": both refuse"};
  auto got = (*exe)->run(args);
  if (!got.ok()) return {"ok", what + ": both refuse"};
  return {"jit-ran-refused", what + ": the interpreter refuses it (" + expected.status().message() +
                                 ") but the JIT ran it"};
}

Outcome runSeed(uint64_t seed, const std::string& mutate, const std::string& engine) {
  if (mutate == "unbounded") return runUnboundedSeed(seed);
  const std::string text = mutate == "deep" ? deepChainModule(seed) : hlo::conformance::randomModule(seed);
  auto module = hlo::parseModule(text);
  if (!module.ok()) return {"invalid", "parse: " + module.status().message()};
  hlo::Status verified = hlo::verify(**module);
  if (!verified.ok()) return {"invalid", "verify: " + verified.message()};
  std::vector<hlo::Literal> args = hlo::interp::randomArguments(*(*module)->entry(), seed);
  hlo::jit::CompileOptions options = hlo::cpu::withCpuOptions({}, hlo::cpu::cpuThreads(1));  // one module per CPU already
  options.useCache = false;
  // Both engines must run every generated module.
  return hlo::conformance::runAgainstInterpreter(**module, args, {}, options, "error", engine);
}

int usage() {
  std::fprintf(stderr,
               "usage: hlo-jit-fuzz [--seeds=FIRST:COUNT] [--jobs=N] [--keep=DIR] [--print] [--mutate=unbounded|deep]\n"
               "                    [--engine=cpu|gpu-host]\n");
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
    } else if (arg == "--mutate=unbounded" || arg == "--mutate=deep") {
      flags.mutate = arg.substr(9);
    } else if (arg == "--engine=cpu" || arg == "--engine=gpu-host") {
      flags.engine = arg.substr(9);
    } else {
      return usage();
    }
  }
  if (flags.engine != "cpu" && !flags.mutate.empty()) {
    std::fprintf(stderr, "hlo-jit-fuzz: --mutate goes with --engine=cpu only\n");
    return 2;
  }
  if (flags.print) {
    for (uint64_t s = flags.first; s < flags.first + flags.count; ++s)
      std::printf("%s\n", (flags.mutate == "deep" ? deepChainModule(s) : hlo::conformance::randomModule(s)).c_str());
    return 0;
  }
  std::vector<std::string> seeds;
  for (uint64_t s = flags.first; s < flags.first + flags.count; ++s) seeds.push_back(std::to_string(s));
  hlo::conformance::ChildLimits limits;
  limits.timeoutSeconds = hlo::conformance::kAddressSanitizer ? 200 : 40;
  std::vector<Outcome> outcomes = hlo::conformance::runInChildren(
      seeds, flags.jobs, limits,
      [&](const std::string& s) { return runSeed(std::strtoull(s.c_str(), nullptr, 10), flags.mutate, flags.engine); });
  int passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int> refusals;  // gpu-host: what no kernel computes yet, by outcome
  for (size_t i = 0; i < seeds.size(); ++i) {
    if (outcomes[i].status == "ok") {
      ++passed;
      continue;
    }
    if (flags.engine != "cpu" && outcomes[i].status.rfind("cannot-compile", 0) == 0) {
      ++skipped;
      ++refusals[outcomes[i].status];
      continue;
    }
    ++failed;
    std::printf("FAIL seed %s: %s%s%s\n", seeds[i].c_str(), outcomes[i].status.c_str(),
                outcomes[i].detail.empty() ? "" : ": ", outcomes[i].detail.c_str());
    if (!flags.keep.empty()) {
      std::string path = flags.keep + "/fuzz_" + seeds[i] + ".hlo";
      uint64_t seed = std::strtoull(seeds[i].c_str(), nullptr, 10);
      std::ofstream(path) << (flags.mutate == "deep" ? deepChainModule(seed) : hlo::conformance::randomModule(seed));
      std::printf("  reproduce: hlo-run --engine=%s --compare=interp --random-seed=%s %s\n", flags.engine.c_str(),
                  seeds[i].c_str(), path.c_str());
    }
  }
  for (const auto& [outcome, n] : refusals) std::printf("  skipped: %d seeds %s\n", n, outcome.c_str());
  std::string suite = flags.engine == "gpu-host" ? "gpu-host-fuzz"
                      : flags.mutate.empty()     ? "jit-fuzz"
                                                 : "jit-fuzz-" + flags.mutate;
  std::printf("%s: %d passed, %d failed, %d skipped\n", suite.c_str(), passed, failed, skipped);
  return failed ? 1 : 0;
}
