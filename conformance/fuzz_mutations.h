// hlo-fuzz --mutate: input of the shapes bad or big input takes, for the
// CPU JIT against the interpreter.
//   unbounded  a chains module (conformance/random_module.h) with one
//              instruction's declared shape given an unbounded `?`
//              dimension (the seed picks the instruction, a fused or called
//              computation's parameter included, and the dimension). The
//              verifier lets `?` stand for any size. The JIT may refuse such
//              a module (a clear error), and must where the interpreter
//              does: running what the interpreter refuses, crashing, or
//              running it to another answer fails.
//   deep       instead of the seed's module, a chain of 2,000 to 20,000
//              dependent elementwise ops (add, subtract, maximum, minimum,
//              negate, exactly rounded) on a small f32 or s32 array, as an
//              unrolled graph has: both engines must run it and agree.
// Header-only: it calls the JIT, which the conformance library does not link.
#pragma once

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

namespace hlo::conformance::fuzz {

// --mutate=deep's module for `seed`.
inline std::string deepChainModule(uint64_t seed) {
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
inline Outcome runUnboundedSeed(uint64_t seed) {
  auto module = hlo::parseModule(randomModule(seed));
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
    Outcome both = runAgainstInterpreter(**module, args, {}, options, "error");
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

}  // namespace hlo::conformance::fuzz
