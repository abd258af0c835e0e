// Tests for hlo/verifier.h: modules written as HLO text (parsed with
// parser/parser.h), and broken structures built directly as IR, since the
// parser refuses to build those.
#include "hlo/verifier.h"

#include <gtest/gtest.h>

#include <memory>

#include "parser/parser.h"

namespace hlo {
namespace {

// The verifier's message for `text`, or "ok".
std::string verifyText(std::string_view text) {
  StatusOr<std::unique_ptr<Module>> m = parseModule(text);
  if (!m.ok()) return "parse error: " + m.status().message();
  Status s = verify(**m);
  return s.ok() ? "ok" : s.message();
}

TEST(VerifierTest, AcceptsAWellTypedModule) {
  EXPECT_EQ(verifyText(R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

cond {
  t = (s32[], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  t = (s32[], f32[2,3]) parameter(0)
  i = s32[] get-tuple-element(t), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  x = f32[2,3] get-tuple-element(t), index=1
  ROOT r = (s32[], f32[2,3]) tuple(next, x)
}

fused {
  p0 = f32[2,3] parameter(0)
  p1 = f32[3,4] parameter(1)
  ROOT d = f32[2,4] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY main {
  x = f32[2,3]{0,1} parameter(0)
  w = f32[3,4] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[2,3]) tuple(zero, x)
  loop = (s32[], f32[2,3]) while(init), condition=cond, body=body
  y = f32[2,3] get-tuple-element(loop), index=1
  f = f32[2,4] fusion(y, w), kind=kOutput, calls=fused
  fz = f32[] constant(0)
  ROOT r = f32[4] reduce(f, fz), dimensions={0}, to_apply=add
}
)"),
            "ok");
}

TEST(VerifierTest, ReportsAShapeMismatchAtTheInstruction) {
  StatusOr<std::unique_ptr<Module>> m = parseModule(R"(HloModule m
ENTRY main {
  p = f32[2] parameter(0)
  ROOT a = f32[3] add(p, p)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  Status s = verify(**m);
  EXPECT_EQ(s.message(), "add 'a': expected shape f32[2], got f32[3]");
  EXPECT_EQ(s.loc().line, 4);
}

TEST(VerifierTest, RejectsMixedElementTypes) {
  EXPECT_EQ(verifyText(R"(ENTRY main {
  p = f32[2] parameter(0)
  q = s32[2] parameter(1)
  ROOT a = f32[2] add(p, q)
})"),
            "add 'a': operands have different element types f32 and s32");
  EXPECT_EQ(verifyText(R"(ENTRY main {
  p = f32[2] parameter(0)
  ROOT a = f32[2] and(p, p)
})"),
            "and 'a': expected pred or integer operands, got f32");
}

TEST(VerifierTest, IgnoresLayoutsDynamismAndFloatPrecision) {
  // XLA's verifier (outside layout-sensitive passes) accepts each of these.
  EXPECT_EQ(verifyText(R"(ENTRY main {
  p = f32[2,3]{0,1} parameter(0)
  q = bf16[2,3]{1,0} parameter(1)
  d = f32[<=4] parameter(2)
  s = f32[4] negate(d)
  ROOT a = bf16[2,3]{1,0:T(2,128)} add(p, q)
})"),
            "ok");
}

TEST(VerifierTest, DataMovementKeepsElementTypesExactly) {
  EXPECT_EQ(verifyText(R"(ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (bf16[2]) tuple(p)
})"),
            "tuple 't': expected shape (f32[2]), got (bf16[2])");
}

TEST(VerifierTest, ChecksWhileSignatures) {
  EXPECT_EQ(verifyText(R"(
cond {
  c = f32[] parameter(0)
  ROOT n = f32[] negate(c)
}
body {
  b = f32[] parameter(0)
  ROOT n = f32[] negate(b)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT w = f32[] while(p), condition=cond, body=body
})"),
            "while 'w': condition 'cond' must return pred[], returns f32[]");
  EXPECT_EQ(verifyText(R"(
cond {
  c = s32[] parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  b = s32[] parameter(0)
  ROOT n = s32[] negate(b)
}
ENTRY main {
  p = f32[] parameter(0)
  ROOT w = s32[] while(p), condition=cond, body=body
})"),
            "while 'w': operand 0 f32[] does not match parameter 0 s32[] of 'cond'");
}

TEST(VerifierTest, ChecksReducers) {
  EXPECT_EQ(verifyText(R"(
add3 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add3
})"),
            "reduce 'r': reducer 'add3' takes 3 parameters, expected 2");
}

