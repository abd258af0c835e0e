// Tests for the HLO text parser: each syntax feature parses, and printing is
// a fixed point (parse -> print -> parse -> print gives the same text).
// Expected values are worked out by hand (bit patterns from the formats'
// definitions), never pasted from the parser's own output.
#include "parser/parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "hlo/printer.h"

namespace hlo {
namespace {

std::unique_ptr<Module> parseOk(std::string_view text) {
  auto module = parseModule(text);
  EXPECT_TRUE(module.ok()) << formatError(module.status(), "test", text);
  return module.ok() ? std::move(module).value() : nullptr;
}

// Parses, prints, parses the print and prints again: both prints agree.
std::unique_ptr<Module> expectFixedPoint(std::string_view text) {
  std::unique_ptr<Module> module = parseOk(text);
  if (!module) return nullptr;
  std::string once = printModule(*module);
  auto again = parseModule(once);
  EXPECT_TRUE(again.ok()) << formatError(again.status(), "printed", once);
  if (again.ok()) {
    EXPECT_EQ(once, printModule(**again));
  }
  return module;
}

const Instruction* find(const Module& m, std::string_view name) {
  for (const auto& c : m.computations())
    if (const Instruction* i = c->find(name)) return i;
  ADD_FAILURE() << "no instruction " << name;
  return nullptr;
}

// The constant named `name`'s element bits.
uint64_t bits(const Module& m, std::string_view name, int64_t i) {
  return find(m, name)->literal().bitsAt(i);
}

TEST(Parser, NoHeaderNoEntryTakesTheLastComputation) {
  auto m = expectFixedPoint(R"(
first {
  ROOT x = f32[] parameter(0)
}
second {
  ROOT y = s32[] parameter(0)
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->entry()->name(), "second");
  EXPECT_EQ(m->computations().size(), 2u);
}

TEST(Parser, EntryKeywordWinsOverPosition) {
  auto m = expectFixedPoint(R"(HloModule m
ENTRY main {
  ROOT x = f32[] parameter(0)
}
other {
  ROOT y = s32[] parameter(0)
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name(), "m");
  EXPECT_EQ(m->entry()->name(), "main");
}

TEST(Parser, PercentAndBareNamesAreTheSameName) {
  auto m = expectFixedPoint(R"(HloModule m
ENTRY %e (p: f32[2]) -> f32[2] {
  %p = f32[2] parameter(0)
  n = f32[2] negate(%p)
  ROOT %r = f32[2] add(n, p)
})");
  ASSERT_TRUE(m);
  const Instruction* r = find(*m, "r");
  ASSERT_EQ(r->operandCount(), 2);
  EXPECT_EQ(r->operand(0)->name(), "n");
  EXPECT_EQ(r->operand(1)->name(), "p");
}

TEST(Parser, TypedOperandsCommentsAndIndexComments) {
  auto m = expectFixedPoint(R"(HloModule m  // a line comment
/* a block
   comment */
ENTRY e {
  p = (f32[2], s32[], pred[]) parameter(0)
  a = f32[2] get-tuple-element((f32[2], s32[], pred[]) %p), /*index=1*/ index=0
  ROOT t = (f32[2], f32[2]) tuple(f32[2] %a, /*index=1*/ f32[2]{0} %a)
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(find(*m, "a")->attrs().getInt(AttrKey::kIndex), 0);
  EXPECT_EQ(find(*m, "t")->operandCount(), 2);
}

TEST(Parser, DeclaredOperandShapeMustMatch) {
  auto m = parseModule("ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT n = f32[2] negate(s32[2] p)\n}");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().loc().line, 3);
  EXPECT_EQ(m.status().loc().column, 26);
}

TEST(Parser, NestedTuples) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  ROOT p = ((f32[2], (s32[], pred[])), token[], ()) parameter(0)
})");
  ASSERT_TRUE(m);
  const Shape& s = find(*m, "p")->shape();
  ASSERT_EQ(s.tupleSize(), 3);
  EXPECT_EQ(s.tupleElement(0).tupleElement(1).tupleElement(1).type(), ElementType::kPred);
  EXPECT_TRUE(s.tupleElement(1).isToken());
  EXPECT_EQ(s.tupleElement(2).tupleSize(), 0);
}

TEST(Parser, IntegerConstantsOfEveryWidth) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  pr = pred[3] constant({true, false, 1})
  a2 = s2[2] constant({-2, 1})
  a4 = s4[2] constant({-8, 7})
  a8 = s8[2] constant({-128, 127})
  a16 = s16[1] constant({-32768})
  a32 = s32[1] constant({-2147483648})
  a64 = s64[2] constant({-9223372036854775808, 9223372036854775807})
  b2 = u2[1] constant({3})
  b4 = u4[2] constant({15, 0xa})
  b8 = u8[1] constant({255})
  b16 = u16[1] constant({65535})
  b32 = u32[1] constant({4294967295})
  ROOT b64 = u64[1] constant({18446744073709551615})
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(bits(*m, "pr", 0), 1u);
  EXPECT_EQ(bits(*m, "pr", 1), 0u);
  EXPECT_EQ(bits(*m, "pr", 2), 1u);
  // Narrow signed types are stored sign-extended into a byte.
  EXPECT_EQ(bits(*m, "a2", 0), 0xfeu);
  EXPECT_EQ(bits(*m, "a2", 1), 0x01u);
  EXPECT_EQ(bits(*m, "a4", 0), 0xf8u);
  EXPECT_EQ(bits(*m, "a4", 1), 0x07u);
  EXPECT_EQ(bits(*m, "a8", 0), 0x80u);
  EXPECT_EQ(bits(*m, "a8", 1), 0x7fu);
  EXPECT_EQ(bits(*m, "a16", 0), 0x8000u);
  EXPECT_EQ(bits(*m, "a32", 0), 0x80000000u);
  EXPECT_EQ(bits(*m, "a64", 0), 0x8000000000000000u);
  EXPECT_EQ(bits(*m, "a64", 1), 0x7fffffffffffffffu);
  EXPECT_EQ(bits(*m, "b2", 0), 3u);
  EXPECT_EQ(bits(*m, "b4", 0), 15u);
  EXPECT_EQ(bits(*m, "b4", 1), 10u);
  EXPECT_EQ(bits(*m, "b8", 0), 255u);
  EXPECT_EQ(bits(*m, "b16", 0), 0xffffu);
  EXPECT_EQ(bits(*m, "b32", 0), 0xffffffffu);
  EXPECT_EQ(bits(*m, "b64", 0), 0xffffffffffffffffu);
}

TEST(Parser, IntegerConstantsOutOfRange) {
  for (const char* text : {"u4[] constant(16)", "u4[] constant(-1)", "s4[] constant(8)",
                           "s4[] constant(-9)", "s8[] constant(128)", "u32[] constant(4294967296)",
                           "u32[] constant(-1)", "s64[] constant(18446744073709551616)",
                           "u64[] constant(-9223372036854775809)", "pred[] constant(yes)"}) {
    std::string module = std::string("ENTRY e {\n  ROOT c = ") + text + "\n}";
    auto m = parseModule(module);
    EXPECT_FALSE(m.ok()) << text;
    if (!m.ok()) {
      EXPECT_EQ(m.status().loc().line, 2) << text;
    }
  }
}

TEST(Parser, FloatConstantsWithSpecialValues) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  h = f16[6] constant({1.5, -0, inf, -inf, nan, nan(0x1)})
  bf = bf16[2] constant({1, -2.5})
  f = f32[7] constant({0.1, -0, 1e-45, 3.40282347e+38, nan(0x7fffff), -nan, inf})
  ROOT d = f64[3] constant({0.1, -nan(0x1), -inf})
})");
  ASSERT_TRUE(m);
  // f16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
  EXPECT_EQ(bits(*m, "h", 0), 0x3e00u);  // 1.5 = 1.1b * 2^0
  EXPECT_EQ(bits(*m, "h", 1), 0x8000u);
  EXPECT_EQ(bits(*m, "h", 2), 0x7c00u);
  EXPECT_EQ(bits(*m, "h", 3), 0xfc00u);
  EXPECT_EQ(bits(*m, "h", 4), 0x7e00u);  // the canonical quiet NaN
  EXPECT_EQ(bits(*m, "h", 5), 0x7c01u);  // payload 1 in the mantissa field
  // bf16: the top half of an f32.
  EXPECT_EQ(bits(*m, "bf", 0), 0x3f80u);
  EXPECT_EQ(bits(*m, "bf", 1), 0xc020u);  // -1.01b * 2^1
  EXPECT_EQ(bits(*m, "f", 0), 0x3dcccccdu);
  EXPECT_EQ(bits(*m, "f", 1), 0x80000000u);
  EXPECT_EQ(bits(*m, "f", 2), 0x00000001u);  // the smallest subnormal
  EXPECT_EQ(bits(*m, "f", 3), 0x7f7fffffu);  // the largest finite f32
  EXPECT_EQ(bits(*m, "f", 4), 0x7fffffffu);
  EXPECT_EQ(bits(*m, "f", 5), 0xffc00000u);
  EXPECT_EQ(bits(*m, "f", 6), 0x7f800000u);
  EXPECT_EQ(bits(*m, "d", 0), 0x3fb999999999999au);
  EXPECT_EQ(bits(*m, "d", 1), 0xfff0000000000001u);
  EXPECT_EQ(bits(*m, "d", 2), 0xfff0000000000000u);
}

