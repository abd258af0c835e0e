// The out-of-line parts of the scalar semantics (interp/scalar_ops.h).
#include "interp/scalar_ops.h"

namespace hlo::interp::scalar {

ComparisonType defaultComparisonType(ElementType t) {
  if (hlo::isSigned(t)) return ComparisonType::kSigned;
  if (hlo::isFloat(t) || hlo::isComplex(t)) return ComparisonType::kFloat;
  return ComparisonType::kUnsigned;  // unsigned integers and pred
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

}  // namespace hlo::interp::scalar
