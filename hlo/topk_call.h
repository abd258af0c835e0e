// XLA's TopK custom call, custom_call_target="TopK": the first k elements of
// each 1-D slice along the operand's last dimension, once that slice is
// sorted stably by a comparator, and their s32 indices in the slice.
//
//   (T[..., k], s32[..., k]) custom-call(T[..., n] x), custom_call_target="TopK",
//       called_computations={comparator}
//
// The comparator says whether its left element goes strictly before its
// right one. It takes (x_lhs, x_rhs, index_lhs, index_rhs), as a sort of x
// and an iota along the last dimension would (XLA's TopK decomposer turns
// the call into exactly that sort), or (x_lhs, x_rhs). Without one, larger
// values go first in total order (NaN above +inf, 0 above -0), as for the
// topk op with largest=true (complex values then have no order). The
// result may also be the values alone.
#pragma once
#include <cstdint>

#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo {

struct TopKCall {
  int64_t k = 0;
  bool withIndices = true;              // the result is (values, indices)
  const Computation* comparator = nullptr;  // null: larger (or smaller) first in total order
  bool largest = true;                      // without a comparator: larger first
};

// Whether `instr` is a TopK custom call.
bool isTopKCall(const Instruction& instr);

// The call's k and comparator, or why its shapes or comparator do not fit
// the form above.
StatusOr<TopKCall> topKCallOf(const Instruction& instr);

}  // namespace hlo
