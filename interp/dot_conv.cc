// Interpreter ops: dot conv (not implemented yet).
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalDot(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalRaggedDot(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalScaledDot(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalConvolution(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

}  // namespace hlo::interp
