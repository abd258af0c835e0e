// jax's LAPACK calls on the CPU JIT against the same LAPACK routines called
// directly, in the same process on the same threads: a 1024 x 1024 f32
// Cholesky (lapack_spotrf_ffi) and the solve jnp.linalg.solve lowers to
// (lapack_sgetrf_ffi, then lapack_strsm_ffi twice, here for 1024 x 1024 by
// 1024 x 16; both leave out the row permutation of b between them, a
// gather of 16K elements in jax's module). The JIT's extra work: Cholesky and
// the solves run in place on the transposed problem, getrf transposes its
// matrix in and out; the ratio of the two rows is the figure to watch.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <random>
#include <string>
#include <vector>

#include "backends/cpu/blas.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace {

constexpr int64_t kN = 1024, kRhs = 16;

std::string matrixShape(int64_t rows, int64_t cols) {
  return "f32[" + std::to_string(rows) + "," + std::to_string(cols) + "]";
}

std::string choleskyModule() {
  std::string a = matrixShape(kN, kN);
  return "HloModule cholesky\nENTRY e {\n  a = " + a + " parameter(0)\n  ROOT f = (" + a +
         "{0,1}, s32[]) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", operand_layout_constraints={" + a +
         "{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}\n}\n";
}

// getrf, then the unit-lower and the upper solves with its factors.
std::string solveModule() {
  std::string a = matrixShape(kN, kN), b = matrixShape(kN, kRhs);
  auto trsm = [&](const std::string& name, const std::string& x, int uplo, int diag) {
    return "  " + name + " = " + b + "{0,1} custom-call(lu, " + x +
           "), custom_call_target=\"lapack_strsm_ffi\", operand_layout_constraints={" + a + "{0,1}, " + b +
           "{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={diag = " + std::to_string(diag) +
           " : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = " + std::to_string(uplo) + " : ui8}\n";
  };
  return "HloModule solve\nENTRY e {\n  a = " + a + " parameter(0)\n  b = " + b + " parameter(1)\n  f = (" + a +
         "{0,1}, s32[" + std::to_string(kN) + "]{0}, s32[]) custom-call(a), custom_call_target=\"lapack_sgetrf_ffi\", "
         "operand_layout_constraints={" + a + "{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={}\n"
         "  lu = " + a + "{0,1} get-tuple-element(f), index=0\n" +
         trsm("y", "b", 76, 85) + trsm("x", "y", 85, 78) + "  ROOT r = " + b + " copy(x)\n}\n";
}

// A well-conditioned positive definite matrix (diagonally dominant), as
// rows: symmetric, so it reads the same column-major.
std::vector<float> positiveDefinite() {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> a(kN * kN);
  for (int64_t i = 0; i < kN; ++i)
    for (int64_t j = 0; j <= i; ++j) a[i * kN + j] = a[j * kN + i] = i == j ? 2.0f * kN : u(rng);
  return a;
}

std::vector<float> randomValues(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

hlo::Literal literalOf(const std::vector<float>& values, int64_t rows, int64_t cols) {
  hlo::Literal lit(hlo::Shape(hlo::ElementType::kF32, {rows, cols}));
  std::copy(values.begin(), values.end(), lit.data<float>());
  return lit;
}

std::unique_ptr<hlo::jit::Executable> compiled(benchmark::State& state, const std::string& text) {
  auto module = hlo::parseModule(text);
  if (!module.ok()) {
    state.SkipWithError(module.status().message().c_str());
    return nullptr;
  }
  auto exe = hlo::jit::compile(**module, "cpu", hlo::jit::CompileOptions{});
  if (!exe.ok()) {
    state.SkipWithError(exe.status().message().c_str());
    return nullptr;
  }
  return std::move(*exe);
}

void runJit(benchmark::State& state, const std::string& text, const std::vector<hlo::Literal>& args) {
  auto exe = compiled(state, text);
  if (!exe) return;
  for (auto _ : state) {
    auto result = exe->run(args);
    if (!result.ok()) {
      state.SkipWithError(result.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
}

// LAPACK's routines from the library the JIT loads, with its thread count.
template <typename Fn>
Fn routine(benchmark::State& state, const char* name) {
  std::string why;
  const hlo::cpu::Blas* lib = hlo::cpu::blas(&why);
  if (!lib) {
    state.SkipWithError(why.c_str());
    return nullptr;
  }
  auto fn = reinterpret_cast<Fn>(dlsym(lib->library, name));
  if (!fn) state.SkipWithError((std::string("no ") + name).c_str());
  return fn;
}

using Potrf = void (*)(const char*, const int*, float*, const int*, int*, size_t);
using Getrf = void (*)(const int*, const int*, float*, const int*, int*, int*);
using Trsm = void (*)(const char*, const char*, const char*, const char*, const int*, const int*, const float*,
                      const float*, const int*, float*, const int*, size_t, size_t, size_t, size_t);

void BM_CholeskyJit(benchmark::State& state) {
  std::vector<hlo::Literal> args;
  args.push_back(literalOf(positiveDefinite(), kN, kN));
  runJit(state, choleskyModule(), args);
}
BENCHMARK(BM_CholeskyJit)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CholeskyDirect(benchmark::State& state) {
  auto potrf = routine<Potrf>(state, "spotrf_");
  if (!potrf) return;
  std::vector<float> a = positiveDefinite(), work(a.size());
  int n = kN, info = 0;
  for (auto _ : state) {
    work = a;  // the factorization works in place
    potrf("L", &n, work.data(), &n, &info, 1);
    benchmark::DoNotOptimize(work.data());
  }
  if (info != 0) state.SkipWithError("spotrf failed");
}
BENCHMARK(BM_CholeskyDirect)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SolveJit(benchmark::State& state) {
  std::vector<hlo::Literal> args;
  args.push_back(literalOf(randomValues(kN * kN, 2), kN, kN));
  args.push_back(literalOf(randomValues(kN * kRhs, 3), kN, kRhs));
  runJit(state, solveModule(), args);
}
BENCHMARK(BM_SolveJit)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SolveDirect(benchmark::State& state) {
  auto getrf = routine<Getrf>(state, "sgetrf_");
  auto trsm = routine<Trsm>(state, "strsm_");
  if (!getrf || !trsm) return;
  std::vector<float> a = randomValues(kN * kN, 2), b = randomValues(kN * kRhs, 3), lu(a.size()), x(b.size());
  std::vector<int> ipiv(kN);
  int n = kN, rhs = kRhs, info = 0;
  float alpha = 1;
  for (auto _ : state) {
    lu = a;
    x = b;
    getrf(&n, &n, lu.data(), &n, ipiv.data(), &info);
    trsm("L", "L", "N", "U", &n, &rhs, &alpha, lu.data(), &n, x.data(), &n, 1, 1, 1, 1);
    trsm("L", "U", "N", "N", &n, &rhs, &alpha, lu.data(), &n, x.data(), &n, 1, 1, 1, 1);
    benchmark::DoNotOptimize(x.data());
  }
}
BENCHMARK(BM_SolveDirect)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
