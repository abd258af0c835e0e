// reduce-precision, the one definition both engines use: the interpreter
// applies it per element, the CPU JIT calls it through a runtime function.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "hlo/element_type.h"

namespace hlo {

// reduce-precision on the raw bits of an IEEE-style float with
// `srcExponentBits` and `srcMantissaBits` (f32: 8 and 23), XLA's rule
// (xla/service/elemental_ir_emitter EmitReducePrecisionIR, quiet_nans=false):
//   1. round the mantissa to `mantissaBits` bits, to nearest even, on the bit
//      pattern (a carry moves into the exponent; past the largest finite
//      value that is inf);
//   2. when `exponentBits` is narrower: exponents above the reduced range
//      become +-inf, those at or below its bottom become +-0 (no subnormals);
//   3. NaN stays the operand's NaN, or becomes +inf when mantissaBits is 0.
uint64_t reducePrecisionBits(uint64_t bits, int srcExponentBits, int srcMantissaBits,
                             int exponentBits, int mantissaBits);


// reduce-precision of one stored element of float type `t`: IEEE-style
// types are reduced on their own bit pattern (so reducing a type to its own
// widths changes nothing); the f8 types without infinities, f8e8m0fnu and
// f4e2m1fn are widened to f32 (exactly), reduced there and rounded back.
uint64_t reducePrecisionOf(ElementType t, uint64_t bits, int exponentBits, int mantissaBits);

// Exponent and mantissa widths of the IEEE-style float types, whose bit
// patterns reduce-precision rounds in place (f16: 5 and 10); nullopt for the
// others, which go through f32.
std::optional<std::pair<int, int>> ieeeFloatLayout(ElementType t);

}  // namespace hlo
