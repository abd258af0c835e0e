// The small f32 products (small_product.h).
//
// b's rows along n: tiles of c of four rows (or one) by up to four vectors
// of columns held in registers; for every k, b's row k times a[i, k]
// broadcast adds into row i of the tile, so each element sums its terms in
// order. Columns past the last whole vector are summed one at a time,
// likewise.
// b stored [n, k] (its rows along k) with a's rows along k too: each
// element of c is a sum along a row of each, a vector of k at a time, its
// lanes then added together (the last terms one at a time). With a stored
// [k, m] instead, b is first transposed into a buffer (small: at most
// kSmallProduct elements) and taken as above.
#include "backends/cpu/small_product.h"

#include <cstring>
#include <vector>

#include "backends/cpu/vector_of.h"

namespace hlo::cpu {
namespace {

#if defined(__x86_64__)

// Rows i .. i + Rows of c, columns j .. j + Vectors * Lanes, in registers.
template <int Lanes, int Rows, int Vectors>
[[gnu::always_inline]] inline void tile(const SmallProductArgs& s, const float* b, int64_t ldb, int64_t i, int64_t j) {
  using V = typename VectorOf<Lanes>::Value;
  using M = typename VectorOf<Lanes>::Memory;
  V acc[Rows][Vectors] = {};
  for (int64_t kk = 0; kk < s.k; ++kk) {
    const float* row = b + kk * ldb + j;
    V bv[Vectors];
#pragma GCC unroll 4
    for (int v = 0; v < Vectors; ++v) bv[v] = *reinterpret_cast<const M*>(row + v * Lanes);
#pragma GCC unroll 4
    for (int r = 0; r < Rows; ++r) {
      const V av = V{} + (s.ta ? s.a[kk * s.lda + i + r] : s.a[(i + r) * s.lda + kk]);
#pragma GCC unroll 4
      for (int v = 0; v < Vectors; ++v) acc[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < Vectors; ++v) *reinterpret_cast<M*>(s.c + (i + r) * s.n + j + v * Lanes) = acc[r][v];
}

// Rows i .. i + Rows of c: whole vectors of columns in tiles, the rest one at a time.
template <int Lanes, int Rows, int Vectors>
[[gnu::always_inline]] inline void rows(const SmallProductArgs& s, const float* b, int64_t ldb, int64_t i) {
  int64_t j = 0;
  for (; j + Vectors * Lanes <= s.n; j += Vectors * Lanes) tile<Lanes, Rows, Vectors>(s, b, ldb, i, j);
  for (; j + Lanes <= s.n; j += Lanes) tile<Lanes, Rows, 1>(s, b, ldb, i, j);
  for (int r = 0; r < Rows; ++r)
    for (int64_t jj = j; jj < s.n; ++jj) {
      float sum = 0;
      for (int64_t kk = 0; kk < s.k; ++kk)
        sum += (s.ta ? s.a[kk * s.lda + i + r] : s.a[(i + r) * s.lda + kk]) * b[kk * ldb + jj];
      s.c[(i + r) * s.n + jj] = sum;
    }
}

// c[i, j] as the sum of a's row i times b's row j, both along k.
template <int Lanes>
[[gnu::always_inline]] inline void rowByRow(const SmallProductArgs& s) {
  using V = typename VectorOf<Lanes>::Value;
  using M = typename VectorOf<Lanes>::Memory;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      const float* x = s.a + i * s.lda;
      const float* y = s.b + j * s.ldb;
      V acc = {};
      int64_t kk = 0;
      for (; kk + Lanes <= s.k; kk += Lanes) acc += *reinterpret_cast<const M*>(x + kk) * *reinterpret_cast<const M*>(y + kk);
      float sum = 0;
      for (int l = 0; l < Lanes; ++l) sum += acc[l];
      for (; kk < s.k; ++kk) sum += x[kk] * y[kk];
      s.c[i * s.n + j] = sum;
    }
}

template <int Lanes>
[[gnu::always_inline]] inline void product(const SmallProductArgs& s) {
  if (s.tb && !s.ta) return rowByRow<Lanes>(s);
  const float* b = s.b;
  int64_t ldb = s.ldb;
  thread_local std::vector<float> transposed;
  if (s.tb) {
    transposed.resize(static_cast<size_t>(s.k * s.n));
    for (int64_t j = 0; j < s.n; ++j)
      for (int64_t kk = 0; kk < s.k; ++kk) transposed[kk * s.n + j] = s.b[j * s.ldb + kk];
    b = transposed.data();
    ldb = s.n;
  }
  // Four rows at a time (AVX-512: 16 accumulators of its 32 registers;
  // AVX2: 8 of 16), then one.
  constexpr int kVectors = Lanes == 16 ? 4 : 2;
  int64_t i = 0;
  for (; i + 4 <= s.m; i += 4) rows<Lanes, 4, kVectors>(s, b, ldb, i);
  for (; i < s.m; ++i) rows<Lanes, 1, kVectors>(s, b, ldb, i);
}

[[gnu::target("avx512f,fma"), gnu::noinline]] void avx512(const SmallProductArgs& s) { product<16>(s); }
[[gnu::target("avx2,fma"), gnu::noinline]] void avx2(const SmallProductArgs& s) { product<8>(s); }

#endif

}  // namespace

SmallProductFn smallProductNamed(const char* name) {
#if defined(__x86_64__)
  if (std::strcmp(name, "avx512") == 0)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma") ? avx512 : nullptr;
  if (std::strcmp(name, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? avx2 : nullptr;
#else
  (void)name;
#endif
  return nullptr;
}

SmallProductFn smallProductForThisCpu() {
  static const SmallProductFn best = [] {
    SmallProductFn fn = smallProductNamed("avx512");
    return fn ? fn : smallProductNamed("avx2");
  }();
  return best;
}

}  // namespace hlo::cpu