TEST(Parser, EveryF8AndF4Type) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  e5 = f8e5m2[2] constant({1, -inf})
  e4 = f8e4m3fn[3] constant({1, 448, nan})
  e4b = f8e4m3b11fnuz[2] constant({1, 30})
  e4z = f8e4m3fnuz[2] constant({1, 240})
  e5z = f8e5m2fnuz[2] constant({1, -0.5})
  e3 = f8e3m4[2] constant({1, 15.5})
  e43 = f8e4m3[2] constant({1, 240})
  e8 = f8e8m0fnu[2] constant({1, 0.5})
  ROOT f4 = f4e2m1fn[3] constant({1, -6, 0.5})
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(bits(*m, "e5", 0), 0x3cu);   // s.01111.00 (bias 15)
  EXPECT_EQ(bits(*m, "e5", 1), 0xfcu);   // s.11111.00
  EXPECT_EQ(bits(*m, "e4", 0), 0x38u);   // s.0111.000 (bias 7)
  EXPECT_EQ(bits(*m, "e4", 1), 0x7eu);   // 1.75 * 2^8: s.1111.110
  EXPECT_EQ(bits(*m, "e4", 2), 0x7fu);   // fn types: all ones is NaN
  EXPECT_EQ(bits(*m, "e4b", 0), 0x58u);  // bias 11: s.1011.000
  EXPECT_EQ(bits(*m, "e4b", 1), 0x7fu);  // 1.875 * 2^4: s.1111.111
  EXPECT_EQ(bits(*m, "e4z", 0), 0x40u);  // bias 8: s.1000.000
  EXPECT_EQ(bits(*m, "e4z", 1), 0x7fu);  // 1.875 * 2^7
  EXPECT_EQ(bits(*m, "e5z", 0), 0x40u);  // bias 16: s.10000.00
  EXPECT_EQ(bits(*m, "e5z", 1), 0xbcu);  // -2^-1: 1.01111.00
  EXPECT_EQ(bits(*m, "e3", 0), 0x30u);   // bias 3: s.011.0000
  EXPECT_EQ(bits(*m, "e3", 1), 0x6fu);   // 1.9375 * 2^3: s.110.1111
  EXPECT_EQ(bits(*m, "e43", 0), 0x38u);  // bias 7
  EXPECT_EQ(bits(*m, "e43", 1), 0x77u);  // 1.875 * 2^7: s.1110.111
  EXPECT_EQ(bits(*m, "e8", 0), 0x7fu);   // exponent only, bias 127
  EXPECT_EQ(bits(*m, "e8", 1), 0x7eu);
  EXPECT_EQ(bits(*m, "f4", 0), 0x2u);    // s.01.0 (bias 1)
  EXPECT_EQ(bits(*m, "f4", 1), 0xfu);    // -1.5 * 2^2: 1.11.1
  EXPECT_EQ(bits(*m, "f4", 2), 0x1u);    // subnormal 0.5: s.00.1
}

