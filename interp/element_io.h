// The interpreter's element helpers: hlo/element_io.h's readers and
// writers, and the element types of applied computations.
#pragma once

#include "hlo/computation.h"
#include "hlo/element_io.h"

namespace hlo::interp {

// The element type computation `c` declares for its scalar parameter i, or
// `fallback` where it declares none. XLA lets an applied computation work in
// another type than the values it is applied to (a bf16 scatter with an f32
// adder); the caller converts the arguments in and the result back.
inline ElementType declaredScalarType(const Computation& c, int i, ElementType fallback) {
  if (i >= c.parameterCount() || !c.parameter(i)) return fallback;
  const Shape& s = c.parameter(i)->shape();
  return s.isArray() && s.rank() == 0 ? s.type() : fallback;
}

}  // namespace hlo::interp
