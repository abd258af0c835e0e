// The CPU runtime's own cost per step, apart from any kernel's work: what a
// small model pays for every loop iteration and every kernel it runs (the
// real models of model_bench.cc run hundreds of tiny steps per call).
//   EmptyLoop        a while loop of 10,000 iterations that only counts
//   LoopOfKernels    the same loop whose body also runs four kernels on
//                    f32[4, 32] (128 elements each: their work is a few
//                    dozen nanoseconds), unfused, so each is a step
//   StraightKernels  a module of 200 such kernels one after another
// Counters:
//   ns_per_iteration, ns_per_step   the median run over the iterations or
//                                   the steps it has (kernels, the loop's
//                                   condition and body programs included)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "interp/random_inputs.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace {

constexpr int kIterations = 10000;
constexpr int kStraightKernels = 200;

std::string emptyLoop() {
  return R"(HloModule empty_loop
cond {
  p = (s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant()" + std::to_string(kIterations) + R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  ROOT t = (s32[]) tuple(s32[] add(i, one))
}
ENTRY main {
  t = (s32[]) tuple(s32[] constant(0))
  w = (s32[]) while(t), condition=cond, body=body
  ROOT r = s32[] get-tuple-element(w), index=0
})";
}

std::string loopOfKernels() {
  return R"(HloModule loop_of_kernels
cond {
  p = (s32[], f32[4,32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant()" + std::to_string(kIterations) + R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[4,32]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  x = f32[4,32] get-tuple-element(p), index=1
  a = f32[4,32] negate(x)
  b = f32[4,32] abs(a)
  c = f32[4,32] multiply(b, x)
  d = f32[4,32] subtract(c, a)
  one = s32[] constant(1)
  ROOT t = (s32[], f32[4,32]) tuple(s32[] add(i, one), d)
}
ENTRY main {
  x = f32[4,32] parameter(0)
  t = (s32[], f32[4,32]) tuple(s32[] constant(0), x)
  w = (s32[], f32[4,32]) while(t), condition=cond, body=body
  ROOT r = f32[4,32] get-tuple-element(w), index=1
})";
}

std::string straightKernels() {
  std::string text = "HloModule straight_kernels\nENTRY main {\n  v0 = f32[4,32] parameter(0)\n";
  for (int k = 1; k <= kStraightKernels; ++k)
    text += "  v" + std::to_string(k) + " = f32[4,32] " + (k % 2 ? "negate" : "abs") + "(v" + std::to_string(k - 1) +
            ")\n";
  return text + "  ROOT r = f32[4,32] copy(v" + std::to_string(kStraightKernels) + ")\n}\n";
}

// `text` compiled unfused and run by the benchmark; `counter` is its median
// run over `steps`, in nanoseconds.
void runSteps(benchmark::State& state, const std::string& text, double steps, const char* counter) {
  auto module = hlo::parseModule(text);
  if (!module.ok()) return state.SkipWithError(module.status().message().c_str());
  hlo::jit::CompileOptions options;
  options.fuse = false;
  auto exe = hlo::jit::compile(**module, "cpu", options);
  if (!exe.ok()) return state.SkipWithError(exe.status().message().c_str());
  std::vector<hlo::Literal> args = hlo::interp::randomArguments(*(*module)->entry(), 1);
  std::vector<double> times;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    auto result = (*exe)->run(args);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!result.ok()) return state.SkipWithError(result.status().message().c_str());
    benchmark::DoNotOptimize(result->shape());
  }
  std::sort(times.begin(), times.end());
  state.counters[counter] = times[(times.size() - 1) / 2] / steps * 1e9;
}

void EmptyLoop(benchmark::State& s) { runSteps(s, emptyLoop(), kIterations, "ns_per_iteration"); }
void LoopOfKernels(benchmark::State& s) { runSteps(s, loopOfKernels(), kIterations, "ns_per_iteration"); }
void StraightKernels(benchmark::State& s) { runSteps(s, straightKernels(), kStraightKernels, "ns_per_step"); }

}  // namespace

BENCHMARK(EmptyLoop)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(LoopOfKernels)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(StraightKernels)->Unit(benchmark::kMicrosecond)->UseRealTime()->MinTime(0.5);
BENCHMARK_MAIN();
