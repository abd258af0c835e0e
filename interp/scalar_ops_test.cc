// Unit tests of the scalar semantics (interp/scalar_ops.h). Integer ops are
// checked exhaustively on the small types against plain mathematical
// definitions (exact arithmetic in int64, then reduced modulo 2^bits).
#include "hlo/reduce_precision.h"
#include "interp/scalar_ops.h"

#include <gtest/gtest.h>

#include "hlo/float_formats.h"
#include "interp/elementwise_kernels.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <vector>

namespace hlo::interp::scalar {
namespace {

using S4 = IntKind<int8_t, 4>;
using U4 = IntKind<uint8_t, 4>;
using S2 = IntKind<int8_t, 2>;
using S1 = IntKind<int8_t, 1>;
using U2 = IntKind<uint8_t, 2>;
using S8 = IntKind<int8_t, 8>;
using U8 = IntKind<uint8_t, 8>;
using S64 = IntKind<int64_t, 64>;
using U64 = IntKind<uint64_t, 64>;

// `v` reduced modulo 2^bits into [lo, lo + 2^bits).
int64_t reduce(int64_t v, int bits, bool isSigned) {
  int64_t m = int64_t{1} << bits;
  int64_t r = ((v % m) + m) % m;
  if (isSigned && r >= m / 2) r -= m;
  return r;
}

template <class K>
std::vector<int64_t> allValues() {
  std::vector<int64_t> out;
  for (int64_t v = K::min(); v <= static_cast<int64_t>(K::max()); ++v) out.push_back(v);
  return out;
}

TEST(IntKind, RangesAndWrap) {
  EXPECT_EQ(S4::min(), -8);
  EXPECT_EQ(S4::max(), 7);
  EXPECT_EQ(U4::max(), 15);
  EXPECT_EQ(S2::min(), -2);
  EXPECT_EQ(S2::max(), 1);
  EXPECT_EQ(S64::min(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(U64::max(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(S4::wrap(8), -8);
  EXPECT_EQ(S4::wrap(0x1f), -1);
  EXPECT_EQ(U4::wrap(17), 1);
  EXPECT_EQ(S4::bits(-1), 0xfu);
  EXPECT_EQ(U8::asSigned(0x80), -128);
}

template <class K>
void checkArithmetic() {
  constexpr int bits = K::kBits;
  constexpr bool sgn = K::kSigned;
  for (int64_t a : allValues<K>()) {
    for (int64_t b : allValues<K>()) {
      auto x = static_cast<V<K>>(a), y = static_cast<V<K>>(b);
      SCOPED_TRACE(testing::Message() << a << " and " << b);
      EXPECT_EQ(Add::apply<K>(x, y), reduce(a + b, bits, sgn));
      EXPECT_EQ(Subtract::apply<K>(x, y), reduce(a - b, bits, sgn));
      EXPECT_EQ(Multiply::apply<K>(x, y), reduce(a * b, bits, sgn));
      // Division: XLA's rules where C++ is undefined.
      int64_t quotient = b == 0 ? reduce(-1, bits, sgn) : reduce(a / b, bits, sgn);
      int64_t remainder = b == 0 ? a : (sgn && a == K::min() && b == -1) ? 0 : a % b;
      EXPECT_EQ(Divide::apply<K>(x, y), quotient);
      EXPECT_EQ(Remainder::apply<K>(x, y), remainder);
      // The high half of the exact product: floor(a * b / 2^bits).
      int64_t product = a * b;
      int64_t scale = int64_t{1} << bits;
      int64_t high = product >= 0 ? product / scale : -((-product + scale - 1) / scale);
      EXPECT_EQ(Mulhi::apply<K>(x, y), reduce(high, bits, sgn));
      // Shifts by an amount read as unsigned; out of range gives 0 or the sign.
      uint64_t n = static_cast<uint64_t>(reduce(b, bits, false));
      int64_t asSigned = reduce(a, bits, true);
      int64_t asUnsigned = reduce(a, bits, false);
      bool in = n < static_cast<uint64_t>(bits);
      EXPECT_EQ(ShiftLeft::apply<K>(x, y), in ? reduce(a * (int64_t{1} << n), bits, sgn) : 0);
      EXPECT_EQ(ShiftRightLogical::apply<K>(x, y), in ? reduce(asUnsigned >> n, bits, sgn) : 0);
      int64_t arithmetic = in ? asSigned >> n : (asSigned < 0 ? -1 : 0);
      EXPECT_EQ(ShiftRightArithmetic::apply<K>(x, y), reduce(arithmetic, bits, sgn));
      // Integer power by repeated multiplication of exact values.
      int64_t power = 1;
      if (a == 1 || b == 0) power = 1;
      else if (b < 0) power = a == -1 ? (b % 2 ? -1 : 1) : 0;  // 1 / a^-b, truncated
      else for (int64_t i = 0; i < b; ++i) power = reduce(power * a, bits, sgn);
      EXPECT_EQ(Power::apply<K>(x, y), power);
    }
  }
}

TEST(IntOps, ExhaustiveS4) { checkArithmetic<S4>(); }
TEST(IntOps, ExhaustiveU4) { checkArithmetic<U4>(); }
TEST(IntOps, ExhaustiveS2) { checkArithmetic<S2>(); }
TEST(IntOps, ExhaustiveS8) { checkArithmetic<S8>(); }
TEST(IntOps, ExhaustiveU8) { checkArithmetic<U8>(); }

TEST(IntOps, UnaryOnS4) {
  for (int64_t a : allValues<S4>()) {
    auto x = static_cast<int8_t>(a);
    EXPECT_EQ(Negate::apply<S4>(x), reduce(-a, 4, true));
    EXPECT_EQ(Abs::apply<S4>(x), reduce(a < 0 ? -a : a, 4, true));
    EXPECT_EQ(Not::apply<S4>(x), reduce(-a - 1, 4, true));
    EXPECT_EQ(Sign::apply<S4>(x), (a > 0) - (a < 0));
    uint64_t bits = static_cast<uint64_t>(reduce(a, 4, false));
    EXPECT_EQ(PopulationCount::apply<S4>(x), std::popcount(bits));
    EXPECT_EQ(Clz::apply<S4>(x), 4 - std::bit_width(bits));
  }
}

// A count wider than the type wraps: clz(s2 0) = 2 = 0b10 is -2 in s2, and
// clz(s1 0) = 1 is the bit 1, -1 in s1; popcnt(s2 -1 = 0b11) = 2 is -2.
TEST(IntOps, CountsWrapInNarrowSignedTypes) {
  EXPECT_EQ(Clz::apply<S2>(0), -2);
  EXPECT_EQ(Clz::apply<S2>(1), 1);
  EXPECT_EQ(Clz::apply<S1>(0), -1);
  EXPECT_EQ(Clz::apply<S1>(-1), 0);
  EXPECT_EQ(PopulationCount::apply<S2>(-1), -2);
  EXPECT_EQ(PopulationCount::apply<S2>(-2), 1);
  EXPECT_EQ(PopulationCount::apply<S1>(-1), -1);
  EXPECT_EQ(Clz::apply<U2>(0), 2);
  // x^0 = 1, which s1 holds as its bit 1: -1.
  EXPECT_EQ(Power::apply<S1>(0, 0), -1);
  EXPECT_EQ(Power::apply<S1>(-1, 0), -1);
  EXPECT_EQ(Power::apply<S1>(-1, -1), -1);
}

TEST(IntOps, SixtyFourBitEdges) {
  int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Divide::apply<S64>(min, -1), min);
  EXPECT_EQ(Remainder::apply<S64>(min, -1), 0);
  EXPECT_EQ(Divide::apply<U64>(5, 0), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(Mulhi::apply<S64>(min, min), int64_t{1} << 62);
  EXPECT_EQ(Mulhi::apply<U64>(~uint64_t{0}, ~uint64_t{0}), ~uint64_t{0} - 1);
  EXPECT_EQ(ShiftRightArithmetic::apply<S64>(min, 64), -1);
  EXPECT_EQ(ShiftLeft::apply<U64>(1, 63), uint64_t{1} << 63);
  EXPECT_EQ(Negate::apply<S64>(min), min);
}

TEST(FloatOps, MaximumMinimumTies) {
  using F = FloatKind<float>;
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::signbit(Maximum::apply<F>(-0.0f, 0.0f)));
  EXPECT_FALSE(std::signbit(Maximum::apply<F>(0.0f, -0.0f)));
  EXPECT_TRUE(std::signbit(Minimum::apply<F>(-0.0f, 0.0f)));
  EXPECT_TRUE(std::isnan(Maximum::apply<F>(1.0f, nan)));
  EXPECT_TRUE(std::isnan(Minimum::apply<F>(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(Clamp::apply<F>(0.0f, nan, 1.0f)));
  EXPECT_EQ(Clamp::apply<F>(0.0f, 2.0f, 1.0f), 1.0f);
}

TEST(FloatOps, Sign) {
  using F = FloatKind<double>;
  EXPECT_EQ(Sign::apply<F>(-3.0), -1.0);
  EXPECT_TRUE(std::signbit(Sign::apply<F>(-0.0)));
  EXPECT_TRUE(std::isnan(Sign::apply<F>(std::nan(""))));
}

TEST(Comparison, TotalOrderSortsBitPatterns) {
  // Sorted by total order: -NaN, -inf, -1, -min subnormal, -0, +0, ..., NaN.
  std::vector<uint32_t> sorted = {0xffc00000, 0xff800000, 0xbf800000, 0x80000001,
                                  0x80000000, 0x00000000, 0x00000001, 0x3f800000,
                                  0x7f800000, 0x7fc00000};
  for (size_t i = 0; i + 1 < sorted.size(); ++i)
    EXPECT_LT(totalOrderKey(sorted[i], 32), totalOrderKey(sorted[i + 1], 32)) << i;
  // f4e2m1fn (4 bits): -6 (0xf) < -0 (0x8) < 0 < 6 (0x7).
  EXPECT_LT(totalOrderKey(0xf, 4), totalOrderKey(0x8, 4));
  EXPECT_LT(totalOrderKey(0x8, 4), totalOrderKey(0x0, 4));
  EXPECT_LT(totalOrderKey(0x0, 4), totalOrderKey(0x7, 4));
  // f8e8m0fnu has no sign bit: 0x80 (2) sorts above 0x7f (1).
  EXPECT_LT(totalOrderKey(0x7f, 8, false), totalOrderKey(0x80, 8, false));
  EXPECT_EQ(defaultComparisonType(ElementType::kU8), ComparisonType::kUnsigned);
  EXPECT_EQ(defaultComparisonType(ElementType::kPred), ComparisonType::kUnsigned);
  EXPECT_EQ(defaultComparisonType(ElementType::kS4), ComparisonType::kSigned);
  EXPECT_EQ(defaultComparisonType(ElementType::kBF16), ComparisonType::kFloat);
}

TEST(Conversion, FloatToIntSaturates) {
  EXPECT_EQ(floatToInt<S4>(7.9), 7);
  EXPECT_EQ(floatToInt<S4>(-8.5), -8);
  EXPECT_EQ(floatToInt<U4>(-0.5), 0);
  EXPECT_EQ(floatToInt<S64>(9.3e18), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(floatToInt<U64>(1.8446744073709552e19), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(floatToInt<S8>(std::nan("")), 0);
  EXPECT_EQ(floatToInt<S8>(-1.99), -1);
}

TEST(Conversion, StochasticRound) {
  // 2.25 rounds up exactly when random < 0.25 * 2^8 = 64.
  EXPECT_EQ(stochasticRound<S8>(2.25, 63, 8), 3);
  EXPECT_EQ(stochasticRound<S8>(2.25, 64, 8), 2);
  EXPECT_EQ(stochasticRound<S8>(-2.25, 0, 8), -3);
  EXPECT_EQ(stochasticRound<S8>(-127.5, 0, 8), -128);
  EXPECT_EQ(stochasticRound<S8>(1000, 0, 8), 127);
  EXPECT_EQ(stochasticRound<S8>(std::nan(""), 0, 8), 0);
  EXPECT_EQ(stochasticRound<S8>(5, 0, 8), 5);
}

uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
float reduceF32(float f, int e, int m) {
  return std::bit_cast<float>(static_cast<uint32_t>(hlo::reducePrecisionBits(bitsOf(f), 8, 23, e, m)));
}

TEST(ReducePrecision, F32) {
  // To bf16 widths: ties to even on the kept mantissa.
  EXPECT_EQ(reduceF32(1.00390625f, 8, 7), 1.0f);
  EXPECT_EQ(reduceF32(1.01171875f, 8, 7), 1.015625f);
  // Identity at f32's own widths, NaN payloads included.
  EXPECT_EQ(hlo::reducePrecisionBits(0x7fc00123, 8, 23, 8, 23), 0x7fc00123u);
  EXPECT_EQ(hlo::reducePrecisionBits(0x00000001, 8, 23, 8, 23), 0x00000001u);
  // A NaN whose payload would round away stays the input NaN.
  EXPECT_EQ(hlo::reducePrecisionBits(0x7f800001, 8, 23, 8, 7), 0x7f800001u);
  // To f16 widths: overflow to inf, flush below the normal range.
  EXPECT_TRUE(std::isinf(reduceF32(65520.0f, 5, 10)));
  EXPECT_EQ(reduceF32(65504.0f, 5, 10), 65504.0f);
  EXPECT_EQ(reduceF32(std::ldexp(1.0f, -15), 5, 10), 0.0f);
  EXPECT_TRUE(std::signbit(reduceF32(-1e-6f, 5, 10)));
  // One exponent bit keeps only the bias exponent's neighbourhood: all zero or inf.
  EXPECT_EQ(reduceF32(1.0f, 1, 23), 0.0f);
  EXPECT_TRUE(std::isinf(reduceF32(2.0f, 1, 23)));
}

// The bit-twiddling bf16 store rounds exactly as the table-driven encoder.
TEST(Elem, Bf16StoreMatchesEncoder) {
  using Bf16 = SmallFloatElem<ElementType::kBF16, uint16_t>;
  for (uint64_t bits = 0; bits <= 0xffffffff; bits += 65521) {  // a prime step
    for (uint32_t low : {0u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) {
      float v = std::bit_cast<float>(static_cast<uint32_t>((bits & 0xffff0000) | low));
      uint32_t want = encodeSmallFloat(ElementType::kBF16, v);
      uint16_t got = Bf16::store(v);
      if (std::isnan(v)) {
        EXPECT_EQ(got & 0x7fc0, 0x7fc0);
        EXPECT_EQ(got & 0x8000, want & 0x8000);
      } else {
        ASSERT_EQ(got, want) << std::hex << std::bit_cast<uint32_t>(v);
      }
    }
  }
}

}  // namespace
}  // namespace hlo::interp::scalar
