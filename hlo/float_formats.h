// Bit-exact encoding, decoding and text form of every floating-point element type.
//
// Each float type (f16, bf16, f32, f64, the f8 family, f4e2m1fn) is one row
// of a descriptor table in float_formats.cc: exponent bits, mantissa bits,
// bias, and how NaN is spelled. Every function here reads that table; there
// is no per-type code.
//
// Conversion from double follows ml_dtypes' non-saturating cast, which is what
// XLA's `static_cast<T>(double)` does for the small types: one rounding, to
// nearest with ties to even, subnormals included. What a value too large for
// the type becomes (a value is too large when it rounds past the largest
// finite value, e.g. f16 65520 and up):
//
//   type                       NaN bit patterns             overflow / +-inf in
//   f16 bf16 f8e5m2 f8e4m3     exponent all ones,           +-inf
//   f8e3m4 (f32 f64)           mantissa non-zero
//   f8e4m3fn                   s.1111.111 (two NaNs)        +-NaN (0x7f / 0xff)
//   f8e4m3fnuz f8e5m2fnuz      1000_0000 only ("-0")        NaN (0x80); no -0,
//   f8e4m3b11fnuz                                           so -0 becomes +0
//   f8e8m0fnu                  1111_1111 only               NaN (0xff)
//   f4e2m1fn                   none                         saturates to +-6
//
// More ml_dtypes rules we keep, although they surprise:
//   - f8e8m0fnu is unsigned and has no zero: 0, -0 and every negative value
//     encode to NaN. Below 2^-126 it rounds on the grid {0, 2^-126} and the
//     0 code reads back as 2^-127, so (0, 2^-127] -> 0x00 (= 2^-127) and
//     (2^-127, 2^-126) -> 0x01. With no mantissa bits, ties between 2^k and
//     2^(k+1) (at 1.5 * 2^k) go up. (One ml_dtypes result we do not copy:
//     its cast wraps [1.5 * 2^127, 2^129) around to 0x00; here that is NaN.)
//   - f4e2m1fn has no NaN: NaN encodes to 0x8 (-0) and -NaN to 0x0 (+0),
//     the pattern ml_dtypes uses for its quiet_NaN().
//   - NaN keeps its sign wherever the type has a signed NaN (IEEE-style and
//     fn types); the payload is dropped (the canonical quiet NaN results).
//
// Text follows XLA's HLO printer: `1`, `0.1`, `-0`, `1e+10`, `inf`, `-inf`,
// `nan`, `-nan`, and `nan(0x<hex>)` for a NaN whose mantissa field is not
// the canonical quiet NaN's (IEEE-style types only; the hex is the whole
// mantissa field, quiet bit included, as XLA prints it).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hlo/element_type.h"

