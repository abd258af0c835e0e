// The index arrays of gather and scatter, read as the semantics define them
// (shared by the interpreter and the CPU backend's library ops): every
// dimension other than index_vector_dim is a "batch" position holding one
// index vector; an index_vector_dim equal to the rank is an implicit
// trailing dimension of size 1.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hlo/element_io.h"
#include "hlo/indexing.h"
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

}  // namespace hlo
