#include "backends/cpu/host_helpers.h"

#include <cmath>
#include <cstdint>

#include "hlo/complex_math.h"
#include "hlo/float_formats.h"
#include "hlo/reduce_precision.h"
#include "hlo/stochastic_round.h"
#include "jit/host_helper_names.h"

using namespace hlo;

// The C names must be the ones jit/host_helper_names.h gives the emitter;
// the table below pairs each with its name there, and an ahead-of-time
// object that calls one links only when the two agree.
extern "C" {

double hlo_decode_small_float(int32_t type, uint32_t bits) {
  return decodeSmallFloat(static_cast<ElementType>(type), bits);
}

uint32_t hlo_encode_small_float(int32_t type, double value) {
  return encodeSmallFloat(static_cast<ElementType>(type), value);
}

void hlo_complex_unary(int32_t op, int32_t type, double re, double im, double* out) {
  const double x[2] = {re, im};
  if (!applyComplexUnary(static_cast<Opcode>(op), static_cast<ElementType>(type), x, out))
    out[0] = out[1] = std::nan("");  // unreachable: the emitter checks the opcode first
}

void hlo_complex_binary(int32_t op, int32_t type, double reA, double imA, double reB, double imB, double* out) {
  const double a[2] = {reA, imA}, b[2] = {reB, imB};
  if (!applyComplexBinary(static_cast<Opcode>(op), static_cast<ElementType>(type), a, b, out))
    out[0] = out[1] = std::nan("");  // unreachable: the emitter checks the opcode first
}

uint64_t hlo_reduce_precision(int32_t type, uint64_t bits, int32_t exponentBits, int32_t mantissaBits) {
  return reducePrecisionOf(static_cast<ElementType>(type), bits, exponentBits, mantissaBits);
}

int64_t hlo_stochastic_round(double x, uint64_t random, int32_t randomBits, int32_t targetBits) {
  return stochasticRound(x, random, randomBits, targetBits);
}

}  // extern "C"

namespace hlo::cpu {

std::span<const HostHelper> hostHelpers() {
  static const HostHelper helpers[] = {
      {jit::kDecodeSmallFloat, reinterpret_cast<void*>(&hlo_decode_small_float)},
      {jit::kEncodeSmallFloat, reinterpret_cast<void*>(&hlo_encode_small_float)},
      {jit::kComplexUnary, reinterpret_cast<void*>(&hlo_complex_unary)},
      {jit::kComplexBinary, reinterpret_cast<void*>(&hlo_complex_binary)},
      {jit::kReducePrecision, reinterpret_cast<void*>(&hlo_reduce_precision)},
      {jit::kStochasticRound, reinterpret_cast<void*>(&hlo_stochastic_round)},
  };
  return helpers;
}

}  // namespace hlo::cpu
