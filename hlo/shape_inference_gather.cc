// Shape inference for gather and scatter, whose dimension numbers take the
// most checking of any HLO operation.
#include <algorithm>

#include "hlo/shape_inference_internal.h"

namespace hlo::inference {
namespace {

bool sortedUnique(const std::vector<int64_t>& v) {
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i - 1] >= v[i]) return false;
  return true;
}

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Sorted, distinct, each in [0, bound).
Status checkDimSet(const Ctx& c, const char* name, const std::vector<int64_t>& v, int64_t bound,
                   bool mustBeSorted) {
  bool ok = validDimList(v, bound) && (!mustBeSorted || sortedUnique(v));
  if (ok) return okStatus();
  return c.error(std::string(name) + "=" + str(v) + " must be " +
                 (mustBeSorted ? "sorted, " : "") + "distinct and in [0, " +
                 std::to_string(bound) + ")");
}

// The indices operand's dimensions, with a trailing 1 when index_vector_dim
// equals its rank (an implicit index vector of length one).
struct Indices {
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  int64_t vectorDim = 0;
};

StatusOr<Indices> expandIndices(const Ctx& c, const Shape& indices) {
  if (!indices.isArray() || !isInteger(indices.type()))
    return c.error("indices must be an integer array, got " + str(indices));
  Indices out{indices.dims(), indices.dynamicDims(), c.attrs().getInt(AttrKey::kIndexVectorDim, 0)};
  if (out.vectorDim < 0 || out.vectorDim > indices.rank())
    return c.error("index_vector_dim=" + std::to_string(out.vectorDim) +
                   " is out of range for indices " + str(indices));
  if (out.vectorDim == indices.rank()) {
    out.dims.push_back(1);
    out.dynamic.push_back(false);
  }
  return out;
}

}  // namespace

StatusOr<Shape> inferGather(const Ctx& c) {
  const Shape& x = c.operand(0);
  if (!x.isArray()) return c.error("operand must be an array, got " + str(x));
  HLO_ASSIGN_OR_RETURN(Indices idx, expandIndices(c, c.operand(1)));
  const Attributes& a = c.attrs();
  const auto& offsetDims = a.getInts(AttrKey::kOffsetDims);
  const auto& collapsed = a.getInts(AttrKey::kCollapsedSliceDims);
  const auto& startIndexMap = a.getInts(AttrKey::kStartIndexMap);
  const auto& batching = a.getInts(AttrKey::kOperandBatchingDims);
  const auto& indicesBatching = a.getInts(AttrKey::kStartIndicesBatchingDims);
  const auto& sliceSizes = a.getInts(AttrKey::kSliceSizes);
  int64_t rank = x.rank();
  int64_t batchRank = static_cast<int64_t>(idx.dims.size()) - 1;
  int64_t outRank = static_cast<int64_t>(offsetDims.size()) + batchRank;

  HLO_RETURN_IF_ERROR(checkDimSet(c, "offset_dims", offsetDims, outRank, true));
  HLO_RETURN_IF_ERROR(checkDimSet(c, "collapsed_slice_dims", collapsed, rank, true));
  HLO_RETURN_IF_ERROR(checkDimSet(c, "start_index_map", startIndexMap, rank, false));
  HLO_RETURN_IF_ERROR(checkDimSet(c, "operand_batching_dims", batching, rank, true));
  HLO_RETURN_IF_ERROR(checkDimSet(c, "start_indices_batching_dims", indicesBatching,
                                  static_cast<int64_t>(idx.dims.size()), false));
  int64_t vectorSize = idx.dims[idx.vectorDim];
  if (vectorSize != Shape::kUnboundedDim &&
      static_cast<int64_t>(startIndexMap.size()) != vectorSize)
    return c.error("start_index_map has " + std::to_string(startIndexMap.size()) +
                   " entries but the index vector has " + std::to_string(vectorSize));
  if (batching.size() != indicesBatching.size())
    return c.error("operand_batching_dims and start_indices_batching_dims differ in length");
  if (static_cast<int64_t>(sliceSizes.size()) != rank ||
      offsetDims.size() + collapsed.size() + batching.size() != sliceSizes.size())
    return c.error("slice_sizes=" + str(sliceSizes) +
                   " must have one entry per operand dimension, each an offset, collapsed or "
                   "batching dimension");
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = x.dim(static_cast<int>(i));
    if (dim != Shape::kUnboundedDim && (sliceSizes[i] < 0 || sliceSizes[i] > dim))
      return c.error("slice size " + std::to_string(sliceSizes[i]) + " is out of range for " +
                     str(x));
    if ((contains(collapsed, i) || contains(batching, i)) && sliceSizes[i] > 1)
      return c.error("collapsed or batching dimension " + std::to_string(i) +
                     " must have slice size 0 or 1");
  }

  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  int64_t offsetSeen = 0, batchSeen = 0;
  for (int64_t i = 0; i < outRank; ++i) {
    if (contains(offsetDims, i)) {
      while (contains(collapsed, offsetSeen) || contains(batching, offsetSeen)) ++offsetSeen;
      int d = static_cast<int>(offsetSeen++);
      dims.push_back(sliceSizes[d]);
      dynamic.push_back(sliceSizes[d] == x.dim(d) && x.isDynamicDim(d));
      continue;
    }
    if (batchSeen == idx.vectorDim) ++batchSeen;
    dims.push_back(idx.dims[batchSeen]);
    dynamic.push_back(idx.dynamic[batchSeen]);
    ++batchSeen;
  }
  return makeArray(x.type(), dims, dynamic);
}

