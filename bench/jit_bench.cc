// The CPU JIT on seven modules, each measured against floors taken in this
// same process, so the ratios mean the same on any machine:
//   1 ReduceSum         reduce_sum(x + y*z), 16M f32          memory-bound
//   2 ElementwiseChain  ten elementwise ops of x and y, 16M f32  memory-bound
//   3 Softmax           softmax along the rows of [4096, 4096] f32
//   4 LayerNorm         layer norm of the rows of [4096, 4096] f32 (scale, bias)
//   5 DotBiasRelu       relu(dot(a, b) + bias), 1024^3 f32    compute-bound
//   6 Transpose         [4096, 4096] f32                      memory-bound
//   7 Conv3x3           3x3 convolution, [8, 64, 64, 64] NHWC, 64 features, SAME
// Counters:
// Ratios use the median run.
//   GB_s / GFLOP_s  bytes that must move (inputs and outputs, once) or
//                   floating-point operations per second of the JIT
//   of_bandwidth    memory floor / JIT time: the floor is those bytes at the
//                   bandwidth a streaming loop reaches here (all threads); 1.0
//                   is the bound (goals: 1, 2 >= 0.9; 3, 4 >= 0.8)
//   of_peak         achieved / peak FLOP/s, peak measured by an FMA loop on
//                   all threads (goal: 5 >= 0.8)
//   x_unfused       time of the same module compiled without fusion (every op
//                   its own kernel, as a one-op-at-a-time executor runs it) /
//                   JIT time
//   x_interp        reference interpreter time (one run) / JIT time
//   compile_ms      compile time without the compile cache (goal < 1000)
//   cached_ms       compile time again, from the in-memory compile cache
//                   (goal: a cached start < 10)
// With --xla-python=PYTHON (make bench-xla), every module also runs on XLA:CPU
// through conformance/xla_oracle.py --bench (its own compile time, and the
// median of its runs on inputs already on the device), adding
//   xla_ms, xla_compile_ms  XLA's run and compile times
//   x_xla                   XLA run time / ours (> 1: we are faster)
// and a table of both at the end.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include "hlo/npy.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int threadCount() { return std::max(1u, std::thread::hardware_concurrency()); }

// Runs fn(t) on every thread t and waits.
void onAllThreads(const std::function<void(int)>& fn) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threadCount(); ++t) pool.emplace_back(fn, t);
  for (std::thread& th : pool) th.join();
}

// ---- floors ------------------------------------------------------------------

// Seconds to read `readBytes` and write `writeBytes` by streaming loops over
// all threads, with the widest vectors the CPU has: each output vector is
// written from the input vectors of its share (reads and writes in the
// module's proportions, as a fused kernel does), four independent sums so
// the loop is bound by memory, not by a chain of additions. Best of five.
typedef long long I64x8 __attribute__((vector_size(64)));
typedef long long I64x4 __attribute__((vector_size(32)));
#define HLO_STREAM_LOOP(V)                                                                  \
  const V* in = reinterpret_cast<const V*>(source);                                         \
  V* out = reinterpret_cast<V*>(sink);                                                      \
  int64_t perOut = writeVectors ? std::max<int64_t>(1, readVectors / writeVectors) : 0;     \
  V s0 = {}, s1 = {}, s2 = {}, s3 = {};                                                     \
  int64_t r = 0;                                                                            \
  for (int64_t w = 0; w < writeVectors; ++w) {                                              \
    V x = {};                                                                               \
    for (int64_t k = 0; k < perOut && r < readVectors; ++k) x ^= in[r++];                  \
    out[w] = x;                                                                             \
  }                                                                                         \
  for (; r + 4 <= readVectors; r += 4) {                                                    \
    s0 += in[r];                                                                            \
    s1 += in[r + 1];                                                                        \
    s2 += in[r + 2];                                                                        \
    s3 += in[r + 3];                                                                        \
  }                                                                                         \
  V total = s0 ^ s1 ^ s2 ^ s3;                                                              \
  return static_cast<uint64_t>(total[0]);
__attribute__((target("avx512f"))) uint64_t stream512(const void* source, int64_t readVectors, void* sink,
                                                      int64_t writeVectors) {
  HLO_STREAM_LOOP(I64x8)
}
__attribute__((target("avx2"))) uint64_t stream256(const void* source, int64_t readVectors, void* sink,
                                                   int64_t writeVectors) {
  HLO_STREAM_LOOP(I64x4)
}
#undef HLO_STREAM_LOOP

