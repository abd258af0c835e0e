// Runs of bf16 converted to and from f32, for the library ops that convert
// whole arrays (convolution packing, dot results): 16 lanes at a time with
// AVX-512, else element by element. The bits are those of
// decodeBf16ToF32 and encodeBf16FromF32 (hlo/float_formats.h): ties to
// even, NaN to the quiet NaN of its sign.
#pragma once
#include <cstdint>

namespace hlo::cpu {

void bf16RunToF32(const uint16_t* in, float* out, int64_t n);
void f32RunToBf16(const float* in, uint16_t* out, int64_t n);

// For tests: the element-by-element forms, whatever the CPU.
void bf16RunToF32Scalar(const uint16_t* in, float* out, int64_t n);
void f32RunToBf16Scalar(const float* in, uint16_t* out, int64_t n);

}  // namespace hlo::cpu
