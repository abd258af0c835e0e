// The dimension analysis of the contractions (dot and its ragged and scaled
// forms, convolution): which operand dimension plays which part, checked
// against the shapes. The interpreter and the CPU backend's library ops both
// start from it; a failure is a plain message saying what does not fit,
// which each caller words as its own error.
#pragma once

#include <cstdint>
#include <vector>

#include "hlo/attributes.h"
#include "hlo/shape.h"
#include "hlo/status.h"

namespace hlo {

// A dot's operands seen as [batch, m, k] x [batch, k, n]: the permutations
// that bring each operand into that order (lhs: batch + free + contracting;
// rhs: [group] + batch + contracting + free), the free dimensions in
// increasing order, and the four sizes. The result is [batch..., lhs free...,
// rhs free...] row-major, i.e. [batch, m, n].
struct DotDims {
  std::vector<int64_t> lhsPerm, rhsPerm;
  std::vector<int64_t> lhsFree, rhsFree;
  int64_t batch = 1, m = 1, k = 1, n = 1;
};

// `rhsGroup` is ragged-dot's rhs group dimension, put first in rhsPerm.
StatusOr<DotDims> dotDims(const Attributes& attrs, const Shape& lhs, const Shape& rhs,
                          const std::vector<int64_t>& rhsGroup = {});

// A convolution's dimension numbers, window (one entry per spatial
// dimension, filled with defaults when absent) and groups, checked against
// the input, kernel and output shapes.
struct ConvolutionPlan {
  ConvDims dn;
  std::vector<WindowDim> window;
  int64_t featureGroups = 1, batchGroups = 1;
  int64_t inFeaturesPerGroup = 1;  // the kernel's input feature dimension
  int64_t outFeatures = 1;
  int64_t outBatch = 1;
};

StatusOr<ConvolutionPlan> convolutionPlan(const Attributes& attrs, const Shape& in, const Shape& kernel,
                                          const Shape& out);

}  // namespace hlo
