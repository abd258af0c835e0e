// Tests for the seeded argument generator: the splitmix64 reference values,
// determinism, and the documented value ranges of every type category.
#include "interp/random_inputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "hlo/float_formats.h"
#include "parser/parser.h"

namespace hlo::interp {
namespace {

using T = ElementType;

TEST(RandomInputs, SplitMix64MatchesTheReferenceSequence) {
  // The first outputs of splitmix64 from state 0 (Vigna's splitmix64.c).
  uint64_t state = 0;
  EXPECT_EQ(splitMix64(state), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitMix64(state), 0x6e789e6aa1b965f4ULL);
  EXPECT_EQ(splitMix64(state), 0x06c45d188009454fULL);
}

TEST(RandomInputs, FastBf16RoundingAgreesWithTheGeneralEncoder) {
  // Doubles on the generator's grid (2u - 1, u with 53 random bits), plus
  // hand-picked ties. bf16's step in [0.5, 1) is 2^-8: 0.5 + 2^-9 lies halfway
  // between 0.5 (0x3f00) and 0.5 + 2^-8 (0x3f01) and goes to the even one;
  // 0.5 + 3 * 2^-9 lies halfway between 0x3f01 and 0x3f02 and goes up.
  uint64_t state = 7;
  for (int i = 0; i < 1000000; ++i) {
    double v = 2 * (static_cast<double>(splitMix64(state) >> 11) * 0x1p-53) - 1;
    ASSERT_EQ(bf16FromUnitDouble(v), encodeSmallFloat(T::kBF16, v)) << v;
  }
  EXPECT_EQ(bf16FromUnitDouble(0.5 * (1 + 0x1p-8)), 0x3f00);        // 0.5 exactly
  EXPECT_EQ(bf16FromUnitDouble(0.5 * (1 + 3 * 0x1p-8)), 0x3f02);    // up to even
  EXPECT_EQ(bf16FromUnitDouble(-0.5 * (1 + 0x1p-8 + 0x1p-40)), 0xbf01);  // above the tie
  EXPECT_EQ(bf16FromUnitDouble(0.0), 0);
}

TEST(RandomInputs, SameSeedAndStreamGiveTheSameValues) {
  Shape shape(T::kF32, {64});
  EXPECT_TRUE(randomLiteral(shape, 0, 0) == randomLiteral(shape, 0, 0));
  EXPECT_FALSE(randomLiteral(shape, 0, 0) == randomLiteral(shape, 1, 0));
  EXPECT_FALSE(randomLiteral(shape, 0, 0) == randomLiteral(shape, 0, 1));
}

TEST(RandomInputs, ParameterValuesDependOnlyOnSeedAndIndex) {
  auto module = parseModule(
      "ENTRY e { a = f32[8] parameter(0)\n b = s32[8] parameter(1)\n"
      " ROOT t = (f32[8], s32[8]) tuple(a, b) }");
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::vector<Literal> args = randomArguments(*(*module)->entry(), 42);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_TRUE(args[0] == randomLiteral(Shape(T::kF32, {8}), 42, 0));
  EXPECT_TRUE(args[1] == randomLiteral(Shape(T::kS32, {8}), 42, 1));
}

TEST(RandomInputs, DynamicSizesFitTheirBounds) {
  // n sizes dimension 0 of x (bound 3): over many seeds it takes every value
  // in [0, 3] and nothing else. a and b size a dynamic-reshape: their
  // dimensions' bounds, 2 and 3. m is also an s32 scalar, but no size.
  auto module = parseModule(
      "ENTRY e { x = f32[3] parameter(0)\n n = s32[] parameter(1)\n a = s32[] parameter(2)\n"
      " b = s32[] parameter(3)\n m = s32[] parameter(4)\n"
      " d = f32[<=3] set-dimension-size(x, n), dimensions={0}\n"
      " y = f32[6] parameter(5)\n r = f32[<=2,<=3] dynamic-reshape(y, a, b)\n"
      " ROOT t = (f32[<=3], f32[<=2,<=3], s32[]) tuple(d, r, m) }");
  ASSERT_TRUE(module.ok()) << module.status().message();
  std::set<int64_t> sizes;
  bool mOutside = false;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    std::vector<Literal> args = randomArguments(*(*module)->entry(), seed);
    sizes.insert(static_cast<int64_t>(args[1].toDouble(0)));
    EXPECT_EQ(args[2].toDouble(0), 2);
    EXPECT_EQ(args[3].toDouble(0), 3);
    EXPECT_TRUE(args[4] == randomLiteral(Shape(T::kS32, {}), seed, 4));
    mOutside = mOutside || args[4].toDouble(0) < 0 || args[4].toDouble(0) > 3;
  }
  EXPECT_EQ(sizes, (std::set<int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE(mOutside);
}

// Every element of a random array of type `t`, as doubles.
std::vector<double> values(T t, int64_t n = 4000, uint64_t seed = 7) {
  Literal lit = randomLiteral(Shape(t, {n}), seed, 3);
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(lit.toDouble(i));
  return out;
}

TEST(RandomInputs, FloatsAreUniformInMinusOneToOne) {
  for (T t : {T::kF64, T::kF32, T::kF16, T::kBF16, T::kF8E4M3FN, T::kF8E5M2, T::kF8E4M3B11FNUZ,
              T::kF8E3M4, T::kF4E2M1FN}) {
    std::vector<double> v = values(t);
    double sum = 0, lo = 1, hi = -1;
    for (double x : v) {
      ASSERT_TRUE(x >= -1 && x <= 1) << elementTypeName(t) << " " << x;
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    EXPECT_LT(std::abs(sum / v.size()), 0.05) << elementTypeName(t);
    EXPECT_LT(lo, -0.9) << elementTypeName(t);
    EXPECT_GT(hi, 0.9) << elementTypeName(t);
  }
  // Only the widest types cannot round up to 1.
  for (double x : values(T::kF32)) EXPECT_LT(x, 1);
  // f8e8m0fnu: powers of two in [0.5, 2].
  std::set<double> e8m0;
  for (double x : values(T::kF8E8M0FNU)) e8m0.insert(x);
  EXPECT_EQ(e8m0, (std::set<double>{0.5, 1, 2}));
}

TEST(RandomInputs, IntegersAndPredAreSmall) {
  struct Range {
    T type;
    double lo, hi;
  };
  for (Range r : {Range{T::kS2, -2, 1}, Range{T::kS4, -8, 7}, Range{T::kS8, -8, 8},
                  Range{T::kS64, -8, 8}, Range{T::kU2, 0, 3}, Range{T::kU4, 0, 8},
                  Range{T::kU32, 0, 8}, Range{T::kPred, 0, 1}}) {
    std::set<double> seen;
    for (double x : values(r.type)) seen.insert(x);
    // Every value of the range, and nothing else.
    EXPECT_EQ(seen.size(), static_cast<size_t>(r.hi - r.lo + 1)) << elementTypeName(r.type);
    EXPECT_EQ(*seen.begin(), r.lo) << elementTypeName(r.type);
    EXPECT_EQ(*seen.rbegin(), r.hi) << elementTypeName(r.type);
  }
  // s4 is stored sign-extended, as Literal requires.
  Literal s4 = randomLiteral(Shape(T::kS4, {100}), 0, 0);
  for (int64_t i = 0; i < 100; ++i) {
    uint64_t bits = s4.bitsAt(i);
    EXPECT_TRUE(bits <= 7 || bits >= 0xf8) << bits;
  }
}

TEST(RandomInputs, ComplexTuplesAndTokens) {
  auto shape = parseShape("(c64[3], (token[], pred[2]), c128[])");
  ASSERT_TRUE(shape.ok());
  Literal lit = randomLiteral(*shape, 1, 2);
  EXPECT_EQ(lit.shape(), *shape);
  const Literal& c = lit.tupleElements()[0];
  for (int64_t i = 0; i < 3; ++i) {
    std::complex<double> z = c.toComplex(i);
    EXPECT_TRUE(std::abs(z.real()) <= 1 && std::abs(z.imag()) <= 1);
    EXPECT_NE(z.real(), z.imag());
  }
}

}  // namespace
}  // namespace hlo::interp