StatusOr<Shape> inferScatter(const Ctx& c) {
  int n = c.operandCount() / 2;
  if (n < 1 || c.operandCount() != 2 * n + 1)
    return c.error("expected operands, indices and as many updates as operands, got " +
                   std::to_string(c.operandCount()) + " operands");
  HLO_ASSIGN_OR_RETURN(Indices idx, expandIndices(c, c.operand(n)));
  const Attributes& a = c.attrs();
  const auto& windowDims = a.getInts(AttrKey::kUpdateWindowDims);
  const auto& inserted = a.getInts(AttrKey::kInsertedWindowDims);
  const auto& toOperand = a.getInts(AttrKey::kScatterDimsToOperandDims);
  const auto& batching = a.getInts(AttrKey::kInputBatchingDims);
  const auto& indicesBatching = a.getInts(AttrKey::kScatterIndicesBatchingDims);
  std::vector<ElementType> updateTypes;
  std::vector<Shape> initShapes;
  std::vector<Shape> results;
  for (int k = 0; k < n; ++k) {
    const Shape& x = c.operand(k);
    const Shape& update = c.operand(n + 1 + k);
    if (!x.isArray() || !update.isArray())
      return c.error("operands and updates must be arrays, got " + str(x) + " and " +
                     str(update));
    int64_t rank = x.rank();
    int64_t expectedRank = static_cast<int64_t>(idx.dims.size()) - 1 + windowDims.size();
    if (update.rank() != expectedRank)
      return c.error("update " + str(update) + " must have rank " + std::to_string(expectedRank));
    HLO_RETURN_IF_ERROR(checkDimSet(c, "update_window_dims", windowDims, update.rank(), true));
    HLO_RETURN_IF_ERROR(checkDimSet(c, "inserted_window_dims", inserted, rank, true));
    HLO_RETURN_IF_ERROR(checkDimSet(c, "scatter_dims_to_operand_dims", toOperand, rank, false));
    HLO_RETURN_IF_ERROR(checkDimSet(c, "input_batching_dims", batching, rank, true));
    HLO_RETURN_IF_ERROR(checkDimSet(c, "scatter_indices_batching_dims", indicesBatching,
                                    static_cast<int64_t>(idx.dims.size()), false));
    if (static_cast<int64_t>(windowDims.size() + inserted.size() + batching.size()) != rank)
      return c.error("update_window_dims, inserted_window_dims and input_batching_dims must "
                     "cover the " + std::to_string(rank) + " dimensions of " + str(x));
    if (!compatibleDim(static_cast<int64_t>(toOperand.size()), idx.dims[idx.vectorDim]))
      return c.error("scatter_dims_to_operand_dims has " + std::to_string(toOperand.size()) +
                     " entries but the index vector has " +
                     std::to_string(idx.dims[idx.vectorDim]));
    if (batching.size() != indicesBatching.size())
      return c.error("input_batching_dims and scatter_indices_batching_dims differ in length");
    // Window dimensions of the update are bounded by the operand dimensions
    // that are neither inserted nor batching.
    std::vector<int64_t> windowBounds;
    for (int64_t d = 0; d < rank; ++d)
      if (!contains(inserted, d) && !contains(batching, d))
        windowBounds.push_back(x.dim(static_cast<int>(d)));
    for (size_t i = 0; i < windowDims.size(); ++i) {
      int64_t size = update.dim(static_cast<int>(windowDims[i]));
      if (windowBounds[i] != Shape::kUnboundedDim && size > windowBounds[i])
        return c.error("update window dimension " + std::to_string(windowDims[i]) + " of " +
                       str(update) + " exceeds the operand " + str(x));
    }
    int64_t seen = 0;
    for (int i = 0; i < update.rank(); ++i) {
      if (contains(windowDims, i)) continue;
      if (seen == idx.vectorDim) ++seen;
      if (!compatibleDim(update.dim(i), idx.dims[seen]))
        return c.error("update scatter dimension " + std::to_string(i) + " of " + str(update) +
                       " does not match the indices");
      ++seen;
    }
    updateTypes.push_back(update.type());
    initShapes.push_back(Shape::scalar(x.type()));
    results.push_back(x);
  }
  std::vector<const Shape*> inits;
  for (const Shape& s : initShapes) inits.push_back(&s);
  HLO_RETURN_IF_ERROR(checkReducer(c, c.attrs().getComputation(AttrKey::kToApply), updateTypes,
                                   inits));
  if (n == 1) return results[0];
  return Shape::tuple(std::move(results));
}

}  // namespace hlo::inference
