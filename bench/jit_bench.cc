// The CPU JIT on seven modules, each measured against floors taken in this
// same process, so the ratios mean the same on any machine:
//   1 ReduceSum         reduce_sum(x + y*z), 16M f32          memory-bound
//   2 ElementwiseChain  ten elementwise ops of x and y, 16M f32  memory-bound
//   3 Softmax           softmax along the rows of [4096, 4096] f32
//   4 LayerNorm         layer norm of the rows of [4096, 4096] f32 (scale, bias)
//   5 DotBiasRelu       relu(dot(a, b) + bias), 1024^3 f32    compute-bound
//   6 Transpose         [4096, 4096] f32                      memory-bound
//   7 Conv3x3           3x3 convolution, [8, 64, 64, 64] NHWC, 64 features, SAME
//   8 DecodeStepDot     8 rows by a bf16 [8192, 4096] weight (64 MiB), as a
//                       language model's step multiplies         memory-bound
// Counters:
// Ratios use the median run.
//   GB_s / GFLOP_s  bytes that must move (inputs and outputs, once) or
//                   floating-point operations per second of the JIT
//   of_bandwidth    memory floor / JIT time: the floor is a streaming loop
//                   over buffers of the module's sizes in its read/write
//                   proportions, on all cores (see "floors"), run in
//                   pairs with the module (the median of the pairs'
//                   ratios; see pairedBandwidthRatio); 1.0 is the
//                   bound (goals: 1, 2 >= 0.9; 3, 4 >= 0.8). Softmax and layer
//                   norm must read x and write y once (128 MiB): a row of 16
//                   KiB stays in the L1/L2 cache for the passes over it.
//   of_peak         achieved / peak FLOP/s, peak measured by FMA loops on
//                   all cores (see "floors"; goal: 5 >= 0.8)
//   x_unfused       time of the same module compiled without fusion (every op
//                   its own kernel, as a one-op-at-a-time executor runs it) /
//                   JIT time
//   x_interp        reference interpreter time (one run) / JIT time
//   compile_ms      compile time without the compile cache, the fastest of
//                   three (goal < 1000)
//   cached_ms       compile time again, from the in-memory compile cache
//                   (goal: a cached start < 10)
// With --xla-python=PYTHON (make bench-xla), every module also runs on XLA:CPU
// through conformance/xla_oracle.py --bench (its own compile time, and the
// median of its runs on inputs already on the device), adding
//   xla_ms, xla_compile_ms  XLA's run and compile times
//   x_xla                   XLA run time / ours (> 1: we are faster)
// and a table of both at the end.
#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <thread>
#include <tuple>
#include <vector>

#include "backends/cpu/blas.h"
#include "bench/fastest_compile.h"
#include "bench/xla_peer.h"
#include "hlo/npy.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int threadCount() { return std::max(1u, std::thread::hardware_concurrency()); }

// ---- floors ------------------------------------------------------------------
//
// Each floor is the fastest loop we know how to write for the machine's
// limit, measured here, so a ratio above about 1 means the floor is wrong.
//
// Memory floor. A memory-bound module reads R arrays and writes W arrays of
// the same size (ReduceSum 3 + 0, ElementwiseChain 2 + 1, Softmax, LayerNorm
// and Transpose 1 + 1). The floor streams R + W buffers of that size with
// the module's proportions: every thread (one per core) takes its share of
// every buffer, loads a 64-byte line of each input, adds them and stores the
// sum to each output with non-temporal stores (no read-for-ownership of the
// output lines, which an ordinary store costs: a quarter to a third more
// traffic here), one accumulator per stream so no chain of additions bounds
// it. Variants, best taken: each thread's share walked as 1, 2 or 4
// independent sub-streams (more lines in flight per core, more of the
// hardware prefetchers' streams). The buffers are allocated once, pre-faulted
// (no page faults in the timing), 2 MiB aligned and advised as huge pages (no
// TLB misses, and the prefetchers do not stop at every 4 KiB), with the
// module's sizes, so the L3 cache keeps as much of them between runs as it
// keeps of the module's. The time runs from the moment all threads are
// started and released together to the last one's end (thread creation is
// not in it). On the 2-core EPYC (Zen 4) this was written on: 1 + 1 streams
// ~55 GB/s, 2 + 1 ~55 GB/s, 3 + 0 ~42 GB/s (with ordinary stores 40-45 and
// 4 KiB pages 5-10% less).
typedef float V16 __attribute__((vector_size(64)));
typedef float V8 __attribute__((vector_size(32)));

