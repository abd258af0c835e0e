// The convolution tile kernels (conv_tiles.h), written once with GCC vector
// types and compiled per instruction set: each entry point carries its
// target attribute and force-inlines the shared body, so the vector code is
// generated for AVX-512 or AVX2 without building the whole library for
// either (the CPU is checked at run time).
#include "backends/cpu/conv_tiles.h"

#include <atomic>
#include <cstring>
#include <initializer_list>

#include "backends/cpu/vector_of.h"

namespace hlo::cpu {
namespace {

#if defined(__x86_64__)

// Stores (or adds) row r's NV vectors of sums at out[r] + column, only the
// first `width` of them when the block is the last, narrower one.
template <int Lanes, int NV, int R>
[[gnu::always_inline]] inline void storeTile(const ConvTileArgs& a, typename VectorOf<Lanes>::Value (&acc)[R][NV]) {
  using Memory = typename VectorOf<Lanes>::Memory;
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    float* o = a.out[r] + a.column;
    if (a.width == NV * Lanes) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        Memory* dst = reinterpret_cast<Memory*>(o + v * Lanes);
        *dst = a.accumulate ? *dst + acc[r][v] : acc[r][v];
      }
    } else {
      float sums[NV * Lanes];
      std::memcpy(sums, acc[r], sizeof sums);
      for (int j = 0; j < a.width; ++j) o[j] = a.accumulate ? o[j] + sums[j] : sums[j];
    }
  }
}

template <int Lanes, int NV, int R>
[[gnu::always_inline]] inline void zeroTile(typename VectorOf<Lanes>::Value (&acc)[R][NV]) {
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[r][v] = typename VectorOf<Lanes>::Value{};
}

// The NV weight vectors of one input feature (or tap) at w.
template <int Lanes, int NV>
[[gnu::always_inline]] inline void loadWeights(const float* w, typename VectorOf<Lanes>::Value (&wv)[NV]) {
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) wv[v] = *reinterpret_cast<const typename VectorOf<Lanes>::Memory*>(w + v * Lanes);
}

template <int Lanes, int NV, int R>
[[gnu::always_inline]] inline void tileBody(const ConvTileArgs& a) {
  using Value = typename VectorOf<Lanes>::Value;
  Value acc[R][NV];
  zeroTile<Lanes, NV, R>(acc);

  for (int64_t t = 0; t < a.taps; ++t) {
    const float* x[R];
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) x[r] = a.in[t * a.tapStride + r] + a.channel;
    const float* w = a.weights + t * a.weightTapStride;
    for (int64_t c = 0; c < a.channels; ++c, w += NV * Lanes) {
      Value wv[NV];
      loadWeights<Lanes, NV>(w, wv);
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        float xv = x[r][c];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[r][v] += xv * wv[v];  // contracted to one FMA
      }
    }
  }
  storeTile<Lanes, NV, R>(a, acc);
}

template <int Lanes, int NV, int R>
[[gnu::always_inline]] inline void depthwiseBody(const ConvTileArgs& a) {
  using Value = typename VectorOf<Lanes>::Value;
  using Memory = typename VectorOf<Lanes>::Memory;
  Value acc[R][NV];
  zeroTile<Lanes, NV, R>(acc);

  for (int64_t t = 0; t < a.taps; ++t) {
    const float* w = a.weights + t * a.weightTapStride;
    Value wv[NV];
    loadWeights<Lanes, NV>(w, wv);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const float* x = a.in[t * a.tapStride + r] + a.channel;
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[r][v] += *reinterpret_cast<const Memory*>(x + v * Lanes) * wv[v];
    }
  }
  storeTile<Lanes, NV, R>(a, acc);
}

// Registers: AVX-512 has 32 vector registers, so up to 24 accumulators plus
// NV weight vectors and a broadcast; AVX2 has 16, so up to 12.
[[gnu::target("avx512f,fma")]] void avx512x1(const ConvTileArgs& a) { tileBody<16, 1, 12>(a); }
[[gnu::target("avx512f,fma")]] void avx512x2(const ConvTileArgs& a) { tileBody<16, 2, 12>(a); }
[[gnu::target("avx512f,fma")]] void avx512x3(const ConvTileArgs& a) { tileBody<16, 3, 8>(a); }
[[gnu::target("avx512f,fma")]] void avx512x4(const ConvTileArgs& a) { tileBody<16, 4, 6>(a); }
[[gnu::target("avx2,fma")]] void avx2x1(const ConvTileArgs& a) { tileBody<8, 1, 8>(a); }
[[gnu::target("avx2,fma")]] void avx2x2(const ConvTileArgs& a) { tileBody<8, 2, 6>(a); }
// Depthwise: 6 rows at every width (up to 24 accumulators, NV weights and an
// input vector; 12 on AVX2).
[[gnu::target("avx512f,fma")]] void avx512dw1(const ConvTileArgs& a) { depthwiseBody<16, 1, 6>(a); }
[[gnu::target("avx512f,fma")]] void avx512dw2(const ConvTileArgs& a) { depthwiseBody<16, 2, 6>(a); }
[[gnu::target("avx512f,fma")]] void avx512dw3(const ConvTileArgs& a) { depthwiseBody<16, 3, 6>(a); }
[[gnu::target("avx512f,fma")]] void avx512dw4(const ConvTileArgs& a) { depthwiseBody<16, 4, 6>(a); }
[[gnu::target("avx2,fma")]] void avx2dw1(const ConvTileArgs& a) { depthwiseBody<8, 1, 6>(a); }
[[gnu::target("avx2,fma")]] void avx2dw2(const ConvTileArgs& a) { depthwiseBody<8, 2, 6>(a); }

const ConvTileSet kAvx512 = {"avx512",
                             16,
                             4,
                             {0, 12, 12, 8, 6},
                             {nullptr, avx512x1, avx512x2, avx512x3, avx512x4},
                             6,
                             {nullptr, avx512dw1, avx512dw2, avx512dw3, avx512dw4}};
const ConvTileSet kAvx2 = {"avx2",
                           8,
                           2,
                           {0, 8, 6, 0, 0},
                           {nullptr, avx2x1, avx2x2, nullptr, nullptr},
                           6,
                           {nullptr, avx2dw1, avx2dw2, nullptr, nullptr}};

bool runs(const ConvTileSet& set) {
  __builtin_cpu_init();
  if (&set == &kAvx512) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

#endif

}  // namespace

const ConvTileSet* convTilesNamed(const char* name) {
#if defined(__x86_64__)
  for (const ConvTileSet* set : {&kAvx512, &kAvx2})
    if (std::strcmp(set->name, name) == 0) return runs(*set) ? set : nullptr;
#else
  (void)name;
#endif
  return nullptr;
}

namespace {
std::atomic<bool> overridden{false};
std::atomic<const ConvTileSet*> overrideSet{nullptr};
}  // namespace

const ConvTileSet* convTilesForThisCpu() {
  if (overridden.load()) return overrideSet.load();
  static const ConvTileSet* best = [] {
    const ConvTileSet* set = convTilesNamed("avx512");
    return set ? set : convTilesNamed("avx2");
  }();
  return best;
}

void overrideConvTiles(const ConvTileSet* set) {
  overrideSet.store(set);
  overridden.store(true);
}

void clearConvTilesOverride() { overridden.store(false); }

}  // namespace hlo::cpu
