// The CPU JIT on small real models written with JAX, at the batch sizes of
// serving and training (testdata/jax/models/, scripts/make_jax_testdata.py
// --set=models), each on its own inputs: a CNN forward pass and training
// step, an LSTM scan, a GRU with backpropagation through time, a transformer
// block in f32 and bf16, an MLP training step, a KV-cache decode step and
// per-example gradients. These are latency-bound: many small kernels, loops
// of tiny steps, small dots, so the runtime's cost per step counts as much
// as the kernels'.
// Counters:
//   us            the median run, microseconds
//   compile_ms    compile time without the compile cache (the fastest of three,
//                 as for XLA: a busy machine only adds time)
// With --xla-python=PYTHON (make bench-xla), every model also runs on XLA:CPU
// (bench/xla_peer.h), adding
//   xla_us        XLA's median run: one Python call of its executable
//   xla_net_us    the same less the median call of a module that negates one
//                 f32 (what a call costs beyond its work; measured once here)
//   x_xla         xla_net_us / us (> 1: we are faster)
// and a table of both at the end.
// --models=DIR reads the models from DIR instead of testdata/jax/models.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/fastest_compile.h"
#include "bench/xla_peer.h"
#include "hlo/computation.h"
#include "hlo/npy.h"
#include "jit/executable.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string modelsDir = "testdata/jax/models";

const char* const kModels[] = {
    "cnn_forward",     "cnn_train_step",   "lstm_scan",   "gru_bptt",          "transformer_f32",
    "transformer_bf16", "mlp_train_step",  "decode_step", "per_example_grads",
};

struct Model {
  std::string text;
  std::unique_ptr<hlo::Module> module;
  std::vector<hlo::Literal> args;
};

// The module and its inputs (NAME.in.npz: one array per parameter, in order).
hlo::StatusOr<Model> loadModel(const std::string& name) {
  Model m;
  std::string base = modelsDir + "/" + name;
  std::optional<std::string> text = hlo::readInput(base + ".hlo");
  if (!text) return hlo::errorStatus("cannot read " + base + ".hlo (give --models=DIR)");
  m.text = std::move(*text);
  HLO_ASSIGN_OR_RETURN(m.module, hlo::parseModule(m.text));
  std::optional<std::string> npz = hlo::readInput(base + ".in.npz");
  if (!npz) return hlo::errorStatus("cannot read " + base + ".in.npz");
  HLO_ASSIGN_OR_RETURN(std::vector<hlo::NpzMember> members, hlo::readNpz(*npz));
  const hlo::Computation& entry = *m.module->entry();
  if (static_cast<int>(members.size()) != entry.parameterCount())
    return hlo::errorStatus(base + ".in.npz holds " + std::to_string(members.size()) + " arrays for " +
                            std::to_string(entry.parameterCount()) + " parameters");
  for (int p = 0; p < entry.parameterCount(); ++p) {
    hlo::NpyArray& array = members[p].array;
    HLO_RETURN_IF_ERROR(hlo::retypeRaw(array, entry.parameter(p)->shape().type()));
    m.args.push_back(std::move(array.value));
  }
  return m;
}

struct Row {
  std::string name;
  double oursCompileMs = 0, oursRunUs = 0;
  bench::XlaTiming xla;
};
std::vector<Row> rows;
bench::XlaTiming floorTiming;

void runModel(benchmark::State& state, const std::string& name) {
  auto model = loadModel(name);
  if (!model.ok()) return state.SkipWithError(model.status().message().c_str());
  hlo::jit::CompileOptions cold;
  cold.useCache = false;
  auto exe = hlo::jit::compile(*model->module, "cpu", cold);
  if (!exe.ok()) return state.SkipWithError(exe.status().message().c_str());
  double compileSeconds = bench::fastestCompile(*model->module, cold);
  std::vector<double> times;
  for (auto _ : state) {
    auto begin = Clock::now();
    auto result = (*exe)->run(model->args);
    times.push_back(since(begin));
    if (!result.ok()) return state.SkipWithError(result.status().message().c_str());
    benchmark::DoNotOptimize(result->shape());
  }
  std::sort(times.begin(), times.end());
  double ours = times.empty() ? 1 : times[(times.size() - 1) / 2];
  state.counters["us"] = ours * 1e6;
  state.counters["compile_ms"] = compileSeconds * 1e3;
  if (bench::xlaPython.empty()) return;
  // Google Benchmark calls this more than once per model: XLA runs once.
  static std::map<std::string, bench::XlaTiming> measured;
  if (!measured.count(name)) measured[name] = bench::timeOnXla(name, model->text, model->args, 200);
  const bench::XlaTiming& xla = measured[name];
  if (xla.ok) {
    double net = xla.runSeconds - (floorTiming.ok ? floorTiming.runSeconds : 0);
    state.counters["xla_us"] = xla.runSeconds * 1e6;
    state.counters["xla_net_us"] = net * 1e6;
    state.counters["x_xla"] = net / ours;
  }
  auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
  if (row == rows.end()) rows.push_back({name, compileSeconds * 1e3, ours * 1e6, xla});
  else *row = {name, compileSeconds * 1e3, ours * 1e6, xla};  // the last, longest measurement
}

void printXlaTable() {
  if (rows.empty()) return;
  std::printf("\nbench-xla: real models (%s), XLA:CPU (jaxlib) and our CPU JIT, same inputs; run times are medians\n",
              modelsDir.c_str());
  if (floorTiming.ok)
    std::printf("XLA's runs are Python calls of its executable; \"XLA net\" less %.1f us, the median call of a module\n"
                "that negates one f32\n",
                floorTiming.runSeconds * 1e6);
  else
    std::printf("XLA's call floor was not measured (%s): \"XLA net\" is XLA's run\n", floorTiming.detail.c_str());
  std::printf("%-18s %12s %12s %10s %10s %10s %9s\n", "model", "XLA compile", "ours compile", "XLA run", "XLA net",
              "ours run", "net/ours");
  for (const Row& r : rows) {
    if (!r.xla.ok) {
      std::printf("%-18s %12s %9.1f ms %10s %10s %7.1f us   XLA: %s\n", r.name.c_str(), "-", r.oursCompileMs, "-", "-",
                  r.oursRunUs, r.xla.detail.c_str());
      continue;
    }
    double xlaUs = r.xla.runSeconds * 1e6;
    double netUs = xlaUs - (floorTiming.ok ? floorTiming.runSeconds * 1e6 : 0);
    std::printf("%-18s %9.1f ms %9.1f ms %7.1f us %7.1f us %7.1f us %9.2f\n", r.name.c_str(),
                r.xla.compileSeconds * 1e3, r.oursCompileMs, xlaUs, netUs, r.oursRunUs, netUs / r.oursRunUs);
  }
}

}  // namespace

// Google Benchmark's main, plus --xla-python=PYTHON, --xla-oracle=FILE and --models=DIR.
int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (char* arg : bench::takeXlaFlags(argc, argv)) {
    std::string a = arg;
    if (a.rfind("--models=", 0) == 0) modelsDir = a.substr(9);
    else rest.push_back(arg);
  }
  for (const char* name : kModels)
    benchmark::RegisterBenchmark(name, [name](benchmark::State& s) { runModel(s, name); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime()
        ->MinTime(0.5);
  int count = static_cast<int>(rest.size());
  benchmark::Initialize(&count, rest.data());
  if (benchmark::ReportUnrecognizedArguments(count, rest.data())) return 1;
  if (!bench::xlaPython.empty()) floorTiming = bench::callFloor();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printXlaTable();
  return 0;
}
