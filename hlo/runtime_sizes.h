// Runtime sizes: which sizes an op's result takes when its operands have
// dimensions with runtime sizes (`<=` bounds, set by set-dimension-size or
// dynamic-reshape), as XLA's dynamic dimension inference and dynamic padder
// define them.
//
// This is the shape half of the model; interp/dynamic.cc states the model
// and runs the data on it, and jit/specialize_sizes.cc rewrites a module
// whose runtime sizes are known into a static one with it. One rule per op
// family, shared by both engines, so they cannot drift apart.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hlo/attributes.h"
#include "hlo/instruction.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

// One array value's dimensions: its bounds (the declared sizes), its runtime
// sizes (each at most the bound) and which dimensions are dynamic (carry a
// runtime size; a static one's size is its bound).
struct RuntimeDims {
  std::vector<int64_t> bounds;
  std::vector<int64_t> sizes;
  std::vector<bool> dynamic;

  static RuntimeDims atBounds(const std::vector<int64_t>& bounds);  // every dimension static
  static RuntimeDims of(const Literal& array);                      // the value's own
  int rank() const { return static_cast<int>(bounds.size()); }
  bool anyDynamic() const;
  bool padded() const;  // some runtime size below its bound
  bool operator==(const RuntimeDims&) const = default;
};

// How an op computes on operands with runtime sizes: each array operand's
// value (the elements within its runtime sizes) is fit to `fit[i]` (a longer
// dimension cut to its leading elements, a dimension of size 1 repeated),
// the op runs as a static op with attributes `attrs` on those values, and
// its result (each array of a tuple result) has the runtime sizes
// `result.sizes` within its declared bounds, dynamic where `result.dynamic`
// says.
struct RuntimeRule {
  std::vector<std::optional<std::vector<int64_t>>> fit;  // per operand; nullopt: its value as it is
  RuntimeDims result;
  Attributes attrs;
};

// The rule for `instr` given its operands' dimensions (nullptr for an operand
// that is not an array). nullopt when the op has none: it may then run only
// on values at their bounds. An error, whose message says why without a
// location (the engine words its refusal), when the operands' runtime sizes
// cannot be run. Rules that depend on data are the engine's: dynamic-slice
// and dynamic-update-slice read only valid elements only if their start
// indices say so.
//
// Not for ops that pass values on whole (parameter, tuple, while, call, ...,
// takesRuntimeRule says which) nor for the three ops below.
StatusOr<std::optional<RuntimeRule>> runtimeRule(const Instruction& instr,
                                                 std::span<const RuntimeDims* const> operands);

// Whether `op` computes through runtimeRule (false for the ops that pass
// values on whole and for the dynamic-size ops themselves).
bool takesRuntimeRule(Opcode op);

// dynamic-slice and dynamic-update-slice read (write) only valid elements
// of a dynamic dimension of `x` that their window does not span whole if
// their start indices say so: data, which the engine reads. Whether
// `instr` needs its start indices checked; the operand number of its first
// one (operands from there on hold the start indices, in dimension order);
// and the check itself on their values as written (clamped against the
// bounds, as XLA clamps them). The error says why, without a location.
bool windowNeedsStartIndices(const Instruction& instr, const RuntimeDims& x);
int firstStartIndexOperand(const Instruction& instr);
Status checkWindowInRuntimeSizes(const Instruction& instr, const RuntimeDims& x, const std::vector<int64_t>& starts);

// set-dimension-size of `x` to `size`: dimension `dim` takes the size, which
// must be within [0, bound]; it is dynamic unless the size is a constant
// equal to the bound (`sizeIsConstant`), as XLA keeps it static then.
StatusOr<RuntimeDims> setDimensionSizeRule(const Instruction& instr, const RuntimeDims& x, int64_t size,
                                           bool sizeIsConstant);

// get-dimension-size of `x`, whose instruction declares `operandShape`: a
// dynamic dimension's runtime size, the declared size of one the declared
// shape calls static.
int64_t getDimensionSizeRule(const Instruction& instr, const Shape& operandShape, const RuntimeDims& x);

// dynamic-reshape of `x` to `sizes` (one per result dimension): each within
// its bound and a static dimension's equal to it, holding exactly x's valid
// elements.
StatusOr<RuntimeDims> dynamicReshapeRule(const Instruction& instr, const RuntimeDims& x,
                                         const std::vector<int64_t>& sizes);

// "[2,3]".
std::string dimsText(const std::vector<int64_t>& dims);

}  // namespace hlo