// One thread's share, floats [begin, end) of every buffer (whole 64-byte
// lines), walked as kSplit sub-streams side by side (the lines that do not
// divide evenly last); returns the sum so nothing is optimized away. One
// accumulator is enough: its chain of additions costs a cycle or so a line.
template <int kSplit>
__attribute__((target("avx512f"))) float stream512(const float* const* in, int reads, float* const* out, int writes,
                                                   int64_t begin, int64_t end) {
  int64_t lines = (end - begin) / 16, part = lines / kSplit;
  V16 sum = {};
  for (int64_t k = 0; k < lines; ++k) {
    int64_t line = k < part * kSplit ? k % kSplit * part + k / kSplit : k;
    int64_t at = begin + line * 16;
    V16 v = _mm512_load_ps(in[0] + at);
    for (int r = 1; r < reads; ++r) v += _mm512_load_ps(in[r] + at);
    for (int w = 0; w < writes; ++w) _mm512_stream_ps(out[w] + at, v);
    sum += v;
  }
  _mm_sfence();
  return sum[0];
}
// The same with 32-byte vectors, two to a line.
template <int kSplit>
__attribute__((target("avx2"))) float stream256(const float* const* in, int reads, float* const* out, int writes,
                                                int64_t begin, int64_t end) {
  int64_t lines = (end - begin) / 16, part = lines / kSplit;
  V8 sum = {};
  for (int64_t k = 0; k < lines; ++k) {
    int64_t line = k < part * kSplit ? k % kSplit * part + k / kSplit : k;
    for (int64_t at = begin + line * 16; at < begin + line * 16 + 16; at += 8) {
      V8 v = _mm256_load_ps(in[0] + at);
      for (int r = 1; r < reads; ++r) v += _mm256_load_ps(in[r] + at);
      for (int w = 0; w < writes; ++w) _mm256_stream_ps(out[w] + at, v);
      sum += v;
    }
  }
  _mm_sfence();
  return sum[0];
}

// Buffer k of `bytes` for the floors, allocated and pre-faulted once.
float* floorBuffer(int k, int64_t bytes) {
  static std::map<std::pair<int, int64_t>, float*> buffers;
  float*& b = buffers[{k, bytes}];
  if (!b) {
    constexpr size_t kHuge = 2 << 20;
    size_t size = (static_cast<size_t>(bytes) + kHuge - 1) / kHuge * kHuge;
    b = static_cast<float*>(std::aligned_alloc(kHuge, size));
    if (!b) std::abort();
    madvise(b, size, MADV_HUGEPAGE);  // a hint: without transparent huge pages, 4 KiB pages
    std::memset(b, 1, size);
  }
  return b;
}

// Runs fn(t) on every thread t, released together; the seconds from the
// first thread's start to the last one's end.
double timeOnAllThreads(const std::function<void(int)>& fn) {
  int threads = threadCount();
  std::atomic<int> ready{0};
  std::vector<Clock::time_point> start(threads), end(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads) {
      }
      start[t] = Clock::now();
      fn(t);
      end[t] = Clock::now();
    });
  for (std::thread& th : pool) th.join();
  return std::chrono::duration<double>(*std::max_element(end.begin(), end.end()) -
                                       *std::min_element(start.begin(), start.end()))
      .count();
}

// The memory floor: seconds for one pass that reads `reads` and writes
// `writes` buffers of `bytes` each, every thread's share walked as `split`
// sub-streams.
double streamOnce(int reads, int writes, int64_t bytes, int split) {
  std::vector<const float*> in;
  std::vector<float*> out;
  for (int r = 0; r < reads; ++r) in.push_back(floorBuffer(r, bytes));
  for (int w = 0; w < writes; ++w) out.push_back(floorBuffer(reads + w, bytes));
  bool avx512 = __builtin_cpu_supports("avx512f");
  int threads = threadCount();
  int64_t lines = bytes / 64;
  std::vector<float> sums(threads);
  double seconds = timeOnAllThreads([&](int t) {
    int64_t begin = lines * t / threads * 16, end = lines * (t + 1) / threads * 16;
    auto kernel = avx512 ? (split == 1 ? stream512<1> : split == 2 ? stream512<2> : stream512<4>)
                         : (split == 1 ? stream256<1> : split == 2 ? stream256<2> : stream256<4>);
    sums[t] = kernel(in.data(), reads, out.data(), writes, begin, end);
  });
  benchmark::DoNotOptimize(sums.data());
  return seconds;
}

// The number of sub-streams that is fastest for these proportions, found
// once (three passes of each variant, best taken).
int bestSplit(int reads, int writes, int64_t bytes) {
  static std::map<std::tuple<int, int, int64_t>, int> chosen;
  auto [it, fresh] = chosen.try_emplace({reads, writes, bytes}, 1);
  if (!fresh) return it->second;
  double best = 1e30;
  for (int split : {1, 2, 4})
    for (int run = 0; run < 3; ++run)
      if (double s = streamOnce(reads, writes, bytes, split); s < best) {
        best = s;
        it->second = split;
      }
  return it->second;
}

