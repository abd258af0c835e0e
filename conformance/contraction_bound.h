// How far a float dot or convolution may honestly stray from the reference.
//
// The interpreter sums a contraction's products in double and rounds once; an
// engine that sums K products in float, in whatever order its kernels choose,
// is off by at most K·u·Σ|a_i·b_i| (u the float's unit roundoff: the
// textbook bound on a float dot product, for any summation order). When the
// sum cancels, that is far more than a relative tolerance on the result
// allows, and which elements cross the line depends on the order a BLAS
// library picks for the CPU at hand. This file computes that bound, element
// by element, for the results that are a contraction's values moved around.
//
// Σ|a_i·b_i| comes from the module itself with each such contraction's
// operands replaced by their absolute values, run on the interpreter: the
// same arguments, the same data movement afterwards.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "conformance/compare.h"
#include "hlo/module.h"
#include "interp/evaluator.h"

namespace hlo::conformance {

// The result arrays (the root tuple's elements, or the root) whose values are
// a float dot's or convolution's moved around without arithmetic (copy,
// reshape, bitcast, transpose, broadcast, slice, pad, reverse, a convert
// between float types); for each, the contraction and its K.
struct ContractionSource {
  const Instruction* contraction = nullptr;  // null: not such an array
  int64_t terms = 0;                         // K, the products in each sum
};
std::vector<ContractionSource> contractionSources(const Module& module);

// Per result array, the extra absolute error each element may have:
// (K + 8)·u·Σ|a_i·b_i| (the 8 for a few ulps of error in the operands
// themselves), empty for arrays that are no contraction's values. nullopt when
// no result array is; an error when the interpreter cannot run the module.
StatusOr<std::optional<ElementAllowance>> contractionAllowance(const Module& module, std::span<const Literal> args,
                                                               const interp::Options& options);

// How two engines' results compare (`expected` the interpreter's of
// `module` on `args`): with the per-type tolerances, and where those fail,
// once more with the contraction allowance.
struct EngineComparison {
  Comparison plain;                 // the per-type tolerances alone
  bool agree = false;               // plain.equal, or byContractionBound
  bool byContractionBound = false;  // agrees only with the allowance
};
EngineComparison compareEngines(const Module& module, std::span<const Literal> args, const interp::Options& options,
                                const Literal& actual, const Literal& expected);

}  // namespace hlo::conformance
