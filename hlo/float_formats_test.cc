// Tests for float encoding, decoding and text; expected values are derived by hand.
#include "hlo/float_formats.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace hlo {
namespace {

using T = ElementType;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double pow2(int e) { return std::ldexp(1.0, e); }

const T kSmallFloats[] = {T::kF16,          T::kBF16,       T::kF8E5M2,     T::kF8E4M3,
                          T::kF8E4M3FN,     T::kF8E4M3B11FNUZ, T::kF8E5M2FNUZ, T::kF8E4M3FNUZ,
                          T::kF8E3M4,       T::kF4E2M1FN,   T::kF8E8M0FNU,  T::kF6E2M3FN,
                          T::kF6E3M2FN};

// A new float type in types.def needs a row in the descriptor table (and here).
TEST(FloatFormats, EveryFloatTypeIsKnown) {
  std::vector<T> floats;
  for (int i = 0; i <= static_cast<int>(T::kBuffer); ++i)
    if (isFloat(static_cast<T>(i))) floats.push_back(static_cast<T>(i));
  EXPECT_EQ(floats.size(), std::size(kSmallFloats) + 2);
  for (T t : floats)
    EXPECT_EQ(isSmallFloat(t), t != T::kF32 && t != T::kF64) << elementTypeName(t);
  for (T t : kSmallFloats) EXPECT_TRUE(isSmallFloat(t)) << elementTypeName(t);
  EXPECT_FALSE(isSmallFloat(T::kS8));
  EXPECT_FALSE(isSmallFloat(T::kPred));
}

struct Decoded {
  T type;
  uint32_t bits;
  double value;  // NaN: expect NaN
};

TEST(FloatFormats, DecodeKnownPatterns) {
  const Decoded cases[] = {
      {T::kF16, 0x3C00, 1.0},          {T::kF16, 0xC000, -2.0},
      {T::kF16, 0x7BFF, 65504.0},      {T::kF16, 0x0001, pow2(-24)},
      {T::kF16, 0x0400, pow2(-14)},    {T::kF16, 0x03FF, 1023 * pow2(-24)},
      {T::kF16, 0x7C00, kInf},         {T::kF16, 0xFC00, -kInf},
      {T::kF16, 0x7E00, kNan},         {T::kF16, 0x7C01, kNan},
      {T::kBF16, 0x3F80, 1.0},         {T::kBF16, 0x7F7F, 255 * pow2(120)},
      {T::kBF16, 0x0001, pow2(-133)},  {T::kBF16, 0x7F80, kInf},
      {T::kF8E5M2, 0x3C, 1.0},         {T::kF8E5M2, 0x7B, 57344.0},
      {T::kF8E5M2, 0x01, pow2(-16)},   {T::kF8E5M2, 0x7C, kInf},
      {T::kF8E5M2, 0x7D, kNan},        {T::kF8E4M3, 0x38, 1.0},
      {T::kF8E4M3, 0x77, 240.0},       {T::kF8E4M3, 0x01, pow2(-9)},
      {T::kF8E4M3, 0x78, kInf},        {T::kF8E4M3, 0x79, kNan},
      {T::kF8E4M3FN, 0x38, 1.0},       {T::kF8E4M3FN, 0x78, 256.0},
      {T::kF8E4M3FN, 0x7E, 448.0},     {T::kF8E4M3FN, 0x7F, kNan},
      {T::kF8E4M3FN, 0xFF, kNan},      {T::kF8E4M3FN, 0x01, pow2(-9)},
      {T::kF8E4M3B11FNUZ, 0x58, 1.0},  {T::kF8E4M3B11FNUZ, 0x7F, 30.0},
      {T::kF8E4M3B11FNUZ, 0x01, pow2(-13)}, {T::kF8E4M3B11FNUZ, 0x80, kNan},
      {T::kF8E5M2FNUZ, 0x40, 1.0},     {T::kF8E5M2FNUZ, 0x7F, 57344.0},
      {T::kF8E5M2FNUZ, 0x01, pow2(-17)}, {T::kF8E5M2FNUZ, 0x80, kNan},
      {T::kF8E4M3FNUZ, 0x40, 1.0},     {T::kF8E4M3FNUZ, 0x7F, 240.0},
      {T::kF8E4M3FNUZ, 0x01, pow2(-10)}, {T::kF8E4M3FNUZ, 0x80, kNan},
      {T::kF8E4M3FNUZ, 0xFF, -240.0},  {T::kF8E3M4, 0x30, 1.0},
      {T::kF8E3M4, 0x6F, 15.5},        {T::kF8E3M4, 0x01, pow2(-6)},
      {T::kF8E3M4, 0x70, kInf},        {T::kF8E3M4, 0x71, kNan},
      {T::kF4E2M1FN, 0x1, 0.5},        {T::kF4E2M1FN, 0x2, 1.0},
      {T::kF4E2M1FN, 0x5, 3.0},        {T::kF4E2M1FN, 0x7, 6.0},
      {T::kF4E2M1FN, 0xF, -6.0},       {T::kF8E8M0FNU, 0x7F, 1.0},
      // f6e2m3fn: sign, 2 exponent bits (bias 1), 3 mantissa bits; no inf or NaN.
      {T::kF6E2M3FN, 0x08, 1.0},       {T::kF6E2M3FN, 0x1F, 7.5},
      {T::kF6E2M3FN, 0x21, -0.125},    {T::kF6E2M3FN, 0x07, 0.875},
      // f6e3m2fn: sign, 3 exponent bits (bias 3), 2 mantissa bits; no inf or NaN.
      {T::kF6E3M2FN, 0x0C, 1.0},       {T::kF6E3M2FN, 0x1F, 28.0},
      {T::kF6E3M2FN, 0x01, 0.0625},    {T::kF6E3M2FN, 0x3F, -28.0},
      {T::kF8E8M0FNU, 0x00, pow2(-127)}, {T::kF8E8M0FNU, 0xFE, pow2(127)},
      {T::kF8E8M0FNU, 0xFF, kNan},     {T::kF32, 0x3F800000, 1.0},
      {T::kF32, 0x7F7FFFFF, std::numeric_limits<float>::max()},
  };
  for (const Decoded& c : cases) {
    double got = decodeSmallFloat(c.type, c.bits);
    if (std::isnan(c.value))
      EXPECT_TRUE(std::isnan(got)) << elementTypeName(c.type) << " " << c.bits;
    else
      EXPECT_EQ(got, c.value) << elementTypeName(c.type) << " " << c.bits;
  }
  // Negative zero where the type has one; fn NaN keeps its sign.
  EXPECT_TRUE(std::signbit(decodeSmallFloat(T::kF16, 0x8000)));
  EXPECT_TRUE(std::signbit(decodeSmallFloat(T::kF4E2M1FN, 0x8)));
  EXPECT_TRUE(std::signbit(decodeSmallFloat(T::kF8E4M3FN, 0xFF)));
  EXPECT_FALSE(std::signbit(decodeSmallFloat(T::kF8E4M3FN, 0x7F)));
}

struct Encoded {
  T type;
  double value;
  uint32_t bits;
};

void expectEncodes(const std::vector<Encoded>& cases) {
  for (const Encoded& c : cases)
    EXPECT_EQ(encodeSmallFloat(c.type, c.value), c.bits)
        << elementTypeName(c.type) << " " << c.value;
}

TEST(FloatFormats, EncodeRoundsToNearestEven) {
  expectEncodes({
      {T::kF16, 1.0, 0x3C00},
      {T::kF16, 1 + pow2(-11), 0x3C00},              // tie, 0x3C00 is even
      {T::kF16, 1 + 3 * pow2(-11), 0x3C02},          // tie, up to 1 + 2^-9
      {T::kF16, 1 + pow2(-11) + pow2(-30), 0x3C01},  // just past the tie
      {T::kF16, -(1 + pow2(-11)), 0xBC00},
      {T::kBF16, 1 + pow2(-8), 0x3F80},
      {T::kBF16, 1 + 3 * pow2(-8), 0x3F82},
      {T::kF8E4M3FN, 1.0625, 0x38},  // 1 + half a step of 1/8: tie to even
      {T::kF8E4M3FN, 1.1875, 0x3A},  // 1 + 3/16: tie, up to 1.25
      {T::kF4E2M1FN, 2.5, 0x4},      // between 2 (0x4) and 3 (0x5)
      {T::kF4E2M1FN, 5.0, 0x6},      // between 4 (0x6) and 6 (0x7)
      {T::kF4E2M1FN, 0.75, 0x2},     // between 0.5 (0x1) and 1 (0x2)
      {T::kF32, 1 + pow2(-24), 0x3F800000},
      {T::kF32, 1 + 3 * pow2(-24), 0x3F800002},
  });
}

TEST(FloatFormats, EncodeSubnormals) {
  expectEncodes({
      {T::kF16, pow2(-24), 0x0001},
      {T::kF16, pow2(-25), 0x0000},           // half the smallest: tie to 0
      {T::kF16, pow2(-25) + pow2(-40), 0x0001},
      {T::kF16, 3 * pow2(-26), 0x0001},       // 0.75 of a step
      {T::kF16, 3 * pow2(-25), 0x0002},       // 1.5 steps: tie to even 2
      {T::kF16, 5 * pow2(-25), 0x0002},       // 2.5 steps: tie to even 2
      {T::kF16, 1023.5 * pow2(-24), 0x0400},  // rounds up into the normals
      {T::kF16, -pow2(-25), 0x8000},          // tiny negative: -0
      {T::kF16, 1e-300, 0x0000},
      {T::kF8E4M3FN, pow2(-10), 0x00},        // tie between 0 and 2^-9
      {T::kF8E4M3FN, 3 * pow2(-10), 0x02},
      {T::kF8E4M3FNUZ, -pow2(-12), 0x00},     // no -0: tiny negative is +0
      {T::kF4E2M1FN, 0.25, 0x0},              // tie between 0 and 0.5
      {T::kF4E2M1FN, 0.26, 0x1},
      {T::kF32, pow2(-149), 0x00000001},
      {T::kF32, pow2(-150), 0x00000000},
  });
}

TEST(FloatFormats, EncodeOverflow) {
  expectEncodes({
      // IEEE-style: the largest value, up to the tie, then +-inf.
      {T::kF16, 65504, 0x7BFF},
      {T::kF16, 65519, 0x7BFF},
      {T::kF16, 65520, 0x7C00},
      {T::kF16, -65520, 0xFC00},
      {T::kF16, 1e300, 0x7C00},
      {T::kF16, kInf, 0x7C00},
      {T::kF16, -kInf, 0xFC00},
      {T::kBF16, 1e39, 0x7F80},
      {T::kF8E5M2, 57344, 0x7B},
      {T::kF8E5M2, 61439, 0x7B},
      {T::kF8E5M2, 61440, 0x7C},
      {T::kF8E4M3, 247, 0x77},
      {T::kF8E4M3, 248, 0x78},
      {T::kF8E3M4, 15.74, 0x6F},
      {T::kF8E3M4, 15.75, 0x70},
      {T::kF32, 0x1.fffffefffffffp127, 0x7F7FFFFF},
      {T::kF32, 0x1.ffffffp127, 0x7F800000},
      // fn: the grid continues to 480 where NaN sits; 464 ties to 448 (even).
      {T::kF8E4M3FN, 448, 0x7E},
      {T::kF8E4M3FN, 464, 0x7E},
      {T::kF8E4M3FN, 465, 0x7F},
      {T::kF8E4M3FN, -465, 0xFF},
      {T::kF8E4M3FN, kInf, 0x7F},
      {T::kF8E4M3FN, -kInf, 0xFF},
      // fnuz: the largest code is odd, so its tie overflows to NaN 0x80.
      {T::kF8E4M3FNUZ, 247.9, 0x7F},
      {T::kF8E4M3FNUZ, 248, 0x80},
      {T::kF8E4M3FNUZ, -248, 0x80},
      {T::kF8E4M3FNUZ, -kInf, 0x80},
      {T::kF8E4M3B11FNUZ, 30.9, 0x7F},
      {T::kF8E4M3B11FNUZ, 31, 0x80},
      {T::kF8E5M2FNUZ, 61439, 0x7F},
      {T::kF8E5M2FNUZ, 61440, 0x80},
      // f4e2m1fn saturates.
      {T::kF4E2M1FN, 6, 0x7},
      {T::kF4E2M1FN, 7, 0x7},
      {T::kF4E2M1FN, 100, 0x7},
      {T::kF4E2M1FN, -100, 0xF},
      {T::kF4E2M1FN, kInf, 0x7},
      {T::kF4E2M1FN, -kInf, 0xF},
      // e8m0: up to 1.5 * 2^127, then NaN.
      {T::kF8E8M0FNU, pow2(127), 0xFE},
      {T::kF8E8M0FNU, 1.49 * pow2(127), 0xFE},
      {T::kF8E8M0FNU, 1.5 * pow2(127), 0xFF},
      {T::kF8E8M0FNU, pow2(128), 0xFF},
      {T::kF8E8M0FNU, 1.75 * pow2(128), 0xFF},
      {T::kF8E8M0FNU, kInf, 0xFF},
  });
}

TEST(FloatFormats, EncodeNanAndZero) {
  expectEncodes({
      {T::kF16, kNan, 0x7E00},          {T::kF16, -kNan, 0xFE00},
      {T::kBF16, kNan, 0x7FC0},         {T::kBF16, -kNan, 0xFFC0},
      {T::kF32, -kNan, 0xFFC00000},     {T::kF8E5M2, kNan, 0x7E},
      {T::kF8E5M2, -kNan, 0xFE},        {T::kF8E4M3, kNan, 0x7C},
      {T::kF8E3M4, kNan, 0x78},         {T::kF8E4M3FN, kNan, 0x7F},
      {T::kF8E4M3FN, -kNan, 0xFF},      {T::kF8E4M3FNUZ, -kNan, 0x80},
      {T::kF8E5M2FNUZ, kNan, 0x80},     {T::kF8E4M3B11FNUZ, kNan, 0x80},
      {T::kF8E8M0FNU, kNan, 0xFF},
      // f4e2m1fn has no NaN; ml_dtypes gives its quiet_NaN() pattern, -0.
      {T::kF4E2M1FN, kNan, 0x8},        {T::kF4E2M1FN, -kNan, 0x0},
      {T::kF16, -0.0, 0x8000},          {T::kBF16, -0.0, 0x8000},
      {T::kF8E4M3FN, -0.0, 0x80},       {T::kF8E5M2, -0.0, 0x80},
      {T::kF4E2M1FN, -0.0, 0x8},        {T::kF8E4M3FNUZ, -0.0, 0x00},
      {T::kF8E5M2FNUZ, -0.0, 0x00},     {T::kF8E4M3B11FNUZ, -0.0, 0x00},
      {T::kF8E4M3FNUZ, -1.0, 0xC0},
  });
}

TEST(FloatFormats, EncodeE8M0) {
  expectEncodes({
      {T::kF8E8M0FNU, 1.0, 0x7F},
      {T::kF8E8M0FNU, 1.49, 0x7F},
      {T::kF8E8M0FNU, 1.5, 0x80},  // ties go up: the implicit one is odd
      {T::kF8E8M0FNU, 3.0, 0x81},
      {T::kF8E8M0FNU, 0.75, 0x7F},
      {T::kF8E8M0FNU, 0.0, 0xFF},  // no zero
      {T::kF8E8M0FNU, -0.0, 0xFF},
      {T::kF8E8M0FNU, -1.0, 0xFF},  // no negatives
      {T::kF8E8M0FNU, -kInf, 0xFF},
      {T::kF8E8M0FNU, pow2(-126), 0x01},
      {T::kF8E8M0FNU, pow2(-127), 0x00},
      {T::kF8E8M0FNU, 1.25 * pow2(-127), 0x01},  // rounded on {0, 2^-126}
      {T::kF8E8M0FNU, pow2(-130), 0x00},
      {T::kF8E8M0FNU, 1e-300, 0x00},
  });
}

// Every finite pattern decodes to a value that encodes back to it.
TEST(FloatFormats, DecodeEncodeRoundTripAllPatterns) {
  for (T t : kSmallFloats) {
    for (uint32_t bits = 0; bits < (uint32_t{1} << bitWidth(t)); ++bits) {
      double value = decodeSmallFloat(t, bits);
      if (std::isnan(value)) continue;
      EXPECT_EQ(encodeSmallFloat(t, value), bits) << elementTypeName(t) << " " << bits;
    }
  }
}

// Between each pair of neighbouring values (codes c and c+1 are neighbours,
// as magnitudes grow with the code), the midpoint goes to the even code and
// anything off the midpoint to the nearer one. f8e8m0fnu rounds on its own
// grid (see EncodeE8M0) and is left out.
TEST(FloatFormats, MidpointsBetweenNeighbours) {
  for (T t : kSmallFloats) {
    if (t == T::kF8E8M0FNU) continue;
    uint32_t code = 0;
    while (true) {
      double low = decodeSmallFloat(t, code);
      double high = decodeSmallFloat(t, code + 1);
      if (!std::isfinite(high) || high < low) break;  // past the largest finite value
      double mid = (low + high) / 2;
      uint32_t even = code % 2 == 0 ? code : code + 1;
      EXPECT_EQ(encodeSmallFloat(t, mid), even) << elementTypeName(t) << " " << mid;
      EXPECT_EQ(encodeSmallFloat(t, std::nextafter(mid, 0.0)), code) << elementTypeName(t);
      EXPECT_EQ(encodeSmallFloat(t, std::nextafter(mid, kInf)), code + 1) << elementTypeName(t);
      ++code;
    }
    // Past the largest value, the grid would continue one more step; just
    // below that midpoint still rounds to the largest value.
    double max = decodeSmallFloat(t, code);
    double step = max - decodeSmallFloat(t, code - 1);
    EXPECT_EQ(encodeSmallFloat(t, std::nextafter(max + step / 2, 0.0)), code)
        << elementTypeName(t);
  }
}

// The f32 fast paths give encodeSmallFloat's bits: hand-picked values (ties,
// the subnormal range, overflow, NaN), then f32 patterns across the whole
// range, each with its neighbours.
TEST(FloatFormats, EncodeFromF32FastPaths) {
  EXPECT_EQ(encodeF16FromF32(1.0f), 0x3c00);
  EXPECT_EQ(encodeF16FromF32(-2.0f), 0xc000);
  EXPECT_EQ(encodeF16FromF32(65504.0f), 0x7bff);                       // largest finite
  EXPECT_EQ(encodeF16FromF32(65519.99f), 0x7bff);                      // below the midpoint to inf
  EXPECT_EQ(encodeF16FromF32(65520.0f), 0x7c00);                       // the midpoint: inf
  EXPECT_EQ(encodeF16FromF32(static_cast<float>(pow2(-24))), 0x0001);  // smallest subnormal
  EXPECT_EQ(encodeF16FromF32(static_cast<float>(pow2(-25))), 0x0000);  // tie between 0 and 1: even
  EXPECT_EQ(encodeF16FromF32(static_cast<float>(3 * pow2(-25))), 0x0002);  // tie between 1 and 2: even
  EXPECT_EQ(encodeF16FromF32(static_cast<float>(pow2(-14) - pow2(-25))), 0x0400);  // rounds up to the smallest normal
  EXPECT_EQ(encodeF16FromF32(-0.0f), 0x8000);
  EXPECT_EQ(encodeF16FromF32(-std::numeric_limits<float>::quiet_NaN()), 0xfe00);
  EXPECT_EQ(encodeBf16FromF32(1.0f), 0x3f80);
  EXPECT_EQ(encodeBf16FromF32(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie: even
  EXPECT_EQ(encodeBf16FromF32(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie: even, upwards
  EXPECT_EQ(encodeBf16FromF32(std::bit_cast<float>(0x7f7fffffu)), 0x7f80);  // f32 max rounds to inf
  EXPECT_EQ(encodeBf16FromF32(std::numeric_limits<float>::quiet_NaN()), 0x7fc0);
  for (uint64_t start = 0; start < (uint64_t{1} << 32); start += 65521) {
    for (uint64_t bits = start; bits < start + 3 && bits < (uint64_t{1} << 32); ++bits) {
      float v = std::bit_cast<float>(static_cast<uint32_t>(bits));
      ASSERT_EQ(encodeF16FromF32(v), encodeSmallFloat(T::kF16, v)) << std::hex << bits;
      ASSERT_EQ(encodeBf16FromF32(v), encodeSmallFloat(T::kBF16, v)) << std::hex << bits;
    }
  }
}

// Every bf16 and f16 pattern against the general decoder: hand-picked
// values first, then all 65,536 of each (NaN: NaN of the same sign).
TEST(FloatFormats, DecodeToF32FastPaths) {
  EXPECT_EQ(decodeF16ToF32(0x3c00), 1.0f);
  EXPECT_EQ(decodeF16ToF32(0xc000), -2.0f);
  EXPECT_EQ(decodeF16ToF32(0x7bff), 65504.0f);
  EXPECT_EQ(decodeF16ToF32(0x0001), static_cast<float>(pow2(-24)));  // smallest subnormal
  EXPECT_EQ(decodeF16ToF32(0x03ff), static_cast<float>(1023 * pow2(-24)));  // largest subnormal
  EXPECT_EQ(decodeF16ToF32(0x0400), static_cast<float>(pow2(-14)));  // smallest normal
  EXPECT_TRUE(std::signbit(decodeF16ToF32(0x8000)) && decodeF16ToF32(0x8000) == 0.0f);
  EXPECT_EQ(decodeF16ToF32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(decodeF16ToF32(0x7e00)));
  EXPECT_EQ(decodeBf16ToF32(0x3f80), 1.0f);
  EXPECT_EQ(decodeBf16ToF32(0xc0a0), -5.0f);
  EXPECT_EQ(decodeBf16ToF32(0x0001), std::bit_cast<float>(0x00010000u));  // a subnormal
  EXPECT_EQ(decodeBf16ToF32(0x7f80), std::numeric_limits<float>::infinity());
  for (uint32_t bits = 0; bits < 65536; ++bits) {
    for (auto [type, fast] : {std::pair<T, float>{T::kF16, decodeF16ToF32(static_cast<uint16_t>(bits))},
                              {T::kBF16, decodeBf16ToF32(static_cast<uint16_t>(bits))}}) {
      double want = decodeSmallFloat(type, bits);
      if (std::isnan(want)) {
        ASSERT_TRUE(std::isnan(fast)) << std::hex << bits;
        ASSERT_EQ(std::signbit(fast), std::signbit(want)) << std::hex << bits;
      } else {
        ASSERT_EQ(static_cast<double>(fast), want) << std::hex << bits;
        ASSERT_EQ(std::signbit(fast), std::signbit(want)) << std::hex << bits;
      }
    }
  }
}

TEST(FloatFormats, FitsInFloatType) {
  EXPECT_TRUE(fitsInFloatType(T::kF16, 65504));
  EXPECT_TRUE(fitsInFloatType(T::kF16, 65519));
  EXPECT_TRUE(fitsInFloatType(T::kF16, -65519.99));
  EXPECT_FALSE(fitsInFloatType(T::kF16, 65520));
  EXPECT_FALSE(fitsInFloatType(T::kF16, -65520));
  EXPECT_TRUE(fitsInFloatType(T::kF16, 1e-30));  // underflow is fine
  EXPECT_TRUE(fitsInFloatType(T::kF16, kInf));   // not finite: not overflow
  EXPECT_TRUE(fitsInFloatType(T::kF16, kNan));
  EXPECT_TRUE(fitsInFloatType(T::kBF16, -65505));
  EXPECT_FALSE(fitsInFloatType(T::kBF16, 1e100));
  EXPECT_TRUE(fitsInFloatType(T::kF8E4M3FN, 464));
  EXPECT_FALSE(fitsInFloatType(T::kF8E4M3FN, 465));
  EXPECT_TRUE(fitsInFloatType(T::kF8E4M3FNUZ, 247));
  EXPECT_FALSE(fitsInFloatType(T::kF8E4M3FNUZ, 248));
  EXPECT_FALSE(fitsInFloatType(T::kF8E5M2, 61440));
  EXPECT_TRUE(fitsInFloatType(T::kF4E2M1FN, 1e30));  // saturates
  EXPECT_FALSE(fitsInFloatType(T::kF8E8M0FNU, 0));
  EXPECT_FALSE(fitsInFloatType(T::kF8E8M0FNU, -1));
  EXPECT_TRUE(fitsInFloatType(T::kF8E8M0FNU, 1e-300));
  EXPECT_TRUE(fitsInFloatType(T::kF32, std::numeric_limits<float>::max()));
  EXPECT_FALSE(fitsInFloatType(T::kF32, 1e39));
  EXPECT_TRUE(fitsInFloatType(T::kF64, std::numeric_limits<double>::max()));
}

TEST(FloatFormats, FormatFinite) {
  EXPECT_EQ(formatFloat(1.0, T::kF32), "1");
  EXPECT_EQ(formatFloat(0.1f, T::kF32), "0.1");
  EXPECT_EQ(formatFloat(-0.0, T::kF32), "-0");
  EXPECT_EQ(formatFloat(2.5, T::kF32), "2.5");
  EXPECT_EQ(formatFloat(1e10, T::kF32), "1e+10");
  EXPECT_EQ(formatFloat(16777216, T::kF32), "16777216");
  EXPECT_EQ(formatFloat(0.1, T::kF64), "0.1");
  EXPECT_EQ(formatFloat(1e300, T::kF64), "1e+300");
  EXPECT_EQ(formatFloat(-0.0, T::kF64), "-0");
  EXPECT_EQ(formatFloat(0.1, T::kF16), "0.1");
  EXPECT_EQ(formatFloat(-0.0, T::kF16), "-0");
  EXPECT_EQ(formatFloat(1.0, T::kBF16), "1");
  // The fewest digits that still read back: 65500 -> 65504.
  EXPECT_EQ(formatFloat(65504, T::kF16), "65500");
  EXPECT_EQ(formatFloat(pow2(-24), T::kF16), "6e-08");
  EXPECT_EQ(formatFloat(448, T::kF8E4M3FN), "450");  // 400 ties to 384
  EXPECT_EQ(formatFloat(6, T::kF4E2M1FN), "6");
  EXPECT_EQ(formatFloat(-0.0, T::kF4E2M1FN), "-0");
  EXPECT_EQ(formatFloat(pow2(127), T::kF8E8M0FNU), "2e+38");
  // 2^-127 = 5.8775e-39; anything above it reads back as 2^-126.
  EXPECT_EQ(formatFloat(pow2(-127), T::kF8E8M0FNU), "5.877e-39");
}

TEST(FloatFormats, FormatSpecials) {
  EXPECT_EQ(formatFloatBits(T::kF32, 0x7F800000), "inf");
  EXPECT_EQ(formatFloatBits(T::kF32, 0xFF800000), "-inf");
  EXPECT_EQ(formatFloatBits(T::kF32, 0x7FC00000), "nan");
  EXPECT_EQ(formatFloatBits(T::kF32, 0xFFC00000), "-nan");
  EXPECT_EQ(formatFloatBits(T::kF32, 0x7F800001), "nan(0x1)");
  EXPECT_EQ(formatFloatBits(T::kF32, 0xFFC00001), "-nan(0x400001)");
  EXPECT_EQ(formatFloatBits(T::kF64, 0x7FF8000000000000), "nan");
  EXPECT_EQ(formatFloatBits(T::kF64, 0x7FF0000000000001), "nan(0x1)");
  EXPECT_EQ(formatFloatBits(T::kF64, 0xFFF0000000000000), "-inf");
  EXPECT_EQ(formatFloatBits(T::kF16, 0x7E00), "nan");
  EXPECT_EQ(formatFloatBits(T::kF16, 0x7C01), "nan(0x1)");
  EXPECT_EQ(formatFloatBits(T::kF16, 0xFFFF), "-nan(0x3ff)");
  EXPECT_EQ(formatFloatBits(T::kF16, 0xFC00), "-inf");
  EXPECT_EQ(formatFloatBits(T::kBF16, 0x7FC0), "nan");
  EXPECT_EQ(formatFloatBits(T::kBF16, 0x7F81), "nan(0x1)");
  EXPECT_EQ(formatFloatBits(T::kF8E5M2, 0x7E), "nan");
  EXPECT_EQ(formatFloatBits(T::kF8E5M2, 0x7D), "nan(0x1)");
  EXPECT_EQ(formatFloatBits(T::kF8E5M2, 0xFF), "-nan(0x3)");
  EXPECT_EQ(formatFloatBits(T::kF8E4M3FN, 0x7F), "nan");
  EXPECT_EQ(formatFloatBits(T::kF8E4M3FN, 0xFF), "-nan");
  EXPECT_EQ(formatFloatBits(T::kF8E4M3FNUZ, 0x80), "nan");
  EXPECT_EQ(formatFloatBits(T::kF8E8M0FNU, 0xFF), "nan");
}

std::optional<uint64_t> bits(uint64_t b) { return b; }

TEST(FloatFormats, ParseAccepts) {
  EXPECT_EQ(parseFloatBits(T::kF32, "1"), bits(0x3F800000));
  EXPECT_EQ(parseFloatBits(T::kF32, "+2"), bits(0x40000000));
  EXPECT_EQ(parseFloatBits(T::kF32, "-0"), bits(0x80000000));
  EXPECT_EQ(parseFloatBits(T::kF32, "0.1"), bits(0x3DCCCCCD));
  EXPECT_EQ(parseFloatBits(T::kF32, ".5"), bits(0x3F000000));
  EXPECT_EQ(parseFloatBits(T::kF32, "1e+10"), bits(0x501502F9));
  EXPECT_EQ(parseFloatBits(T::kF32, "25E-1"), bits(0x40200000));
  EXPECT_EQ(parseFloatBits(T::kF32, "0x1.8p1"), bits(0x40400000));
  EXPECT_EQ(parseFloatBits(T::kF32, "3.4028235e38"), bits(0x7F7FFFFF));
  EXPECT_EQ(parseFloatBits(T::kF32, "inf"), bits(0x7F800000));
  EXPECT_EQ(parseFloatBits(T::kF32, "-inf"), bits(0xFF800000));
  EXPECT_EQ(parseFloatBits(T::kF32, "nan"), bits(0x7FC00000));
  EXPECT_EQ(parseFloatBits(T::kF32, "-nan"), bits(0xFFC00000));
  EXPECT_EQ(parseFloatBits(T::kF32, "nan(0x1)"), bits(0x7F800001));
  EXPECT_EQ(parseFloatBits(T::kF32, "-nan(0x7fffff)"), bits(0xFFFFFFFF));
  EXPECT_EQ(parseFloatBits(T::kF64, "1e-400"), bits(0));  // underflows to 0
  EXPECT_EQ(parseFloatBits(T::kF64, "nan(0xfffffffffffff)"), bits(0x7FFFFFFFFFFFFFFF));
  EXPECT_EQ(parseFloatBits(T::kF16, "65504"), bits(0x7BFF));
  EXPECT_EQ(parseFloatBits(T::kF16, "65519"), bits(0x7BFF));
  EXPECT_EQ(parseFloatBits(T::kF16, "nan(0x3ff)"), bits(0x7FFF));
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FN, "nan"), bits(0x7F));
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FN, "-nan"), bits(0xFF));
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FN, "464"), bits(0x7E));
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FNUZ, "-nan"), bits(0x80));
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FNUZ, "-0"), bits(0x00));
  EXPECT_EQ(parseFloatBits(T::kF4E2M1FN, "100"), bits(0x7));
  EXPECT_EQ(parseFloatBits(T::kF4E2M1FN, "-0"), bits(0x8));
  EXPECT_EQ(parseFloatBits(T::kF8E8M0FNU, "1"), bits(0x7F));
  EXPECT_EQ(parseFloatBits(T::kF8E8M0FNU, "-nan"), bits(0xFF));
}

