// The names of the host runtime's helpers that emitted kernels call, and
// what each computes. The CPU backend defines them (backends/cpu/host_helpers.h)
// for the JIT and for ahead-of-time libraries alike.
#pragma once

namespace hlo::jit {

// The f8 and f4 formats compute in f32; the host runtime provides these two
// functions, hlo/float_formats.h's decodeSmallFloat and encodeSmallFloat:
//   double hlo_decode_small_float(i32 element_type, i32 bits)
//   i32    hlo_encode_small_float(i32 element_type, double value)
inline constexpr const char* kDecodeSmallFloat = "hlo_decode_small_float";
inline constexpr const char* kEncodeSmallFloat = "hlo_encode_small_float";
// Complex functions beyond add, subtract, multiply and negate are
// hlo/complex_math.h's applyComplexUnary / applyComplexBinary, which the
// host runtime provides as
//   void hlo_complex_unary(i32 opcode, i32 element_type, double re, double im, double* out2)
//   void hlo_complex_binary(i32 opcode, i32 element_type, double re_a, double im_a,
//                           double re_b, double im_b, double* out2)
// reduce-precision: hlo/reduce_precision.h's reducePrecisionOf,
//   i64 hlo_reduce_precision(i32 element_type, i64 bits, i32 exponent_bits, i32 mantissa_bits)
inline constexpr const char* kReducePrecision = "hlo_reduce_precision";
// stochastic-convert: hlo/stochastic_round.h's stochasticRound,
//   i64 hlo_stochastic_round(double x, i64 random, i32 random_bits, i32 target_bits)
inline constexpr const char* kStochasticRound = "hlo_stochastic_round";
inline constexpr const char* kComplexUnary = "hlo_complex_unary";
inline constexpr const char* kComplexBinary = "hlo_complex_binary";

}  // namespace hlo::jit
