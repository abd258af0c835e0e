// The pieces of the data-movement ops (interp/data_movement.cc) that the CPU
// runtime shares: a dynamic-update-slice it runs in place finds its window
// and writes it as the interpreter does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hlo/literal.h"
#include "interp/context.h"

namespace hlo::interp {

// The start indices of dynamic-slice and dynamic-update-slice: operands from
// `first` on, one integer scalar per dimension (or, in the old form, a single
// index vector). Each is clamped into [0, dims[d] - sizes[d]] so the window
// lies inside the operand, as XLA does.
std::vector<int64_t> clampedStarts(Operands ops, size_t first, const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& sizes);

// Writes every element of `src` into `dst` at dst index = src index + origin.
void copyInto(const Literal& src, const std::vector<int64_t>& origin, Literal& dst);

}  // namespace hlo::interp
