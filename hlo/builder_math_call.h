// XLA's builder math library writes some functions as custom calls, to be
// expanded later:
//
//   f32[...] custom-call(f32[...] x), custom_call_target="xla_builder.math.Asinh"
//
// Each is the elementwise function of its one operand that the opcode of the
// same name computes: Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh, Sinh and
// Tan, on floats or complex numbers, the result of the operand's shape.
#pragma once
#include <optional>

#include "hlo/instruction.h"

namespace hlo {

// The opcode the call stands for; nullopt for another target, or a call not
// of that form.
std::optional<Opcode> builderMathOpcode(const Instruction& instr);

}  // namespace hlo