double streamSeconds(int64_t readBytes, int64_t writeBytes) {
  static std::vector<uint64_t> source, sink;
  bool avx512 = __builtin_cpu_supports("avx512f");
  int vectorBytes = avx512 ? 64 : 32;
  size_t readWords = static_cast<size_t>(readBytes / 8), writeWords = static_cast<size_t>(writeBytes / 8);
  if (source.size() < readWords + 16) source.assign(readWords + 16, 1);
  if (sink.size() < writeWords + 16) sink.assign(writeWords + 16, 0);
  int threads = threadCount();
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    std::vector<uint64_t> sums(threads);
    auto start = Clock::now();
    onAllThreads([&](int t) {
      int64_t readVectors = readBytes / vectorBytes, writeVectors = writeBytes / vectorBytes;
      int64_t rb = readVectors * t / threads, re = readVectors * (t + 1) / threads;
      int64_t wb = writeVectors * t / threads, we = writeVectors * (t + 1) / threads;
      // 64-byte aligned starts (vector loads of the vector type need them).
      auto* src = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(source.data()) + 63) & ~uintptr_t{63});
      auto* dst = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(sink.data()) + 63) & ~uintptr_t{63});
      sums[t] = avx512 ? stream512(src + rb * vectorBytes, re - rb, dst + wb * vectorBytes, we - wb)
                       : stream256(src + rb * vectorBytes, re - rb, dst + wb * vectorBytes, we - wb);
    });
    best = std::min(best, since(start));
    benchmark::DoNotOptimize(sums.data());
    benchmark::DoNotOptimize(sink.data());
  }
  return best;
}

// Multiply-adds of 12 independent vector chains: the core's FMA throughput,
// not its latency, bounds it. One function per vector width, each compiled
// for the instructions it needs (the loop must be inside it, not in a
// shared template compiled for the baseline ISA).
typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));
// Twelve accumulators in named variables (an array would live in memory).
#define HLO_FMA_LOOP(V, lanes)                                                        \
  V mul, add;                                                                         \
  for (int i = 0; i < lanes; ++i) {                                                   \
    mul[i] = 0.999999f;                                                               \
    add[i] = 1e-7f;                                                                   \
  }                                                                                   \
  /* Different starting values, so the compiler cannot merge the chains. */          \
  V a0 = add * 1, a1 = add * 2, a2 = add * 3, a3 = add * 4, a4 = add * 5;             \
  V a5 = add * 6, a6 = add * 7, a7 = add * 8, a8 = add * 9, a9 = add * 10;            \
  V a10 = add * 11, a11 = add * 12;                                                   \
  for (int64_t it = 0; it < iterations; ++it) {                                       \
    a0 = a0 * mul + add, a1 = a1 * mul + add, a2 = a2 * mul + add;                    \
    a3 = a3 * mul + add, a4 = a4 * mul + add, a5 = a5 * mul + add;                    \
    a6 = a6 * mul + add, a7 = a7 * mul + add, a8 = a8 * mul + add;                    \
    a9 = a9 * mul + add, a10 = a10 * mul + add, a11 = a11 * mul + add;                \
  }                                                                                   \
  V sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;                \
  return sum[0];
__attribute__((target("avx512f,fma"))) double fma512(int64_t iterations) { HLO_FMA_LOOP(V16, 16) }
__attribute__((target("avx2,fma"))) double fma256(int64_t iterations) { HLO_FMA_LOOP(V8, 8) }
double fmaScalar(int64_t iterations) {
  typedef float V1 __attribute__((vector_size(4)));
  HLO_FMA_LOOP(V1, 1)
}
#undef HLO_FMA_LOOP

// Peak f32 FLOP/s of this machine, all threads, with the widest FMA it has.
double peakFlops() {
  static double peak = 0;
  if (peak > 0) return peak;
  bool avx512 = __builtin_cpu_supports("avx512f");
  bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  int lanes = avx512 ? 16 : avx2 ? 8 : 1;
  const int64_t iterations = 20'000'000;
  double best = 1e30;
  for (int run = 0; run < 3; ++run) {
    std::vector<double> sink(threadCount());
    auto start = Clock::now();
    onAllThreads([&](int t) {
      sink[t] = avx512 ? fma512(iterations) : avx2 ? fma256(iterations) : fmaScalar(iterations);
    });
    best = std::min(best, since(start));
    benchmark::DoNotOptimize(sink.data());
  }
  double flopsPerThread = static_cast<double>(iterations) * 12 * lanes * 2;
  peak = flopsPerThread * threadCount() / best;
  return peak;
}

// ---- modules -------------------------------------------------------------------

