// The fusion pass's rules about single instructions, read from the opcode
// table: what part an instruction may play in a fusion, what is expensive to
// compute, what may be copied into a fusion, and which consumers read an
// operand element more than once. The algorithm is in fusion.cc.
#pragma once

#include "hlo/instruction.h"

namespace hlo::fusion {

// What part an instruction may play in a fusion.
enum class Role {
  kNone,      // stays outside every fusion
  kMember,    // a producer inside one, or the root of one
  kRootOnly,  // a reduction: roots a fusion, never feeds another op inside it
};
Role roleOf(const Instruction& i);

// Elementwise ops costing more than a few cycles an element (transcendentals,
// divide, power, ...): never copied, never recomputed per element read.
bool isExpensive(const Instruction& i);

// Whether a copy of `p` in a fusion costs little: `p` is cheap and reads at
// most one full-size operand (broadcasts, iotas, scalars and operands of
// lower rank do not count; XLA's "effectively unary"), so the copy reads no
// more than the original does.
bool duplicable(const Instruction& p);

// Whether `user`, run as a loop over its output, reads an element of
// `operand` more than once: a broadcast that grows it, a reduce-window, or a
// scalar operand of a non-scalar result.
bool rereads(const Instruction& user, const Instruction& operand);

}  // namespace hlo::fusion
