// CPU JIT throughput on two 16M-element f32 modules:
//   ReduceSum      reduce_sum(x + y * z), one kInput fusion (reads 192 MiB)
//   ElementwiseChain  ten elementwise ops of x and y, one kLoop fusion
//                  (reads 128 MiB, writes 64 MiB)
// Counters, so the numbers mean the same on any machine:
//   x_floor   JIT time / the memory floor: a streaming loop in this binary
//             that only touches the same bytes (same thread count as the JIT);
//             1.0 is the bandwidth bound, the target is within 1.1
//   x_interp  interpreter time / JIT time (the interpreter runs once)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "interp/evaluator.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace {

constexpr int64_t kElements = int64_t{16} << 20;

const char* kReduceSum = R"(
HloModule reduce_sum
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[16777216], y: f32[16777216], z: f32[16777216]) -> f32[] {
  %x = f32[16777216] parameter(0)
  %y = f32[16777216] parameter(1)
  %z = f32[16777216] parameter(2)
  %yz = f32[16777216] multiply(%y, %z)
  %xyz = f32[16777216] add(%x, %yz)
  %zero = f32[] constant(0)
  ROOT %r = f32[] reduce(%xyz, %zero), dimensions={0}, to_apply=%add
})";

const char* kChain = R"(
HloModule chain
ENTRY %main (x: f32[16777216], y: f32[16777216]) -> f32[16777216] {
  %x = f32[16777216] parameter(0)
  %y = f32[16777216] parameter(1)
  %c = f32[] constant(0.5)
  %h = f32[16777216] broadcast(%c), dimensions={}
  %a1 = f32[16777216] add(%x, %y)
  %a2 = f32[16777216] multiply(%a1, %h)
  %a3 = f32[16777216] subtract(%a2, %y)
  %a4 = f32[16777216] maximum(%a3, %x)
  %a5 = f32[16777216] multiply(%a4, %a4)
  %a6 = f32[16777216] add(%a5, %h)
  %a7 = f32[16777216] negate(%a6)
  %a8 = f32[16777216] minimum(%a7, %y)
  %a9 = f32[16777216] abs(%a8)
  ROOT %a10 = f32[16777216] multiply(%a9, %x)
})";

std::vector<hlo::Literal> inputs(int n) {
  std::vector<hlo::Literal> args;
  for (int k = 0; k < n; ++k) {
    args.emplace_back(hlo::Shape(hlo::ElementType::kF32, {kElements}));
    float* data = args.back().data<float>();
    for (int64_t i = 0; i < kElements; ++i) data[i] = std::sin(static_cast<float>(i + k));
  }
  return args;
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The memory floor: every thread streams its share of the inputs (integer
// sums, which the compiler vectorizes) or, when `write`, combines the two
// inputs into one output word per element. Best of five runs.
double floorSeconds(const std::vector<hlo::Literal>& args, bool write) {
  int threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<uint32_t> out(write ? kElements : 0);
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    std::vector<uint32_t> sums(threads);
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        int64_t begin = kElements * t / threads, end = kElements * (t + 1) / threads;
        // 64-bit words, four independent sums: the loop is bound by memory,
        // not by a chain of additions.
        std::vector<const uint64_t*> in;
        for (const hlo::Literal& a : args) in.push_back(reinterpret_cast<const uint64_t*>(a.untypedData()));
        int64_t wordBegin = begin / 2, wordEnd = end / 2;
        uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        if (write) {
          uint64_t* o = reinterpret_cast<uint64_t*>(out.data());
          for (int64_t i = wordBegin; i < wordEnd; ++i) o[i] = in[0][i] ^ in[1][i];
        } else {
          for (const uint64_t* p : in)
            for (int64_t i = wordBegin; i + 4 <= wordEnd; i += 4) {
              s0 += p[i];
              s1 += p[i + 1];
              s2 += p[i + 2];
              s3 += p[i + 3];
            }
        }
        sums[t] = static_cast<uint32_t>(s0 ^ s1 ^ s2 ^ s3);
      });
    for (std::thread& th : pool) th.join();
    benchmark::DoNotOptimize(sums.data());
    benchmark::DoNotOptimize(out.data());
    best = std::min(best, since(start));
  }
  return best;
}

void runJit(benchmark::State& state, const char* text, int params, bool writes) {
  auto module = hlo::parseModule(text);
  if (!module.ok()) return state.SkipWithError(module.status().message().c_str());
  auto exe = hlo::jit::compile(**module);
  if (!exe.ok()) return state.SkipWithError(exe.status().message().c_str());
  std::vector<hlo::Literal> args = inputs(params);
  double total = 0;
  int64_t runs = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    auto result = (*exe)->run(args);
    total += since(start);
    ++runs;
    if (!result.ok()) return state.SkipWithError(result.status().message().c_str());
    benchmark::DoNotOptimize(result->untypedData());
  }
  double jit = total / std::max<int64_t>(runs, 1);
  auto start = std::chrono::steady_clock::now();
  auto reference = hlo::interp::evaluate(**module, args);
  double interp = since(start);
  if (!reference.ok()) return state.SkipWithError(reference.status().message().c_str());
  state.counters["x_floor"] = jit / floorSeconds(args, writes);
  state.counters["x_interp"] = interp / jit;
  state.SetBytesProcessed(runs * kElements * 4 * (params + (writes ? 1 : 0)));
}

void ReduceSum(benchmark::State& state) { runJit(state, kReduceSum, 3, false); }
void ElementwiseChain(benchmark::State& state) { runJit(state, kChain, 2, true); }

BENCHMARK(ReduceSum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(ElementwiseChain)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
