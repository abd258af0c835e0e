// Runs of 2-byte floats (bf16, f16) converted to and from f32, for the
// library ops that convert whole arrays (convolution packing, dot results):
// bf16 16 lanes at a time with AVX-512, f16 and CPUs without it element by
// element. The bits are those of hlo/float_formats.h's decode and encode
// functions: ties to even, NaN to the quiet NaN of its sign.
#pragma once
#include <cstdint>

#include "hlo/element_type.h"

namespace hlo::cpu {

// `type` is kBF16 or kF16.
void halfRunToF32(ElementType type, const uint16_t* in, float* out, int64_t n);
void f32RunToHalf(ElementType type, const float* in, uint16_t* out, int64_t n);

}  // namespace hlo::cpu