TEST(Parser, FloatConstantsThatDoNotFit) {
  for (const char* text : {"f16[] constant(65520)", "bf16[] constant(1e100)", "f64[] constant(1.8e308)",
                           "f32[] constant(nan(0x0))", "f16[] constant(nan(0x400))",
                           "f8e4m3fn[] constant(nan(0x1))", "f8e4m3fn[] constant(inf)"}) {
    std::string module = std::string("ENTRY e {\n  ROOT c = ") + text + "\n}";
    EXPECT_FALSE(parseModule(module).ok()) << text;
  }
}

TEST(Parser, ComplexConstants) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  a = c64[2] constant({(1, 2), (-0.5, inf)})
  ROOT b = c128[1] constant({(1e+300, -1)})
})");
  ASSERT_TRUE(m);
  const float* a = find(*m, "a")->literal().data<float>();
  EXPECT_EQ(a[0], 1.0f);
  EXPECT_EQ(a[1], 2.0f);
  EXPECT_EQ(a[2], -0.5f);
  EXPECT_TRUE(std::isinf(a[3]));
  const double* b = find(*m, "b")->literal().data<double>();
  EXPECT_EQ(b[0], 1e300);
  EXPECT_EQ(b[1], -1.0);
}

TEST(Parser, MultiLineSplatAndElidedConstants) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  multi = s32[2,3] constant({ { 1, 2, 3 },
                              { 4, 5, 6 } })
  splat = f32[2,2] constant(0.5)
  nocommas = s32[2,2] constant({{1 2} {3 4}})
  ROOT elided = f32[1000] constant({...})
})");
  ASSERT_TRUE(m);
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(bits(*m, "multi", i), static_cast<uint64_t>(i + 1));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(bits(*m, "splat", i), 0x3f000000u);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(bits(*m, "nocommas", i), static_cast<uint64_t>(i + 1));
  EXPECT_TRUE(find(*m, "elided")->literal().elided());
}

