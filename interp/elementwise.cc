// Interpreter ops: elementwise (not implemented yet).
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalElementwise(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

}  // namespace hlo::interp
