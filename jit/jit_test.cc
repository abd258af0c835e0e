// The CPU JIT through its public seam: parse, compile, run; expected values
// are worked out by hand or from the operation's definition.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/cpu/cpu_options.h"
#include "jit/executable.h"
#include "parser/parse_or_fail.h"

namespace hlo::jit {
namespace {

std::unique_ptr<Module> parse(const char* text) { return parseOrFail(text); }

Literal f32Array(std::vector<int64_t> dims, const std::vector<float>& values) {
  Literal lit(Shape(ElementType::kF32, std::move(dims)));
  for (size_t i = 0; i < values.size(); ++i) lit.data<float>()[i] = values[i];
  return lit;
}

Literal s32Scalar(int32_t value) {
  Literal lit(Shape::scalar(ElementType::kS32));
  lit.data<int32_t>()[0] = value;
  return lit;
}

// Runs `exe` on `args`: the result as text, or the error's message.
std::string resultText(Executable& exe, const std::vector<Literal>& args) {
  StatusOr<Literal> r = exe.run(args);
  return r.ok() ? r->toString() : "error: " + r.status().message();
}

// How many times `exe` ran the pass pipeline: once per compiled module, so
// once per specialization of a module with runtime sizes.
int compileCount(const Executable& exe) {
  int n = 0;
  for (const TraceEvent& e : exe.trace()) n += e.name == "pass pipeline";
  return n;
}

TEST(CpuJit, AddsArrays) {
  auto m = parse(R"(
HloModule m
ENTRY %e (x: f32[3], y: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  %y = f32[3] parameter(1)
  ROOT %s = f32[3] add(%x, %y)
})");
  auto exe = compile(*m);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.push_back(f32Array({3}, {1, 2, 3}));
  args.push_back(f32Array({3}, {10, 20, 30}));
  EXPECT_EQ(resultText(**exe, args), "f32[3] {11, 22, 33}");
}

// Compiles an f32 sum of `terms` (an instruction over %x: f32[n], written
// with N for n) and runs it on `x`; the f32 result.
float runSum(const std::string& terms, const Literal& x) {
  std::string n = std::to_string(x.shape().dim(0));
  std::string text = "HloModule m\n"
                     "%add (a: f32[], b: f32[]) -> f32[] {\n"
                     "  %a = f32[] parameter(0)\n"
                     "  %b = f32[] parameter(1)\n"
                     "  ROOT %s = f32[] add(%a, %b)\n"
                     "}\n"
                     "ENTRY %e (x: f32[N]) -> f32[] {\n"
                     "  %x = f32[N] parameter(0)\n" +
                     terms +
                     "\n  %z = f32[] constant(0)\n"
                     "  ROOT %r = f32[] reduce(%t, %z), dimensions={0}, to_apply=%add\n"
                     "}\n";
  for (size_t at; (at = text.find("[N]")) != std::string::npos;) text.replace(at + 1, 1, n);
  auto m = parse(text.c_str());
  auto exe = compile(*m);
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  if (!exe.ok()) return NAN;
  std::vector<Literal> args;
  args.push_back(x);
  auto r = (*exe)->run(args);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r->data<float>()[0] : NAN;
}

Literal copies(int64_t n, float value) {
  Literal x(Shape(ElementType::kF32, {n}));
  for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = value;
  return x;
}

// 2^22 copies of 0.1f: a plain f32 running sum drifts by about 1e-3
// relative; blocked partial sums stay within a few float ulps of the exact
// n * 0.1f.
TEST(CpuJit, LongSumsStayAccurate) {
  double exact = 4194304.0 * static_cast<double>(0.1f);
  EXPECT_NEAR(runSum("%t = f32[N] copy(%x)", copies(4194304, 0.1f)), exact, exact * 1e-6);
}

// A sum of squares has no negative term, so its blocks sum in f32 (the
// faster path softmax and layer norm take): 2^22 squares of 0.1f still come
// within a few float ulps of the exact 2^22 * (0.1f * 0.1f rounded to f32).
TEST(CpuJit, LongSumsOfSquaresStayAccurate) {
  double exact = 4194304.0 * static_cast<double>(0.1f * 0.1f);
  EXPECT_NEAR(runSum("%t = f32[N] multiply(%x, %x)", copies(4194304, 0.1f)), exact, exact * 1e-6);
}

// x * c with c >= 0 but x of both signs may cancel: the sum stays exact.
// x = {1e8, 1 (4094 times), -1e8} times 2 sums to 2 * 4094 = 8188; in f32
// partials the 2s that meet 2e8 (f32 values near it are 16 apart) would
// be lost.
TEST(CpuJit, SumsOfMixedSignsStayExact) {
  Literal x = copies(4096, 1);
  x.data<float>()[0] = 1e8f;
  x.data<float>()[4095] = -1e8f;
  EXPECT_EQ(runSum("%two = f32[] constant(2)\n"
                   "  %twos = f32[N] broadcast(%two), dimensions={}\n"
                   "  %t = f32[N] multiply(%x, %twos)",
                   x),
            8188.0f);
}

// Column sums of a [1000, 3] array whose row i is {i, 2i, -i}:
// sum i = 499500, so {499500, 999000, -499500}.
TEST(CpuJit, ColumnReduction) {
  auto m = parse(R"(
HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (x: f32[1000,3]) -> f32[3] {
  %x = f32[1000,3] parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[3] reduce(%x, %z), dimensions={0}, to_apply=%add
})");
  auto exe = compile(*m);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.emplace_back(Shape(ElementType::kF32, {1000, 3}));
  for (int i = 0; i < 1000; ++i) {
    args[0].data<float>()[3 * i] = static_cast<float>(i);
    args[0].data<float>()[3 * i + 1] = static_cast<float>(2 * i);
    args[0].data<float>()[3 * i + 2] = static_cast<float>(-i);
  }
  EXPECT_EQ(resultText(**exe, args), "f32[3] {499500, 999000, -499500}");
}

// Split across threads, every element is still written once: y = 2x + 1.
TEST(CpuJit, ThreadsCoverEveryElement) {
  auto m = parse(R"(
HloModule m
ENTRY %e (x: s32[1000003]) -> s32[1000003] {
  %x = s32[1000003] parameter(0)
  %two = s32[] constant(2)
  %one = s32[] constant(1)
  %twos = s32[1000003] broadcast(%two), dimensions={}
  %ones = s32[1000003] broadcast(%one), dimensions={}
  %m = s32[1000003] multiply(%x, %twos)
  ROOT %a = s32[1000003] add(%m, %ones)
})");
  CompileOptions options;
  auto exe = compile(*m, "cpu", cpu::withCpuOptions(options, cpu::cpuThreads(4)));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.emplace_back(Shape(ElementType::kS32, {1000003}));
  for (int i = 0; i < 1000003; ++i) args[0].data<int32_t>()[i] = i;
  auto r = (*exe)->run(args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  int bad = 0;
  for (int i = 0; i < 1000003; ++i) bad += r->data<int32_t>()[i] != 2 * i + 1;
  EXPECT_EQ(bad, 0);
}

TEST(CpuJit, CannotCompileNamesTheInstruction) {
  // A reduce whose reducer holds a sort: the JIT compiles reducers as scalar
  // code, which has no sort.
  auto m = parse(R"(
HloModule m
%less (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %lt = pred[] compare(%a, %b), direction=LT
}
%larger (acc: f32[], x: f32[]) -> f32[] {
  %acc = f32[] parameter(0)
  %x = f32[] parameter(1)
  %a = f32[1] reshape(%acc)
  %b = f32[1] reshape(%x)
  %pair = f32[2] concatenate(%a, %b), dimensions={0}
  %sorted = f32[2] sort(%pair), dimensions={0}, to_apply=%less
  %top = f32[1] slice(%sorted), slice={[1:2]}
  ROOT %r = f32[] reshape(%top)
}
ENTRY %e (x: f32[3]) -> f32[] {
  %x = f32[3] parameter(0)
  %one = f32[] constant(1)
  ROOT %fold = f32[] reduce(%x, %one), dimensions={0}, to_apply=%larger
})");
  auto exe = compile(*m);
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("cpu: cannot compile sort (%sorted)"), std::string::npos)
      << exe.status().message();
  CompileOptions fallback;
  fallback.allowInterpreterFallback = true;
  auto withFallback = compile(*m, "cpu", fallback);
  ASSERT_TRUE(withFallback.ok()) << withFallback.status().message();
  EXPECT_EQ((*withFallback)->fallbackCount(), 1);
  std::vector<Literal> args;
  args.push_back(f32Array({3}, {5, 2, 7}));
  // The reducer keeps the larger of acc and x: from 1, 5, 5, 7.
  EXPECT_EQ(resultText(**withFallback, args), "f32[] 7");
}

// A reducer holding a small dot compiles: the dot of two 2x2 matrices
// filled with acc and x has 2 * acc * x in each corner, so from 1 the fold
// over {1, 2, 3} gives 2*1*1 = 2, 2*2*2 = 8, 2*8*3 = 48.
TEST(CpuJit, ReducerHoldingADot) {
  auto m = parse(R"(
HloModule m
%times_two (acc: f32[], x: f32[]) -> f32[] {
  %acc = f32[] parameter(0)
  %x = f32[] parameter(1)
  %lhs = f32[2,2] broadcast(%acc), dimensions={}
  %rhs = f32[2,2] broadcast(%x), dimensions={}
  %dot = f32[2,2] dot(%lhs, %rhs), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %corner = f32[1,1] slice(%dot), slice={[0:1], [0:1]}
  ROOT %r = f32[] reshape(%corner)
}
ENTRY %e (x: f32[3]) -> f32[] {
  %x = f32[3] parameter(0)
  %one = f32[] constant(1)
  ROOT %fold = f32[] reduce(%x, %one), dimensions={0}, to_apply=%times_two
})");
  auto exe = compile(*m);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  EXPECT_EQ((*exe)->fallbackCount(), 0);
  std::vector<Literal> args;
  args.push_back(f32Array({3}, {1, 2, 3}));
  EXPECT_EQ(resultText(**exe, args), "f32[] 48");
}

TEST(CpuJit, RejectsArgumentsOfTheWrongShape) {
  auto m = parse(R"(
HloModule m
ENTRY %e (x: f32[3]) -> f32[3] {
  %x = f32[3] parameter(0)
  ROOT %n = f32[3] negate(%x)
})");
  auto exe = compile(*m);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.push_back(f32Array({2}, {1, 2}));
  auto r = (*exe)->run(args);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("argument 0 is f32[2]"), std::string::npos) << r.status().message();
}

// Runtime sizes from a parameter: one specialization compiled per size a
// run binds (each compile records one "pass pipeline" trace event), reused
// when the size comes again. Row sums of the first n rows of
// {{1,2,3},{4,5,6},{7,8,9},{10,11,12}}: 6, 15, 24.
TEST(CpuJit, RuntimeSizesCompileOncePerBinding) {
  auto m = parse(R"(
HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (x: f32[4,3], n: s32[]) -> f32[<=4] {
  %x = f32[4,3] parameter(0)
  %n = s32[] parameter(1)
  %rows = f32[<=4,3] set-dimension-size(%x, %n), dimensions={0}
  %zero = f32[] constant(0)
  ROOT %sums = f32[<=4] reduce(%rows, %zero), dimensions={1}, to_apply=%add
})");
  auto exe = compile(*m);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto runWith = [&](int32_t n) {
    std::vector<Literal> args;
    args.push_back(f32Array({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    args.push_back(s32Scalar(n));
    return resultText(**exe, args);
  };
  EXPECT_EQ(runWith(2), "f32[<=4](2) {6, 15}");
  EXPECT_EQ(runWith(3), "f32[<=4](3) {6, 15, 24}");
  EXPECT_EQ(runWith(2), "f32[<=4](2) {6, 15}");
  EXPECT_EQ(compileCount(**exe), 2);
  EXPECT_NE(runWith(5).find("size 5 is outside [0, 4]"), std::string::npos);
}

// Constant sizes compile at compile time. XLA's binary elementwise rule
// repeats a dynamic size of 1 against a larger one: {10} + {1, 2, 3}.
TEST(CpuJit, ConstantRuntimeSizesBroadcastSizeOne) {
  auto m = parse(R"(
HloModule m
ENTRY %e (x: f32[4], y: f32[4]) -> f32[<=4] {
  %x = f32[4] parameter(0)
  %y = f32[4] parameter(1)
  %one = s32[] constant(1)
  %three = s32[] constant(3)
  %a = f32[<=4] set-dimension-size(%x, %one), dimensions={0}
  %b = f32[<=4] set-dimension-size(%y, %three), dimensions={0}
  ROOT %s = f32[<=4] add(%a, %b)
})");
  auto exe = compile(*m);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.push_back(f32Array({4}, {10, 20, 30, 40}));
  args.push_back(f32Array({4}, {1, 2, 3, 4}));
  EXPECT_EQ(resultText(**exe, args), "f32[<=4](3) {11, 12, 13}");
  // Compiled once, by compile(): the run found it.
  EXPECT_EQ(compileCount(**exe), 1);
}

// A loop whose state keeps its runtime sizes runs on them: three negations
// of the first two elements.
TEST(CpuJit, LoopsKeepingRuntimeSizes) {
  auto m = parse(R"(
HloModule m
%body (t: (s32[], f32[<=4])) -> (s32[], f32[<=4]) {
  %t = (s32[], f32[<=4]) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %v = f32[<=4] get-tuple-element(%t), index=1
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %w = f32[<=4] negate(%v)
  ROOT %r = (s32[], f32[<=4]) tuple(%next, %w)
}
%cond (t: (s32[], f32[<=4])) -> pred[] {
  %t = (s32[], f32[<=4]) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %three = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %three), direction=LT
}
ENTRY %e (x: f32[4]) -> (s32[], f32[<=4]) {
  %x = f32[4] parameter(0)
  %zero = s32[] constant(0)
  %two = s32[] constant(2)
  %d = f32[<=4] set-dimension-size(%x, %two), dimensions={0}
  %t = (s32[], f32[<=4]) tuple(%zero, %d)
  ROOT %loop = (s32[], f32[<=4]) while(%t), body=%body, condition=%cond
})");
  auto exe = compile(*m);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.push_back(f32Array({4}, {1, 2, 3, 4}));
  EXPECT_EQ(resultText(**exe, args), "(s32[] 3, f32[<=4](2) {-1, -2})");
}

// What specialization cannot model is a compile error at the instruction,
// at compile time when no parameter sets a size: here a loop that shrinks
// its state each iteration.
TEST(CpuJit, LoopsChangingRuntimeSizesAreRefused) {
  auto m = parse(R"(
HloModule m
%body (t: (f32[<=4])) -> (f32[<=4]) {
  %t = (f32[<=4]) parameter(0)
  %v = f32[<=4] get-tuple-element(%t), index=0
  %n = s32[] get-dimension-size(%v), dimensions={0}
  %one = s32[] constant(1)
  %less = s32[] subtract(%n, %one)
  %w = f32[<=4] set-dimension-size(%v, %less), dimensions={0}
  ROOT %r = (f32[<=4]) tuple(%w)
}
%cond (t: (f32[<=4])) -> pred[] {
  %t = (f32[<=4]) parameter(0)
  ROOT %f = pred[] constant(false)
}
ENTRY %e (x: f32[4]) -> (f32[<=4]) {
  %x = f32[4] parameter(0)
  %two = s32[] constant(2)
  %d = f32[<=4] set-dimension-size(%x, %two), dimensions={0}
  %t = (f32[<=4]) tuple(%d)
  ROOT %loop = (f32[<=4]) while(%t), body=%body, condition=%cond
})");
  auto exe = compile(*m);
  ASSERT_FALSE(exe.ok());
  EXPECT_NE(exe.status().message().find("cannot compile while (%loop): its body changes the runtime sizes"),
            std::string::npos)
      << exe.status().message();
  EXPECT_EQ(exe.status().loc().line, 21);  // %loop
}

// Kernels split into several LLVM modules, compiled side by side, run as
// they do from one: each op its own kernel (no fusion), spread over 3 parts.
TEST(CpuJit, KernelsSplitIntoParallelParts) {
  auto m = parse(R"(
HloModule m
ENTRY %e (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  %y = f32[4] parameter(1)
  %a = f32[4] add(%x, %y)
  %b = f32[4] multiply(%a, %x)
  %c = f32[4] exponential(%y)
  %d = f32[4] subtract(%b, %c)
  ROOT %n = f32[4] negate(%d)
})");
  CompileOptions options;
  options.fuse = false;
  options.useCache = false;
  cpu::CpuOptions threeParts;
  threeParts.llvmParts = 3;
  auto exe = compile(*m, "cpu", cpu::withCpuOptions(options, threeParts));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  bool parallel = false;
  for (const TraceEvent& e : (*exe)->trace()) parallel = parallel || e.name == "LLVM, 3 parts in parallel";
  EXPECT_TRUE(parallel);
  std::vector<Literal> args;
  args.push_back(f32Array({4}, {1, 2, 3, 4}));
  args.push_back(f32Array({4}, {0, 0, 0, 0}));
  // -((x + 0) * x - e^0) = 1 - x^2, and -(+0) = -0 for x = 1.
  EXPECT_EQ(resultText(**exe, args), "f32[4] {-0, -3, -8, -15}");
}

// A caller sweeping sizes keeps the latest 64 specializations: after sizes
// 0..64 (65 compiles), size 0 was evicted and compiles again; size 64 did
// not. Each run sums the first n of 1, 1, 1, ...: n.
TEST(CpuJit, SpecializationsKeptAreBounded) {
  auto m = parse(R"(
HloModule m
%add (a: s32[], b: s32[]) -> s32[] {
  %a = s32[] parameter(0)
  %b = s32[] parameter(1)
  ROOT %s = s32[] add(%a, %b)
}
ENTRY %e (x: s32[100], n: s32[]) -> s32[] {
  %x = s32[100] parameter(0)
  %n = s32[] parameter(1)
  %d = s32[<=100] set-dimension-size(%x, %n), dimensions={0}
  %zero = s32[] constant(0)
  ROOT %sum = s32[] reduce(%d, %zero), dimensions={0}, to_apply=%add
})");
  CompileOptions options;
  auto exe = compile(*m, "cpu", cpu::withCpuOptions(options, cpu::cpuThreads(1)));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto runWith = [&](int32_t n) {
    std::vector<Literal> args;
    Literal x(Shape(ElementType::kS32, {100}));
    for (int i = 0; i < 100; ++i) x.data<int32_t>()[i] = 1;
    args.push_back(std::move(x));
    args.push_back(s32Scalar(n));
    return resultText(**exe, args);
  };
  for (int n = 0; n <= 64; ++n) ASSERT_EQ(runWith(n), "s32[] " + std::to_string(n));
  EXPECT_EQ(compileCount(**exe), 65);
  EXPECT_EQ(runWith(64), "s32[] 64");
  EXPECT_EQ(compileCount(**exe), 65);
  EXPECT_EQ(runWith(0), "s32[] 0");
  EXPECT_EQ(compileCount(**exe), 66);
}

}  // namespace
}  // namespace hlo::jit
