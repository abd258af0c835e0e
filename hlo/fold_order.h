// Which input elements fold into each output element of a reduce or a
// reduce-window, and in which order: row-major over the reduced dimensions
// (reduce) or over the window (reduce-window), skipping padding and the
// holes of base dilation, as XLA's evaluator and CPU backend do — they never
// feed the init value in for them. The interpreter and the CPU runtime both
// fold in this order, so a reducer that is not associative gives the same
// answer on both.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hlo/attributes.h"
#include "hlo/status.h"

namespace hlo {

class Instruction;

class FoldOrder {
 public:
  // `inDims`: the dimensions of the inputs; `outDims`: those of each result.
  // Errors (plain messages) for dimensions that do not fit the instruction.
  static StatusOr<FoldOrder> forReduce(const Instruction& instr, const std::vector<int64_t>& inDims,
                                       const std::vector<int64_t>& outDims);
  static StatusOr<FoldOrder> forReduceWindow(const Instruction& instr, const std::vector<int64_t>& inDims,
                                             const std::vector<int64_t>& outDims);

  // The window attribute of a reduce-window or select-and-scatter over an
  // input of rank `rank`, checked.
  static StatusOr<std::vector<WindowDim>> windowOf(const Instruction& instr, size_t rank);

  // Room for forEachInput to work in; one per thread.
  struct Scratch {
    std::vector<int64_t> dims, strides;
  };

  // Calls visit(offset) with the row-major offset in the input of every
  // element that folds into output element `out`, in folding order.
  template <typename Visit>
  void forEachInput(const std::vector<int64_t>& out, Scratch& scratch, Visit&& visit) const {
    int64_t base = box(out, scratch);
    forEachOffset(scratch.dims, scratch.strides, base, visit);
  }

 private:
  // The positions that fold into `out` form a box: scratch.dims elements
  // along each dimension, scratch.strides apart; returns the first offset.
  int64_t box(const std::vector<int64_t>& out, Scratch& scratch) const;

  // Calls visit(offset) for every element of the box `dims` (row-major)
  // whose positions advance the offset by `strides`, starting from `base`.
  template <typename Visit>
  static void forEachOffset(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides, int64_t base,
                            Visit&& visit) {
    for (int64_t d : dims)
      if (d == 0) return;
    std::vector<int64_t>::size_type rank = dims.size();
    int64_t index[kMaxRank] = {};
    int64_t offset = base;
    while (true) {
      visit(offset);
      int d = static_cast<int>(rank) - 1;
      for (; d >= 0; --d) {
        if (++index[d] < dims[d]) {
          offset += strides[d];
          break;
        }
        offset -= (dims[d] - 1) * strides[d];
        index[d] = 0;
      }
      if (d < 0) return;
    }
  }

  static constexpr int kMaxRank = 64;
  bool window_ = false;
  std::vector<int64_t> inDims_, inStrides_;
  // reduce: where each kept dimension is in the input, and the reduced box.
  std::vector<int64_t> keptStrides_, reducedDims_, reducedStrides_;
  // reduce-window: the window, one entry per dimension.
  std::vector<WindowDim> windowDims_;
};

}  // namespace hlo
