// The skinny dot kernels (skinny_dot.h), written once with GCC vector types
// and compiled per instruction set, as conv_tiles.cc is: each entry point
// carries its target attribute and force-inlines the shared body.
//
// Free-major (b rows are columns of c): NB columns at a time (2 for 8 rows
// or more, else 1), each a row of b converted a vector at a time,
// multiplied into R rows of a: R * NB accumulators (times U for fewer than
// 4 rows), R + NB loads per R * NB multiply-adds. Rows of a come in chunks
// of 8, 4, 2 and 1 (so every chunk's accumulators stay in registers); the
// NB rows of b stay in the L1 cache from one chunk to the next.
//
// Contracting-major (b rows run along k): blocks of 64 columns (k rows of a
// block stay in the L2 cache), each cut into tiles of NV vectors of
// columns, each k adding b's row k times a[r, k] (broadcast) into R rows of
// accumulators, as the convolution tiles do; fewer rows take wider tiles,
// so that enough sums are in flight to cover the multiply-add's latency.
//
// Both sum in f32 lanes for a block of k, then in double (kSumBlock).
#include "backends/cpu/skinny_dot.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "backends/cpu/vector_of.h"
#include "hlo/float_formats.h"

namespace hlo::cpu {
namespace {

#if defined(__x86_64__)

// Sums run in f32 vector lanes for kSumBlock terms of k (contracting-major:
// kSumBlock / Lanes, one term per lane per k), then join a total in double:
// a lane's f32 rounding error grows with the terms it adds, and dots of
// thousands of terms that cancel would drift past the f32 tolerance.
constexpr int64_t kSumBlock = 512;

// Lanes elements of b from element `at`, as floats, into `out`. bf16 is the
// high half of an f32; f16 is rebiased (15 -> 127) in the exponent field
// when normal, is its mantissa times 2^-24 when subnormal, and keeps an
// all-ones exponent (inf, NaN): decodeF16ToF32 lane by lane.
template <int Lanes, WideType W>
[[gnu::always_inline]] inline void loadWide(const void* b, int64_t at, typename VectorOf<Lanes>::Value& out) {
  using Value = typename VectorOf<Lanes>::Value;
  using Bits = typename VectorOf<Lanes>::Bits;
  if constexpr (W == WideType::kF32) {
    out = *reinterpret_cast<const typename VectorOf<Lanes>::Memory*>(static_cast<const float*>(b) + at);
  } else {
    Bits h = __builtin_convertvector(
        *reinterpret_cast<const typename VectorOf<Lanes>::HalfMemory*>(static_cast<const uint16_t*>(b) + at), Bits);
    Bits bits;
    if constexpr (W == WideType::kBF16) {
      bits = h << 16;
    } else {
      Bits sign = (h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
      Bits normal = ((exponent + 112) << 23) | (mantissa << 13);
      Bits special = 0x7f800000 | (mantissa << 13);
      Value small = __builtin_convertvector(mantissa, Value) * 0x1p-24f;
      Bits smallBits;
      std::memcpy(&smallBits, &small, sizeof smallBits);
      bits = sign | (exponent == 0x1f ? special : exponent == 0 ? smallBits : normal);
    }
    std::memcpy(&out, &bits, sizeof out);
  }
}

// One element of b as a float.
template <WideType W>
[[gnu::always_inline]] inline float loadOne(const void* b, int64_t at) {
  if constexpr (W == WideType::kF32) return static_cast<const float*>(b)[at];
  else if constexpr (W == WideType::kBF16) return decodeBf16ToF32(static_cast<const uint16_t*>(b)[at]);
  else return decodeF16ToF32(static_cast<const uint16_t*>(b)[at]);
}

// The sum of v's lanes, as a tree: halves added, then their halves.
template <int Lanes>
[[gnu::always_inline]] inline float lanesSum(const typename VectorOf<Lanes>::Value& v) {
  typename VectorOf<Lanes>::Value t = v;
  if constexpr (Lanes == 16) {
    t += __builtin_shufflevector(t, t, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    t += __builtin_shufflevector(t, t, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3);
    t += __builtin_shufflevector(t, t, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1);
    t += __builtin_shufflevector(t, t, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0);
  } else {
    static_assert(Lanes == 8);
    t += __builtin_shufflevector(t, t, 4, 5, 6, 7, 0, 1, 2, 3);
    t += __builtin_shufflevector(t, t, 2, 3, 0, 1, 2, 3, 0, 1);
    t += __builtin_shufflevector(t, t, 1, 0, 1, 0, 1, 0, 1, 0);
  }
  return t[0];
}

// A free-major row of b is read a chunk at a time: Lanes * kSplit<W>
// elements, decoded into kSplit<W> vectors. bf16 loads a whole vector's
// bytes, 2 * Lanes elements, and splits them into the even ones (each 32-bit
// lane's low half, shifted up) and the odd ones (its high half, masked): no
// shuffle, where widening Lanes elements to 32 bits takes one. The rows of a
// are packed to match (packRows).
template <WideType W>
inline constexpr int kSplit = W == WideType::kBF16 ? 2 : 1;

template <int Lanes, WideType W>
[[gnu::always_inline]] inline void loadChunk(const void* b, int64_t at,
                                             typename VectorOf<Lanes>::Value (&out)[kSplit<W>]) {
  if constexpr (W == WideType::kBF16) {
    using Bits = typename VectorOf<Lanes>::Bits;
    Bits bits = *reinterpret_cast<const typename VectorOf<Lanes>::BitsMemory*>(static_cast<const uint16_t*>(b) + at);
    Bits even = bits << 16, odd = bits & 0xffff0000u;
    std::memcpy(&out[0], &even, sizeof even);
    std::memcpy(&out[1], &odd, sizeof odd);
  } else {
    loadWide<Lanes, W>(b, at, out[0]);
  }
}

// The rows of a for the free-major kernel, over the first `whole` elements
// of k (a multiple of the chunk): chunk by chunk, each row's chunk in the
// order loadChunk decodes b's (for bf16, the even elements, then the odd).
// A chunk's rows are side by side, so one pointer with constant offsets
// reaches all of them (R row pointers would not fit the registers).
template <int Lanes, WideType W>
const float* packRows(const SkinnyDotArgs& s, int64_t whole, std::vector<float>& packed) {
  constexpr int kChunk = Lanes * kSplit<W>;
  // Aligned to 64 bytes: a vector load that crosses a cache line costs two.
  packed.resize(static_cast<size_t>(s.rows * whole + 16));
  float* const start = packed.data() + (-reinterpret_cast<uintptr_t>(packed.data()) / sizeof(float) & 15);
  float* out = start;
  for (int64_t c = 0; c < whole; c += kChunk)
    for (int64_t r = 0; r < s.rows; ++r) {
      const float* row = s.a + r * s.k + c;
      for (int p = 0; p < kSplit<W>; ++p)
        for (int i = 0; i < Lanes; ++i) *out++ = row[i * kSplit<W> + p];
    }
  return start;
}

// Rows [r0, r0 + R) of a times columns [j, j + NB) of a free-major b, each
// sum in U accumulators (U chunks of k at a time), so that enough
// multiply-adds are independent of each other. `packed` is packRows'.
template <int Lanes, WideType W, int R, int NB, int U>
[[gnu::always_inline]] inline void rowsByRows(const SkinnyDotArgs& s, const float* packed, int64_t r0, int64_t j) {
  using Value = typename VectorOf<Lanes>::Value;
  using Memory = typename VectorOf<Lanes>::Memory;
  constexpr int kChunk = Lanes * kSplit<W>;
  double total[R][NB] = {};
  const int64_t whole = s.k / kChunk * kChunk;
  for (int64_t k0 = 0; k0 < whole; k0 += kSumBlock) {
    const int64_t k1 = std::min(k0 + kSumBlock, whole);
    Value acc[R][NB][U];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NB; ++q)
#pragma GCC unroll 4
        for (int u = 0; u < U; ++u) acc[r][q][u] = Value{};
    // The chunk at kk into accumulators u.
    auto multiplyAdd = [&](int64_t kk, int u) __attribute__((always_inline)) {
      Value bv[NB][kSplit<W>];
#pragma GCC unroll 4
      for (int q = 0; q < NB; ++q) loadChunk<Lanes, W>(s.b, (j + q) * s.k + kk, bv[q]);
      const float* at = packed + (kk / kChunk * s.rows + r0) * kChunk;
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r)
#pragma GCC unroll 2
        for (int p = 0; p < kSplit<W>; ++p) {
          Value av = *reinterpret_cast<const Memory*>(at + r * kChunk + p * Lanes);
#pragma GCC unroll 4
          for (int q = 0; q < NB; ++q) acc[r][q][u] += av * bv[q][p];  // contracted to one FMA
        }
    };
    int64_t kk = k0;
    for (; kk + U * kChunk <= k1; kk += U * kChunk) {
      if (r0 == 0) {
        // The rows of b two steps on, on their way while these are summed.
        constexpr int bytes = W == WideType::kF32 ? 4 : 2;
#pragma GCC unroll 4
        for (int q = 0; q < NB; ++q)
          __builtin_prefetch(static_cast<const char*>(s.b) + ((j + q + 2 * NB) * s.k + kk) * bytes);
      }
#pragma GCC unroll 4
      for (int u = 0; u < U; ++u) multiplyAdd(kk + u * kChunk, u);
    }
    for (; kk < k1; kk += kChunk) multiplyAdd(kk, 0);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NB; ++q) {
        Value sum = acc[r][q][0];
#pragma GCC unroll 4
        for (int u = 1; u < U; ++u) sum += acc[r][q][u];
        total[r][q] += lanesSum<Lanes>(sum);
      }
  }
  const float* a = s.a + r0 * s.k;
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int q = 0; q < NB; ++q) {
      for (int64_t t = whole; t < s.k; ++t) total[r][q] += a[r * s.k + t] * loadOne<W>(s.b, (j + q) * s.k + t);
      s.c[(r0 + r) * s.cRow + (j + q) * s.cCol] = static_cast<float>(total[r][q]);
    }
}

