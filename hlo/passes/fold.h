// The evaluator of the `fold` pass (hlo/passes/fold.cc).
//
// Folding must compute exactly what the reference interpreter computes, yet
// hlo/passes/ may not depend on interp/ (DESIGN.md). So the pass asks a
// given function for each value: the pipeline's (PipelineOptions::
// constantEvaluator, hlo/passes/pass.h), which interp::constantEvaluator()
// makes from the interpreter's own dispatch. runPipeline refuses to run
// `fold` without one, so no program can lose its folding by forgetting it.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "hlo/instruction.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

// The value of `instr` given the values of its operands, in operand order; an
// error when it cannot be computed (the instruction is then left alone).
using ConstantEvaluator =
    std::function<StatusOr<Literal>(const Instruction& instr, std::span<const Literal* const> operands)>;

// The evaluator `fold` uses on this thread while the scope lives:
// runPipeline makes one from its options; a program that calls runFold
// itself makes its own. Scopes nest; without one, runFold changes nothing.
class ConstantEvaluatorScope {
 public:
  explicit ConstantEvaluatorScope(ConstantEvaluator evaluator);
  ~ConstantEvaluatorScope();
  ConstantEvaluatorScope(const ConstantEvaluatorScope&) = delete;
  ConstantEvaluatorScope& operator=(const ConstantEvaluatorScope&) = delete;

 private:
  ConstantEvaluator evaluator_;
  const ConstantEvaluator* outer_;
};

// Whether `instr`'s value is a pure, deterministic function of its operands
// that `fold` may compute: its opcode and the computations it calls decide;
// its size, uses and control edges, which the pass also checks, do not.
// The JIT computes runtime sizes from constants by the same definition.
bool pureFunctionOfOperands(const Instruction& instr);

// `fold` leaves an instruction alone when its result has more elements than
// this (fold.cc says why).
inline constexpr int64_t kMaxFoldedElements = 1024;

}  // namespace hlo
