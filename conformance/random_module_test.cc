// The random modules of hlo-fuzz --generator=chains: valid, the same for the same seed, and
// between them reaching every construct the generator knows.
#include "conformance/random_module.h"

#include <gtest/gtest.h>

#include <string>

#include "hlo/verifier.h"
#include "parser/parser.h"

namespace hlo::conformance {
namespace {

TEST(RandomModule, EverySeedParsesAndVerifies) {
  for (uint64_t seed = 0; seed < 500; ++seed) {
    const std::string text = randomModule(seed);
    auto module = parseModule(text);
    ASSERT_TRUE(module.ok()) << "seed " << seed << ": " << module.status().message() << "\n" << text;
    Status verified = verify(**module);
    EXPECT_TRUE(verified.ok()) << "seed " << seed << ": " << verified.message() << "\n" << text;
  }
}

TEST(RandomModule, SameSeedSameModule) {
  EXPECT_EQ(randomModule(42), randomModule(42));
  EXPECT_NE(randomModule(42), randomModule(43));
}

TEST(RandomModule, ReachesEveryConstruct) {
  const char* const kConstructs[] = {" reduce(",  " select(",  " concatenate(", " transpose(", " convert(",
                                     " clamp(",   " reverse(", " compare(",     " broadcast(", "f32[",
                                     "bf16[",     "f16[",      "f64[",          "s8[",         "u32[",
                                     " power(",   " atan2(",   " exponential(", " remainder(", " shift-left(",
                                     " dot(",     " convolution(", " dynamic-slice(", " dynamic-update-slice(",
                                     " gather(",  " scatter(", " while(",       "branch_computations=",
                                     "true_computation=", ",0]" /* no elements */, " pad(", " sort(",
                                     " reduce-window(", " iota("};
  std::string all;
  for (uint64_t seed = 0; seed < 500; ++seed) all += randomModule(seed);
  for (const char* c : kConstructs) EXPECT_NE(all.find(c), std::string::npos) << c;
}

}  // namespace
}  // namespace hlo::conformance
