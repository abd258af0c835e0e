// GCC at -O2 leaves the scalar loops scalar, and without AVX-512's unsigned
// compares and narrowing moves a vector form is no faster: so one AVX-512
// form for bf16, chosen at run time, and the scalar loops.
#include "backends/cpu/half_runs.h"

#include <cstring>

#include "backends/cpu/vector_of.h"
#include "hlo/float_formats.h"

namespace hlo::cpu {
namespace {

[[gnu::target("avx512f,avx512bw,avx512vl")]] void bf16ToF32Avx512(const uint16_t* in, float* out, int64_t n) {
  using V = VectorOf<16>;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    V::Bits bits = __builtin_convertvector(*reinterpret_cast<const V::HalfMemory*>(in + i), V::Bits) << 16;
    std::memcpy(out + i, &bits, sizeof bits);
  }
  for (; i < n; ++i) out[i] = decodeBf16ToF32(in[i]);
}

[[gnu::target("avx512f,avx512bw,avx512vl")]] void f32ToBf16Avx512(const float* in, uint16_t* out, int64_t n) {
  using V = VectorOf<16>;
  typedef uint16_t Narrow __attribute__((vector_size(32)));
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    V::Bits x;
    std::memcpy(&x, in + i, sizeof x);
    V::Bits quietNan = ((x >> 16) & 0x8000) | 0x7fc0;
    V::Bits rounded = (x + 0x7fff + ((x >> 16) & 1)) >> 16;
    Narrow narrow = __builtin_convertvector((x & 0x7fffffff) > 0x7f800000 ? quietNan : rounded, Narrow);
    std::memcpy(out + i, &narrow, sizeof narrow);
  }
  for (; i < n; ++i) out[i] = encodeBf16FromF32(in[i]);
}

bool hasAvx512bw() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl");
  return has;
}

}  // namespace

void halfRunToF32(ElementType type, const uint16_t* in, float* out, int64_t n) {
  if (type == ElementType::kBF16) {
    if (hasAvx512bw()) return bf16ToF32Avx512(in, out, n);
    for (int64_t i = 0; i < n; ++i) out[i] = decodeBf16ToF32(in[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = decodeF16ToF32(in[i]);
}

void f32RunToHalf(ElementType type, const float* in, uint16_t* out, int64_t n) {
  if (type == ElementType::kBF16) {
    if (hasAvx512bw()) return f32ToBf16Avx512(in, out, n);
    for (int64_t i = 0; i < n; ++i) out[i] = encodeBf16FromF32(in[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) out[i] = encodeF16FromF32(in[i]);
}

}  // namespace hlo::cpu
