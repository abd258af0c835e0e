// Comparing two literals: exact for integers and pred, within a tolerance for
// floats, and a report of where and by how much they differ.
#pragma once

#include <string>
#include <vector>

#include "hlo/literal.h"

namespace hlo {

struct Tolerance {
  double absolute = 0;  // |a - e| <= absolute + relative * |e| passes
  double relative = 0;
};

// The tolerance the harness uses for a float type when comparing two engines.
Tolerance defaultTolerance(ElementType t);

struct Comparison {
  bool equal = true;
  std::string firstMismatch;  // "at {1,2}: 3 vs 4" (empty when equal)
  double maxAbsError = 0;
  double maxRelError = 0;
  uint64_t maxUlpDistance = 0;  // over real floats of 16 bits or more, NaNs left out
  int64_t mismatches = 0;
};

// NaN equals NaN (any payload); infinities must match exactly; -0 equals +0
// only when the tolerance is non-zero.
Comparison compareLiterals(const Literal& actual, const Literal& expected, Tolerance tolerance);

// Extra absolute error allowed element by element, per result array (the
// top-level tuple's elements in order, or the one array); an empty vector
// allows none (conformance/contraction_bound.h).
using ElementAllowance = std::vector<std::vector<double>>;

// The same, each array (tuples element by element) with its own element
// type's defaultTolerance, or `atLeast` where that is looser, plus
// `allowance` where given: how two engines' results are compared.
Comparison compareWithTypeTolerances(const Literal& actual, const Literal& expected, Tolerance atLeast = {},
                                     const ElementAllowance* allowance = nullptr);

}  // namespace hlo
