// Interpreter ops: reduce (not implemented yet).
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalReduce(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalReduceWindow(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalSelectAndScatter(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalScan(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

}  // namespace hlo::interp
