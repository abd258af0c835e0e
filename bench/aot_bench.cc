// Ahead-of-time objects against the JIT on the small real models of
// testdata/jax/models/ (the ones model_bench.cc times against XLA), in one
// process: the objects are hlo-aot's, built by the Makefile and linked in.
// Per model:
//   jit_us, aot_us   the median run of the JIT's executable and of the
//                    object through the runtime's C interface (same inputs)
//   aot_per_jit      aot_us / jit_us (the same code, so about 1)
//   jit_compile_ms   the JIT's compile, without the compile cache
//   aot_load_ms      loading the object's image (what start-up costs instead)
//   same             1 when both give the same bits
// and a table of them at the end.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/hlo_rt.h"
#include "hlo/computation.h"
#include "hlo/npy.h"
#include "jit/executable.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

// The Makefile names the models: -DHLO_AOT_MODELS='X(cnn_forward) X(...)'.
#define X(name) extern "C" const HloAotImage hlo_aot_##name;
HLO_AOT_MODELS
#undef X

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct AotModel {
  const char* name;
  const HloAotImage* image;
};
const AotModel kModels[] = {
#define X(name) {#name, &hlo_aot_##name},
    HLO_AOT_MODELS
#undef X
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[(v.size() - 1) / 2];
}

struct Row {
  std::string name;
  double jitUs = 0, aotUs = 0, compileMs = 0, loadMs = 0;
  bool same = false;
};
std::vector<Row> rows;

void runModel(benchmark::State& state, const AotModel& model) {
  const std::string base = std::string("testdata/jax/models/") + model.name;
  std::optional<std::string> text = hlo::readInput(base + ".hlo");
  std::optional<std::string> npz = hlo::readInput(base + ".in.npz");
  if (!text || !npz) return state.SkipWithError(("cannot read " + base + ".hlo or .in.npz").c_str());
  auto module = hlo::parseModule(*text);
  auto members = hlo::readNpz(*npz);
  if (!module.ok() || !members.ok()) return state.SkipWithError("cannot parse the model or its inputs");
  const hlo::Computation& entry = *(*module)->entry();
  std::vector<hlo::Literal> args;
  for (int p = 0; p < entry.parameterCount() && p < static_cast<int>(members->size()); ++p) {
    hlo::NpyArray& array = (*members)[p].array;
    if (!hlo::retypeRaw(array, entry.parameter(p)->shape().type()).ok()) return state.SkipWithError("bad inputs");
    args.push_back(std::move(array.value));
  }
  hlo::jit::CompileOptions cold;
  cold.useCache = false;
  auto start = Clock::now();
  auto exe = hlo::jit::compile(**module, "cpu", cold);
  const double compileSeconds = since(start);
  if (!exe.ok()) return state.SkipWithError(exe.status().message().c_str());
  char* error = nullptr;
  start = Clock::now();
  HloRtModel* aot = hlo_rt_load(model.image, 0, &error);
  const double loadSeconds = since(start);
  if (!aot) {
    state.SkipWithError(error);
    hlo_rt_free_error(error);
    return;
  }
  std::vector<const void*> argPointers;
  for (const hlo::Literal& a : args) argPointers.push_back(a.untypedData());
  auto want = (*exe)->run(args);
  if (!want.ok()) return state.SkipWithError(want.status().message().c_str());
  std::vector<const hlo::Literal*> wantArrays;
  if (want->shape().isTuple())
    for (const hlo::Literal& e : want->tupleElements()) wantArrays.push_back(&e);
  else
    wantArrays.push_back(&*want);
  // Aligned result buffers, which the runs write directly (hlo_rt.h).
  std::vector<std::unique_ptr<hlo_rt::AlignedArray<uint8_t>>> outputs;
  std::vector<void*> resultPointers;
  for (const hlo::Literal* w : wantArrays) {
    outputs.push_back(std::make_unique<hlo_rt::AlignedArray<uint8_t>>(w->byteSize() + 1));
    resultPointers.push_back(outputs.back()->data());
  }
  std::vector<double> jitTimes, aotTimes;
  for (auto _ : state) {
    auto begin = Clock::now();
    auto result = (*exe)->run(args);
    jitTimes.push_back(since(begin));
    benchmark::DoNotOptimize(result->shape());
    begin = Clock::now();
    const int failed = hlo_rt_run(aot, argPointers.data(), resultPointers.data(), &error);
    aotTimes.push_back(since(begin));
    if (failed) {
      state.SkipWithError(error);
      hlo_rt_free_error(error);
      break;
    }
  }
  bool same = true;
  for (size_t k = 0; k < wantArrays.size(); ++k)
    same = same && std::memcmp(outputs[k]->data(), wantArrays[k]->untypedData(), wantArrays[k]->byteSize()) == 0;
  hlo_rt_free(aot);
  Row row{model.name, median(jitTimes) * 1e6, median(aotTimes) * 1e6, compileSeconds * 1e3, loadSeconds * 1e3, same};
  state.counters["jit_us"] = row.jitUs;
  state.counters["aot_us"] = row.aotUs;
  state.counters["aot_per_jit"] = row.jitUs > 0 ? row.aotUs / row.jitUs : 0;
  state.counters["jit_compile_ms"] = row.compileMs;
  state.counters["aot_load_ms"] = row.loadMs;
  state.counters["same"] = same ? 1 : 0;
  auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == row.name; });
  if (it == rows.end()) rows.push_back(row);
  else *it = row;  // the last, longest measurement
}

}  // namespace

int main(int argc, char** argv) {
  for (const AotModel& model : kModels)
    benchmark::RegisterBenchmark(model.name, [&model](benchmark::State& s) { runModel(s, model); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime()
        ->MinTime(0.3);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::printf("\naot_bench: hlo-aot objects and the JIT, same inputs, same process; run times are medians\n");
  std::printf("%-18s %10s %10s %8s %14s %12s %5s\n", "model", "JIT run", "AOT run", "AOT/JIT", "JIT compile",
              "AOT load", "same");
  for (const Row& r : rows)
    std::printf("%-18s %7.1f us %7.1f us %8.2f %11.1f ms %9.2f ms %5s\n", r.name.c_str(), r.jitUs, r.aotUs,
                r.jitUs > 0 ? r.aotUs / r.jitUs : 0, r.compileMs, r.loadMs, r.same ? "yes" : "no");
  return 0;
}