// Compute floor: multiply-adds of independent vector chains on every core.
// A core of this machine (Zen 4) has two 256-bit FMA pipes (an AVX-512 FMA
// takes both for a cycle) with a latency of 4 cycles, so 8 chains of 256
// bits or 4 of 512 keep it busy; we run 12 and 24, more than any recent x86
// core needs, in registers (16 ymm without AVX-512, 32 zmm with it).
// Explicit FMA instructions: the compiler is not asked to contract a
// multiply and an add. Best of the widths and of three runs: a core's peak
// f32 FLOP/s (2 x lanes per FMA), times the cores.
constexpr int kChains512 = 24, kChains256 = 12;
// The chains in named registers, unrolled (an array indexed in a loop could
// live in memory); FMA is the width's fused multiply-add intrinsic.
#define HLO_FMA_CHAINS(V, FMA, CHAINS)                                        \
  V mul, add;                                                                 \
  for (size_t i = 0; i < sizeof(V) / sizeof(float); ++i) {                    \
    mul[i] = 0.999999f;                                                       \
    add[i] = 1e-7f;                                                           \
  }                                                                           \
  V a[CHAINS];                                                                \
  /* Distinct starting values, so the compiler cannot merge chains. */       \
  for (int c = 0; c < CHAINS; ++c) a[c] = add * static_cast<float>(c + 1);    \
  for (int64_t it = 0; it < iterations; ++it) {                               \
    _Pragma("GCC unroll 32") for (int c = 0; c < CHAINS; ++c) a[c] = FMA(a[c], mul, add); \
  }                                                                           \
  V sum = {};                                                                 \
  for (int c = 0; c < CHAINS; ++c) sum += a[c];                               \
  return sum[0];
__attribute__((target("avx512f"))) float fma512(int64_t iterations) {
  HLO_FMA_CHAINS(V16, _mm512_fmadd_ps, kChains512)
}
__attribute__((target("avx2,fma"))) float fma256(int64_t iterations) {
  HLO_FMA_CHAINS(V8, _mm256_fmadd_ps, kChains256)
}
#undef HLO_FMA_CHAINS

// Peak f32 FLOP/s of this machine, all threads: the best of every call so
// far (a busy machine only makes it look lower).
double peakFlops() {
  static double peak = 0;
  bool avx512 = __builtin_cpu_supports("avx512f");
  const int64_t iterations = 10'000'000;
  std::vector<float> sink(threadCount());
  for (int width : {512, 256}) {
    if (width == 512 && !avx512) continue;
    double flopsPerThread = static_cast<double>(iterations) * 2 *
                            (width == 512 ? kChains512 * 16 : kChains256 * 8);
    for (int run = 0; run < 3; ++run) {
      double seconds = timeOnAllThreads([&](int t) { sink[t] = width == 512 ? fma512(iterations) : fma256(iterations); });
      peak = std::max(peak, flopsPerThread * threadCount() / seconds);
    }
  }
  benchmark::DoNotOptimize(sink.data());
  return peak;
}

// ---- modules -------------------------------------------------------------------

