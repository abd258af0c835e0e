// Seeded pseudo-random argument values, the same on every run and machine.
//
// hlo-run fills the parameters it was given no --input for from these, and
// the corpus run (conformance/hlo-interp-corpus.cc) feeds them to every
// module, so a failure seen in one reproduces with the other:
//   hlo-run --random-seed=N file.hlo
//
// Values are chosen to keep sums, products and reductions finite:
//   floats (all widths)  uniform in [-1, 1), rounded to the type (to nearest
//                        even); f8e8m0fnu, which has no zero nor negatives,
//                        uniform in [0.5, 2) (so 0.5, 1 or 2)
//   complex              real and imaginary parts each as a float
//   signed integers      uniform in [-8, 8], clipped to the type (s2: [-2, 1],
//                        s4: [-8, 7])
//   unsigned integers    uniform in [0, 8] (u2: [0, 3])
//   pred                 true or false with equal odds
//   tuples               element by element; tokens are tokens
//   dynamic sizes        an integer scalar parameter that is directly the
//                        size operand of set-dimension-size: uniform in
//                        [0, bound] (the smallest bound it sizes), since a
//                        size outside it has no meaning; else one that is
//                        directly a size operand of dynamic-reshape: that
//                        result dimension's bound (the size that fits an
//                        operand at its bounds)
// Bits come from splitmix64 (public domain, Steele, Lea & Flood 2014), never
// from <random>'s distributions, whose output the standard leaves to each
// library. Parameter p's values depend only on (seed, p), its shape and
// whether it is a dynamic size, so giving another parameter by hand does not
// change them.
#pragma once

#include <cstdint>
#include <vector>

#include "hlo/computation.h"
#include "hlo/literal.h"

namespace hlo::interp {

// One splitmix64 step: advances `state` and returns the next 64 random bits.
uint64_t splitMix64(uint64_t& state);

// A value of `shape` drawn from the stream (seed, stream).
Literal randomLiteral(const Shape& shape, uint64_t seed, uint64_t stream);

// bf16 (bits) nearest-even of a double in (-1, 1) that is 0 or at least
// 2^-52 in magnitude; exposed for its test against encodeSmallFloat.
uint16_t bf16FromUnitDouble(double v);

// The value of parameter `param` (number p) from the stream (seed, p):
// randomLiteral, or a dynamic size as above.
Literal randomArgument(const Instruction& param, uint64_t seed);

// One value per parameter of `computation`: parameter p from stream p.
std::vector<Literal> randomArguments(const Computation& computation, uint64_t seed);

}  // namespace hlo::interp
