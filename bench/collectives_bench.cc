// An all-reduce (sum) of 64 MiB of f32 across 2 and 4 in-process devices,
// on the interpreter and on the CPU JIT, against a memory floor taken in the
// same process:
//   of_floor  floor time / all-reduce time. The floor is what any all-reduce
//             must move at least: every device reads its 64 MiB and writes
//             its 64 MiB of result, here as one memcpy per device, the
//             devices' copies side by side on threads of their own.
//   GB_s      those bytes (2 x 64 MiB per device) per second of the all-reduce
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "conformance/multi_device.h"
#include "hlo/collectives.h"
#include "interp/random_inputs.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace {

constexpr int64_t kElements = int64_t{16} << 20;  // 64 MiB of f32

std::string allReduceModule(int64_t devices) {
  return "HloModule all_reduce, replica_count=" + std::to_string(devices) + R"(
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[)" + std::to_string(kElements) +
         R"(] parameter(0)
  ROOT r = f32[)" + std::to_string(kElements) +
         R"(] all-reduce(x), to_apply=add
})";
}

// The floor: one memcpy of 64 MiB per device, all at once.
double floorSeconds(int64_t devices) {
  static std::vector<std::vector<float>> in, out;
  in.resize(devices, std::vector<float>(kElements, 1.0f));
  out.resize(devices, std::vector<float>(kElements, 0.0f));
  double best = 1e9;
  for (int rep = 0; rep < 5; ++rep) {
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> threads;
    for (int64_t d = 0; d < devices; ++d)
      threads.emplace_back([d] { std::memcpy(out[d].data(), in[d].data(), kElements * sizeof(float)); });
    for (auto& t : threads) t.join();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void BM_AllReduce(benchmark::State& state, const char* engine) {
  int64_t devices = state.range(0);
  auto module = hlo::parseModule(allReduceModule(devices));
  if (!module.ok()) return state.SkipWithError(module.status().message().c_str());
  hlo::collectives::Topology topology{devices, 1};
  std::vector<std::vector<hlo::Literal>> args;
  for (int64_t d = 0; d < devices; ++d)
    args.push_back(hlo::interp::randomArguments(*(*module)->entry(), hlo::conformance::deviceSeed(0, d)));
  std::unique_ptr<hlo::jit::Executable> exe;
  if (std::string(engine) == "cpu") {
    auto compiled = hlo::jit::compile(**module, "cpu");
    if (!compiled.ok()) return state.SkipWithError(compiled.status().message().c_str());
    exe = std::move(compiled).value();
  }
  hlo::interp::Options options;
  std::vector<double> times;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    auto results = hlo::conformance::runOnEveryDevice(**module, topology, args, exe.get(), options);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (auto failed = hlo::conformance::firstFailure(results))
      return state.SkipWithError(failed->second.message().c_str());
  }
  std::sort(times.begin(), times.end());
  double median = times[(times.size() - 1) / 2];
  double bytes = 2.0 * static_cast<double>(devices) * kElements * sizeof(float);
  state.counters["GB_s"] = bytes / median / 1e9;
  state.counters["of_floor"] = floorSeconds(devices) / median;
}

BENCHMARK_CAPTURE(BM_AllReduce, interp, "interp")->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond)->Iterations(7);
BENCHMARK_CAPTURE(BM_AllReduce, cpu, "cpu")->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond)->Iterations(7);

}  // namespace

BENCHMARK_MAIN();
