// XLA's block-scaled dot custom call (how JAX writes an MX or NVFP4 matmul):
//
//   T[B, M, N] custom-call(lhs [B, M, K], rhs [B, N, K],
//                          lhs_scale [B, M, K/b], rhs_scale [B, N, K/b]),
//       custom_call_target="__op$block_scaled_dot"
//
// (B absent at rank 2) is the scaled-dot of those four operands that
// contracts the last dimensions, with the first as a batch dimension at rank
// 3: each operand element is multiplied by the scale of its block of b
// along K before the products are summed. Other forms (a global scale, a
// block size in the backend config, one scaled side) are not given a
// meaning here.
#pragma once

#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo {

// Whether `instr` is a custom call to "__op$block_scaled_dot".
bool isBlockScaledDotCall(const Instruction& instr);

// Fails, with the reason, unless the call has the form above with shapes a
// scaled-dot accepts.
Status checkBlockScaledDotCall(const Instruction& instr);

// Sets the scaled-dot dimension numbers the call stands for on `dot`.
void setBlockScaledDotDims(const Instruction& call, Instruction& dot);

}  // namespace hlo
