// Interpreter ops: convert (not implemented yet).
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalConvert(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalBitcastConvert(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalReducePrecision(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalStochasticConvert(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalMap(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

}  // namespace hlo::interp
