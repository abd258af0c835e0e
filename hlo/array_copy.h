// Copying between arrays by strides: the one copy loop that the
// interpreter's data-movement ops (interp/data_movement.cc) are built on,
// and the window of dynamic-slice and dynamic-update-slice, which the CPU
// runtime also writes in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "hlo/literal.h"

namespace hlo {

// For every index r of `dims`: dst[dstOffset + r . dstStrides] =
// src[srcOffset + r . srcStrides], strides in elements (negative for a
// reverse, zero for a broadcast).
void copyStrided(const Literal& src, int64_t srcOffset, const std::vector<int64_t>& srcStrides, Literal& dst,
                 int64_t dstOffset, const std::vector<int64_t>& dstStrides, const std::vector<int64_t>& dims);

// The start indices of dynamic-slice and dynamic-update-slice: operands from
// `first` on, one integer scalar per dimension (or, in the old form, a single
// index vector). Each is clamped into [0, dims[d] - sizes[d]] so the window
// lies inside the operand, as XLA does.
std::vector<int64_t> clampedStarts(std::span<const Literal* const> ops, size_t first,
                                   const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes);

// Writes every element of `src` into `dst` at dst index = src index + origin.
void copyInto(const Literal& src, const std::vector<int64_t>& origin, Literal& dst);

}  // namespace hlo
