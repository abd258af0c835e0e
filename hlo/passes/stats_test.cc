// Tests for module statistics: the traffic model of stats.h, fusion sizes
// and the elementwise-heavy rule, with expectations counted by hand.
#include "hlo/passes/stats.h"

#include <gtest/gtest.h>

#include "parser/parse_or_fail.h"

namespace hlo {
namespace {

std::unique_ptr<Module> parse(const char* text) { return parseOrFail(text); }

TEST(ModuleStatsTest, KernelsReadDistinctOperandsAndWriteTheirResult) {
  // add reads x (64 bytes) once although it names it twice, writes 64;
  // reduce reads a (64) and the init (4), writes 4. Parameters, constants,
  // the bitcast and the tuple move nothing.
  auto m = parse(R"(
HloModule m
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[16]) -> (f32[4,4], f32[]) {
  %x = f32[16] parameter(0)
  %a = f32[16] add(%x, %x)
  %zero = f32[] constant(0)
  %r = f32[] reduce(%a, %zero), dimensions={0}, to_apply=%sum
  %bc = f32[4,4] bitcast(%a)
  ROOT %t = (f32[4,4], f32[]) tuple(%bc, %r)
})");
  ModuleStats s = moduleStats(*m);
  EXPECT_EQ(s.computations, 2);
  EXPECT_EQ(s.instructions, 9);
  EXPECT_EQ(s.perOpcode["parameter"], 3);
  EXPECT_EQ(s.bytesRead, 64 + 68);
  EXPECT_EQ(s.bytesWritten, 64 + 4);
  EXPECT_EQ(s.programInstructions, 6);  // the reducer is not a program
  EXPECT_EQ(s.elementwise, 1);
  EXPECT_FALSE(elementwiseHeavy(s));
  EXPECT_TRUE(s.fusionSizes.empty());
  // a (64) and r (4, one 64-byte unit) are live together at r's step.
  EXPECT_EQ(s.peakBytes, 128);
  EXPECT_EQ(s.noReuseBytes, 128);
}

TEST(ModuleStatsTest, AFusionIsOneKernelAndCountsItsInstructions) {
  // Unfused, the chain moves 64+64 (negate) and 64+64 (exponential); fused
  // it reads x once and writes once: 128 bytes.
  auto m = parse(R"(
HloModule m
%fused (p: f32[16]) -> f32[16] {
  %p = f32[16] parameter(0)
  %n = f32[16] negate(%p)
  ROOT %e = f32[16] exponential(%n)
}
ENTRY %main (x: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  ROOT %f = f32[16] fusion(%x), kind=kLoop, calls=%fused
})");
  ModuleStats s = moduleStats(*m);
  ASSERT_EQ(s.fusionSizes.size(), 1u);
  EXPECT_EQ(s.fusionSizes[0], 2);
  EXPECT_EQ(s.bytesRead + s.bytesWritten, 128);
  EXPECT_EQ(s.programInstructions, 2);
  std::string table = formatStats("m", s, s);
  EXPECT_NE(table.find("of 2 instructions"), std::string::npos) << table;
}

TEST(ModuleStatsTest, ElementwiseHeavyIsHalfOrMoreAndAtLeastTwo) {
  // Two elementwise ops of four program instructions: heavy.
  auto two = parse(R"(
HloModule m
ENTRY %main (x: f32[16], y: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  %y = f32[16] parameter(1)
  %a = f32[16] add(%x, %y)
  ROOT %n = f32[16] negate(%a)
})");
  ModuleStats s = moduleStats(*two);
  EXPECT_EQ(s.elementwise, 2);
  EXPECT_EQ(s.programInstructions, 4);
  EXPECT_TRUE(elementwiseHeavy(s));
  // One of two: half, but nothing to fuse it with.
  auto one = parse(R"(
HloModule m
ENTRY %main (x: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  ROOT %n = f32[16] negate(%x)
})");
  EXPECT_FALSE(elementwiseHeavy(moduleStats(*one)));
  // Two of five: less than half.
  auto few = parse(R"(
HloModule m
ENTRY %main (x: f32[16], y: f32[16], z: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  %y = f32[16] parameter(1)
  %z = f32[16] parameter(2)
  %a = f32[16] add(%x, %y)
  ROOT %n = f32[16] negate(%a)
})");
  EXPECT_FALSE(elementwiseHeavy(moduleStats(*few)));
}

TEST(ModuleStatsTest, WhileBodiesAreCountedOnce) {
  // The body's negate moves 64+64; the while itself moves nothing.
  auto m = parse(R"(
HloModule m
%cond (c: f32[16]) -> pred[] {
  %c = f32[16] parameter(0)
  ROOT %f = pred[] constant(false)
}
%body (b: f32[16]) -> f32[16] {
  %b = f32[16] parameter(0)
  ROOT %n = f32[16] negate(%b)
}
ENTRY %main (x: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  ROOT %w = f32[16] while(%x), condition=%cond, body=%body
})");
  ModuleStats s = moduleStats(*m);
  EXPECT_EQ(s.bytesRead, 64);
  EXPECT_EQ(s.bytesWritten, 64);
  EXPECT_EQ(s.programInstructions, 6);
}

}  // namespace
}  // namespace hlo