// A fuzzing finding: splats of millions of elements were filled one element
// at a time. Every element must still hold the value.
TEST(Parser, LargeSplatIsFilled) {
  auto m = parseOk("ENTRY e {\n  ROOT c = s32[1024,1031] constant(-3)\n}");
  ASSERT_TRUE(m);
  const Literal& lit = find(*m, "c")->literal();
  for (int64_t i : {int64_t{0}, int64_t{1}, int64_t{1031}, int64_t{65536}, int64_t{1024 * 1031 - 1}})
    EXPECT_EQ(lit.bitsAt(i), 0xfffffffdu) << i;
}

TEST(Parser, DynamicDimensions) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  ROOT p = f32[<=8,?,3] parameter(0)
})");
  ASSERT_TRUE(m);
  const Shape& s = find(*m, "p")->shape();
  EXPECT_EQ(s.dim(0), 8);
  EXPECT_TRUE(s.isDynamicDim(0));
  EXPECT_EQ(s.dim(1), Shape::kUnboundedDim);
  EXPECT_TRUE(s.isDynamicDim(1));
  EXPECT_FALSE(s.isDynamicDim(2));
}

TEST(Parser, TiledLayouts) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  a = f32[8,128]{1,0:T(8,128)(2,1)S(1)} parameter(0)
  b = s32[]{:T(128)} parameter(1)
  c = s8[256]{0:T(128)E(4)} parameter(2)
  d = f32[16]{0:SC(0:3)} parameter(3)
  ROOT t = (f32[8,128]{1,0:T(8,128)(2,1)S(1)}, s32[]{:T(128)}) tuple(a, b)
})");
  ASSERT_TRUE(m);
  const Layout& a = *find(*m, "a")->shape().layout();
  EXPECT_EQ(a.minorToMajor, (std::vector<int64_t>{1, 0}));
  ASSERT_EQ(a.tiles.size(), 2u);
  EXPECT_EQ(a.tiles[0].dims, (std::vector<int64_t>{8, 128}));
  EXPECT_EQ(a.tiles[1].dims, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(a.memorySpace, 1);
  const Layout& b = *find(*m, "b")->shape().layout();
  EXPECT_TRUE(b.minorToMajor.empty());
  ASSERT_EQ(b.tiles.size(), 1u);
  EXPECT_EQ(b.tiles[0].dims, (std::vector<int64_t>{128}));
  EXPECT_EQ(find(*m, "c")->shape().layout()->elementSizeBits, 4);
  const Layout& d = *find(*m, "d")->shape().layout();
  ASSERT_EQ(d.extras.size(), 1u);
  EXPECT_EQ(d.extras[0].text, "SC(0:3)");
}

