// Runtime sizes in compiled code: a module whose dimensions take runtime
// sizes (set-dimension-size, dynamic-reshape, arguments with runtime sizes)
// is rewritten, for sizes known before it runs, into a static module that
// computes on exactly the valid elements.
//
// Compiled code runs every array at its declared shape. The interpreter
// runs runtime sizes by the rules of hlo/runtime_sizes.h: an op computes
// on its operands' valid elements and stores its result at the bounds,
// zero past its runtime sizes. Once every runtime size is known, the same
// rules give each instruction the static shape of its valid elements:
//
// - set-dimension-size becomes a slice to the size, dynamic-reshape a
//   reshape, get-dimension-size a constant;
// - every other op takes its rule's result sizes (and attributes), and an
//   operand the rule fits to other sizes gets a slice or broadcast;
// - an entry argument with runtime sizes is sliced to them;
// - the entry's result is padded back to its declared bounds with zeros,
//   and its runtime sizes are returned for the caller to mark on the value.
//
// Sizes are known when they are constants, when they are computed from
// constants and other known sizes, or when they come from entry parameters
// whose values the caller binds (jit/compile.cc compiles one specialization
// per distinct binding). What a while, conditional, call or fusion given
// runtime sizes calls is specialized, as a copy, for them. A size computed
// from array data, a loop that changes its state's sizes, and branches
// returning different sizes cannot be specialized: compile errors.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "hlo/module.h"
#include "hlo/runtime_sizes.h"
#include "hlo/status.h"

namespace hlo::jit {

// The runtime sizes of a value: an array's, or a tuple's elements'.
struct ValueSizes {
  RuntimeDims array;                 // an array's (empty for a tuple or token)
  std::vector<ValueSizes> elements;  // a tuple's
  bool tuple = false;
  // What an array's storage holds past its runtime sizes, which a
  // set-dimension-size growing a size exposes: the value at the bounds of
  // `storage` (the value is its leading part: a static array whose size
  // was set, an argument given runtime sizes), else zeros (a computed
  // result) unless `storageUnknown` (a value passed into a called
  // computation).
  Instruction* storage = nullptr;
  bool storageUnknown = false;

  static ValueSizes atBounds(const Shape& shape);
  bool anyDynamic() const;
  bool sameSizes(const ValueSizes& other) const;  // runtime sizes and dynamic dimensions, storage aside
};

// What a run binds before its specialization compiles: the values of the
// entry parameters that set sizes (sizeParameters) and the runtime sizes of
// the array arguments (nullopt: static at its bounds).
struct SizeBindings {
  std::map<int64_t, int64_t> parameterValues;  // parameter number -> value
  std::vector<std::optional<RuntimeDims>> argumentDims;
  std::vector<int64_t> key() const;  // equal for equal bindings
};

// Whether `module` must be specialized before it compiles: it has a
// set-dimension-size or dynamic-reshape whose sizes are not constants equal
// to the bounds, or an entry parameter with `<=` dimensions (its argument
// may come with runtime sizes).
bool needsSizeSpecialization(const Module& module);

// The numbers of the entry's scalar integer parameters that sizes are
// computed from.
std::vector<int64_t> sizeParameters(const Module& module);

// Rewrites `module` (verified) in place into a static module for `bindings`
// and returns the runtime sizes of its entry result (the module's result
// stays at its declared bounds). An error, at the instruction, when a size
// is out of range, cannot be known, or flows where it cannot be modelled.
StatusOr<ValueSizes> specializeSizes(Module& module, const SizeBindings& bindings);

// Marks `sizes` on `result` (a value of the specialized module): its shape
// becomes `declared` (with its `<=` marks) and each dynamic dimension gets
// its runtime size.
void markRuntimeSizes(Literal& result, const Shape& declared, const ValueSizes& sizes);

}  // namespace hlo::jit
