// The index arrays of gather and scatter, and where a scatter's updates
// land, as the semantics define them (shared by the interpreter and the CPU
// backend's library ops). In an index array every
// dimension other than index_vector_dim is a "batch" position holding one
// index vector; an index_vector_dim equal to the rank is an implicit
// trailing dimension of size 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hlo/element_io.h"
#include "hlo/indexing.h"
#include "hlo/instruction.h"
#include "hlo/literal.h"

namespace hlo {

// The index array seen with an explicit index vector dimension: when
// index_vector_dim equals the rank, a trailing dimension of size 1 is added.
struct IndexArray {
  const Literal* values;
  std::vector<int64_t> dims;     // with the index vector dimension
  std::vector<int64_t> strides;  // row-major over `dims`
  int64_t vectorDim;

  IndexArray(const Literal& indices, int64_t indexVectorDim)
      : values(&indices), dims(indices.shape().dims()), vectorDim(indexVectorDim) {
    if (vectorDim == static_cast<int64_t>(dims.size())) dims.push_back(1);
    strides = rowMajorStrides(dims);
  }

  // The dimensions without the index vector's: the batch positions' space.
  std::vector<int64_t> batchDims() const {
    std::vector<int64_t> out;
    for (size_t d = 0; d < dims.size(); ++d)
      if (static_cast<int64_t>(d) != vectorDim) out.push_back(dims[d]);
    return out;
  }
  // Batch position index `d` of the index array (d != vectorDim) as an index
  // into batchDims(): the dimensions after the vector dimension shift down.
  int64_t batchPosition(int64_t d) const { return d < vectorDim ? d : d - 1; }

  // Component k of the index vector at `batch` (an index into batchDims()).
  int64_t component(const std::vector<int64_t>& batch, int64_t k) const {
    int64_t linear = k * strides[vectorDim];
    for (size_t b = 0; b < batch.size(); ++b)
      linear += batch[b] * strides[b < static_cast<size_t>(vectorDim) ? b : b + 1];
    return integerAt(*values, linear);
  }
};

// gather's dimension numbers, as its attributes give them (references into
// the instruction's attributes), and the operand dimensions its offset
// dimensions walk.
struct GatherDims {
  explicit GatherDims(const Instruction& gather, int64_t operandRank);
  const std::vector<int64_t>& offsetDims;
  const std::vector<int64_t>& collapsedSliceDims;
  const std::vector<int64_t>& startIndexMap;
  const std::vector<int64_t>& operandBatching;  // operand_batching_dims
  const std::vector<int64_t>& indicesBatching;  // start_indices_batching_dims
  const std::vector<int64_t>& sliceSizes;
  int64_t indexVectorDim;
  // The operand dimensions neither collapsed nor batching, in order: offset
  // dimension k of the result walks operand dimension sliceDims[k].
  std::vector<int64_t> sliceDims;
};

// The operand dimensions that are neither `removed1` nor `removed2`, in order:
// gather's offset (scatter's window) dimensions in the operand.
inline std::vector<int64_t> remainingDims(int64_t rank, const std::vector<int64_t>& removed1,
                                          const std::vector<int64_t>& removed2) {
  auto in = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  std::vector<int64_t> out;
  for (int64_t d = 0; d < rank; ++d)
    if (!in(removed1, d) && !in(removed2, d)) out.push_back(d);
  return out;
}

inline GatherDims::GatherDims(const Instruction& gather, int64_t operandRank)
    : offsetDims(gather.attrs().getInts(AttrKey::kOffsetDims)),
      collapsedSliceDims(gather.attrs().getInts(AttrKey::kCollapsedSliceDims)),
      startIndexMap(gather.attrs().getInts(AttrKey::kStartIndexMap)),
      operandBatching(gather.attrs().getInts(AttrKey::kOperandBatchingDims)),
      indicesBatching(gather.attrs().getInts(AttrKey::kStartIndicesBatchingDims)),
      sliceSizes(gather.attrs().getInts(AttrKey::kSliceSizes)),
      indexVectorDim(gather.attrs().getInt(AttrKey::kIndexVectorDim)),
      sliceDims(remainingDims(operandRank, collapsedSliceDims, operandBatching)) {}

// Where a scatter's update elements land in its operand, as the semantics
// define it: the update's dimensions split into scatter positions (one index
// vector each) and window offsets (update_window_dims); a window whose start
// leaves any part of it outside the operand is skipped whole. Both engines
// walk it, and so combine duplicate indices in the same order.
class ScatterGeometry {
 public:
  ScatterGeometry(const Instruction& scatter, const std::vector<int64_t>& operandDims,
                  const std::vector<int64_t>& updateDims, const IndexArray& indices)
      : indices_(indices), xDims_(operandDims) {
    const Attributes& a = scatter.attrs();
    windowDims_ = a.getInts(AttrKey::kUpdateWindowDims);
    toOperand_ = a.getInts(AttrKey::kScatterDimsToOperandDims);
    operandBatching_ = a.getInts(AttrKey::kInputBatchingDims);
    indicesBatching_ = a.getInts(AttrKey::kScatterIndicesBatchingDims);
    int64_t rank = static_cast<int64_t>(operandDims.size());
    windowOperandDims_ = remainingDims(rank, a.getInts(AttrKey::kInsertedWindowDims), operandBatching_);
    windowSizes_.resize(windowDims_.size());
    auto isWindow = [&](int64_t d) { return std::find(windowDims_.begin(), windowDims_.end(), d) != windowDims_.end(); };
    for (int64_t d = 0; d < static_cast<int64_t>(updateDims.size()); ++d)
      if (!isWindow(d)) {
        scatterUpdateDims_.push_back(d);
        scatterSizes_.push_back(updateDims[d]);
      }
    // The window's extent in each operand dimension (1 where inserted or batching).
    extent_.assign(rank, 1);
    for (size_t k = 0; k < windowDims_.size(); ++k) {
      windowSizes_[k] = updateDims[windowDims_[k]];
      extent_[windowOperandDims_[k]] = windowSizes_[k];
    }
    xStrides_ = rowMajorStrides(operandDims);
    uStrides_ = rowMajorStrides(updateDims);
  }

