// The bf16 fast path of reducers rounds exactly as encodeSmallFloat does.
#include "interp/fast_reducer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace hlo::interp {
namespace {

TEST(FastReducerTest, BF16RoundingMatchesEncodeSmallFloat) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<uint16_t> anyBits;
  auto check = [](double v) {
    ASSERT_EQ(BF16Domain::toBits(v), encodeSmallFloat(ElementType::kBF16, v)) << v;
  };
  // Sums and products of bf16 values (what a reducer computes), edge values.
  for (int i = 0; i < 200000; ++i) {
    double a = BF16Domain::fromBits(anyBits(rng)), b = BF16Domain::fromBits(anyBits(rng));
    if (std::isnan(a) || std::isnan(b)) continue;
    check(a + b);
    check(a * b);
    check(a);
  }
  const double max = std::numeric_limits<float>::max();
  for (double v : {0.0, -0.0, 1.0, -1.0, max, -max, 3.3895313892515355e38, 3.3961775292304256e38,
                   std::numeric_limits<double>::infinity(), 1e-45, 1e-39, 9.2e-41, 1.0 + 1.0 / 256,
                   1.0 + 3.0 / 256, 1.0 + 1.0 / 512})
    check(v);
}

}  // namespace
}  // namespace hlo::interp
