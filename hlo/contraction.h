// The dimension analysis of the contractions (dot and its ragged and scaled
// forms, convolution): which operand dimension plays which part, checked
// against the shapes. The interpreter and the CPU backend's library ops both
// start from it; a failure is a plain message saying what does not fit,
// which each caller words as its own error.
#pragma once

#include <cstdint>
#include <vector>

#include "hlo/attributes.h"
#include "hlo/indexing.h"
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

// ragged-dot(lhs, rhs, group_sizes) with one lhs ragged dimension, by the
// kind of that dimension:
//   kFree (m):        rhs has a group dimension; lhs row m uses rhs group
//                     j(m); rows in no group give zeros. [b,m,k] x [g,b,k,n] -> [b,m,n]
//   kContracting (k): result [g, b, m, n]; group j sums only over k in group j.
//   kBatch:           an ordinary dot.
// group_sizes is [g], or [p..., g] with one set of g sizes per index of the
// prefix dimensions p... (JAX's ragged_dot_general): the lhs batch
// dimensions, then the lhs dimensions of the ragged one's kind (free
// dimensions in increasing order, or contracting dimensions in listed order)
// that come before it. Along the ragged dimension, group j covers the
// coordinates [sizes[0] + ... + sizes[j-1], sizes[0] + ... + sizes[j]);
// coordinates past the last group belong to none.
struct RaggedDotPlan {
  enum class Mode { kFree, kContracting, kBatch };
  DotDims dot;  // rhsPerm puts the group dimension first in kFree mode
  Mode mode = Mode::kBatch;
  int64_t raggedDim = 0;
  int64_t groups = 0;
  std::vector<int64_t> prefix;  // lhs dimensions that index group_sizes' leading ones
};

StatusOr<RaggedDotPlan> raggedDotPlan(const Attributes& attrs, const Shape& lhs, const Shape& rhs,
                                      const Shape& groupSizes);

// The group of every lhs element, in the dense [batch, m, k] order of
// plan.dot.lhsPerm; -1 for an element in no group. `readSize(i)` is element
// i of group_sizes.
template <typename ReadSize>
std::vector<int32_t> raggedGroups(const RaggedDotPlan& plan, const Shape& lhs, const Shape& groupSizes,
                                  ReadSize&& readSize);

// scaled-dot(lhs, rhs, lhs_scale, rhs_scale): each operand is first
// multiplied by its scale — a scalar, or an array of the operand's rank whose
// element s[i / block] scales operand element x[i], block = x.dim / s.dim per
// dimension — then it is an ordinary dot. checkDotScale says whether `scale`
// fits `x`; forEachScaled calls f(offset, scaleOffset) for every element of
// x in the order of `perm`, with the row-major offset of its scale.
Status checkDotScale(const Shape& x, const Shape& scale);

template <typename F>
void forEachScaled(const Shape& x, const Shape& scale, const std::vector<int64_t>& perm, F&& f) {
  const std::vector<int64_t>& dims = x.dims();
  std::vector<int64_t> scaleStrides = rowMajorStrides(scale.dims());
  forEachPermuted(dims, perm, [&](const std::vector<int64_t>& index, int64_t offset) {
    int64_t s = 0;
    if (!scale.isScalar())
      for (size_t d = 0; d < dims.size(); ++d) s += index[d] / (dims[d] / scale.dim(static_cast<int>(d))) * scaleStrides[d];
    f(offset, s);
  });
}

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

template <typename ReadSize>
std::vector<int32_t> raggedGroups(const RaggedDotPlan& plan, const Shape& lhs, const Shape& groupSizes,
                                  ReadSize&& readSize) {
  std::vector<int32_t> groupOf;
  groupOf.reserve(static_cast<size_t>(lhs.elementCount()));
  std::vector<int64_t> gsStrides = rowMajorStrides(groupSizes.dims());
  forEachPermuted(lhs.dims(), plan.dot.lhsPerm, [&](const std::vector<int64_t>& index, int64_t) {
    int64_t row = 0;
    for (size_t i = 0; i < plan.prefix.size(); ++i) row += index[plan.prefix[i]] * gsStrides[i];
    int64_t coord = index[plan.raggedDim];
    int64_t start = 0;
    int32_t group = -1;
    for (int64_t j = 0; j < plan.groups; ++j) {
      int64_t end = start + readSize(row + j);
      if (coord >= start && coord < end) {
        group = static_cast<int32_t>(j);
        break;
      }
      start = end;
    }
    groupOf.push_back(group);
  });
  return groupOf;
}

}  // namespace hlo