TEST(VerifierTest, ChecksFusionAndCallParameters) {
  EXPECT_EQ(verifyText(R"(
fused {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
}
ENTRY main {
  p = f32[3] parameter(0)
  ROOT f = f32[2] fusion(p), kind=kLoop, calls=fused
})"),
            "fusion 'f': operand 0 f32[3] does not match parameter 0 f32[2] of 'fused'");
  EXPECT_EQ(verifyText(R"(
callee {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  ROOT n = f32[2] add(a, b)
}
ENTRY main {
  p = f32[2] parameter(0)
  ROOT c = f32[2] call(p), to_apply=callee
})"),
            "call 'c': has 1 operands but 'callee' takes 2 parameters");
}

TEST(VerifierTest, ChecksConditionalBranches) {
  EXPECT_EQ(verifyText(R"(
yes {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
no {
  b = f32[] parameter(0)
  ROOT t = (f32[]) tuple(b)
}
ENTRY main {
  p = pred[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(p, x, x), true_computation=yes, false_computation=no
})"),
            "conditional 'c': branches return different shapes: f32[] and (f32[])");
}

TEST(VerifierTest, TakesUninferableShapesAsWritten) {
  // Custom calls, bitcasts and the results of send/recv (which XLA's parser
  // recomputes) are not compared with an inferred shape.
  EXPECT_EQ(verifyText(R"(ENTRY main {
  p = f32[2,3] parameter(0)
  c = s8[7] custom-call(p), custom_call_target="anything"
  b = u32[6] bitcast(p)
  t = token[] after-all()
  s = (f32[2,3], u32[], token[]) send(p, t), channel_id=1
  ROOT d = token[] send-done(s), channel_id=1
})"),
            "ok");
}

TEST(VerifierTest, RejectsABadLayout) {
  EXPECT_EQ(verifyText(R"(ENTRY main {
  ROOT p = f32[2,3]{0,0} parameter(0)
})"),
            "parameter 'p': layout {0,0} of f32[2,3] must order each of its 2 dimensions once");
}

TEST(VerifierTest, PairsStartsWithDones) {
  EXPECT_EQ(verifyText(R"(ENTRY main {
  p = f32[4] parameter(0)
  s = (f32[4], f32[4], u32[]) copy-start(p)
  d1 = f32[4] copy-done(s)
  d2 = f32[4] copy-done(s)
  ROOT t = (f32[4], f32[4]) tuple(d1, d2)
})"),
            "copy-start 's': expected exactly one user, found 2");
  EXPECT_EQ(verifyText(R"(ENTRY main {
  p = f32[4] parameter(0)
  t = (f32[4], f32[4], u32[]) tuple(p, p, u32[] constant(0))
  ROOT d = f32[4] copy-done(t)
})"),
            "copy-done 'd': operand 't' must be a copy-start");
  EXPECT_EQ(verifyText(R"(
wrapped {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}
ENTRY main {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) async-start(p), calls=wrapped
  d1 = f32[4] async-done(s), calls=wrapped
  d2 = f32[4] async-done(s), calls=wrapped
  ROOT t = (f32[4], f32[4]) tuple(d1, d2)
})"),
            "async-start 's': is finished by two async-dones, 'd1' and 'd2'");
}

// ---- structure, built directly ---------------------------------------------

Instruction* addParam(Computation* c, const std::string& name, Shape s, int64_t number) {
  auto p = std::make_unique<Instruction>(Opcode::kParameter, name, std::move(s));
  p->setParameterNumber(number);
  return c->add(std::move(p));
}

