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
