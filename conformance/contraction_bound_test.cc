// The rounding bound of float contractions: which result arrays it covers,
// the K it uses, and the allowance worked out by hand.
#include "conformance/contraction_bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parser/parser.h"

namespace hlo::conformance {
namespace {

std::unique_ptr<Module> parse(const char* text) {
  auto m = parseModule(text);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

Literal literal(const char* text) {
  auto v = parseLiteral(text);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? std::move(*v) : Literal();
}

TEST(ContractionBound, SourcesFollowDataMovementOnly) {
  auto m = parse(R"(
HloModule m
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[3,2] parameter(1)
  d = f32[2,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[2,2] transpose(d), dimensions={1,0}
  r = f32[4] reshape(t)
  w = f64[4] convert(r)
  s = f32[2,2] add(d, d)
  ai = s32[2,3] parameter(2)
  bi = s32[3,2] parameter(3)
  di = s32[2,2] dot(ai, bi), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  k = f32[1,5,5,4] parameter(4)
  f = f32[3,3,4,8] parameter(5)
  c = f32[1,3,3,8] convolution(k, f), window={size=3x3}, dim_labels=b01f_01io->b01f
  ROOT out = (f64[4], f32[2,2], s32[2,2], f32[1,3,3,8], f32[2,2]) tuple(w, s, di, c, d)
})");
  ASSERT_TRUE(m);
  std::vector<ContractionSource> sources = contractionSources(*m);
  ASSERT_EQ(sources.size(), 5u);
  ASSERT_NE(sources[0].contraction, nullptr);
  EXPECT_EQ(sources[0].contraction->name(), "d");  // through transpose, reshape, convert
  EXPECT_EQ(sources[0].terms, 3);
  EXPECT_EQ(sources[1].contraction, nullptr);  // arithmetic on the dot
  EXPECT_EQ(sources[2].contraction, nullptr);  // integers sum exactly
  ASSERT_NE(sources[3].contraction, nullptr);
  EXPECT_EQ(sources[3].terms, 3 * 3 * 4);  // window by input features
  EXPECT_EQ(sources[4].contraction, sources[0].contraction);
}

TEST(ContractionBound, AllowanceIsKPlusEightUlpsOfTheAbsoluteSum) {
  // A [1, 3] x [3, 2] dot, then `root` on it.
  auto withRoot = [](const std::string& root) {
    return parse((R"(
HloModule m
ENTRY e {
  a = f32[1,3] parameter(0)
  b = f32[3,2] parameter(1)
  d = f32[1,2] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT )" + root + "\n}\n").c_str());
  };
  auto m = withRoot("n = f32[1,2] negate(d)");
  ASSERT_TRUE(m);
  std::vector<Literal> args;
  args.push_back(literal("f32[1,3] {{1, -2, 3}}"));
  args.push_back(literal("f32[3,2] {{4, -1}, {5, 0.5}, {-6, 2}}"));
  // The root negates: no result array is a contraction's values.
  auto none = contractionAllowance(*m, args, {});
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->has_value());

  auto moved = withRoot("r = f32[2] reshape(d)");
  ASSERT_TRUE(moved);
  auto allowance = contractionAllowance(*moved, args, {});
  ASSERT_TRUE(allowance.ok()) << allowance.status().message();
  ASSERT_TRUE(allowance->has_value());
  ASSERT_EQ((*allowance)->size(), 1u);
  const std::vector<double>& bound = (**allowance)[0];
  ASSERT_EQ(bound.size(), 2u);
  // Σ|a_k·b_kj|: 4 + 10 + 18 = 32 and 1 + 1 + 6 = 8, times (3 + 8)·2^-24.
  const double unit = 11 * std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(bound[0], 32 * unit);
  EXPECT_DOUBLE_EQ(bound[1], 8 * unit);
}

TEST(ContractionBound, ComparisonAllowsTheBoundAndNoMore) {
  // An error inside the allowance passes and one outside fails, on top of
  // f32's own tolerance (1e-5 + 1e-4·|e|); the allowance is per element.
  Literal expected = literal("f32[2] {0.001, 0.001}");
  const double f32Tolerance = 1e-5 + 1e-4 * 0.001;
  ElementAllowance allowance = {{1e-4, 0}};
  Literal inside = literal("f32[2] {0.00109, 0.001}");
  Literal outside = literal("f32[2] {0.00112, 0.001}");
  Literal secondOff = literal("f32[2] {0.001, 0.00109}");
  ASSERT_LT(0.00109 - 0.001, 1e-4 + f32Tolerance);
  ASSERT_GT(0.00112 - 0.001, 1e-4 + f32Tolerance);
  EXPECT_FALSE(compareWithTypeTolerances(inside, expected).equal);
  EXPECT_TRUE(compareWithTypeTolerances(inside, expected, {}, &allowance).equal);
  EXPECT_FALSE(compareWithTypeTolerances(outside, expected, {}, &allowance).equal);
  EXPECT_FALSE(compareWithTypeTolerances(secondOff, expected, {}, &allowance).equal);

  // In a tuple, each top-level element has its own (here the second).
  Literal expectedPair = literal("(f32[2] {0.001, 0.001}, f32[2] {0.001, 0.001})");
  Literal insidePair = literal("(f32[2] {0.001, 0.001}, f32[2] {0.00109, 0.001})");
  Literal wrongElement = literal("(f32[2] {0.00109, 0.001}, f32[2] {0.001, 0.001})");
  ElementAllowance second = {{}, {1e-4, 0}};
  EXPECT_TRUE(compareWithTypeTolerances(insidePair, expectedPair, {}, &second).equal);
  EXPECT_FALSE(compareWithTypeTolerances(wrongElement, expectedPair, {}, &second).equal);
}

}  // namespace
}  // namespace hlo::conformance
