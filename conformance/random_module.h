// Random HLO modules for differential testing (hlo-fuzz --generator=chains): a seed gives
// one small module of one element type: a few parameters of one shape, then
// a chain of elementwise unary and binary ops, comparisons feeding selects,
// clamps, round trips through another type, slices put back together in
// another order, reverses, transposes of square arrays, reductions along
// the last dimension broadcast back, products with a square parameter,
// convolutions along the middle dimension, dynamic slices and updates at
// a start index that is a parameter, gathers and scatter-adds of rows at
// row indices that are a parameter, while loops of 0 to 4 iterations,
// conditionals (by branch index and by predicate), pads undone by strided
// slices, stable sorts of rows with their positions, and sliding-window
// maxima and sums, in the shapes where vectorized
// loops, row loops, remainders, single elements and no elements all occur; the result
// is a tuple of the last few values (and of the float products and
// convolutions). Every module is valid HLO; the same seed gives the same
// text on every machine.
#pragma once

#include <cstdint>
#include <string>

namespace hlo::conformance {

std::string randomModule(uint64_t seed);

}  // namespace hlo::conformance
