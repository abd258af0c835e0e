#include "hlo/exact_sum.h"

#include "hlo/computation.h"

namespace hlo {

bool sumsExactly(const Instruction& instr) {
  if ((instr.opcode() != Opcode::kReduce && instr.opcode() != Opcode::kReduceWindow) || instr.operandCount() != 2 ||
      !instr.shape().isArray())
    return false;
  ElementType t = instr.shape().type();
  const Computation* reducer = instr.attrs().getComputation(AttrKey::kToApply);
  if ((t != ElementType::kF32 && t != ElementType::kF64) || binaryOfParameters(reducer) != Opcode::kAdd) return false;
  for (const Instruction* i : {instr.operand(0), instr.operand(1), reducer->parameter(0), reducer->parameter(1),
                               reducer->root()})
    if (!i->shape().isArray() || i->shape().type() != t) return false;
  return reducer->parameter(0)->shape().isScalar() && reducer->root()->shape().isScalar();
}

}  // namespace hlo