namespace hlo {

// True for the float types narrower than f32: f16, bf16, every f8, f4e2m1fn.
bool isSmallFloat(ElementType t);

// The exact value of the bit pattern in the low bitWidth(t) bits of `bits`.
// NaN patterns give a quiet NaN with the pattern's sign bit (as ml_dtypes
// does, so the fnuz NaN 0x80 decodes to -NaN).
// `t` must be a small float type; f32 is accepted too.
double decodeSmallFloat(ElementType t, uint32_t bits);

// Rounds `value` to type `t` once, to nearest, ties to even, and returns the
// bit pattern (in the low bits). Overflow, NaN and zero follow the table at
// the top of this file. `t` must be a small float type; f32 is accepted too
// (then this is IEEE's double-to-float conversion).
uint32_t encodeSmallFloat(ElementType t, double value);

// encodeSmallFloat(kBF16, v) and encodeSmallFloat(kF16, v) for an f32 `v`,
// by bit arithmetic (for loops over whole arrays): the same bits.
inline uint16_t encodeBf16FromF32(float v) {
  uint32_t x = std::bit_cast<uint32_t>(v);
  uint32_t quietNan = ((x >> 16) & 0x8000) | 0x7fc0;
  // Ties to even on the 16 bits dropped; a carry out of the mantissa steps the
  // exponent, up to inf.
  uint32_t rounded = (x + 0x7fff + ((x >> 16) & 1)) >> 16;
  // A select, not a branch, so that loops of it vectorize.
  return static_cast<uint16_t>((x & 0x7fffffff) > 0x7f800000 ? quietNan : rounded);
}

inline uint16_t encodeF16FromF32(float v) {
  uint32_t x = std::bit_cast<uint32_t>(v);
  uint32_t sign = (x >> 16) & 0x8000, magnitude = x & 0x7fffffff;
  if (magnitude > 0x7f800000) return static_cast<uint16_t>(sign | 0x7e00);  // NaN: the quiet NaN
  if (magnitude >= 0x477ff000) return static_cast<uint16_t>(sign | 0x7c00);  // rounds to 65520 or more: inf
  if (magnitude >= 0x38800000) {  // 2^-14 and up: normal; rebias the exponent (127 -> 15), round 13 bits
    uint32_t rebiased = magnitude - 0x38000000;
    return static_cast<uint16_t>(sign | ((rebiased + 0xfff + ((rebiased >> 13) & 1)) >> 13));
  }
  // Subnormal or zero: the multiples of 2^-24. Adding 0.5 (whose f32 ulp is
  // 2^-24) rounds |v| to one, ties to even; the bits above 0.5's count them
  // (2^10 of them is the smallest normal, 0x0400, as it should be).
  float rounded = std::bit_cast<float>(magnitude) + 0.5f;
  return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(rounded) - 0x3f000000));
}

// decodeSmallFloat(kBF16, bits) and decodeSmallFloat(kF16, bits) as f32, by
// bit arithmetic (for loops over whole arrays): the same values, and NaN for
// NaN (its payload kept, not quietened).
inline float decodeBf16ToF32(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

inline float decodeF16ToF32(uint16_t bits) {
  uint32_t sign = uint32_t{bits & 0x8000u} << 16, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));  // inf, NaN
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in f32
    float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));  // rebias 15 -> 127
}

// False exactly when `value` is finite but its rounding into `t` is not (it
// overflows to inf or NaN), which is when XLA's parser reports a constant out
// of range: f16 65504 and 65519 fit, 65520 does not; f8e4m3fn 464 fits, 465
// does not; f8e8m0fnu 0 and negatives do not; f4e2m1fn always fits (it
// saturates). Non-finite values are not overflow: true. `t` must be a float.
bool fitsInFloatType(ElementType t, double value);

// The shortest decimal text that parseFloatBits(t, text) reads back to the
// same bits: f32 and f64 via std::to_chars' shortest form for float/double;
// the small types via the fewest significant digits that round-trip, written
// in whichever of fixed or exponent form is shorter (f16 65504 -> "65500").
// `bits` holds the raw pattern in its low bits; `t` must be a float type.
std::string formatFloatBits(ElementType t, uint64_t bits);

// formatFloatBits of `value` rounded into `t` (encodeSmallFloat's rules; for
// f64 the double's own bits, so a NaN payload survives).
std::string formatFloat(double value, ElementType t);

// Reads a float literal of type `t` and returns its raw bits. Accepts an
// optional sign, then decimal (`1`, `-2.5`, `.5`, `1e-3`), C hex floats
// (`0x1.8p3`), `inf`, `nan` and `nan(0x<hex>)`. Returns nullopt for:
//   - text that is not one of these forms (no surrounding spaces either);
//   - a finite value that overflows `t` (see fitsInFloatType), or the double;
//   - `inf` where `t` has no infinity, `nan` where it has no NaN (f4e2m1fn);
//     XLA's parser would instead store what ml_dtypes' cast makes of them
//     (NaN, or f4e2m1fn's 6 and -0), which no printer produces;
//   - a payload where `t` has none (only IEEE-style types do), of zero, or
//     wider than the mantissa (f16 payloads are 0x1..0x3ff).
// The number is read by strtod (so the C locale's decimal point) and then
// rounded into `t` as encodeSmallFloat does; for f32 that is double-to-float.
std::optional<uint64_t> parseFloatBits(ElementType t, std::string_view text);

}  // namespace hlo
