#include "hlo/reduce_precision.h"

#include <bit>
#include <optional>
#include <utility>

#include "hlo/float_formats.h"

namespace hlo {

std::optional<std::pair<int, int>> ieeeFloatLayout(ElementType t) {
  using T = ElementType;
  if (t == T::kF16) return std::pair{5, 10};
  if (t == T::kBF16) return std::pair{8, 7};
  if (t == T::kF32) return std::pair{8, 23};
  if (t == T::kF64) return std::pair{11, 52};
  if (t == T::kF8E5M2) return std::pair{5, 2};
  if (t == T::kF8E4M3) return std::pair{4, 3};
  if (t == T::kF8E3M4) return std::pair{3, 4};
  return std::nullopt;
}

uint64_t reducePrecisionBits(uint64_t bits, int srcExponentBits, int srcMantissaBits,
                             int exponentBits, int mantissaBits) {
  int width = 1 + srcExponentBits + srcMantissaBits;
  uint64_t all = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t signMask = uint64_t{1} << (width - 1);
  uint64_t exponentMask = ((uint64_t{1} << srcExponentBits) - 1) << srcMantissaBits;
  bits &= all;
  bool isNan = (bits & ~signMask) > exponentMask;
  uint64_t x = bits;

  if (mantissaBits < srcMantissaBits) {
    // Adding 0111...1 (plus the lowest kept bit, for ties to even) carries
    // into the kept bits exactly when the dropped bits round up.
    int dropped = srcMantissaBits - mantissaBits;
    uint64_t lowestKept = uint64_t{1} << dropped;
    uint64_t bias = (lowestKept >> 1) - 1 + ((x >> dropped) & 1);
    x = ((x + bias) & ~(lowestKept - 1)) & all;
  }

  if (exponentBits < srcExponentBits) {
    uint64_t srcBias = (uint64_t{1} << (srcExponentBits - 1)) - 1;
    uint64_t reducedBias = (uint64_t{1} << (exponentBits - 1)) - 1;
    uint64_t maxExponent = (srcBias + reducedBias) << srcMantissaBits;
    uint64_t minExponent = (srcBias - reducedBias) << srcMantissaBits;
    uint64_t exponent = x & exponentMask;
    if (exponent > maxExponent) x = (x & signMask) | exponentMask;  // +-inf
    else if (exponent <= minExponent) x &= signMask;               // +-0
  }

  if (isNan) return mantissaBits > 0 ? bits : exponentMask;  // the NaN, or +inf
  return x;
}

uint64_t reducePrecisionOf(ElementType t, uint64_t bits, int exponentBits, int mantissaBits) {
  if (std::optional<std::pair<int, int>> layout = ieeeFloatLayout(t))
    return reducePrecisionBits(bits, layout->first, layout->second, exponentBits, mantissaBits);
  auto wide = std::bit_cast<uint32_t>(static_cast<float>(decodeSmallFloat(t, static_cast<uint32_t>(bits))));
  auto reduced = std::bit_cast<float>(static_cast<uint32_t>(reducePrecisionBits(wide, 8, 23, exponentBits, mantissaBits)));
  return encodeSmallFloat(t, reduced);
}

}  // namespace hlo
