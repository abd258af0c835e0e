// The `fold` pass's evaluator (hlo/passes/fold.h) is the interpreter, so
// constant folding computes with the very op functions evaluate() runs.
#include "interp/evaluator.h"

namespace hlo::interp {

ConstantEvaluator constantEvaluator() {
  return [](const Instruction& instr, std::span<const Literal* const> operands) {
    return evaluateInstruction(instr, operands);
  };
}

}  // namespace hlo::interp
