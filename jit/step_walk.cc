// The interpreter fallback of the step walk (jit/step_walk.h).
#include "jit/step_walk.h"

#include "interp/evaluator.h"

namespace hlo::jit {

StatusOr<Literal> interpretStep(const Instruction& instr, std::span<const Literal* const> operands,
                                const CompileOptions& options) {
  interp::Options o;
  o.maxMemoryBytes = options.maxMemoryBytes;
  o.maxWhileIterations = options.maxWhileIterations;
  return interp::evaluateInstruction(instr, operands, o);
}

}  // namespace hlo::jit
