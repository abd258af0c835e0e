// Which branch a conditional runs, the one rule the interpreter and the
// runtimes of both JITs apply.
#pragma once
#include <cstdint>

#include "hlo/literal.h"

namespace hlo {

// For the selector (operand 0) of a conditional of `branchCount` branches:
// a pred runs branch 0 when true and branch 1 when false; an s32 index runs
// that branch, and an index out of range the last one, as XLA does. Branch
// i takes operand i + 1.
inline int64_t conditionalBranch(const Literal& selector, int64_t branchCount) {
  if (selector.type() == ElementType::kPred) return selector.bitsAt(0) ? 0 : 1;
  int64_t index = static_cast<int32_t>(selector.bitsAt(0));
  return index < 0 || index >= branchCount ? branchCount - 1 : index;
}

}  // namespace hlo
