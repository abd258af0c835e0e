// Compiled scalar programs agree bit for bit with the interpreter's array ops
// (whose values the per-op tests under testdata/ops check by hand): every
// elementwise opcode, compare in every direction, select, clamp and convert,
// over the element types and their edge values (NaN, inf, -0, the integer
// extremes). Plus the checks of what must not be compiled.
#include "interp/scalar_program.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hlo/opcode.h"
#include "interp/elementwise_ops.h"
#include "interp/evaluator.h"
#include "parser/parser.h"

namespace hlo::interp {
namespace {

// Edge values of each type, as literal text (n values each).
struct TypeValues {
  std::string type;
  std::string a, b, c;  // three operands' values, same count
};

const std::vector<TypeValues>& typeValues() {
  static const std::vector<TypeValues> values = {
      {"f32", "{0, -0, 1, -1.5, 2.5, 1e30, -1e-40, inf, -inf, nan, 3, -7}",
       "{-0, 0, 3, 2, -2.5, 1e30, 5, -inf, 2, 1, nan, 0.5}",
       "{1, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 100}"},
      {"f64", "{0, -0, 1, -1.5, 2.5, 1e300, -1e-310, inf, -inf, nan, 3, -7}",
       "{-0, 0, 3, 2, -2.5, 1e300, 5, -inf, 2, 1, nan, 0.5}",
       "{1, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 100}"},
      {"bf16", "{0, -0, 1, -1.5, 2.5, 3e38, -1e-39, inf, -inf, nan, 3, -7}",
       "{-0, 0, 3, 2, -2.5, 3e38, 5, -inf, 2, 1, nan, 0.5}",
       "{1, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 100}"},
      {"f16", "{0, -0, 1, -1.5, 2.5, 60000, -1e-7, inf, -inf, nan, 3, -7}",
       "{-0, 0, 3, 2, -2.5, 60000, 5, -inf, 2, 1, nan, 0.5}",
       "{1, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 100}"},
      {"f8e4m3fn", "{0, -0, 1, -1.5, 2.5, 448, 3, -7}", "{-0, 0, 3, 2, -2.5, 448, 0.5, 1}",
       "{1, 1, -1, 0, 0, 0, 0, 100}"},
      {"s32", "{0, 1, -1, -2147483648, 2147483647, 7, -8, 33}",
       "{0, -1, 0, -1, 1, 3, 3, -2}", "{5, 0, 1, 0, 0, 2, -9, 40}"},
      {"u8", "{0, 1, 255, 128, 7, 200, 9, 3}", "{0, 0, 255, 2, 3, 100, 8, 7}",
       "{1, 0, 2, 0, 255, 5, 9, 10}"},
      {"s4", "{0, 1, -1, -8, 7, 3, -3, 2}", "{0, -1, 0, -1, 1, 3, 5, -2}", "{1, 0, 1, 0, 0, 2, -4, 7}"},
      {"u64", "{0, 1, 18446744073709551615, 9223372036854775808, 7}", "{0, 0, 2, 3, 18446744073709551615}",
       "{1, 2, 3, 4, 5}"},
      {"pred", "{true, false, true, false}", "{true, true, false, false}", "{false, true, true, false}"},
      {"c64", "{(0, 0), (1, -2), (-0.5, 3), (inf, 1), (nan, 0)}", "{(1, 0), (1, -2), (2, 2), (0, 1), (1, 1)}",
       "{(0, 1), (3, 3), (1, 1), (1, 1), (0, 0)}"},
  };
  return values;
}

int countValues(const std::string& text) {
  int depth = 0, commas = 0;
  for (char ch : text) {
    if (ch == '(') ++depth;
    if (ch == ')') --depth;
    if (ch == ',' && depth == 0) ++commas;
  }
  return commas + 1;
}

// Runs `body` (e.g. "ROOT r = add(a, b)", over parameters a, b, c) on the
// array values (the interpreter's array op) and element by element through
// the compiled scalar program, and compares the bits. When the array op
// refuses the types, no program may have been compiled either.
// Where `compiled` is given, not compiling is also right (the general
// evaluator then runs the computation), and it says which happened.
void expectAgreement(const std::string& what, const TypeValues& tv, int arity, const std::string& body,
                     const std::vector<std::string>& operandTypes = {}, bool* compiled = nullptr) {
  SCOPED_TRACE(what + " on " + tv.type);
  int n = countValues(tv.a);
  std::vector<std::string> types = operandTypes;
  types.resize(arity, tv.type);
  const std::string* texts[] = {&tv.a, &tv.b, &tv.c};
  // Operands may have their own types (convert); all share the element count.
  std::string arrayText = "HloModule m\nENTRY e {\n", scalarText = arrayText;
  const char* names[] = {"a", "b", "c"};
  std::vector<Literal> arrayArgs;
  for (int i = 0; i < arity; ++i) {
    std::string p = std::string(names[i]);
    arrayText += "  " + p + " = " + types[i] + "[" + std::to_string(n) + "] parameter(" + std::to_string(i) + ")\n";
    scalarText += "  " + p + " = " + types[i] + "[] parameter(" + std::to_string(i) + ")\n";
    StatusOr<Literal> arg = parseLiteral(types[i] + "[" + std::to_string(n) + "] " + *texts[i]);
    ASSERT_TRUE(arg.ok()) << arg.status().message();
    arrayArgs.push_back(std::move(arg).value());
  }
  // "[#]" in `body` stands for the dimensions: [n] or [].
  auto withDims = [&](std::string dims) {
    std::string out = body;
    if (size_t at = out.find("[#]"); at != std::string::npos) out.replace(at, 3, dims);
    return out;
  };
  arrayText += "  " + withDims("[" + std::to_string(n) + "]") + "\n}\n";
  scalarText += "  " + withDims("[]") + "\n}\n";
  StatusOr<std::unique_ptr<Module>> arrayModule = parseModule(arrayText);
  StatusOr<std::unique_ptr<Module>> scalarModule = parseModule(scalarText);
  if (!scalarModule.ok()) {  // the types are refused before anything runs
    EXPECT_FALSE(arrayModule.ok());
    return;
  }
  ScalarProgramCache cache;
  const ScalarProgram* program = cache.get(*(*scalarModule)->entry());
  StatusOr<Literal> expected =
      arrayModule.ok() ? evaluate(**arrayModule, arrayArgs) : StatusOr<Literal>(arrayModule.status());
  if (!expected.ok()) {
    EXPECT_EQ(program, nullptr) << "compiled, but the array op says: " << expected.status().message();
    return;
  }
  if (compiled) *compiled = program != nullptr;
  if (compiled && !program) return;
  ASSERT_NE(program, nullptr) << "the array op computes this, but no program was compiled";
  for (int k = 0; k < n; ++k) {
    std::vector<Literal> scalars;
    for (int i = 0; i < arity; ++i) {
      Literal s(Shape::scalar(arrayArgs[i].type()));
      size_t bytes = storageBytes(s.type());
      std::memcpy(s.untypedData(), arrayArgs[i].untypedData() + k * bytes, bytes);
      scalars.push_back(std::move(s));
    }
    std::vector<const Literal*> pointers;
    for (const Literal& s : scalars) pointers.push_back(&s);
    std::optional<Literal> got = program->run(pointers);
    ASSERT_TRUE(got.has_value());
    size_t bytes = storageBytes(got->type());
    ASSERT_EQ(got->type(), expected->type());
    EXPECT_EQ(std::memcmp(got->untypedData(), expected->untypedData() + k * bytes, bytes), 0)
        << "element " << k << ": program " << got->bitsAt(0) << ", array op " << expected->bitsAt(k);
  }
}

std::vector<Opcode> allOpcodes() {
  return {
#define HLO_OPCODE(Enum, text, arity, category, effect) Opcode::Enum,
#include "hlo/opcodes.def"
#undef HLO_OPCODE
  };
}

TEST(ScalarProgramTest, UnaryOpsAgreeWithArrayOps) {
  for (Opcode op : allOpcodes()) {
    if (!visitUnaryOp(op, [](auto) {})) continue;
    std::string name(opcodeName(op));
    for (const TypeValues& tv : typeValues()) expectAgreement(name, tv, 1, "ROOT r = " + name + "(a)");
  }
}

TEST(ScalarProgramTest, BinaryOpsAgreeWithArrayOps) {
  for (Opcode op : allOpcodes()) {
    if (!visitBinaryOp(op, [](auto) {})) continue;
    std::string name(opcodeName(op));
    for (const TypeValues& tv : typeValues()) expectAgreement(name, tv, 2, "ROOT r = " + name + "(a, b)");
  }
}

TEST(ScalarProgramTest, CompareSelectClampAgreeWithArrayOps) {
  for (const TypeValues& tv : typeValues()) {
    for (std::string dir : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      expectAgreement("compare " + dir, tv, 2, "ROOT r = compare(a, b), direction=" + dir);
      if (tv.type[0] == 'f' || tv.type == "bf16")
        expectAgreement("compare TOTALORDER " + dir, tv, 2,
                        "ROOT r = compare(a, b), direction=" + dir + ", type=TOTALORDER");
    }
    expectAgreement("clamp", tv, 3, "ROOT r = clamp(a, b, c)");
    TypeValues withPred = tv;
    withPred.a = "{" + std::string(countValues(tv.a) > 0 ? "true" : "");
    for (int k = 1; k < countValues(tv.a); ++k) withPred.a += k % 2 ? ", false" : ", true";
    withPred.a += "}";
    expectAgreement("select", withPred, 3, "ROOT r = select(a, b, c)", {"pred", tv.type, tv.type});
  }
}

TEST(ScalarProgramTest, ConvertAgreesWithArrayOps) {
  for (const TypeValues& from : typeValues())
    for (const TypeValues& to : typeValues())
      expectAgreement("convert to " + to.type, from, 1, "ROOT r = " + to.type + "[#] convert(a)");
}

// Only widths whose storage is the bits themselves compile (f32 and s32).
TEST(ScalarProgramTest, BitcastConvertAgreesWithArrayOps) {
  int compiledCount = 0;
  for (const TypeValues& from : typeValues()) {
    for (const TypeValues& to : typeValues()) {
      bool compiled = false;
      expectAgreement("bitcast-convert to " + to.type, from, 1,
                      "ROOT r = " + to.type + "[#] bitcast-convert(a)", {}, &compiled);
      compiledCount += compiled;
    }
  }
  // f32/s32, f64/u64, bf16/f16, s32/f32 pairs and each type to itself.
  EXPECT_GE(compiledCount, 12);
}

// A sort comparator in the usual shape (a call of a fused computation,
// TOTALORDER), compiled, and its answers worked out by hand.
TEST(ScalarProgramTest, ComparatorWithCall) {
  StatusOr<std::unique_ptr<Module>> m = parseModule(R"(
HloModule m
lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT r = pred[] compare(x, y), direction=LT, type=TOTALORDER
}
ENTRY cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] call(a, b), to_apply=lt
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ScalarProgramCache cache;
  const ScalarProgram* program = cache.get(*(*m)->entry());
  ASSERT_NE(program, nullptr);
  auto lt = [&](const char* a, const char* b) {
    Literal x = *parseLiteral(std::string("f32[] ") + a), y = *parseLiteral(std::string("f32[] ") + b);
    Literal i = *parseLiteral("s32[] 0");
    const Literal* args[] = {&x, &y, &i, &i};
    return program->run(args)->bitsAt(0) != 0;
  };
  EXPECT_TRUE(lt("-0", "0"));     // total order: -0 before +0
  EXPECT_FALSE(lt("0", "-0"));
  EXPECT_TRUE(lt("1", "nan"));    // +NaN after everything
  EXPECT_TRUE(lt("-nan", "-inf"));
  EXPECT_FALSE(lt("2", "2"));
}

// The argmax reducer as fusion passes write it: a call of a computation
// returning a tuple, with four operands; answers worked out by hand.
TEST(ScalarProgramTest, TupleCallWithFourOperands) {
  StatusOr<std::unique_ptr<Module>> m = parseModule(R"(
HloModule m
fused {
  v0 = f32[] parameter(0)
  v1 = f32[] parameter(1)
  ge = pred[] compare(v0, v1), direction=GE
  v = f32[] select(ge, v0, v1)
  eq = pred[] compare(v0, v1), direction=EQ
  i0 = s32[] parameter(2)
  i1 = s32[] parameter(3)
  low = s32[] minimum(i0, i1)
  pick = s32[] select(ge, i0, i1)
  i = s32[] select(eq, low, pick)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
ENTRY argmax {
  a = f32[] parameter(0)
  ai = s32[] parameter(1)
  b = f32[] parameter(2)
  bi = s32[] parameter(3)
  f = (f32[], s32[]) fusion(a, b, ai, bi), kind=kLoop, calls=fused
  v = f32[] get-tuple-element(f), index=0
  i = s32[] get-tuple-element(f), index=1
  ROOT r = (s32[], f32[]) tuple(i, v)
})");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ScalarProgramCache cache;
  const ScalarProgram* program = cache.get(*(*m)->entry());
  ASSERT_NE(program, nullptr);
  auto argmax = [&](const char* a, int ai, const char* b, int bi) {
    Literal x = *parseLiteral(std::string("f32[] ") + a), y = *parseLiteral(std::string("f32[] ") + b);
    Literal xi = *parseLiteral("s32[] " + std::to_string(ai)), yi = *parseLiteral("s32[] " + std::to_string(bi));
    const Literal* args[] = {&x, &xi, &y, &yi};
    std::optional<Literal> r = program->run(args);
    return std::pair<int64_t, double>(static_cast<int32_t>(r->tupleElements()[0].bitsAt(0)),
                                      r->tupleElements()[1].toDouble(0));
  };
  EXPECT_EQ(argmax("1", 4, "3", 7), (std::pair<int64_t, double>(7, 3)));
  EXPECT_EQ(argmax("5", 4, "3", 7), (std::pair<int64_t, double>(4, 5)));
  EXPECT_EQ(argmax("2", 9, "2", 3), (std::pair<int64_t, double>(3, 2)));  // ties: the lower index
}

TEST(ScalarProgramTest, NotCompiled) {
  auto compiles = [](const std::string& text) {
    StatusOr<std::unique_ptr<Module>> m = parseModule(text);
    EXPECT_TRUE(m.ok()) << m.status().message();
    ScalarProgramCache cache;
    return cache.get(*(*m)->entry()) != nullptr;
  };
  // An array anywhere.
  EXPECT_FALSE(compiles("ENTRY e {\n a = f32[2] parameter(0)\n ROOT r = f32[2] negate(a)\n}"));
  // Mixed precision (bf16 + f32) is left to the array op's conversions.
  EXPECT_FALSE(compiles("ENTRY e {\n a = bf16[] parameter(0)\n b = f32[] parameter(1)\n"
                        " ROOT r = f32[] add(a, b)\n}"));
  // An op with no scalar step.
  EXPECT_FALSE(compiles("ENTRY e {\n a = f32[] parameter(0)\n ROOT r = f32[] reduce-precision(a), "
                        "exponent_bits=5, mantissa_bits=2\n}"));
  // A tuple only as the root.
  EXPECT_TRUE(compiles("ENTRY e {\n a = f32[] parameter(0)\n b = s32[] parameter(1)\n"
                       " ROOT t = (s32[], f32[]) tuple(b, a)\n}"));
}

}  // namespace
}  // namespace hlo::interp
