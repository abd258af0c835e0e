// The reducer (conformance/reducer.h) with tests given in-process: each
// result below is worked out by hand from the edits it may make.
#include "conformance/reducer.h"

#include <gtest/gtest.h>

#include "hlo/printer.h"
#include "parser/parse_or_fail.h"

namespace hlo::conformance {
namespace {

constexpr const char* kChain = R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] add(x, y)
  b = f32[4] multiply(a, a)
  c = f32[4] cosine(b)
  d = f32[4] sine(c)
  ROOT t = (f32[4], f32[4]) tuple(d, a)
}
)";

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// `text` reduced with a test that holds while the module text holds `needle`.
StatusOr<ReduceResult> reduceKeeping(const char* text, const std::string& needle) {
  auto module = parseOrFail(text);
  ReduceOptions options;
  options.interesting = [needle](const std::string& candidate) { return contains(candidate, needle); };
  return reduceModule(*module, options);
}

TEST(Reducer, KeepsOnlyWhatTheTestNeeds) {
  auto reduced = reduceKeeping(kChain, "cosine(");
  ASSERT_TRUE(reduced.ok()) << reduced.status().message();
  // The root becomes the sine, which becomes its operand; the multiply and
  // the add become x; y, read by nothing, goes: cosine of a parameter.
  EXPECT_EQ(reduced->instructionsBefore, 7);
  EXPECT_EQ(reduced->instructionsAfter, 2);
  std::string text = printModule(*reduced->module);
  EXPECT_TRUE(contains(text, "cosine(")) << text;
  EXPECT_TRUE(contains(text, "parameter(0)")) << text;
  EXPECT_FALSE(contains(text, "parameter(1)")) << text;
}

TEST(Reducer, SeveralJobsGiveWhatOneGives) {
  // The same test, candidates judged 1, 3 and 8 at a time: the first
  // interesting candidate in the edits' order is kept either way, so each
  // gives the cosine of a parameter, the result of one job.
  auto module = parseOrFail(kChain);
  auto holdsCosine = [](const std::string& candidate) { return contains(candidate, "cosine("); };
  std::vector<std::string> results;
  for (int jobs : {1, 3, 8}) {
    ReduceOptions options;
    options.jobs = jobs;
    options.interesting = holdsCosine;
    int batches = 0;
    options.interestingEach = [&](const std::vector<std::string>& texts) {
      EXPECT_LE(static_cast<int>(texts.size()), jobs);
      ++batches;
      std::vector<bool> verdicts;
      for (const std::string& t : texts) verdicts.push_back(holdsCosine(t));
      return verdicts;
    };
    auto reduced = reduceModule(*module, options);
    ASSERT_TRUE(reduced.ok()) << reduced.status().message();
    EXPECT_EQ(reduced->instructionsAfter, 2);
    EXPECT_EQ(batches > 0, jobs > 1);
    results.push_back(printModule(*reduced->module));
  }
  EXPECT_EQ(results[1], results[0]);
  EXPECT_EQ(results[2], results[0]);
}

TEST(Reducer, ZerosCutWhatFeedsAnOperandOfAnotherShape) {
  // The reshape's operand has another shape: replaced by zeros (a constant
  // and its broadcast), it leaves the multiply and w unread, and they go.
  auto reduced = reduceKeeping(R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  w = f32[2,4] parameter(0)
  m = f32[2,4] multiply(w, w)
  e = f32[8] reshape(m)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(e, z), dimensions={0}, to_apply=add
}
)",
                               "reduce(");
  ASSERT_TRUE(reduced.ok()) << reduced.status().message();
  std::string text = printModule(*reduced->module);
  EXPECT_TRUE(contains(text, "broadcast(")) << text;
  EXPECT_FALSE(contains(text, "multiply")) << text;
  EXPECT_FALSE(contains(text, "reshape")) << text;
  EXPECT_FALSE(contains(text, "f32[2,4]")) << text;
}

TEST(Reducer, OpensFusions) {
  // Inside the fusion the add becomes p0; the fusion then becomes its
  // computation's instructions, inlined; y goes: cosine of a parameter.
  auto reduced = reduceKeeping(R"(HloModule m
fused {
  p0 = f32[4] parameter(0)
  p1 = f32[4] parameter(1)
  a = f32[4] add(p0, p1)
  ROOT c = f32[4] cosine(a)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT f = f32[4] fusion(x, y), kind=kLoop, calls=fused
}
)",
                               "cosine(");
  ASSERT_TRUE(reduced.ok()) << reduced.status().message();
  EXPECT_EQ(reduced->instructionsAfter, 2);
  std::string text = printModule(*reduced->module);
  EXPECT_FALSE(contains(text, "fusion")) << text;
  EXPECT_FALSE(contains(text, "parameter(1)")) << text;
}