// Rows [r0, r0 + R) of a times the NV * Lanes columns at j of a
// contracting-major b.
template <int Lanes, WideType W, int R, int NV>
[[gnu::always_inline]] inline void rowsByColumns(const SkinnyDotArgs& s, int64_t r0, int64_t j) {
  using Value = typename VectorOf<Lanes>::Value;
  double total[R][NV][Lanes] = {};
  const float* a = s.a + r0 * s.k;
  for (int64_t k0 = 0; k0 < s.k; k0 += kSumBlock / Lanes) {
    const int64_t k1 = std::min(k0 + kSumBlock / Lanes, s.k);
    Value acc[R][NV];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NV; ++q) acc[r][q] = Value{};
    for (int64_t kk = k0; kk < k1; ++kk) {
      Value bv[NV];
#pragma GCC unroll 4
      for (int q = 0; q < NV; ++q) loadWide<Lanes, W>(s.b, kk * s.cols + j + q * Lanes, bv[q]);
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        float av = a[r * s.k + kk];
#pragma GCC unroll 4
        for (int q = 0; q < NV; ++q) acc[r][q] += av * bv[q];
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (int q = 0; q < NV; ++q)
        for (int l = 0; l < Lanes; ++l) total[r][q][l] += acc[r][q][l];
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int q = 0; q < NV; ++q)
      for (int l = 0; l < Lanes; ++l)
        s.c[(r0 + r) * s.cRow + (j + q * Lanes + l) * s.cCol] = static_cast<float>(total[r][q][l]);
}