struct BenchModule {
  const char* name;
  const char* text;
  double bytes;  // that must move: every input read once, every output written once
  double flops;  // for the compute-bound ones, else 0
  int reads = 0, writes = 0;  // memory-bound ones: arrays of 64 MiB read and written
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

const char* kDecodeStepDot = R"(
HloModule decode_step_dot
ENTRY %main (x: bf16[8,4096], w: bf16[8192,4096]) -> bf16[8,8192] {
  %x = bf16[8,4096] parameter(0)
  %w = bf16[8192,4096] parameter(1)
  ROOT %y = bf16[8,8192] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
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

// One row of the table printed after the benchmarks.
struct Row {
  std::string name;
  double oursCompileMs, oursRunMs;
  bench::XlaTiming xla;
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

// The memory floor's time over the module's, measured in pairs: each run
// of the module is followed by one pass of the floor, and the ratio is the
// median of the pairs' ratios. A virtual machine's memory bandwidth moves
// with its neighbours by as much as half from one second to the next; the
// two halves of a pair run within milliseconds of each other, under the
// same conditions, where a floor taken once (or the best of many) would be
// compared with a module measured at another moment.
double pairedBandwidthRatio(hlo::jit::Executable& exe, const std::vector<hlo::Literal>& args, const BenchModule& m) {
  constexpr int kPairs = 15;
  const auto bytes = static_cast<int64_t>(4 * k16M);
  int split = bestSplit(m.reads, m.writes, bytes);
  std::vector<double> ratios;
  for (int k = 0; k < kPairs; ++k) {
    double module = timeRuns(exe, args, 1);
    ratios.push_back(streamOnce(m.reads, m.writes, bytes, split) / module);
  }
  std::sort(ratios.begin(), ratios.end());
  return ratios[kPairs / 2];
}

void runModule(benchmark::State& state, const BenchModule& m) {
  auto module = hlo::parseModule(m.text);
  if (!module.ok()) return state.SkipWithError(module.status().message().c_str());
  hlo::jit::CompileOptions cold;
  cold.useCache = false;
  auto exe = hlo::jit::compile(**module, "cpu", cold);
  if (!exe.ok()) return state.SkipWithError(exe.status().message().c_str());
  double compileSeconds = bench::fastestCompile(**module, cold);
  // Into the in-memory cache, then the cached start.
  hlo::jit::CompileOptions cached;
  if (!hlo::jit::compile(**module, "cpu", cached).ok()) return state.SkipWithError("recompile failed");
  auto start = Clock::now();
  auto again = hlo::jit::compile(**module, "cpu", cached);
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
  auto unfused = hlo::jit::compile(**module, "cpu", unfusedOptions);
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
    state.counters["of_bandwidth"] = pairedBandwidthRatio(**exe, args, m);
  }
  state.counters["x_unfused"] = unfusedSeconds / jit;
  state.counters["x_interp"] = interpSeconds / jit;
  state.counters["compile_ms"] = compileSeconds * 1e3;
  state.counters["cached_ms"] = cachedSeconds * 1e3;
  if (!bench::xlaPython.empty()) {
    std::string name = m.name;
    // Google Benchmark calls this more than once per module: XLA runs once.
    static std::map<std::string, bench::XlaTiming> measured;
    if (!measured.count(name)) measured[name] = bench::timeOnXla(name, m.text, args, 10);
    const bench::XlaTiming& xla = measured[name];
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

// Layer norm's gamma and beta (16 KiB each) stay in the cache: not in its floor.
void ReduceSum(benchmark::State& s) { runModule(s, {"ReduceSum", kReduceSum, 3 * 4 * k16M, 0, 3, 0}); }
void ElementwiseChain(benchmark::State& s) { runModule(s, {"ElementwiseChain", kChain, 3 * 4 * k16M, 0, 2, 1}); }
void Softmax(benchmark::State& s) { runModule(s, {"Softmax", kSoftmax, 2 * 4 * k16M, 0, 1, 1}); }
void LayerNorm(benchmark::State& s) { runModule(s, {"LayerNorm", kLayerNorm, 2 * 4 * k16M + 2 * 4 * 4096, 0, 1, 1}); }
void DotBiasRelu(benchmark::State& s) { runModule(s, {"DotBiasRelu", kDotBiasRelu, 0, 2.0 * 1024 * 1024 * 1024}); }
void Transpose(benchmark::State& s) { runModule(s, {"Transpose", kTranspose, 2 * 4 * k16M, 0, 1, 1}); }
// The weight is the one stream that must move (the rows and the result are
// a few hundred KiB): its floor reads one 64 MiB array.
void DecodeStepDot(benchmark::State& s) { runModule(s, {"DecodeStepDot", kDecodeStepDot, 4 * k16M, 0, 1, 0}); }
void Conv3x3(benchmark::State& s) { runModule(s, {"Conv3x3", kConv, 0, 2.0 * 8 * 64 * 64 * 64 * 3 * 3 * 64}); }

BENCHMARK(ReduceSum)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(ElementwiseChain)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Softmax)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(LayerNorm)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(DotBiasRelu)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Transpose)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(Conv3x3)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);
BENCHMARK(DecodeStepDot)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);

}  // namespace

// Google Benchmark's main, plus --xla-python=PYTHON and --xla-oracle=FILE.
int main(int argc, char** argv) {
  std::vector<char*> rest = bench::takeXlaFlags(argc, argv);
  int count = static_cast<int>(rest.size());
  benchmark::Initialize(&count, rest.data());
  if (benchmark::ReportUnrecognizedArguments(count, rest.data())) return 1;
  // The dot's figures depend on the kernels OpenBLAS runs; an
  // OPENBLAS_CORETYPE in the environment overrides the ones the CPU allows.
  // (Read before loading it: loading sets the variable when it is unset.)
  const char* forced = std::getenv("OPENBLAS_CORETYPE");
  const std::string note = forced ? std::string(" (OPENBLAS_CORETYPE=") + forced + " set outside)" : "";
  std::string blasError;
  const hlo::cpu::Blas* blas = hlo::cpu::blas(&blasError);
  benchmark::AddCustomContext("openblas_kernels", blas ? blas->coreName + note : "none: " + blasError);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  printXlaTable();
  return 0;
}
