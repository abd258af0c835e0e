// Interpreter ops: sort (not implemented yet).
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalSort(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

StatusOr<Literal> evalTopK(EvalContext&, const Instruction& instr, Operands) {
  return EvalContext::unsupported(instr, "not implemented yet");
}

}  // namespace hlo::interp