TEST(Parser, BufferShapes) {
  auto m = expectFixedPoint("ENTRY e {\n  ROOT b = b(s32[4]) parameter(0)\n}");
  ASSERT_TRUE(m);
  const Shape& s = find(*m, "b")->shape();
  ASSERT_TRUE(s.isBuffer());
  EXPECT_EQ(s.bufferShape().dims(), (std::vector<int64_t>{4}));
}

TEST(Parser, ShapelessInstructionsGetTheInferredShape) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  x = add(a, b)
  ROOT t = tuple(x, a)
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(find(*m, "x")->shape().toString(), "f32[2,3]");
  EXPECT_EQ(find(*m, "t")->shape().toString(), "(f32[2,3], f32[2,3])");
}

TEST(Parser, AsyncSugarWrapsTheOperation) {
  EXPECT_FALSE(parseModule(R"(
ENTRY e {
  p = f32[4] parameter(0)
  s = ((f32[4]), f32[4], s32[]) add-start(p, p)
  ROOT d = f32[4] add-done(s)
})").ok()) << "the shape lists one operand for two";
  auto m = expectFixedPoint(R"(
ENTRY e {
  p = f32[4] parameter(0)
  s = ((f32[4], f32[4]), f32[4], s32[]) add-start(p, p)
  u = ((f32[4], f32[4]), f32[4], s32[]) add-update(s)
  ROOT d = f32[4] add-done(u)
})");
  ASSERT_TRUE(m);
  const Instruction* s = find(*m, "s");
  EXPECT_EQ(s->opcode(), Opcode::kAsyncStart);
  const Computation* wrapped = s->attrs().getComputation(AttrKey::kCalls);
  ASSERT_TRUE(wrapped);
  EXPECT_EQ(wrapped->root()->opcode(), Opcode::kAdd);
  EXPECT_EQ(wrapped->parameterCount(), 2);
  EXPECT_EQ(find(*m, "u")->attrs().getComputation(AttrKey::kCalls), wrapped);
  EXPECT_EQ(find(*m, "d")->attrs().getComputation(AttrKey::kCalls), wrapped);
}

TEST(Parser, InlineComputationsAndExecutionThreads) {
  auto m = expectFixedPoint(R"(
helper {
  ROOT x = f32[] parameter(0)
}, execution_thread="host"
ENTRY e {
  p = f32[] parameter(0)
  ROOT c = f32[] call(p), to_apply={
    q = f32[] parameter(0)
    ROOT n = f32[] negate(q)
  }
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->find("helper")->executionThread(), "host");
  const Computation* body = find(*m, "c")->attrs().getComputation(AttrKey::kToApply);
  ASSERT_TRUE(body);
  EXPECT_TRUE(body->isInline());
  EXPECT_EQ(body->root()->opcode(), Opcode::kNegate);
}

TEST(Parser, InlineNamesNeverCollide) {
  // Both inline bodies would be "call.0.body"; a written computation takes
  // the name "r.body" from the generated one.
  auto m = expectFixedPoint(R"(
ENTRY main {
  a = s32[] parameter(0)
  ROOT call.0 = s32[] call(a), to_apply={
    b = s32[] parameter(0)
    ROOT call.0 = s32[] call(b), to_apply={
      ROOT c = s32[] parameter(0)
    }
  }
  r = s32[] call(a), to_apply={ ROOT d = s32[] parameter(0) }
}
r.body {
  ROOT z = s32[] parameter(0)
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->computations().size(), 5u);
  EXPECT_EQ(find(*m, "z")->parent()->name(), "r.body");
  EXPECT_NE(find(*m, "d")->parent()->name(), "r.body");
}

TEST(Parser, StackFrameSectionsAreKept) {
  auto m = expectFixedPoint(R"(HloModule m

FileNames
1 "a.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=1 end_column=2}
StackFrames
1 {file_location_id=1 parent_frame_id=0}

ENTRY e {
  ROOT c = f32[] constant(1), metadata={op_name="c" stack_frame_id=1}
})");
  ASSERT_TRUE(m);
  EXPECT_NE(m->stackFrameText().find("1 {file_location_id=1 parent_frame_id=0}"), std::string::npos);
}

TEST(Parser, CarriedAttributesAreKeptVerbatim) {
  auto m = expectFixedPoint(R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[8,8] parameter(0), sharding={devices=[2,2]<=[2,2]T(1,0)}
  r = f32[8,8] all-reduce(p), replica_groups=mesh['x'=2,'y'=2] {'x'}, to_apply=add
  ROOT c = f32[8,8] custom-call(r), custom_call_target="foo", backend_config={"k": [1, 2], "s": "v"}
})");
  ASSERT_TRUE(m);
  EXPECT_EQ(find(*m, "p")->attrs().getString(AttrKey::kSharding), "{devices=[2,2]<=[2,2]T(1,0)}");
  EXPECT_EQ(find(*m, "r")->attrs().find(AttrKey::kReplicaGroups)->s, "mesh['x'=2,'y'=2] {'x'}");
  EXPECT_EQ(find(*m, "c")->attrs().getString(AttrKey::kBackendConfig), R"({"k": [1, 2], "s": "v"})");
}

TEST(Parser, NestedInstructionsAsOperands) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  p = f32[2] parameter(0)
  ROOT a = f32[2] add(p, f32[2] broadcast(f32[] constant(3)), dimensions={})
})");
  ASSERT_TRUE(m);
  const Instruction* b = find(*m, "a")->operand(1);
  EXPECT_EQ(b->opcode(), Opcode::kBroadcast);
  EXPECT_EQ(b->operand(0)->opcode(), Opcode::kConstant);
  EXPECT_EQ(b->operand(0)->literal().bitsAt(0), 0x40400000u);  // 3.0f
}

