// Checks and readers shared by the data-movement, gather/scatter and sort ops:
// a well-typedness check run before an op trusts its attributes to index its
// operands, and clamping indices (integerAt, which reads them, is in
// hlo/element_io.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hlo/element_io.h"
#include "hlo/shape_inference.h"
#include "interp/context.h"

namespace hlo::interp {

// Fails unless shape inference accepts `instr` and gives its declared shape
// (hlo/shape_inference.h's checkDeclaredShape), and no shape involved has an
// unbounded (`?`) dimension. The module is not necessarily verified before
// it runs, so every op here calls this first; after it, attributes fit the
// operands (the evaluator guarantees that the operand values have their
// instructions' shapes).
inline Status checkWellTyped(const Instruction& instr) {
  HLO_RETURN_IF_ERROR(checkDeclaredShape(instr));
  bool unbounded = hasUnboundedDim(instr.shape());
  for (const Instruction* op : instr.operands()) unbounded = unbounded || hasUnboundedDim(op->shape());
  if (unbounded) return EvalContext::unsupported(instr, "unbounded (?) dimensions have no values to run on");
  return okStatus();
}

// Fails unless `value` has element type `want`. Shape inference lets floats of
// different precisions mix in some ops; the interpreter does not.
inline Status requireType(const Instruction& instr, const Literal& value, ElementType want,
                          const std::string& what) {
  if (value.type() == want) return okStatus();
  return EvalContext::unsupported(instr, what + " has element type " +
                                             std::string(elementTypeName(value.type())) + ", not " +
                                             std::string(elementTypeName(want)));
}

inline int64_t clampIndex(int64_t value, int64_t low, int64_t high) {
  return value < low ? low : (value > high ? high : value);
}

}  // namespace hlo::interp
