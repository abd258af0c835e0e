// Index arithmetic over row-major arrays, shared by the interpreter's ops
// and the CPU backend's library ops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "hlo/literal.h"

namespace hlo {

// strides[i] = product of dims[i+1..]; the linear index of `index` is
// sum(index[i] * strides[i]).
inline std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return strides;
}

inline int64_t linearIndex(const std::vector<int64_t>& strides, const std::vector<int64_t>& index) {
  int64_t linear = 0;
  for (size_t i = 0; i < index.size(); ++i) linear += index[i] * strides[i];
  return linear;
}

// Whether v is 0, 1, 2, ...: dimension numbers that keep every dimension
// in place (an identity permutation, a broadcast or reshape that adds
// nothing before it).
inline bool isIota(const std::vector<int64_t>& v) {
  for (size_t k = 0; k < v.size(); ++k)
    if (v[k] != static_cast<int64_t>(k)) return false;
  return true;
}

// A reshape's dimensions in groups: runs of operand dimensions [inBegin,
// inEnd) and result dimensions [outBegin, outEnd) with equal products of
// sizes, as short as possible, and none without dimensions on either side
// (a size-1 dimension joins its neighbour) unless one side has none at all.
// Row-major order is kept within each group, so an element's index in one
// group's dimensions determines its index in the other's.
struct ReshapeGroup {
  size_t inBegin, inEnd, outBegin, outEnd;
};

inline std::vector<ReshapeGroup> reshapeGroups(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<ReshapeGroup> groups;
  size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    ReshapeGroup g{i, i, j, j};
    int64_t a = 1, b = 1;
    // Take at least one dimension from each side that has any left, then
    // more from the smaller product until the products meet.
    if (i < in.size()) a *= in[i++];
    if (j < out.size()) b *= out[j++];
    while (a != b && (i < in.size() || j < out.size())) {
      if ((a < b && i < in.size()) || j == out.size()) a *= in[i++];
      else b *= out[j++];
    }
    g.inEnd = i;
    g.outEnd = j;
    groups.push_back(g);
  }
  // A group empty on one side (trailing size-1 dimensions) joins the one before.
  for (size_t k = groups.size(); k-- > 1;) {
    ReshapeGroup& g = groups[k];
    if (g.inBegin == g.inEnd || g.outBegin == g.outEnd) {
      groups[k - 1].inEnd = g.inEnd;
      groups[k - 1].outEnd = g.outEnd;
      groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  return groups;
}

// The row-major index of element `linear` of an array of `dims`.
inline std::vector<int64_t> unravelRowMajor(int64_t linear, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = dims[d] == 0 ? 0 : linear % dims[d];
    linear = dims[d] == 0 ? 0 : linear / dims[d];
  }
  return index;
}

// Advances a row-major odometer over `dims`; returns the first dimension
// that changed (dims.size() when it wrapped around completely).
inline size_t advanceRowMajor(std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  for (size_t d = dims.size(); d-- > 0;) {
    if (++index[d] < dims[d]) return d;
    index[d] = 0;
  }
  return dims.size();
}

// Calls f(index, linear) for every index of `dims` in row-major order.
template <typename F>
void forEachIndex(const std::vector<int64_t>& dims, F&& f) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return;
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    f(static_cast<const std::vector<int64_t>&>(index), linear);
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

// Calls f(index, offset) for every element of an array of `dims`, visiting
// them in row-major order of the permuted dimensions dims[perm[0]],
// dims[perm[1]], ...; `index` is in the original dimension order and
// `offset` is the element's position, the sum of index[d] * strides[d].
template <typename F>
void forEachPermuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                     const std::vector<int64_t>& perm, F&& f) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  if (count == 0) return;
  std::vector<int64_t> index(dims.size(), 0);
  int64_t offset = 0;
  for (int64_t n = 0; n < count; ++n) {
    f(static_cast<const std::vector<int64_t>&>(index), offset);
    for (int d = static_cast<int>(perm.size()) - 1; d >= 0; --d) {
      int64_t p = perm[d];
      if (++index[p] < dims[p]) {
        offset += strides[p];
        break;
      }
      offset -= (dims[p] - 1) * strides[p];
      index[p] = 0;
    }
  }
}

// The same with `offset` the element's row-major position in the array.
template <typename F>
void forEachPermuted(const std::vector<int64_t>& dims, const std::vector<int64_t>& perm, F&& f) {
  forEachPermuted(dims, rowMajorStrides(dims), perm, std::forward<F>(f));
}

// Copies element `from` of `src` to element `to` of `dst` (same element type).
inline void copyElement(const Literal& src, int64_t from, Literal& dst, int64_t to) {
  int n = storageBytes(src.type());
  std::memcpy(dst.untypedData() + to * n, src.untypedData() + from * n, n);
}

}  // namespace hlo
