// Interpreter ops: data movement (not implemented yet).
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalBitcast(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalBroadcast(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalConcatenate(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalCopy(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalDynamicSlice(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalDynamicUpdateSlice(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalDynamicReshape(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalGetDimensionSize(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalSetDimensionSize(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalIota(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalPad(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalReshape(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalReverse(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalSlice(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalTranspose(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

}  // namespace hlo::interp