TEST(Parser, CompactGetTupleElement) {
  auto m = expectFixedPoint(R"(
ENTRY e {
  p = (f32[10], (f32[20], f32[30])) parameter(0)
  ROOT r = f32[20] add(f32[20] %p#1#0, %p#1#0)
})");
  ASSERT_TRUE(m);
  const Instruction* r = find(*m, "r");
  EXPECT_EQ(r->operand(0), r->operand(1)) << "one get-tuple-element per path";
  EXPECT_EQ(r->operand(0)->attrs().getInt(AttrKey::kIndex), 0);
  EXPECT_EQ(r->operand(0)->operand(0)->attrs().getInt(AttrKey::kIndex), 1);
}

TEST(Parser, ErrorsCarryLineColumnAndCaret) {
  std::string text = "HloModule m\nENTRY e {\n  ROOT a = f32[2] foo(p)\n}\n";
  auto m = parseModule(text);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(formatError(m.status(), "x.hlo", text),
            "x.hlo:3:19: error: unknown opcode 'foo'\n"
            "  ROOT a = f32[2] foo(p)\n"
            "                  ^\n");
}

TEST(ParseLiteral, ArrayValuesInRowMajorOrder) {
  auto lit = parseLiteral("f32[2,2] {{1, 2}, {3, 4}}");
  ASSERT_TRUE(lit.ok()) << lit.status().message();
  EXPECT_EQ(lit->shape().toString(), "f32[2,2]");
  const uint64_t expected[] = {0x3f800000, 0x40000000, 0x40400000, 0x40800000};  // 1, 2, 3, 4
  for (int i = 0; i < 4; ++i) EXPECT_EQ(lit->bitsAt(i), expected[i]);
}

TEST(ParseLiteral, Tuples) {
  auto lit = parseLiteral("(f32[] 1.5, (pred[] true, s8[2] {-1, 2}))");
  ASSERT_TRUE(lit.ok()) << lit.status().message();
  ASSERT_EQ(lit->tupleElements().size(), 2u);
  EXPECT_EQ(lit->tupleElements()[0].bitsAt(0), 0x3fc00000u);
  const Literal& inner = lit->tupleElements()[1];
  EXPECT_EQ(inner.tupleElements()[0].bitsAt(0), 1u);
  EXPECT_EQ(inner.tupleElements()[1].bitsAt(0), 0xffu);
  EXPECT_EQ(inner.tupleElements()[1].bitsAt(1), 2u);
}

TEST(ParseLiteral, Rejects) {
  for (const char* text : {"f32[2] {1, 2, 3}", "f32[2,2] {{1, 2}, {3}}", "f32[2] {{1}, {2}}",
                           "f32[2] {1, 2", "s4[] 8", "f32[2] {1, 2} extra", "(f32[] 1"}) {
    EXPECT_FALSE(parseLiteral(text).ok()) << text;
  }
}

// XLA's form of an array with runtime sizes: the shape, every dimension's
// runtime size, the values of that runtime shape. It prints back the same;
// the storage stays at the bounds, and only the values take part in ==.
TEST(ParseLiteral, RuntimeSizes) {
  auto lit = parseLiteral("s32[<=3,2](2,2) {{1, 2}, {3, 4}}");
  ASSERT_TRUE(lit.ok()) << lit.status().message();
  EXPECT_EQ(lit->toString(), "s32[<=3,2](2,2) {{1, 2}, {3, 4}}");
  EXPECT_EQ(lit->elementCount(), 6);
  EXPECT_TRUE(lit->isDynamicDim(0));
  EXPECT_FALSE(lit->isDynamicDim(1));
  EXPECT_EQ(lit->runtimeDims(), (std::vector<int64_t>{2, 2}));
  EXPECT_TRUE(lit->hasPadding());
  EXPECT_EQ(lit->bitsAt(3), 4u);  // row 1 of the storage
  EXPECT_EQ(lit->compact().toString(), "s32[2,2] {{1, 2}, {3, 4}}");
  Literal other = *lit;
  other.setBitsAt(4, 9);  // padding
  EXPECT_TRUE(other == *lit);
  other.setBitsAt(0, 9);
  EXPECT_FALSE(other == *lit);
  // A size of 0, and one at the bound.
  auto empty = parseLiteral("f32[<=4](0) {}");
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->toString(), "f32[<=4](0) {}");
  auto full = parseLiteral("f32[<=2](2) {1, 2}");
  ASSERT_TRUE(full.ok()) << full.status().message();
  EXPECT_FALSE(full->hasPadding());
  EXPECT_TRUE(full->hasDynamicSizes());
  // Sizes past the bound, for a static dimension other than its size, of the
  // wrong count, or values of another shape.
  for (const char* text : {"f32[<=2](3) {1, 2, 3}", "f32[<=2,2](1,1) {{1}}", "f32[<=2](1,1) {1}",
                           "f32[<=2](1) {1, 2}", "f32[2](1) {1}"}) {
    EXPECT_FALSE(parseLiteral(text).ok()) << text;
  }
}

TEST(ParseLiteral, DeepNestingIsAnErrorNotACrash) {
  std::string braces = "f32[1] " + std::string(100000, '{') + "1" + std::string(100000, '}');
  EXPECT_FALSE(parseLiteral(braces).ok());
  std::string parens = std::string(100000, '(') + "f32[] 1" + std::string(100000, ')');
  EXPECT_FALSE(parseLiteral(parens).ok());
}

TEST(ParseShape, RoundTrips) {
  for (const char* text : {"f32[2,3]{1,0}", "(f32[], (s32[4], token[]))", "bf16[<=8,?]",
                           "f32[8,128]{1,0:T(8,128)(2,1)S(1)}", "b(s32[4])"}) {
    auto s = parseShape(text);
    ASSERT_TRUE(s.ok()) << text << ": " << s.status().message();
    EXPECT_EQ(s->toString(), text);
  }
}

}  // namespace
}  // namespace hlo
