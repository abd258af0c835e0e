#include "hlo/array_copy.h"

#include <algorithm>

#include "hlo/element_io.h"
#include "hlo/indexing.h"

namespace hlo {
namespace {

// The one copy loop of the data-movement ops: for every index r of `dims`,
// dst[dstOffset + r . dstStrides] = src[srcOffset + r . srcStrides]. The
// innermost dimension runs as a plain loop of typed element copies, and the
// outer offsets advance incrementally (an odometer), so no per-element index
// arithmetic or byte-count dispatch remains. Strides may be negative
// (reverse) or zero (broadcast).
template <typename T>
void copyStridedAs(const T* src, int64_t srcOffset, const std::vector<int64_t>& srcStrides, T* dst,
                   int64_t dstOffset, const std::vector<int64_t>& dstStrides, const std::vector<int64_t>& dims) {
  int rank = static_cast<int>(dims.size());
  for (int64_t d : dims)
    if (d == 0) return;
  if (rank == 0) {
    dst[dstOffset] = src[srcOffset];
    return;
  }
  int64_t inner = dims[rank - 1], srcStep = srcStrides[rank - 1], dstStep = dstStrides[rank - 1];
  std::vector<int64_t> index(rank - 1, 0);
  int64_t from = srcOffset, to = dstOffset;
  while (true) {
    const T* s = src + from;
    T* o = dst + to;
    if (srcStep == 1 && dstStep == 1)
      std::copy(s, s + inner, o);
    else
      for (int64_t i = 0; i < inner; ++i) o[i * dstStep] = s[i * srcStep];
    int d = rank - 2;
    for (; d >= 0; --d) {
      from += srcStrides[d];
      to += dstStrides[d];
      if (++index[d] < dims[d]) break;
      from -= srcStrides[d] * dims[d];
      to -= dstStrides[d] * dims[d];
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

struct Bytes16 {
  uint64_t lo, hi;
};

}  // namespace

void copyStrided(const Literal& src, int64_t srcOffset, const std::vector<int64_t>& srcStrides, Literal& dst,
                 int64_t dstOffset, const std::vector<int64_t>& dstStrides, const std::vector<int64_t>& dims) {
  auto run = [&](auto tag) {
    using T = decltype(tag);
    copyStridedAs(reinterpret_cast<const T*>(src.untypedData()), srcOffset, srcStrides,
                  reinterpret_cast<T*>(dst.untypedData()), dstOffset, dstStrides, dims);
  };
  switch (storageBytes(src.type())) {
    case 1: return run(uint8_t{});
    case 2: return run(uint16_t{});
    case 4: return run(uint32_t{});
    case 8: return run(uint64_t{});
    case 16: return run(Bytes16{});
    default:  // no other storage sizes exist; kept correct regardless
      forEachIndex(dims, [&](const std::vector<int64_t>& r, int64_t) {
        copyElement(src, srcOffset + linearIndex(srcStrides, r), dst, dstOffset + linearIndex(dstStrides, r));
      });
  }
}

void copyInto(const Literal& src, const std::vector<int64_t>& origin, Literal& dst) {
  std::vector<int64_t> dstStrides = rowMajorStrides(dst.shape().dims());
  const std::vector<int64_t>& dims = src.shape().dims();
  copyStrided(src, 0, rowMajorStrides(dims), dst, linearIndex(dstStrides, origin), dstStrides, dims);
}

std::vector<int64_t> clampedStarts(std::span<const Literal* const> ops, size_t first, const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& sizes) {
  std::vector<int64_t> starts(dims.size(), 0);
  bool vectorForm = ops.size() == first + 1 && ops[first]->shape().rank() == 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t value = vectorForm ? integerAt(*ops[first], d) : integerAt(*ops[first + d], 0);
    const int64_t high = dims[d] - sizes[d];
    starts[d] = value < 0 ? 0 : std::min(value, high);
  }
  return starts;
}

}  // namespace hlo
