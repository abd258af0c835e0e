// Connects the `fold` pass (hlo/passes/fold.h) to the interpreter, so constant
// folding computes with the very op functions that evaluate() runs.
#include "interp/evaluator.h"

#include "hlo/passes/fold.h"

namespace hlo::interp {

void installConstantFolding() {
  setConstantEvaluator([](const Instruction& instr, std::span<const Literal* const> operands) {
    return evaluateInstruction(instr, operands);
  });
}

}  // namespace hlo::interp