TEST(FloatFormats, ParseRejects) {
  for (const char* text : {"", "-", "+", "abc", "1.2.3", " 1", "1 ", "1e", "1e+", ".", "e3",
                           "0x", "0xp1", "1p3", "0x1g", "infinity", "NaN", "Inf", "1f", "--1",
                           "1,5", "nan()", "nan(0x)", "nan(1)", "nan(0x1", "nan(0x0)",
                           "nan(0x800000)", "nan(0xg)", "nanx"}) {
    EXPECT_EQ(parseFloatBits(T::kF32, text), std::nullopt) << '"' << text << '"';
  }
  EXPECT_EQ(parseFloatBits(T::kF32, "1e39"), std::nullopt);   // overflows f32
  EXPECT_EQ(parseFloatBits(T::kF64, "1e309"), std::nullopt);  // overflows f64
  EXPECT_EQ(parseFloatBits(T::kF16, "65520"), std::nullopt);
  EXPECT_EQ(parseFloatBits(T::kF16, "-65520"), std::nullopt);
  EXPECT_EQ(parseFloatBits(T::kF16, "nan(0x400)"), std::nullopt);  // wider than 10 bits
  EXPECT_EQ(parseFloatBits(T::kBF16, "nan(0x80)"), std::nullopt);
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FN, "465"), std::nullopt);
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FN, "inf"), std::nullopt);      // no inf
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FN, "nan(0x1)"), std::nullopt);  // no payloads
  EXPECT_EQ(parseFloatBits(T::kF8E4M3FNUZ, "-inf"), std::nullopt);
  EXPECT_EQ(parseFloatBits(T::kF4E2M1FN, "nan"), std::nullopt);  // no NaN
  EXPECT_EQ(parseFloatBits(T::kF4E2M1FN, "inf"), std::nullopt);
  EXPECT_EQ(parseFloatBits(T::kF8E8M0FNU, "0"), std::nullopt);   // no zero
  EXPECT_EQ(parseFloatBits(T::kF8E8M0FNU, "-1"), std::nullopt);  // no negatives
  EXPECT_EQ(parseFloatBits(T::kS32, "1"), std::nullopt);         // not a float
}