TEST(VerifierStructureTest, NeedsAnEntry) {
  Module m("m");
  Computation* c = m.addComputation("c");
  c->setRoot(addParam(c, "p", Shape::scalar(ElementType::kF32), 0));
  EXPECT_EQ(verify(m).message(), "module 'm' has no entry computation");
  m.setEntry(c);
  EXPECT_TRUE(verify(m).ok());
}

TEST(VerifierStructureTest, NeedsARoot) {
  Module m("m");
  Computation* c = m.addComputation("c");
  addParam(c, "p", Shape::scalar(ElementType::kF32), 0);
  m.setEntry(c);
  EXPECT_EQ(verify(m).message(), "computation 'c' has no root");
}

TEST(VerifierStructureTest, ParametersAreNumberedWithoutHoles) {
  Module m("m");
  Computation* c = m.addComputation("c");
  Shape f = Shape::scalar(ElementType::kF32);
  Instruction* a = addParam(c, "a", f, 0);
  addParam(c, "b", f, 2);
  c->setRoot(a);
  m.setEntry(c);
  EXPECT_EQ(verify(m).message(),
            "parameter 'b': parameter number 2 is out of range; 'c' has 2 parameters, "
            "numbered from 0");

  Module m2("m2");
  Computation* c2 = m2.addComputation("c");
  Instruction* x = addParam(c2, "x", f, 0);
  addParam(c2, "y", f, 0);
  c2->setRoot(x);
  m2.setEntry(c2);
  EXPECT_EQ(verify(m2).message(), "parameter 'y': parameter number 0 is also used by 'x'");
}

TEST(VerifierStructureTest, OperandsComeFromTheSameComputation) {
  Module m("m");
  Shape f = Shape::scalar(ElementType::kF32);
  Computation* other = m.addComputation("other");
  Instruction* foreign = addParam(other, "q", f, 0);
  other->setRoot(foreign);
  Computation* c = m.addComputation("c");
  c->setRoot(c->add(Opcode::kNegate, "n", f, {foreign}));
  m.setEntry(c);
  // Found from either end: here the operand's use list comes first.
  EXPECT_EQ(verify(m).message(),
            "parameter 'q': is used by 'n', which is not an instruction of 'other'");
}

TEST(VerifierStructureTest, CallGraphHasNoCycles) {
  Module m("m");
  Shape f = Shape::scalar(ElementType::kF32);
  Computation* c = m.addComputation("c");
  Instruction* p = addParam(c, "p", f, 0);
  Instruction* call = c->add(Opcode::kCall, "self", f, {p});
  call->attrs().setComputation(AttrKey::kToApply, c);
  c->setRoot(call);
  m.setEntry(c);
  EXPECT_EQ(verify(m).message(), "computation 'c' calls itself");
}

TEST(VerifierStructureTest, CalleesBelongToTheModule) {
  Module m("m");
  Module elsewhere("elsewhere");
  Shape f = Shape::scalar(ElementType::kF32);
  Computation* foreign = elsewhere.addComputation("foreign");
  foreign->setRoot(addParam(foreign, "a", f, 0));
  Computation* c = m.addComputation("c");
  Instruction* p = addParam(c, "p", f, 0);
  Instruction* call = c->add(Opcode::kCall, "call", f, {p});
  call->attrs().setComputation(AttrKey::kToApply, foreign);
  c->setRoot(call);
  m.setEntry(c);
  EXPECT_EQ(verify(m).message(), "call 'call': calls a computation that is not in the module");
}

TEST(VerifierStructureTest, OperandCountsFollowTheOpcodeTable) {
  Module m("m");
  Shape f = Shape::scalar(ElementType::kF32);
  Computation* c = m.addComputation("c");
  Instruction* p = addParam(c, "p", f, 0);
  c->setRoot(c->add(Opcode::kSelect, "s", f, {p, p}));
  m.setEntry(c);
  EXPECT_EQ(verify(m).message(), "select 's': expected 3 operands, got 2");
}

}  // namespace
}  // namespace hlo
