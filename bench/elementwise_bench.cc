// Interpreter elementwise throughput: elements per second through
// interp::evaluate on a parsed module of one f32[4194304] operation.
//
// The time includes what every interpreted instruction pays: copying the
// entry parameters into the evaluator and allocating the zero-filled result.
// Target: at least 50 M elements/s for add, multiply and exponential.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "interp/evaluator.h"
#include "parser/parser.h"

namespace {

constexpr int64_t kElements = int64_t{4} << 20;

hlo::Literal makeInput(float scale) {
  hlo::Literal lit(hlo::Shape(hlo::ElementType::kF32, {kElements}));
  float* data = lit.data<float>();
  for (int64_t i = 0; i < kElements; ++i) data[i] = scale * std::sin(static_cast<float>(i));
  return lit;
}

// Runs `ROOT r = f32[N] <op>(<params>)` with `arity` f32[N] parameters.
void runElementwise(benchmark::State& state, const std::string& op, int arity) {
  std::string n = std::to_string(kElements);
  std::string text = "HloModule bench\nENTRY e {\n";
  std::string operands;
  for (int i = 0; i < arity; ++i) {
    std::string p = "p" + std::to_string(i);
    text += "  " + p + " = f32[" + n + "] parameter(" + std::to_string(i) + ")\n";
    operands += (i ? ", " : "") + p;
  }
  text += "  ROOT r = f32[" + n + "] " + op + "(" + operands + ")\n}\n";
  auto module = hlo::parseModule(text);
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return;
  }
  std::vector<hlo::Literal> args;
  for (int i = 0; i < arity; ++i) args.push_back(makeInput(1.0f + static_cast<float>(i)));
  for (auto _ : state) {
    auto result = hlo::interp::evaluate(**module, args);
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(result->untypedData());
  }
  state.SetItemsProcessed(state.iterations() * kElements);
}

void BM_AddF32(benchmark::State& state) { runElementwise(state, "add", 2); }
void BM_MultiplyF32(benchmark::State& state) { runElementwise(state, "multiply", 2); }
void BM_ExponentialF32(benchmark::State& state) { runElementwise(state, "exponential", 1); }
void BM_TanhF32(benchmark::State& state) { runElementwise(state, "tanh", 1); }
void BM_MaximumF32(benchmark::State& state) { runElementwise(state, "maximum", 2); }

BENCHMARK(BM_AddF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MultiplyF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExponentialF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TanhF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MaximumF32)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
