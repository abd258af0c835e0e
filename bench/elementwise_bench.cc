// Interpreter elementwise throughput: elements per second through
// interp::evaluate on a parsed module of one f32[4194304] operation.
//
// The time includes what every interpreted instruction pays: copying the
// entry parameters into the evaluator and allocating the zero-filled result.
// Target: at least 50 M elements/s for add, multiply and exponential.
//
// Each benchmark also times a peer in the same process: a plain C++ loop
// computing the same op over the same arrays into a fresh vector. The counter
// `x_peer` is interpreter time / peer time, so it reads the same on a fast or
// a slow machine (1.0 would be as fast as the hand-written loop).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
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

// Seconds per run of the peer loop over `args` (best of a few runs); `f` is
// a lambda, inlined into the loop as a hand-written kernel would have it.
template <typename Peer>
double peerSeconds(const std::vector<hlo::Literal>& args, Peer f) {
  const float* a = args[0].data<float>();
  const float* b = args.size() > 1 ? args[1].data<float>() : a;
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    auto start = std::chrono::steady_clock::now();
    std::vector<float> out(kElements);
    for (int64_t i = 0; i < kElements; ++i) out[i] = f(a[i], b[i]);
    benchmark::DoNotOptimize(out.data());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// Runs `ROOT r = f32[N] <op>(<params>)` with `arity` f32[N] parameters.
template <typename Peer>
void runElementwise(benchmark::State& state, const std::string& op, int arity, Peer peer) {
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
  double total = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    auto result = hlo::interp::evaluate(**module, args);
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(result->untypedData());
  }
  state.SetItemsProcessed(state.iterations() * kElements);
  state.counters["x_peer"] = total / static_cast<double>(state.iterations()) / peerSeconds(args, peer);
}

void BM_AddF32(benchmark::State& state) {
  runElementwise(state, "add", 2, [](float a, float b) { return a + b; });
}
void BM_MultiplyF32(benchmark::State& state) {
  runElementwise(state, "multiply", 2, [](float a, float b) { return a * b; });
}
void BM_ExponentialF32(benchmark::State& state) {
  runElementwise(state, "exponential", 1, [](float a, float) { return std::exp(a); });
}
void BM_TanhF32(benchmark::State& state) {
  runElementwise(state, "tanh", 1, [](float a, float) { return std::tanh(a); });
}
void BM_MaximumF32(benchmark::State& state) {
  runElementwise(state, "maximum", 2, [](float a, float b) { return std::isnan(a) || a > b ? a : b; });
}

BENCHMARK(BM_AddF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MultiplyF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExponentialF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TanhF32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MaximumF32)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