  // Calls land(updateOffset, operandOffset) (row-major element offsets) for
  // every update element that lands in the operand: scatter positions in
  // row-major order, each window's elements in row-major order. Stops when
  // land returns false; returns false then.
  template <class Land>
  bool forEachLanding(Land&& land) const {
    int64_t rank = static_cast<int64_t>(xDims_.size());
    int64_t positions = 1, windowCount = 1;
    for (int64_t s : scatterSizes_) positions *= s;
    for (int64_t s : windowSizes_) windowCount *= s;
    if (positions == 0 || windowCount == 0) return true;
    std::vector<int64_t> position(scatterSizes_.size(), 0), offset(windowSizes_.size(), 0), start(rank);
    for (int64_t p = 0; p < positions; ++p, advanceRowMajor(position, scatterSizes_)) {
      std::fill(start.begin(), start.end(), 0);
      for (size_t k = 0; k < toOperand_.size(); ++k) start[toOperand_[k]] = indices_.component(position, k);
      for (size_t i = 0; i < operandBatching_.size(); ++i)
        start[operandBatching_[i]] = position[indices_.batchPosition(indicesBatching_[i])];
      bool inside = true;
      for (int64_t d = 0; d < rank; ++d) inside = inside && start[d] >= 0 && start[d] <= xDims_[d] - extent_[d];
      if (!inside) continue;
      int64_t updateBase = 0, operandBase = linearIndex(xStrides_, start);
      for (size_t i = 0; i < scatterUpdateDims_.size(); ++i)
        updateBase += position[i] * uStrides_[scatterUpdateDims_[i]];
      std::fill(offset.begin(), offset.end(), 0);
      for (int64_t w = 0; w < windowCount; ++w, advanceRowMajor(offset, windowSizes_)) {
        int64_t from = updateBase, to = operandBase;
        for (size_t k = 0; k < offset.size(); ++k) {
          from += offset[k] * uStrides_[windowDims_[k]];
          to += offset[k] * xStrides_[windowOperandDims_[k]];
        }
        if (!land(from, to)) return false;
      }
    }
    return true;
  }

 private:
  const IndexArray& indices_;
  std::vector<int64_t> xDims_, windowDims_, toOperand_, operandBatching_, indicesBatching_;
  std::vector<int64_t> windowOperandDims_, scatterUpdateDims_, scatterSizes_, windowSizes_, extent_;
  std::vector<int64_t> xStrides_, uStrides_;
};

}  // namespace hlo
