// Interpreter ops: gather scatter (not implemented yet).
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalGather(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalScatter(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

}  // namespace hlo::interp