// Calls f(R, r) for the rows of a in chunks of R = 8, 4, 2 and 1 rows from
// row r (R a std::integral_constant), so that every chunk's accumulators
// stay in registers.
template <typename F>
[[gnu::always_inline]] inline void inRowChunks(int64_t rows, F&& f) {
  int64_t r = 0;
  for (; r + 8 <= rows; r += 8) f(std::integral_constant<int, 8>{}, r);
  if (r + 4 <= rows) f(std::integral_constant<int, 4>{}, r), r += 4;
  if (r + 2 <= rows) f(std::integral_constant<int, 2>{}, r), r += 2;
  if (r < rows) f(std::integral_constant<int, 1>{}, r);
}

// Every row of a times the NB columns at j of a free-major b: the NB rows
// of b stay in the L1 cache from one chunk of rows to the next. Chunks of
// fewer than 4 rows split their sums into 4 / R accumulators.
template <int Lanes, WideType W, int NB>
[[gnu::always_inline]] inline void allRowsByRows(const SkinnyDotArgs& s, const float* packed, int64_t j) {
  inRowChunks(s.rows, [&](auto R, int64_t r) __attribute__((always_inline)) {
    constexpr int kRows = decltype(R)::value;
    rowsByRows<Lanes, W, kRows, NB, (kRows >= 4 ? 1 : 4 / kRows)>(s, packed, r, j);
  });
}

