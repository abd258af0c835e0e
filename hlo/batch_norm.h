// The epsilon of batch-norm-training, -inference and -grad, as the
// interpreter and the batchnorm-expander pass both read it.
#pragma once

#include "hlo/instruction.h"

namespace hlo {

// XLA holds a batch norm's epsilon as an f32 (the instruction's `float
// epsilon`), whatever the operands' type: `epsilon=0.001` on f64 operands
// adds 0.001f = 0.0010000000474974513. 0 when the text gives none.
inline double batchNormEpsilon(const Instruction& instr) {
  const AttrValue* e = instr.attrs().find(AttrKey::kEpsilon);
  return e ? static_cast<double>(static_cast<float>(e->f)) : 0.0;
}

}  // namespace hlo
