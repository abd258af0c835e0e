#include "hlo/fold_order.h"

#include <algorithm>
#include <numeric>

#include "hlo/indexing.h"
#include "hlo/instruction.h"

namespace hlo {

StatusOr<FoldOrder> FoldOrder::forReduce(const Instruction& instr, const std::vector<int64_t>& inDims,
                                         const std::vector<int64_t>& outDims) {
  if (inDims.size() > kMaxRank) return errorStatus("rank above " + std::to_string(kMaxRank));
  FoldOrder order;
  order.inDims_ = inDims;
  order.inStrides_ = rowMajorStrides(inDims);
  std::vector<bool> reduced(inDims.size(), false);
  for (int64_t d : instr.attrs().getInts(AttrKey::kDimensions)) {
    if (d < 0 || d >= static_cast<int64_t>(inDims.size()) || reduced[d])
      return errorStatus("dimensions must be distinct dimensions of the input");
    reduced[d] = true;
  }
  std::vector<int64_t> keptDims;
  for (size_t d = 0; d < inDims.size(); ++d) {
    if (reduced[d]) {
      order.reducedDims_.push_back(inDims[d]);
      order.reducedStrides_.push_back(order.inStrides_[d]);
    } else {
      keptDims.push_back(inDims[d]);
      order.keptStrides_.push_back(order.inStrides_[d]);
    }
  }
  if (keptDims != outDims) return errorStatus("result shape does not match the kept dimensions");
  return order;
}

StatusOr<FoldOrder> FoldOrder::forReduceWindow(const Instruction& instr, const std::vector<int64_t>& inDims,
                                               const std::vector<int64_t>& outDims) {
  if (inDims.size() > kMaxRank) return errorStatus("rank above " + std::to_string(kMaxRank));
  FoldOrder order;
  order.window_ = true;
  order.inDims_ = inDims;
  order.inStrides_ = rowMajorStrides(inDims);
  HLO_ASSIGN_OR_RETURN(order.windowDims_, windowOf(instr, inDims.size()));
  if (outDims.size() != inDims.size()) return errorStatus("result rank differs from the operand's");
  return order;
}

StatusOr<std::vector<WindowDim>> FoldOrder::windowOf(const Instruction& instr, size_t rank) {
  std::vector<WindowDim> window;
  if (const AttrValue* w = instr.attrs().find(AttrKey::kWindow)) window = w->window;
  if (window.empty()) window.resize(rank);  // a scalar operand has an empty window
  if (window.size() != rank) return errorStatus("window rank differs from the operand's");
  for (const WindowDim& wd : window)
    if (wd.size < 0 || wd.stride < 1 || wd.baseDilation < 1 || wd.windowDilation < 1)
      return errorStatus("window sizes, strides and dilations must be positive");
  return window;
}

int64_t FoldOrder::box(const std::vector<int64_t>& out, Scratch& scratch) const {
  if (!window_) {
    scratch.dims = reducedDims_;
    scratch.strides = reducedStrides_;
    int64_t base = 0;
    for (size_t j = 0; j < out.size(); ++j) base += out[j] * keptStrides_[j];
    return base;
  }
  // The window positions w that land on an input element form a box: per
  // dimension, pos = o*stride + w*dilation - padLow must be >= 0, a multiple
  // of the base dilation, and below size * base dilation; those w step evenly
  // from the first one. Walked row-major, as a walk over the whole window
  // that skips the rest would.
  size_t rank = inDims_.size();
  scratch.dims.resize(rank);
  scratch.strides.resize(rank);
  int64_t base = 0;
  for (size_t d = 0; d < rank; ++d) {
    const WindowDim& wd = windowDims_[d];
    int64_t start = out[d] * wd.stride - wd.padLow, step = wd.windowDilation, b = wd.baseDilation;
    int64_t first = start >= 0 ? 0 : (-start + step - 1) / step;
    int64_t k = 0;
    while (k < b && first + k < wd.size && (start + (first + k) * step) % b != 0) ++k;
    first += k;
    int64_t room = (inDims_[d] - 1) * b - start;  // pos <= room + start
    int64_t last = room < 0 ? -1 : std::min(wd.size - 1, room / step);
    int64_t every = b / std::gcd(step, b);
    scratch.dims[d] = k == b || first > last ? 0 : (last - first) / every + 1;
    scratch.strides[d] = every * step / b * inStrides_[d];
    base += (start + first * step) / b * inStrides_[d];
  }
  return base;
}

}  // namespace hlo