// Rows [r0, r0 + R) of a times columns [c0, c1) of a contracting-major b.
// With fewer rows, more columns at once, so that enough independent sums
// are in flight to cover the multiply-add's latency.
template <int Lanes, WideType W, int R>
[[gnu::always_inline]] inline void rowsByColumnRange(const SkinnyDotArgs& s, int64_t r0, int64_t c0, int64_t c1) {
  constexpr int kWide = R >= 8 ? 2 : 4;
  int64_t j = c0;
  for (; j + kWide * Lanes <= c1; j += kWide * Lanes) rowsByColumns<Lanes, W, R, kWide>(s, r0, j);
  // The last columns, fewer than a tile: one at a time, summed in double
  // (one f32 chain of k terms would drift as the vector lanes are kept from).
  for (; j < c1; ++j)
    for (int64_t r = r0; r < r0 + R; ++r) {
      double sum = 0;
      for (int64_t kk = 0; kk < s.k; ++kk) sum += s.a[r * s.k + kk] * loadOne<W>(s.b, kk * s.cols + j);
      s.c[r * s.cRow + j * s.cCol] = static_cast<float>(sum);
    }
}

template <int Lanes, WideType W>
[[gnu::always_inline]] inline void body(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  if (s.freeMajor) {
    // Fewer than 8 rows read b one row at a time: one sequential stream,
    // which the hardware prefetchers follow at twice the speed they follow
    // two rows read side by side (bf16, 1 row by [262144, 1152]: 23 -> 16
    // ms on two cores). 8 rows and more are bound by their multiply-adds,
    // and two rows of b at a time load fewer rows of a per multiply-add.
    thread_local std::vector<float> buffer;
    const float* packed = packRows<Lanes, W>(s, s.k / (Lanes * kSplit<W>) * (Lanes * kSplit<W>), buffer);
    int64_t j = col0;
    if (s.rows >= 8)
      for (; j + 2 <= col1; j += 2) allRowsByRows<Lanes, W, 2>(s, packed, j);
    for (; j < col1; ++j) allRowsByRows<Lanes, W, 1>(s, packed, j);
    return;
  }
  // Blocks of kBlock columns (a block of b, k rows of it, stays in the L2
  // cache), each times every row of a.
  constexpr int64_t kBlock = 64;
  for (int64_t c0 = col0; c0 < col1; c0 += kBlock) {
    int64_t c1 = std::min(c0 + kBlock, col1);
    inRowChunks(s.rows, [&](auto R, int64_t r) __attribute__((always_inline)) {
      rowsByColumnRange<Lanes, W, decltype(R)::value>(s, r, c0, c1);
    });
  }
}

template <int Lanes>
[[gnu::always_inline]] inline void dispatch(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  switch (s.type) {
    case WideType::kF32: return body<Lanes, WideType::kF32>(s, col0, col1);
    case WideType::kBF16: return body<Lanes, WideType::kBF16>(s, col0, col1);
    case WideType::kF16: return body<Lanes, WideType::kF16>(s, col0, col1);
  }
}

[[gnu::target("avx512f,fma")]] void avx512(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  dispatch<16>(s, col0, col1);
}
[[gnu::target("avx2,fma,f16c")]] void avx2(const SkinnyDotArgs& s, int64_t col0, int64_t col1) {
  dispatch<8>(s, col0, col1);
}

#endif

}  // namespace

SkinnyDotFn skinnyDotNamed(const char* name) {
#if defined(__x86_64__)
  if (std::strcmp(name, "avx512") == 0)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma") ? avx512 : nullptr;
  if (std::strcmp(name, "avx2") == 0)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c") ? avx2
                                                                                                             : nullptr;
#else
  (void)name;
#endif
  return nullptr;
}

SkinnyDotFn skinnyDotForThisCpu() {
  static const SkinnyDotFn best = [] {
    SkinnyDotFn fn = skinnyDotNamed("avx512");
    return fn ? fn : skinnyDotNamed("avx2");
  }();
  return best;
}

}  // namespace hlo::cpu
