// stochastic-convert of one float to a signed integer, the one definition
// both engines use (the interpreter per element, the CPU JIT through a
// runtime function).
#pragma once

#include <cmath>
#include <cstdint>

namespace hlo {

// XLA's rule (see xla/hlo/transforms/expanders/stochastic_convert_decomposer.cc),
// into a signed integer of `targetBits` bits: NaN -> 0; at or beyond the
// range saturate; otherwise split |x| into its integer part and fraction f,
// and round the magnitude up exactly when random < floor(f * 2^randomBits)
// -- so with uniform random bits, up with probability f -- then restore the
// sign (wrapping at the target width, as XLA's add and negate).
inline int64_t stochasticRound(double x, uint64_t random, int randomBits, int targetBits) {
  const int64_t max = targetBits >= 64 ? INT64_MAX : (int64_t{1} << (targetBits - 1)) - 1;
  const int64_t min = -max - 1;
  if (std::isnan(x)) return 0;
  if (x >= static_cast<double>(max)) return max;
  if (x <= static_cast<double>(min)) return min;
  double magnitude = std::fabs(x);
  double whole = std::floor(magnitude);
  auto threshold = static_cast<uint64_t>(std::ldexp(magnitude - whole, randomBits));
  auto result = static_cast<uint64_t>(whole);
  if (random < threshold) ++result;
  uint64_t bits = x < 0 ? 0 - result : result;
  // Sign-extend from the target width.
  int shift = 64 - targetBits;
  return shift > 0 ? static_cast<int64_t>(bits << shift) >> shift : static_cast<int64_t>(bits);
}

}  // namespace hlo