TEST(Reducer, DropsElementsOfTheResultTuple) {
  // The test needs a tuple: the root cannot become one of its operands (no
  // tuple would be left), so its elements go one by one down to one.
  auto reduced = reduceKeeping(R"(HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] add(x, y)
  c = f32[4] cosine(x)
  s = f32[4] sine(a)
  ROOT t = (f32[4], f32[4], f32[4]) tuple(a, c, s)
}
)", "tuple(");
  ASSERT_TRUE(reduced.ok()) << reduced.status().message();
  std::string text = printModule(*reduced->module);
  // The last element, the sine, becomes its operand and that its operand
  // x: a tuple of the parameter.
  EXPECT_EQ(reduced->instructionsAfter, 2) << text;
  EXPECT_TRUE(contains(text, "(f32[4]) tuple(")) << text;
}

TEST(Reducer, ConditionalBecomesTheBranchTheTestNeeds) {
  // Branch 1 (the false one) computes the cosine: the conditional becomes
  // a call of it, inlined; the selector and branch 0 go. Left: the
  // parameter and its cosine.
  auto reduced = reduceKeeping(R"(HloModule m
on_true {
  a = f32[4] parameter(0)
  ROOT s = f32[4] sine(a)
}
on_false {
  b = f32[4] parameter(0)
  ROOT c = f32[4] cosine(b)
}
ENTRY e {
  p = pred[] parameter(0)
  x = f32[4] parameter(1)
  ROOT r = f32[4] conditional(p, x, x), true_computation=on_true, false_computation=on_false
}
)", "cosine(");
  ASSERT_TRUE(reduced.ok()) << reduced.status().message();
  std::string text = printModule(*reduced->module);
  EXPECT_EQ(reduced->instructionsAfter, 2) << text;
  EXPECT_FALSE(contains(text, "conditional(")) << text;
  EXPECT_FALSE(contains(text, " sine(")) << text;
}

TEST(Reducer, ConstantsBecomeZeros) {
  // The add must stay: its constant operand's values become zeros.
  auto reduced = reduceKeeping(R"(HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  k = f32[3] constant({1.5, -2.25, 1e+30})
  ROOT a = f32[3] add(x, k)
}
)", "add(");
  ASSERT_TRUE(reduced.ok()) << reduced.status().message();
  std::string text = printModule(*reduced->module);
  EXPECT_EQ(reduced->instructionsAfter, 3) << text;
  EXPECT_TRUE(contains(text, "constant({0, 0, 0})")) << text;
}

TEST(Reducer, DropsMetadataAndHeaderAttributes) {
  // As many instructions either way, in less text: the source lines and the
  // header's attributes go.
  auto reduced = reduceKeeping(R"(HloModule m, allow_spmd_sharding_propagation_to_output={true}, num_partitions=1
ENTRY e {
  x = f32[4] parameter(0)
  ROOT c = f32[4] cosine(x), metadata={op_name="jit(f)/cos" source_file="f.py" source_line=3}
}
)", "cosine(");
  ASSERT_TRUE(reduced.ok()) << reduced.status().message();
  std::string text = printModule(*reduced->module);
  EXPECT_EQ(reduced->instructionsAfter, 2) << text;
  EXPECT_FALSE(contains(text, "metadata=")) << text;
  EXPECT_FALSE(contains(text, "allow_spmd")) << text;
  EXPECT_FALSE(contains(text, "num_partitions")) << text;
}

TEST(Reducer, RefusesAModuleTheTestDoesNotHoldFor) {
  auto module = parseOrFail(kChain);
  ReduceOptions options;
  options.interesting = [](const std::string&) { return false; };
  auto reduced = reduceModule(*module, options);
  ASSERT_FALSE(reduced.ok());
  EXPECT_EQ(reduced.status().message(), "reduce: the test does not hold for the module as given");
}

TEST(Reducer, StopsAfterMaxTests) {
  auto module = parseOrFail(kChain);
  ReduceOptions options;
  int calls = 0;
  options.interesting = [&](const std::string& text) { return ++calls > 0 && contains(text, "cosine("); };
  options.maxTests = 3;
  auto reduced = reduceModule(*module, options);
  ASSERT_TRUE(reduced.ok());
  EXPECT_EQ(reduced->tests, 3);
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace hlo::conformance
