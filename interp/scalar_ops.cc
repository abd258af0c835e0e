// The out-of-line parts of the scalar semantics (interp/scalar_ops.h).
#include "interp/scalar_ops.h"

namespace hlo::interp::scalar {

ComparisonType defaultComparisonType(ElementType t) {
  if (hlo::isSigned(t)) return ComparisonType::kSigned;
  if (hlo::isFloat(t) || hlo::isComplex(t)) return ComparisonType::kFloat;
  return ComparisonType::kUnsigned;  // unsigned integers and pred
}

}  // namespace hlo::interp::scalar