struct BenchModule {
  const char* name;
  const char* text;
  double bytes;  // that must move: every input read once, every output written once
  double flops;  // for the compute-bound ones, else 0
};

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

// As JAX writes jax.nn.softmax: the row maximum is subtracted for stability.
const char* kSoftmax = R"(
HloModule softmax
%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[4096,4096]) -> f32[4096,4096] {
  %x = f32[4096,4096] parameter(0)
  %ninf = f32[] constant(-inf)
  %rowmax = f32[4096] reduce(%x, %ninf), dimensions={1}, to_apply=%max
  %rowmax.b = f32[4096,4096] broadcast(%rowmax), dimensions={0}
  %shifted = f32[4096,4096] subtract(%x, %rowmax.b)
  %e = f32[4096,4096] exponential(%shifted)
  %zero = f32[] constant(0)
  %rowsum = f32[4096] reduce(%e, %zero), dimensions={1}, to_apply=%add
  %rowsum.b = f32[4096,4096] broadcast(%rowsum), dimensions={0}
  ROOT %y = f32[4096,4096] divide(%e, %rowsum.b)
})";

const char* kLayerNorm = R"(
HloModule layer_norm
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[4096,4096], gamma: f32[4096], beta: f32[4096]) -> f32[4096,4096] {
  %x = f32[4096,4096] parameter(0)
  %gamma = f32[4096] parameter(1)
  %beta = f32[4096] parameter(2)
  %zero = f32[] constant(0)
  %n = f32[] constant(4096)
  %n.b = f32[4096] broadcast(%n), dimensions={}
  %sum = f32[4096] reduce(%x, %zero), dimensions={1}, to_apply=%add
  %mean = f32[4096] divide(%sum, %n.b)
  %mean.b = f32[4096,4096] broadcast(%mean), dimensions={0}
  %centered = f32[4096,4096] subtract(%x, %mean.b)
  %squares = f32[4096,4096] multiply(%centered, %centered)
  %sumsq = f32[4096] reduce(%squares, %zero), dimensions={1}, to_apply=%add
  %var = f32[4096] divide(%sumsq, %n.b)
  %eps = f32[] constant(1e-5)
  %eps.b = f32[4096] broadcast(%eps), dimensions={}
  %var.eps = f32[4096] add(%var, %eps.b)
  %inv = f32[4096] rsqrt(%var.eps)
  %inv.b = f32[4096,4096] broadcast(%inv), dimensions={0}
  %normed = f32[4096,4096] multiply(%centered, %inv.b)
  %gamma.b = f32[4096,4096] broadcast(%gamma), dimensions={1}
  %scaled = f32[4096,4096] multiply(%normed, %gamma.b)
  %beta.b = f32[4096,4096] broadcast(%beta), dimensions={1}
  ROOT %y = f32[4096,4096] add(%scaled, %beta.b)
})";

const char* kDotBiasRelu = R"(
HloModule dot_bias_relu
ENTRY %main (a: f32[1024,1024], b: f32[1024,1024], bias: f32[1024]) -> f32[1024,1024] {
  %a = f32[1024,1024] parameter(0)
  %b = f32[1024,1024] parameter(1)
  %bias = f32[1024] parameter(2)
  %d = f32[1024,1024] dot(%a, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %bias.b = f32[1024,1024] broadcast(%bias), dimensions={1}
  %biased = f32[1024,1024] add(%d, %bias.b)
  %zero = f32[] constant(0)
  %zeros = f32[1024,1024] broadcast(%zero), dimensions={}
  ROOT %relu = f32[1024,1024] maximum(%biased, %zeros)
})";

const char* kTranspose = R"(
HloModule transpose
ENTRY %main (x: f32[4096,4096]) -> f32[4096,4096] {
  %x = f32[4096,4096] parameter(0)
  ROOT %t = f32[4096,4096] transpose(%x), dimensions={1,0}
})";

const char* kConv = R"(
HloModule conv3x3
ENTRY %main (x: f32[8,64,64,64], k: f32[3,3,64,64]) -> f32[8,64,64,64] {
  %x = f32[8,64,64,64] parameter(0)
  %k = f32[3,3,64,64] parameter(1)
  ROOT %y = f32[8,64,64,64] convolution(%x, %k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})";

constexpr double kMiB = 1 << 20;
constexpr double k16M = 16 * kMiB;

// ---- XLA as the peer (--xla-python) ---------------------------------------------

std::string xlaPython;                           // --xla-python: a Python with jax
std::string xlaOracle = "conformance/xla_oracle.py";  // --xla-oracle

