// Reference-interpreter dot throughput: an n x n x n f32 matrix product run
// through interp::evaluate (parse once, inputs made once, outside the timing).
// Target: n = 256 well under 2 s (the interpreter is the yardstick, not the
// fast path; it only must not make big modules impractical to check).
// Reports GFLOP/s as a counter (2 n^3 flops per product).
#include <benchmark/benchmark.h>

#include <string>

#include "interp/evaluator.h"
#include "parser/parser.h"

namespace {

std::string dotModule(int64_t n) {
  std::string s = "f32[" + std::to_string(n) + "," + std::to_string(n) + "]";
  return "HloModule dot\nENTRY e {\n  a = " + s + " parameter(0)\n  b = " + s +
         " parameter(1)\n  ROOT d = " + s +
         " dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n";
}

hlo::Literal matrix(int64_t n, float scale) {
  hlo::Literal m(hlo::Shape(hlo::ElementType::kF32, {n, n}));
  float* p = m.data<float>();
  for (int64_t i = 0; i < n * n; ++i) p[i] = scale * static_cast<float>(i % 17 - 8);
  return m;
}

void BM_DotF32(benchmark::State& state) {
  int64_t n = state.range(0);
  auto module = hlo::parseModule(dotModule(n));
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return;
  }
  std::vector<hlo::Literal> args;
  args.push_back(matrix(n, 0.5f));
  args.push_back(matrix(n, 0.25f));
  for (auto _ : state) {
    auto result = hlo::interp::evaluate(**module, args);
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DotF32)->Arg(64)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