void expectTextRoundTrips(T t, uint64_t b) {
  std::string text = formatFloatBits(t, b);
  EXPECT_EQ(parseFloatBits(t, text), bits(b)) << elementTypeName(t) << " " << b << " -> " << text;
}

TEST(FloatFormats, TextRoundTripsEverySmallPattern) {
  for (T t : kSmallFloats)
    for (uint64_t b = 0; b < (uint64_t{1} << bitWidth(t)); ++b) expectTextRoundTrips(t, b);
}

TEST(FloatFormats, TextRoundTripsF32AndF64) {
  std::mt19937_64 random(20240611);
  for (int i = 0; i < 4000; ++i) {
    expectTextRoundTrips(T::kF32, random() & 0xFFFFFFFF);
    expectTextRoundTrips(T::kF64, random());
  }
  for (uint64_t b : {0x00000001ull, 0x007FFFFFull, 0x00800000ull, 0x7F7FFFFFull, 0x80000001ull})
    expectTextRoundTrips(T::kF32, b);
  for (uint64_t b : {0x0000000000000001ull, 0x000FFFFFFFFFFFFFull, 0x0010000000000000ull,
                     0x7FEFFFFFFFFFFFFFull, 0x8000000000000001ull})
    expectTextRoundTrips(T::kF64, b);
}

}  // namespace
}  // namespace hlo