struct XlaTiming {
  bool ok = false;
  double compileSeconds = 0, runSeconds = 0;
  std::string detail;
};

// Runs the module on XLA:CPU with the same arguments.
XlaTiming timeOnXla(const std::string& name, const char* text, const std::vector<hlo::Literal>& args) {
  XlaTiming out;
  std::string dir = "/tmp/hlo-bench-xla-" + std::to_string(getpid());
  std::string module = dir + "-" + name + ".hlo", inputs = dir + "-" + name + ".npz";
  {
    std::ofstream f(module);
    f << text;
  }
  std::vector<std::pair<std::string, const hlo::Literal*>> arrays;
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) names.push_back("arg" + std::to_string(i));
  for (size_t i = 0; i < args.size(); ++i) arrays.push_back({names[i], &args[i]});
  auto bytes = hlo::writeNpz(arrays);
  if (!bytes.ok()) {
    out.detail = bytes.status().message();
    return out;
  }
  {
    std::ofstream f(inputs, std::ios::binary);
    f << *bytes;
  }
  std::string command = xlaPython + " " + xlaOracle + " --bench " + module + " " + inputs + " --repeats=10 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string reply;
  if (pipe) {
    char buf[512];
    while (fgets(buf, sizeof buf, pipe)) reply += buf;
    pclose(pipe);
  }
  std::remove(module.c_str());
  std::remove(inputs.c_str());
  // The last line: "ok compile_s=C run_s=R", or an outcome with XLA's message.
  std::string last = reply;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  if (size_t nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
  if (std::sscanf(last.c_str(), "ok compile_s=%lf run_s=%lf", &out.compileSeconds, &out.runSeconds) == 2) {
    out.ok = true;
  } else {
    out.detail = last.empty() ? "no answer from " + command : last;
  }
  return out;
}

// One row of the table printed after the benchmarks.
struct Row {
  std::string name;
  double oursCompileMs, oursRunMs;
  XlaTiming xla;
};
std::vector<Row> rows;

void printXlaTable() {
  if (rows.empty()) return;
  std::printf("\nbench-xla: XLA:CPU (jaxlib) and our CPU JIT, same inputs; run times are medians\n");
  std::printf("%-18s %14s %14s %12s %12s %8s\n", "module", "XLA compile", "ours compile", "XLA run", "ours run",
              "XLA/ours");
  for (const Row& r : rows) {
    if (!r.xla.ok) {
      std::printf("%-18s %14s %11.1f ms %12s %9.2f ms   XLA: %s\n", r.name.c_str(), "-", r.oursCompileMs, "-",
                  r.oursRunMs, r.xla.detail.c_str());
      continue;
    }
    std::printf("%-18s %11.1f ms %11.1f ms %9.2f ms %9.2f ms %8.2f\n", r.name.c_str(), r.xla.compileSeconds * 1e3,
                r.oursCompileMs, r.xla.runSeconds * 1e3, r.oursRunMs, r.xla.runSeconds * 1e3 / r.oursRunMs);
  }
}

// ---- the measurement -----------------------------------------------------------

double timeRuns(hlo::jit::Executable& exe, const std::vector<hlo::Literal>& args, int runs) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    auto start = Clock::now();
    auto result = exe.run(args);
    best = std::min(best, since(start));
    benchmark::DoNotOptimize(result.ok());
  }
  return best;
}

