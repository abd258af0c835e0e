// hlo-fuzz's oracles: what a random module is checked against. Each runs
// the module on its seeded arguments (`hlo-run --random-seed`'s) through the
// reference interpreter and through the thing under test, and compares the
// two as the conformance harness does (per-type tolerances, the contraction
// bound of dots and convolutions):
//
//   cpu, gpu, gpu-host  that JIT backend
//   pipeline            the cpu pipeline's passes, then the interpreter: the
//                       optimized module against the module as given
//   pass:NAME           that pass alone, then the interpreter
//   passes              every registered rewrite, each alone (the first
//                       that changes the result is named)
//   planted-bug         for testing the fuzzer itself: a deliberately wrong
//                       rewrite (every subtract's operands swapped), then
//                       the interpreter
//
// (XLA itself is the `xla` oracle of hlo-fuzz.cc, which runs many modules
// through one Python process.) Header-only: the conformance library does
// not link the JIT; the programs that call this do.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/cpu_options.h"
#include "conformance/child_runner.h"
#include "conformance/contraction_bound.h"
#include "conformance/jit_against_interp.h"
#include "hlo/passes/pass.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace hlo::conformance::fuzz {

inline bool isEngineOracle(const std::string& oracle) {
  return oracle == "cpu" || oracle == "gpu" || oracle == "gpu-host";
}

// Whether `oracle` names one; pass:NAME must name a registered pass.
inline bool knownOracle(const std::string& oracle) {
  if (isEngineOracle(oracle) || oracle == "pipeline" || oracle == "passes" || oracle == "xla" ||
      oracle == "planted-bug")
    return true;
  return oracle.rfind("pass:", 0) == 0 && findPass(oracle.substr(5)) != nullptr;
}

// The passes `oracle` runs (pipeline, pass:NAME), in order.
inline std::vector<std::string> passesOf(const std::string& oracle) {
  if (oracle == "pipeline") return *pipelineFor("cpu");
  if (oracle == "planted-bug") return {};
  return {oracle.substr(5)};
}

// The planted-bug oracle's wrong rewrite: a - b becomes b - a.
inline bool swapSubtractOperands(Module& module) {
  bool changed = false;
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions())
      if (instr->opcode() == Opcode::kSubtract && instr->operand(0) != instr->operand(1)) {
        Instruction* a = instr->operand(0);
        Instruction* b = instr->operand(1);
        computation->setOperand(instr.get(), 0, b);
        computation->setOperand(instr.get(), 1, a);
        changed = true;
      }
  return changed;
}

// `passes` (or the planted bug, for "planted-bug") applied to a copy of
// `module`, then interpreted, against the interpreter's `expected` on the
// module as given.
inline Outcome checkPasses(const Module& module, std::span<const Literal> args, const Literal& expected,
                           const std::vector<std::string>& passes, const std::string& label) {
  std::unique_ptr<Module> optimized = module.clone();
  PipelineOptions options;
  options.verifyEach = true;
  options.constantEvaluator = interp::constantEvaluator();
  reportProgress(label);
  Status ran = label == "planted-bug" ? (swapSubtractOperands(*optimized), okStatus())
                                      : runPipeline(*optimized, passes, options);
  if (!ran.ok()) return {"error", label + ": " + ran.message()};
  auto actual = interp::evaluate(*optimized, args, {});
  if (!actual.ok()) return {"error", label + ": the optimized module fails: " + actual.status().message()};
  EngineComparison c = compareEngines(module, args, {}, *actual, expected);
  if (c.agree) return {"ok", ""};
  return {"disagree", label + " changes the result: " + c.plain.firstMismatch};
}

// `text` through `oracle` on the arguments of `seed`. "invalid" when the
// module does not parse or verify, or the interpreter refuses it (a
// generator bug: every module it writes must run).
inline Outcome runOracle(const std::string& text, const std::string& oracle, uint64_t seed) {
  if (oracle == "xla") return {"error", "the xla oracle runs modules in batches (fuzz_xla.h)"};
  auto module = parseModule(text);
  if (!module.ok()) return {"invalid", "parse: " + module.status().message()};
  Status verified = verify(**module);
  if (!verified.ok()) return {"invalid", "verify: " + verified.message()};
  std::vector<Literal> args = interp::randomArguments(*(*module)->entry(), seed);
  if (isEngineOracle(oracle)) {
    jit::CompileOptions options = cpu::withCpuOptions({}, cpu::cpuThreads(1));  // one module per CPU already
    options.useCache = false;
    return runAgainstInterpreter(**module, args, {}, options, "invalid", oracle);
  }
  reportProgress("interpreter");
  auto expected = interp::evaluate(**module, args, {});
  if (!expected.ok()) return {"invalid", "interpreter: " + expected.status().message()};
  if (oracle != "passes") return checkPasses(**module, args, *expected, passesOf(oracle), oracle);
  for (const PassInfo& pass : registeredPasses()) {
    Outcome one = checkPasses(**module, args, *expected, {std::string(pass.name)}, "pass:" + std::string(pass.name));
    if (one.status != "ok") return one;
  }
  return {"ok", ""};
}

// The command line that shows `oracle`'s finding on `file`.
inline std::string reproducer(const std::string& oracle, uint64_t seed, const std::string& file,
                              const std::string& detail) {
  const std::string common = " --random-seed=" + std::to_string(seed) + " " + file;
  if (isEngineOracle(oracle)) return "hlo-run --engine=" + oracle + " --compare=interp" + common;
  if (oracle == "pipeline") return "hlo-opt --bisect" + common;
  if (oracle == "planted-bug") return "hlo-fuzz --oracle=planted-bug --seeds=" + std::to_string(seed) + " --module=" + file;
  std::string pass = oracle.rfind("pass:", 0) == 0 ? oracle.substr(5) : "";
  if (oracle == "passes" && detail.rfind("pass:", 0) == 0) pass = detail.substr(5, detail.find(' ') - 5);
  if (!pass.empty()) return "hlo-opt --bisect --passes=" + pass + common;
  return "hlo-run --engine=interp" + common;
}

// Which side a finding shows wrong, where the interpreter's definition
// settles it.
inline std::string wrongSide(const std::string& oracle, const Outcome& outcome) {
  if (outcome.status == "invalid") return "the generator (it wrote a module the interpreter does not run)";
  if (outcome.status == "crash" || outcome.status == "timeout")
    return "the process (" + outcome.status + "), an engine or a pass";
  if (isEngineOracle(oracle))
    return outcome.status == "disagree" ? "the " + oracle + " backend (the interpreter defines the result)"
                                        : "the " + oracle + " backend (it fails where the interpreter runs)";
  if (oracle == "xla") return "XLA or the interpreter: compare with the op's definition in XLA's semantics";
  return "the pass (the interpreter gives another result after it)";
}

}  // namespace hlo::conformance::fuzz
