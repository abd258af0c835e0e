// Tests for buffer assignment. Every expected offset and size is worked out
// by hand from the algorithm in buffer_assignment.cc: f32[16] is 64 bytes,
// one alignment unit, and the steps are the instructions in written order.
#include "hlo/passes/buffer_assignment.h"

#include <gtest/gtest.h>

#include "hlo/passes/pass.h"
#include "parser/parse_or_fail.h"

namespace hlo {
namespace {

std::unique_ptr<Module> parse(const char* text) { return parseOrFail(text); }

BufferAssignment assign(const Module& module) {
  auto a = assignBuffers(module);
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? std::move(*a) : BufferAssignment{};
}

// The slot of `name`'s leaf `index` in the computation `c`.
const BufferSlot& slot(const ComputationBuffers& c, const char* name, const ShapeIndex& index = {}) {
  const Instruction* i = c.computation->find(name);
  EXPECT_NE(i, nullptr) << name;
  const BufferSlot* s = i ? c.find(*i, index) : nullptr;
  EXPECT_NE(s, nullptr) << name;
  static const BufferSlot kNone;
  return s ? *s : kNone;
}

TEST(BufferAssignmentTest, ChainReusesTheBufferFreedTwoStepsBefore) {
  // a and b are live together at b's step; c takes a's range once a is dead.
  auto m = parse(R"(
HloModule m
ENTRY %main (x: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  %a = f32[16] negate(%x)
  %b = f32[16] exponential(%a)
  %c = f32[16] negate(%b)
  ROOT %d = f32[16] exponential(%c)
})");
  BufferAssignment a = assign(*m);
  const ComputationBuffers& e = a.entry();
  EXPECT_EQ(slot(e, "x").kind, BufferKind::kParameter);
  EXPECT_EQ(slot(e, "x").parameter, 0);
  EXPECT_EQ(slot(e, "a").offset, 0);
  EXPECT_EQ(slot(e, "b").offset, 64);
  EXPECT_EQ(slot(e, "c").offset, 0);
  EXPECT_EQ(slot(e, "d").offset, 64);
  EXPECT_EQ(slot(e, "a").firstStep, 1);
  EXPECT_EQ(slot(e, "a").lastStep, 2);
  EXPECT_EQ(slot(e, "d").lastStep, 4);  // returned: live to the end
  EXPECT_EQ(a.arenaBytes(), 128);
  EXPECT_EQ(a.peakBytes(), 128);
  EXPECT_EQ(a.noReuseBytes(), 256);
  EXPECT_EQ(formatBufferAssignment(a).rfind("buffer assignment: arena 128 bytes", 0), 0u);
}

TEST(BufferAssignmentTest, BestFitTakesTheSmallestFreeRangeThatFits) {
  // Steps: p0 a1 c2 b3 x1_4 x2_5 y6. After step 5 the free ranges are [0,256)
  // (a) and [320,384) (b); y (64 bytes) goes in the smaller one. x2 (256
  // bytes) at step 5 finds only b's 64 free bytes and grows the arena.
  auto m = parse(R"(
HloModule m
ENTRY %main (p: f32[128]) -> (f32[16], f32[64], f32[16]) {
  %p = f32[128] parameter(0)
  %a = f32[64] slice(%p), slice={[0:64]}
  %c = f32[16] slice(%p), slice={[64:80]}
  %b = f32[16] slice(%p), slice={[80:96]}
  %x1 = f32[16] negate(%b)
  %x2 = f32[64] negate(%a)
  %y = f32[16] negate(%x1)
  ROOT %t = (f32[16], f32[64], f32[16]) tuple(%c, %x2, %y)
})");
  BufferAssignment a = assign(*m);
  const ComputationBuffers& e = a.entry();
  EXPECT_EQ(slot(e, "a").offset, 0);
  EXPECT_EQ(slot(e, "a").allocatedSize, 256);
  EXPECT_EQ(slot(e, "c").offset, 256);
  EXPECT_EQ(slot(e, "b").offset, 320);
  EXPECT_EQ(slot(e, "x1").offset, 384);
  EXPECT_EQ(slot(e, "x2").offset, 448);
  EXPECT_EQ(slot(e, "y").offset, 320);
  EXPECT_EQ(a.arenaBytes(), 704);
  EXPECT_EQ(a.peakBytes(), 640);      // step 5: a, c, x1, x2
  EXPECT_EQ(a.noReuseBytes(), 768);   // 256 + 64 * 4 + 256
  // The tuple's leaves are its operands' buffers.
  EXPECT_EQ(slot(e, "t", {1}).offset, 448);
  EXPECT_EQ(slot(e, "t", {1}).owner, m->entry()->find("x2"));
  EXPECT_EQ(slot(e, "t", {2}).offset, 320);
}

TEST(BufferAssignmentTest, SmallValuesTakeAWholeAlignmentUnit) {
  auto m = parse(R"(
HloModule m
ENTRY %main (x: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  ROOT %n = f32[3] negate(%x)
})");
  BufferAssignment a = assign(*m);
  EXPECT_EQ(slot(a.entry(), "n").bytes, 12);
  EXPECT_EQ(slot(a.entry(), "n").allocatedSize, 64);
  EXPECT_EQ(a.arenaBytes(), 64);
}

TEST(BufferAssignmentTest, DynamicUpdateSliceWritesIntoItsDyingOperand) {
  // Steps: p0 a1 i2 u3 e4 r5. e reuses a's buffer; u (16 bytes, 64
  // allocated) is freed after step 4, so r takes [64,128).
  auto m = parse(R"(
HloModule m
ENTRY %main (p: f32[16]) -> f32[16] {
  %p = f32[16] parameter(0)
  %a = f32[16] negate(%p)
  %i = s32[] constant(0)
  %u = f32[4] slice(%a), slice={[0:4]}
  %e = f32[16] dynamic-update-slice(%a, %u, %i)
  ROOT %r = f32[16] negate(%e)
})");
  BufferAssignment a = assign(*m);
  const ComputationBuffers& e = a.entry();
  EXPECT_EQ(slot(e, "i").kind, BufferKind::kConstant);
  EXPECT_EQ(slot(e, "e").offset, 0);
  EXPECT_EQ(slot(e, "e").owner, m->entry()->find("a"));
  EXPECT_EQ(slot(e, "a").lastStep, 5);  // read through e by r
  EXPECT_EQ(slot(e, "u").offset, 64);
  EXPECT_EQ(slot(e, "r").offset, 64);
  EXPECT_EQ(a.arenaBytes(), 128);
  EXPECT_EQ(a.noReuseBytes(), 192);  // a, u, r
}

TEST(BufferAssignmentTest, DynamicUpdateSliceCopiesWhenItsOperandLivesOn) {
  // a is returned as well, so e needs its own buffer; a parameter operand is
  // the caller's memory and is never written either.
  auto m = parse(R"(
HloModule m
ENTRY %main (p: f32[16]) -> (f32[16], f32[16], f32[16]) {
  %p = f32[16] parameter(0)
  %a = f32[16] negate(%p)
  %i = s32[] constant(0)
  %u = f32[4] slice(%a), slice={[0:4]}
  %e = f32[16] dynamic-update-slice(%a, %u, %i)
  %f = f32[16] dynamic-update-slice(%p, %u, %i)
  ROOT %t = (f32[16], f32[16], f32[16]) tuple(%e, %a, %f)
})");
  BufferAssignment a = assign(*m);
  const ComputationBuffers& e = a.entry();
  EXPECT_EQ(slot(e, "a").offset, 0);
  EXPECT_EQ(slot(e, "u").offset, 64);
  EXPECT_EQ(slot(e, "e").offset, 128);
  EXPECT_EQ(slot(e, "e").owner, m->entry()->find("e"));
  EXPECT_EQ(slot(e, "f").kind, BufferKind::kArena);
  EXPECT_EQ(slot(e, "f").offset, 192);
  EXPECT_EQ(a.arenaBytes(), 256);
}

TEST(BufferAssignmentTest, TupleGetTupleElementAndBitcastShareBuffers) {
  auto m = parse(R"(
HloModule m
ENTRY %main (p: (f32[16], f32[16])) -> (f32[4,4], f32[16]) {
  %p = (f32[16], f32[16]) parameter(0)
  %g1 = f32[16] get-tuple-element(%p), index=1
  %n = f32[16] negate(%g1)
  %t = (f32[16], f32[16]) tuple(%n, %g1)
  %g = f32[16] get-tuple-element(%t), index=0
  %bc = f32[4,4] bitcast(%g)
  ROOT %r = (f32[4,4], f32[16]) tuple(%bc, %g1)
})");
  BufferAssignment a = assign(*m);
  const ComputationBuffers& e = a.entry();
  EXPECT_EQ(slot(e, "p", {1}).kind, BufferKind::kParameter);
  EXPECT_EQ(slot(e, "g1").kind, BufferKind::kParameter);
  EXPECT_EQ(slot(e, "g1").parameterIndex, ShapeIndex{1});
  const Instruction* n = m->entry()->find("n");
  for (const char* name : {"g", "bc"}) {
    EXPECT_EQ(slot(e, name).owner, n) << name;
    EXPECT_EQ(slot(e, name).kind, BufferKind::kArena) << name;
  }
  EXPECT_EQ(slot(e, "r", {0}).owner, n);
  EXPECT_EQ(slot(e, "r", {1}).kind, BufferKind::kParameter);
  EXPECT_EQ(e.find(*m->entry()->find("r"), {}), nullptr);  // a tuple has no buffer itself
  EXPECT_EQ(a.arenaBytes(), 64);  // n only
  EXPECT_EQ(a.noReuseBytes(), 64);
}

TEST(BufferAssignmentTest, AliasedOutputLivesInTheParameter) {
  // Steps p0 q1 a2 r3 i4 u5 d6. p is last read at step 2, before r is
  // written (3): r may take p's memory. d, an in-place dynamic-update-slice
  // of q, may take q's although it reads q at its own step.
  auto m = parse(R"(
HloModule m, input_output_alias={ {0}: (0, {}, may-alias),
  {1}: (1, {}) }
ENTRY %main (p: f32[16], q: f32[16]) -> (f32[16], f32[16]) {
  %p = f32[16] parameter(0)
  %q = f32[16] parameter(1)
  %a = f32[16] negate(%p)
  %r = f32[16] exponential(%a)
  %i = s32[] constant(0)
  %u = f32[4] slice(%a), slice={[0:4]}
  %d = f32[16] dynamic-update-slice(%q, %u, %i)
  ROOT %t = (f32[16], f32[16]) tuple(%r, %d)
})");
  BufferAssignment a = assign(*m);
  const ComputationBuffers& e = a.entry();
  EXPECT_EQ(slot(e, "r").kind, BufferKind::kParameter);
  EXPECT_EQ(slot(e, "r").parameter, 0);
  EXPECT_EQ(slot(e, "d").kind, BufferKind::kParameter);
  EXPECT_EQ(slot(e, "d").parameter, 1);
  EXPECT_EQ(slot(e, "a").offset, 0);
  EXPECT_EQ(slot(e, "u").offset, 64);
  EXPECT_EQ(a.arenaBytes(), 128);
}

TEST(BufferAssignmentTest, OutputsOutsideTheArenaIgnoreAliases) {
  // The module above with the ENTRY's results outside the arena: r and d are
  // outputs 0 and 1 (d, a dynamic-update-slice of a parameter, copies); a
  // (steps 2-5) and u (5-6) share the arena. Live at step 5: a, r, u.
  auto m = parse(R"(
HloModule m, input_output_alias={ {0}: (0, {}, may-alias),
  {1}: (1, {}) }
ENTRY %main (p: f32[16], q: f32[16]) -> (f32[16], f32[16]) {
  %p = f32[16] parameter(0)
  %q = f32[16] parameter(1)
  %a = f32[16] negate(%p)
  %r = f32[16] exponential(%a)
  %i = s32[] constant(0)
  %u = f32[4] slice(%a), slice={[0:4]}
  %d = f32[16] dynamic-update-slice(%q, %u, %i)
  ROOT %t = (f32[16], f32[16]) tuple(%r, %d)
})");
  BufferAssignmentOptions options;
  options.outputsOutsideArena = true;
  auto a = assignBuffers(*m, options);
  ASSERT_TRUE(a.ok()) << a.status().message();
  const ComputationBuffers& e = a->entry();
  EXPECT_EQ(slot(e, "r").kind, BufferKind::kOutput);
  EXPECT_EQ(slot(e, "r").output, 0);
  EXPECT_EQ(slot(e, "d").kind, BufferKind::kOutput);
  EXPECT_EQ(slot(e, "d").output, 1);
  EXPECT_EQ(slot(e, "t", {1}).output, 1);
  EXPECT_EQ(slot(e, "a").offset, 0);
  EXPECT_EQ(slot(e, "u").offset, 64);
  EXPECT_EQ(a->arenaBytes(), 128);
  EXPECT_EQ(a->peakBytes(), 192);
  EXPECT_EQ(a->noReuseBytes(), 256);
}

TEST(BufferAssignmentTest, InPlaceUpdateOfAnOutputIsTheOutput) {
  // d updates b in place, and d is the result: b is written in output 0.
  auto m = parse(R"(
HloModule m
ENTRY %main (u: f32[4]) -> f32[16] {
  %u = f32[4] parameter(0)
  %z = f32[] constant(0)
  %b = f32[16] broadcast(%z), dimensions={}
  %i = s32[] constant(4)
  ROOT %d = f32[16] dynamic-update-slice(%b, %u, %i)
})");
  BufferAssignmentOptions options;
  options.outputsOutsideArena = true;
  auto a = assignBuffers(*m, options);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(slot(a->entry(), "b").kind, BufferKind::kOutput);
  EXPECT_EQ(slot(a->entry(), "d").kind, BufferKind::kOutput);
  EXPECT_EQ(slot(a->entry(), "d").owner, m->entry()->find("b"));
  EXPECT_EQ(a->arenaBytes(), 0);
  EXPECT_EQ(a->peakBytes(), 64);
}

TEST(BufferAssignmentTest, FusionsRunAsCallsAndCopyingBitcasts) {
  // With the options, %f's fused computation gets its own arena (r, then n:
  // r is read at n's step, so 128 bytes) in a scratch range of f's step, and
  // %b is a copy: a buffer of its own, and a read of %y, live to %nb's step.
  auto m = parse(R"(
HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%fused (p: f32[16,8]) -> f32[16] {
  %p = f32[16,8] parameter(0)
  %z = f32[] constant(0)
  %r = f32[16] reduce(%p, %z), dimensions={1}, to_apply=%add
  ROOT %n = f32[16] negate(%r)
}
ENTRY %main (x: f32[16,8], y: f32[4,4]) -> f32[16] {
  %x = f32[16,8] parameter(0)
  %f = f32[16] fusion(%x), kind=kInput, calls=%fused
  %y = f32[4,4] parameter(1)
  %b = f32[4,4]{0,1} bitcast(%y)
  %nb = f32[4,4]{0,1} negate(%b)
  %fb = f32[16] bitcast(%nb)
  ROOT %s = f32[16] add(%f, %fb)
})");
  BufferAssignmentOptions options;
  options.fusionRunsAsCall = [](const Instruction& i) { return i.name() == "f"; };
  options.bitcastCopies = [](const Instruction& i) { return i.name() == "b"; };
  auto a = assignBuffers(*m, options);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->computations.size(), 2u);
  const ComputationBuffers* fused = a->of(*m->find("fused"));
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(fused->arenaBytes, 128);
  // Steps x0 f1 y2 b3 nb4 fb5 s6: f (0) and its scratch (64-191) at step 1;
  // b at 3 takes 64; nb at 4 takes 128 (b is read); fb names nb's buffer.
  const ComputationBuffers& e = a->entry();
  ASSERT_EQ(e.scratch.size(), 1u);
  EXPECT_EQ(e.scratch[0].offset, 64);
  EXPECT_EQ(e.scratch[0].size, 128);
  EXPECT_EQ(slot(e, "b").owner, m->entry()->find("b"));
  EXPECT_EQ(slot(e, "b").offset, 64);
  EXPECT_EQ(slot(e, "y").lastStep, 3);
  EXPECT_EQ(slot(e, "nb").offset, 128);
  EXPECT_EQ(slot(e, "fb").owner, m->entry()->find("nb"));
  EXPECT_EQ(slot(e, "s").offset, 64);
  EXPECT_EQ(a->arenaBytes(), 192);
}

TEST(BufferAssignmentTest, AliasRefusedWhileTheParameterIsStillRead) {
  // r reads p at the step that writes r: r cannot overwrite p.
  auto m = parse(R"(
HloModule m, input_output_alias={ {}: (0, {}, may-alias) }
ENTRY %main (p: f32[16]) -> f32[16] {
  %p = f32[16] parameter(0)
  %a = f32[16] negate(%p)
  ROOT %r = f32[16] add(%p, %a)
})");
  BufferAssignment a = assign(*m);
  EXPECT_EQ(slot(a.entry(), "r").kind, BufferKind::kArena);
  EXPECT_EQ(slot(a.entry(), "r").offset, 64);
  EXPECT_EQ(a.arenaBytes(), 128);
}

TEST(BufferAssignmentTest, DonatedParameterHoldsAnOutputOfItsSize) {
  // The donor has 64 bytes: it skips the 32-byte output and takes the second.
  auto m = parse(R"(
HloModule m, buffer_donor={ (0, {}) }
ENTRY %main (p: f32[16]) -> (f32[8], f32[16]) {
  %p = f32[16] parameter(0)
  %s = f32[8] slice(%p), slice={[0:8]}
  %n = f32[8] negate(%s)
  %b = f32[16] concatenate(%n, %n), dimensions={0}
  ROOT %t = (f32[8], f32[16]) tuple(%n, %b)
})");
  ASSERT_NE(m, nullptr);
  BufferAssignment a = assign(*m);
  EXPECT_EQ(slot(a.entry(), "n").kind, BufferKind::kArena);
  EXPECT_EQ(slot(a.entry(), "b").kind, BufferKind::kParameter);
  EXPECT_EQ(slot(a.entry(), "b").parameter, 0);
}

TEST(BufferAssignmentTest, WhileBodyGetsAScratchRangeForItsStep) {
  // The body needs 64 bytes (%n), the condition none (a constant). The entry
  // holds w's result (64) and, at w's step only, 64 bytes of scratch.
  auto m = parse(R"(
HloModule m
%cond (c: f32[16]) -> pred[] {
  %c = f32[16] parameter(0)
  ROOT %f = pred[] constant(false)
}
%body (x: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  ROOT %n = f32[16] negate(%x)
}
ENTRY %main (p: f32[16]) -> f32[16] {
  %p = f32[16] parameter(0)
  %w = f32[16] while(%p), condition=%cond, body=%body
  ROOT %r = f32[16] negate(%w)
})");
  BufferAssignment a = assign(*m);
  ASSERT_EQ(a.computations.size(), 3u);
  EXPECT_EQ(a.entry().computation, m->entry());
  const ComputationBuffers* body = a.of(*m->find("body"));
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(body->arenaBytes, 64);
  EXPECT_EQ(slot(*body, "x").kind, BufferKind::kParameter);
  EXPECT_EQ(slot(*body, "n").offset, 0);
  EXPECT_EQ(a.of(*m->find("cond"))->arenaBytes, 0);
  const ComputationBuffers& e = a.entry();
  ASSERT_EQ(e.scratch.size(), 1u);
  EXPECT_EQ(slot(e, "w").offset, 0);
  EXPECT_EQ(e.scratch[0].offset, 64);
  EXPECT_EQ(e.scratch[0].size, 64);
  EXPECT_EQ(slot(e, "r").offset, 64);  // the scratch is free after w's step
  EXPECT_EQ(a.arenaBytes(), 128);
  EXPECT_EQ(a.peakBytes(), 128);
  EXPECT_EQ(a.noReuseBytes(), 192);  // w, r, and the body's n
}

TEST(BufferAssignmentTest, FusedComputationsHaveNoBuffers) {
  auto m = parse(R"(
HloModule m
%fused (a: f32[16]) -> f32[16] {
  %a = f32[16] parameter(0)
  %n = f32[16] negate(%a)
  ROOT %e = f32[16] exponential(%n)
}
ENTRY %main (p: f32[16]) -> f32[16] {
  %p = f32[16] parameter(0)
  ROOT %f = f32[16] fusion(%p), kind=kLoop, calls=%fused
})");
  BufferAssignment a = assign(*m);
  EXPECT_EQ(a.computations.size(), 1u);
  EXPECT_EQ(a.arenaBytes(), 64);
  EXPECT_EQ(a.peakBytes(), 64);
}

TEST(BufferAssignmentTest, ThePassChangesNothing) {
  auto m = parse(R"(
HloModule m
ENTRY %main (x: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  ROOT %n = f32[16] negate(%x)
})");
  EXPECT_FALSE(runBufferAssignment(*m));
  ASSERT_NE(findPass("buffer-assignment"), nullptr);
}

TEST(BufferAssignmentTest, ClearErrors) {
  Module empty("empty");
  auto none = assignBuffers(empty);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "the module has no entry computation");

  // A use before its definition, built by hand (the parser would sort it).
  Module m("m");
  Computation* c = m.addComputation("main");
  m.setEntry(c);
  auto later = std::make_unique<Instruction>(Opcode::kParameter, "x", Shape(ElementType::kF32, {4}));
  later->setParameterNumber(0);
  Instruction* n = c->add(Opcode::kNegate, "n", Shape(ElementType::kF32, {4}), {later.get()});
  c->add(std::move(later));
  c->setRoot(n);
  auto unordered = assignBuffers(m);
  ASSERT_FALSE(unordered.ok());
  EXPECT_NE(unordered.status().message().find("not in def-before-use order"), std::string::npos)
      << unordered.status().message();

  auto bad = parse(R"(
HloModule m, input_output_alias={ {}: (0, {}) }
ENTRY %main (x: f32[16]) -> f32[16] {
  %x = f32[16] parameter(0)
  ROOT %n = f32[16] negate(%x)
})");
  bad->headerAttributes()[0].second = "{ {}: (zero) }";
  auto unreadable = assignBuffers(*bad);
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(unreadable.status().message(), "cannot read the module's input_output_alias={ {}: (zero) }");
}

}  // namespace
}  // namespace hlo
