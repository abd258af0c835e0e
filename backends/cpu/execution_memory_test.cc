// The CPU runtime's arena (execution_memory.h): values share it as buffer
// assignment says, results are the caller's, and runs are independent.
// Every expected value is worked out by hand.
#include "backends/cpu/cpu_options.h"
#include "backends/cpu/execution_memory.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <thread>
#include <vector>

#include "backends/cpu/program.h"
#include "jit/executable.h"
#include "parser/parse_or_fail.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kN = int64_t{1} << 20;  // 4 MiB of f32
constexpr int64_t kBytes = kN * 4;

std::unique_ptr<jit::Executable> compileUnfused(const std::string& text, int threads = 0,
                                                int64_t maxMemoryBytes = int64_t{8} << 30) {
  std::unique_ptr<Module> m = parseOrFail(text);
  if (!m) return nullptr;
  jit::CompileOptions options;
  options.fuse = false;  // every op its own kernel and its own value
  options.useCache = false;
  options.maxMemoryBytes = maxMemoryBytes;
  auto exe = jit::compile(*m, "cpu", withCpuOptions(options, cpuThreads(threads)));
  EXPECT_TRUE(exe.ok()) << exe.status().message();
  return exe.ok() ? std::move(exe).value() : nullptr;
}

const CpuExecutable& cpu(const jit::Executable& exe) { return dynamic_cast<const CpuExecutable&>(exe); }

Literal f32Vector(int64_t n, float (*f)(int64_t)) {
  Literal lit(Shape(ElementType::kF32, {n}));
  for (int64_t i = 0; i < n; ++i) lit.data<float>()[i] = f(i);
  return lit;
}

// Elements of `lit` that differ from want(i); 0 when all agree.
int64_t mismatches(const Literal& lit, float (*want)(int64_t)) {
  int64_t bad = 0;
  for (int64_t i = 0; i < lit.elementCount(); ++i) bad += lit.data<float>()[i] != want(i);
  return bad;
}

// x, 2x, 2x^2, 2x^2 - x, x - 2x^2, |x - 2x^2|, |x - 2x^2| + x: five
// intermediates of 4 MiB, of which at most two are live at once.
const std::string kChain = R"(
HloModule chain
ENTRY %main (x: f32[1048576]) -> f32[1048576] {
  %x = f32[1048576] parameter(0)
  %a = f32[1048576] add(%x, %x)
  %b = f32[1048576] multiply(%a, %x)
  %c = f32[1048576] subtract(%b, %x)
  %d = f32[1048576] negate(%c)
  %e = f32[1048576] abs(%d)
  ROOT %f = f32[1048576] add(%e, %x)
})";

// x in {-2, -1, 0, 1, 2}: |x - 2x^2| + x is {8, 2, 0, 2, 8}.
float cycle5(int64_t i) { return static_cast<float>(i % 5 - 2); }
float chainOfCycle5(int64_t i) { return std::vector<float>{8, 2, 0, 2, 8}[i % 5]; }
// x in {0, 1, 2}: {0, 2, 8}.
float cycle3(int64_t i) { return static_cast<float>(i % 3); }
float chainOfCycle3(int64_t i) { return std::vector<float>{0, 2, 8}[i % 3]; }