void runModule(benchmark::State& state, const BenchModule& m) {
  auto module = hlo::parseModule(m.text);
  if (!module.ok()) return state.SkipWithError(module.status().message().c_str());
  hlo::jit::CompileOptions cold;
  cold.useCache = false;
  auto start = Clock::now();
  auto exe = hlo::jit::compile(**module, hlo::jit::Target::kCpu, cold);
  double compileSeconds = since(start);
  if (!exe.ok()) return state.SkipWithError(exe.status().message().c_str());
  // Into the in-memory cache, then the cached start.
  hlo::jit::CompileOptions cached;
  if (!hlo::jit::compile(**module, hlo::jit::Target::kCpu, cached).ok()) return state.SkipWithError("recompile failed");
  start = Clock::now();
  auto again = hlo::jit::compile(**module, hlo::jit::Target::kCpu, cached);
  double cachedSeconds = since(start);
  std::vector<hlo::Literal> args = hlo::interp::randomArguments(*(*module)->entry(), 1);

  std::vector<double> times;
  for (auto _ : state) {
    auto begin = Clock::now();
    auto result = (*exe)->run(args);
    times.push_back(since(begin));
    if (!result.ok()) return state.SkipWithError(result.status().message().c_str());
    benchmark::DoNotOptimize(result->untypedData());
  }
  // The median run (as XLA's is taken): a shared or virtual machine's
  // noise moves the mean more.
  std::sort(times.begin(), times.end());
  double jit = times.empty() ? 1 : times[(times.size() - 1) / 2];

  hlo::jit::CompileOptions unfusedOptions;
  unfusedOptions.fuse = false;
  unfusedOptions.useCache = false;
  auto unfused = hlo::jit::compile(**module, hlo::jit::Target::kCpu, unfusedOptions);
  if (!unfused.ok()) return state.SkipWithError(unfused.status().message().c_str());
  double unfusedSeconds = timeRuns(**unfused, args, 3);
  start = Clock::now();
  auto reference = hlo::interp::evaluate(**module, args);
  double interpSeconds = since(start);
  if (!reference.ok()) return state.SkipWithError(reference.status().message().c_str());

  if (m.flops > 0) {
    state.counters["GFLOP_s"] = m.flops / jit / 1e9;
    state.counters["of_peak"] = m.flops / jit / peakFlops();
  } else {
    state.counters["GB_s"] = m.bytes / jit / 1e9;
    // Reads and writes in the proportions of this module: inputs read, output written.
    double outputBytes = 0;
    const hlo::Shape& out = (*module)->entry()->root()->shape();
    if (out.isArray()) outputBytes = static_cast<double>(out.elementCount()) * 4;
    state.counters["of_bandwidth"] = streamSeconds(static_cast<int64_t>(m.bytes - outputBytes),
                                                   static_cast<int64_t>(outputBytes)) / jit;
  }
  state.counters["x_unfused"] = unfusedSeconds / jit;
  state.counters["x_interp"] = interpSeconds / jit;
  state.counters["compile_ms"] = compileSeconds * 1e3;
  state.counters["cached_ms"] = cachedSeconds * 1e3;
  if (!xlaPython.empty()) {
    std::string name = m.name;
    // Google Benchmark calls this more than once per module: XLA runs once.
    static std::map<std::string, XlaTiming> measured;
    if (!measured.count(name)) measured[name] = timeOnXla(name, m.text, args);
    const XlaTiming& xla = measured[name];
    if (xla.ok) {
      state.counters["xla_ms"] = xla.runSeconds * 1e3;
      state.counters["xla_compile_ms"] = xla.compileSeconds * 1e3;
      state.counters["x_xla"] = xla.runSeconds / jit;
    }
    auto row = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name; });
    if (row == rows.end()) rows.push_back({name, compileSeconds * 1e3, jit * 1e3, xla});
    else *row = {name, compileSeconds * 1e3, jit * 1e3, xla};  // the last, longest measurement
  }
}

void ReduceSum(benchmark::State& s) { runModule(s, {"ReduceSum", kReduceSum, 3 * 4 * k16M, 0}); }
void ElementwiseChain(benchmark::State& s) { runModule(s, {"ElementwiseChain", kChain, 3 * 4 * k16M, 0}); }
void Softmax(benchmark::State& s) { runModule(s, {"Softmax", kSoftmax, 2 * 4 * k16M, 0}); }
void LayerNorm(benchmark::State& s) { runModule(s, {"LayerNorm", kLayerNorm, 2 * 4 * k16M + 2 * 4 * 4096, 0}); }
void DotBiasRelu(benchmark::State& s) { runModule(s, {"DotBiasRelu", kDotBiasRelu, 0, 2.0 * 1024 * 1024 * 1024}); }
void Transpose(benchmark::State& s) { runModule(s, {"Transpose", kTranspose, 2 * 4 * k16M, 0}); }
void Conv3x3(benchmark::State& s) { runModule(s, {"Conv3x3", kConv, 0, 2.0 * 8 * 64 * 64 * 64 * 3 * 3 * 64}); }

BENCHMARK(ReduceSum)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(ElementwiseChain)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Softmax)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(LayerNorm)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(DotBiasRelu)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Transpose)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Conv3x3)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);

}  // namespace

// Google Benchmark's main, plus --xla-python=PYTHON and --xla-oracle=FILE.
int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--xla-python=", 0) == 0) xlaPython = arg.substr(13);
    else if (arg.rfind("--xla-oracle=", 0) == 0) xlaOracle = arg.substr(13);
    else rest.push_back(argv[i]);
  }
  int count = static_cast<int>(rest.size());
  benchmark::Initialize(&count, rest.data());
  if (benchmark::ReportUnrecognizedArguments(count, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printXlaTable();
  return 0;
}