TEST(ExecutionMemory, ElementwiseChainReusesTheArena) {
  auto exe = compileUnfused(kChain);
  ASSERT_NE(exe, nullptr);
  // Two 4 MiB buffers take turns; the result has its own memory.
  EXPECT_EQ(cpu(*exe).arenaBytes(), 2 * kBytes);
  EXPECT_EQ(cpu(*exe).memoryPlan().noReuseBytes, 6 * kBytes);
  std::vector<Literal> args;
  args.push_back(f32Vector(kN, cycle5));
  auto r = exe->run(args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(mismatches(*r, chainOfCycle5), 0);
  RunMemoryStats stats = cpu(*exe).lastRunMemory();
  EXPECT_EQ(stats.arenaBytes, 5 * kBytes);
  EXPECT_EQ(stats.outputBytes, kBytes);
  EXPECT_EQ(stats.heapBytes, 0);
  EXPECT_EQ(mismatches(args[0], cycle5), 0);  // the argument is untouched
}

TEST(ExecutionMemory, OverTheMemoryLimitTheRunGoesOnTheHeap) {
  // The arena (8 MiB) and the result (4 MiB) are over a 10 MiB limit
  // together, but no more than two 4 MiB values are live at one step: the run
  // goes on the heap, which the limit checks value by value, as before the
  // arena. At 6 MiB the second value is refused.
  auto exe = compileUnfused(kChain, 0, 10 << 20);
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.push_back(f32Vector(kN, cycle5));
  auto r = exe->run(args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(mismatches(*r, chainOfCycle5), 0);
  RunMemoryStats stats = cpu(*exe).lastRunMemory();
  EXPECT_EQ(stats.arenaBytes, 0);
  EXPECT_EQ(stats.heapBytes, 6 * kBytes);
  EXPECT_EQ(cpu(*exe).arenasAllocated(), 0);

  auto tight = compileUnfused(kChain, 0, 6 << 20);
  ASSERT_NE(tight, nullptr);
  auto refused = tight->run(args);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("beyond the memory limit"), std::string::npos)
      << refused.status().message();
}

TEST(ExecutionMemory, ResultsSurviveTheNextRun) {
  auto exe = compileUnfused(kChain);
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> first, second;
  first.push_back(f32Vector(kN, cycle5));
  second.push_back(f32Vector(kN, cycle3));
  auto r1 = exe->run(first);
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  auto r2 = exe->run(second);
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(mismatches(*r1, chainOfCycle5), 0);
  EXPECT_EQ(mismatches(*r2, chainOfCycle3), 0);
  EXPECT_EQ(cpu(*exe).arenasAllocated(), 1);  // the second run reused the first one's arena
}

int64_t minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

TEST(ExecutionMemory, ASecondRunTouchesNoNewPages) {
  // The first run maps the arena's pages (and its result's); the second
  // writes its five 4 MiB intermediates (5120 pages) into the same arena, and
  // its result into the heap block the first result gave back.
#ifdef __SANITIZE_ADDRESS__
  GTEST_SKIP() << "AddressSanitizer's allocator quarantines freed blocks: the result's block is not reused";
#endif
  auto exe = compileUnfused(kChain);
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.push_back(f32Vector(kN, cycle5));
  {
    auto r = exe->run(args);
    ASSERT_TRUE(r.ok()) << r.status().message();
  }
  int64_t before = minorFaults();
  auto r = exe->run(args);
  int64_t faults = minorFaults() - before;
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(mismatches(*r, chainOfCycle5), 0);
  EXPECT_LT(faults, 64);
}

TEST(ExecutionMemory, ResultsOwnTheirMemory) {
  // The same buffer twice, a parameter, a renaming bitcast and a constant:
  // each result array is a copy or a buffer of its own.
  auto exe = compileUnfused(R"(
HloModule m
ENTRY %main (x: f32[4]) -> (f32[4], f32[4], f32[4], f32[2,2], f32[2]) {
  %x = f32[4] parameter(0)
  %n = f32[4] negate(%x)
  %b = f32[2,2] bitcast(%n)
  %k = f32[2] constant({7, 8})
  ROOT %t = (f32[4], f32[4], f32[4], f32[2,2], f32[2]) tuple(%n, %n, %x, %b, %k)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.emplace_back(Shape(ElementType::kF32, {4}));
  for (int i = 0; i < 4; ++i) args[0].data<float>()[i] = static_cast<float>(i + 1);
  auto r = exe->run(args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->toString(), "(f32[4] {-1, -2, -3, -4}, f32[4] {-1, -2, -3, -4}, f32[4] {1, 2, 3, 4}, "
                           "f32[2,2] {{-1, -2}, {-3, -4}}, f32[2] {7, 8})");
  std::vector<const uint8_t*> seen{args[0].untypedData()};
  for (const Literal& e : r->tupleElements()) {
    EXPECT_FALSE(e.borrowed());
    for (const uint8_t* p : seen) EXPECT_NE(e.untypedData(), p);
    seen.push_back(e.untypedData());
  }
}

TEST(ExecutionMemory, DynamicUpdateSlicesUpdateInPlace) {
  // b = 0; d1 writes {1, 2} at 2 and d2 at 5, both into b's buffer.
  auto exe = compileUnfused(R"(
HloModule m
ENTRY %main (u: f32[2]) -> f32[8] {
  %u = f32[2] parameter(0)
  %z = f32[] constant(0)
  %b = f32[8] broadcast(%z), dimensions={}
  %i2 = s32[] constant(2)
  %d1 = f32[8] dynamic-update-slice(%b, %u, %i2)
  %i5 = s32[] constant(5)
  %d2 = f32[8] dynamic-update-slice(%d1, %u, %i5)
  ROOT %n = f32[8] negate(%d2)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.emplace_back(Shape(ElementType::kF32, {2}));
  args[0].data<float>()[0] = 1;
  args[0].data<float>()[1] = 2;
  for (int run = 0; run < 2; ++run) {
    auto r = exe->run(args);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->toString(), "f32[8] {-0, -0, -1, -2, -0, -1, -2, -0}");
  }
  EXPECT_EQ(cpu(*exe).arenaBytes(), 64);  // b, d1 and d2 share one buffer
}

TEST(ExecutionMemory, FusionRunAsACallAndReorderingBitcastUseTheArena) {
  // %fused is not one kernel (its reduce feeds a negate): it runs as a call,
  // its values in the fusion's scratch range. %b moves elements (row-major
  // [2,3] read as column-major [3,2]): a kernel writing a buffer of its own.
  // Rows of x are i, i+1, ..., i+7: sums 8i + 28. y is {{1, 2, 3}, {4, 5, 6}}
  // in memory order, so b is {{1, 4}, {2, 5}, {3, 6}}.
  auto exe = compileUnfused(R"(
HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%fused (p: f32[4,8]) -> f32[4] {
  %p = f32[4,8] parameter(0)
  %z = f32[] constant(0)
  %r = f32[4] reduce(%p, %z), dimensions={1}, to_apply=%add
  ROOT %n = f32[4] negate(%r)
}
ENTRY %main (x: f32[4,8], y: f32[2,3]) -> (f32[4], f32[3,2]{0,1}) {
  %x = f32[4,8] parameter(0)
  %f = f32[4] fusion(%x), kind=kInput, calls=%fused
  %y = f32[2,3] parameter(1)
  %b = f32[3,2]{0,1} bitcast(%y)
  %nb = f32[3,2]{0,1} negate(%b)
  ROOT %t = (f32[4], f32[3,2]{0,1}) tuple(%f, %nb)
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.emplace_back(Shape(ElementType::kF32, {4, 8}));
  for (int i = 0; i < 32; ++i) args[0].data<float>()[i] = static_cast<float>(i / 8 + i % 8);
  args.emplace_back(Shape(ElementType::kF32, {2, 3}));
  for (int i = 0; i < 6; ++i) args[1].data<float>()[i] = static_cast<float>(i + 1);
  auto r = exe->run(args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->tupleElements()[0].toString(), "f32[4] {-28, -36, -44, -52}");
  const float* nb = r->tupleElements()[1].data<float>();
  EXPECT_EQ(std::vector<float>(nb, nb + 6), (std::vector<float>{-1, -4, -2, -5, -3, -6}));
  RunMemoryStats stats = cpu(*exe).lastRunMemory();
  EXPECT_EQ(stats.heapBytes, 0);
  EXPECT_EQ(stats.arenaBytes, 16 + 16 + 24);  // %r and %n in the scratch range, %b
  EXPECT_EQ(stats.outputBytes, 16 + 24);
}

// The loop rotates (a, b, c) and adds a to s, through 2a - a, four times:
// from (x, 2x, 3x, 0) to (2x, 3x, x, x + 2x + 3x + x) = (2x, 3x, x, 7x).
// The body returns parts of its parameter in another order (the runtime
// copies them aside before it overwrites the state) and keeps its
// intermediates in its scratch range of the arena.
TEST(ExecutionMemory, WhileLoopStateAndBodyValues) {
  auto exe = compileUnfused(R"(
HloModule loop
%cond (p: (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576])) -> pred[] {
  %p = (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %four = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %four), direction=LT
}
%body (p: (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576])) -> (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) {
  %p = (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %a = f32[1048576] get-tuple-element(%p), index=1
  %b = f32[1048576] get-tuple-element(%p), index=2
  %c = f32[1048576] get-tuple-element(%p), index=3
  %s = f32[1048576] get-tuple-element(%p), index=4
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %twoa = f32[1048576] add(%a, %a)
  %a1 = f32[1048576] subtract(%twoa, %a)
  %s1 = f32[1048576] add(%s, %a1)
  ROOT %t = (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) tuple(%next, %b, %c, %a, %s1)
}
ENTRY %main (x: f32[1048576]) -> (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) {
  %x = f32[1048576] parameter(0)
  %zero = s32[] constant(0)
  %x2 = f32[1048576] add(%x, %x)
  %x3 = f32[1048576] add(%x2, %x)
  %z = f32[] constant(0)
  %s0 = f32[1048576] broadcast(%z), dimensions={}
  %init = (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) tuple(%zero, %x, %x2, %x3, %s0)
  ROOT %w = (s32[], f32[1048576], f32[1048576], f32[1048576], f32[1048576]) while(%init), condition=%cond, body=%body
})");
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> args;
  args.push_back(f32Vector(kN, cycle3));
  auto r = exe->run(args);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->tupleElements().size(), 5u);
  EXPECT_EQ(r->tupleElements()[0].toString(), "s32[] 4");
  EXPECT_EQ(mismatches(r->tupleElements()[1], [](int64_t i) { return 2.0f * (i % 3); }), 0);
  EXPECT_EQ(mismatches(r->tupleElements()[2], [](int64_t i) { return 3.0f * (i % 3); }), 0);
  EXPECT_EQ(mismatches(r->tupleElements()[3], [](int64_t i) { return 1.0f * (i % 3); }), 0);
  EXPECT_EQ(mismatches(r->tupleElements()[4], [](int64_t i) { return 7.0f * (i % 3); }), 0);
  RunMemoryStats stats = cpu(*exe).lastRunMemory();
  EXPECT_EQ(stats.heapBytes, 0);
  // The loop state is the result; the body's 2a, 2a - a and s + a (and the
  // counter) ran in the arena four times.
  EXPECT_EQ(stats.outputBytes, 4 * kBytes + 4);
  EXPECT_GE(stats.arenaBytes, 4 * 3 * kBytes);
  EXPECT_LT(cpu(*exe).arenaBytes(), 7 * kBytes);
}

TEST(ExecutionMemory, ConcurrentRunsDoNotShareAnArena) {
  auto exe = compileUnfused(kChain, 2);
  ASSERT_NE(exe, nullptr);
  std::vector<Literal> fives, threes;
  fives.push_back(f32Vector(kN, cycle5));
  threes.push_back(f32Vector(kN, cycle3));
  int64_t bad[2] = {0, 0};
  auto runs = [&](int t) {
    for (int k = 0; k < 6; ++k) {
      auto r = exe->run(t == 0 ? fives : threes);
      if (!r.ok()) {
        bad[t] += kN;
        continue;
      }
      bad[t] += mismatches(*r, t == 0 ? chainOfCycle5 : chainOfCycle3);
    }
  };
  std::thread a(runs, 0), b(runs, 1);
  a.join();
  b.join();
  EXPECT_EQ(bad[0], 0);
  EXPECT_EQ(bad[1], 0);
  EXPECT_GE(cpu(*exe).arenasAllocated(), 1);
  EXPECT_LE(cpu(*exe).arenasAllocated(), 2);
}

}  // namespace
}  // namespace hlo::cpu
