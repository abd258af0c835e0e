// Data movement in the generator: values keep their exactness, since no
// element is computed.
#include <algorithm>
#include <functional>
#include <numeric>

#include "conformance/fuzz_ops.h"

namespace hlo::conformance::fuzz {
namespace {

// A value of any type with dimensions the generator has; of rank at least
// `minRank`, or nullopt.
std::optional<Value> someValue(Builder& b, size_t minRank = 0) {
  const Dims dims = b.someDims();
  if (dims.size() < minRank) return std::nullopt;
  return b.need(b.oneIn(2) ? b.mainType() : b.pickOf(b.types()), dims);
}

std::vector<int64_t> iotaList(size_t n, int64_t from = 0) {
  std::vector<int64_t> items(n);
  std::iota(items.begin(), items.end(), from);
  return items;
}

}  // namespace

bool writeBroadcast(Builder& b) {
  auto x = someValue(b);
  if (!x || x->dims.size() >= 4) return false;
  const size_t at = b.pick(x->dims.size() + 1);
  Dims dims = x->dims;
  dims.insert(dims.begin() + at, 1 + static_cast<int64_t>(b.pick(3)));
  std::vector<int64_t> mapping;
  for (size_t d = 0; d < dims.size(); ++d)
    if (d != at) mapping.push_back(static_cast<int64_t>(d));
  if (elementCount(dims) > 4096) return false;
  b.define(x->type, dims, "broadcast(" + x->name + "), dimensions=" + listText(mapping), x->exact, {&*x});
  return true;
}

// To one dimension, from one into two (a divisor), or a 1 inserted. A
// bitcast only flattens: with the default layouts that reinterprets
// nothing.
bool writeReshape(Builder& b, bool asBitcast) {
  auto x = someValue(b);
  if (!x) return false;
  Dims dims;
  const int64_t n = elementCount(x->dims);
  if (asBitcast || x->dims.size() != 1 || b.oneIn(3)) {
    dims = {n};
  } else {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= n; ++d)
      if (n % d == 0) divisors.push_back(d);
    if (divisors.empty()) return false;
    const int64_t d = b.pickOf(divisors);
    dims = {d, n / d};
  }
  if (!asBitcast && b.oneIn(3)) dims.insert(dims.begin() + b.pick(dims.size() + 1), 1);
  b.define(x->type, dims, std::string(asBitcast ? "bitcast(" : "reshape(") + x->name + ")", x->exact, {&*x});
  return true;
}

bool writeTranspose(Builder& b) {
  auto x = someValue(b, 2);
  if (!x) return false;
  std::vector<int64_t> permutation = iotaList(x->dims.size());
  for (size_t i = permutation.size() - 1; i > 0; --i) std::swap(permutation[i], permutation[b.pick(i + 1)]);
  Dims dims;
  for (int64_t p : permutation) dims.push_back(x->dims[p]);
  b.define(x->type, dims, "transpose(" + x->name + "), dimensions=" + listText(permutation), x->exact, {&*x});
  return true;
}

bool writeSlice(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  Dims dims;
  std::string ranges;
  for (int64_t size : x->dims) {
    const int64_t start = static_cast<int64_t>(b.pick(size + 1));
    const int64_t limit = start + static_cast<int64_t>(b.pick(size - start + 1));
    const int64_t stride = 1 + static_cast<int64_t>(b.pick(3));
    dims.push_back((limit - start + stride - 1) / stride);
    ranges += std::string(ranges.empty() ? "" : ", ") + "[" + std::to_string(start) + ":" + std::to_string(limit) +
              (stride > 1 ? ":" + std::to_string(stride) : "") + "]";
  }
  b.define(x->type, dims, "slice(" + x->name + "), slice={" + ranges + "}", x->exact, {&*x});
  return true;
}

bool writeConcatenate(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  const size_t along = b.pick(x->dims.size());
  Dims other = x->dims;
  other[along] = static_cast<int64_t>(b.pick(4));
  Value y = b.need(x->type, other);
  Dims dims = x->dims;
  dims[along] += other[along];
  b.define(x->type, dims, "concatenate(" + x->name + ", " + y.name + "), dimensions={" + std::to_string(along) + "}",
           x->exact && y.exact, {&*x, &y});
  return true;
}

bool writePad(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  Value padding = b.need(x->type, {});
  Dims dims;
  std::string config;
  for (int64_t size : x->dims) {
    const int64_t interior = size > 1 ? static_cast<int64_t>(b.pick(2)) : 0;
    const int64_t spread = size + std::max<int64_t>(size - 1, 0) * interior;
    // Negative edges cut into the operand, never past it.
    const int64_t low = std::max<int64_t>(static_cast<int64_t>(b.pick(4)) - 1, -spread);
    const int64_t high = std::max<int64_t>(static_cast<int64_t>(b.pick(4)) - 1, -(spread + low));
    dims.push_back(spread + low + high);
    config += std::string(config.empty() ? "" : "x") + std::to_string(low) + "_" + std::to_string(high) +
              (interior ? "_" + std::to_string(interior) : "");
  }
  b.define(x->type, dims, "pad(" + x->name + ", " + padding.name + "), padding=" + config,
           x->exact && padding.exact, {&*x, &padding});
  return true;
}

bool writeReverse(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  std::vector<int64_t> reversed;
  for (size_t d = 0; d < x->dims.size(); ++d)
    if (b.oneIn(2) || (d + 1 == x->dims.size() && reversed.empty())) reversed.push_back(static_cast<int64_t>(d));
  b.define(x->type, x->dims, "reverse(" + x->name + "), dimensions=" + listText(reversed), x->exact, {&*x});
  return true;
}

// Start indices may lie outside the operand: XLA clamps them.
bool writeDynamicSlice(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  Dims dims;
  std::string operands = x->name;
  for (int64_t size : x->dims) {
    dims.push_back(static_cast<int64_t>(b.pick(size + 1)));
    Value start = b.index(size + 1);
    b.use(start);
    operands += ", " + start.name;
  }
  b.define(x->type, dims, "dynamic-slice(" + operands + "), dynamic_slice_sizes=" + listText(dims), x->exact, {&*x});
  return true;
}

bool writeDynamicUpdateSlice(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  Dims updateDims;
  for (int64_t size : x->dims) updateDims.push_back(static_cast<int64_t>(b.pick(size + 1)));
  Value update = b.need(x->type, updateDims);
  std::string operands = x->name + ", " + update.name;
  for (int64_t size : x->dims) {
    Value start = b.index(size + 1);
    b.use(start);
    operands += ", " + start.name;
  }
  b.define(x->type, x->dims, "dynamic-update-slice(" + operands + ")", x->exact && update.exact, {&*x, &update});
  return true;
}

// Rows (slices along dimension 0) at indices that may be out of range
// (clamped).
bool writeGather(Builder& b) {
  auto x = someValue(b, 1);
  if (!x || x->dims[0] == 0) return false;
  const int64_t rows = static_cast<int64_t>(b.pick(5));
  Value indices = b.need(ElementType::kS32, {rows, 1}, Need::kExact);
  Dims sliceSizes = x->dims, dims = x->dims;
  sliceSizes[0] = 1;
  dims[0] = rows;
  b.define(x->type, dims,
           "gather(" + x->name + ", " + indices.name + "), offset_dims=" + listText(iotaList(x->dims.size() - 1, 1)) +
               ", collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes=" +
               listText(sliceSizes),
           x->exact, {&*x, &indices});
  return true;
}

// Rows of updates combined into rows of the operand; out-of-range rows are
// skipped. Float sums depend on the order the updates meet, so they are
// not exact, and only go to the result.
bool writeScatter(Builder& b) {
  auto x = someValue(b, 1);
  if (!x || isComplex(x->type)) return false;
  const bool floating = isFloat(x->type);
  std::vector<std::string> combiners = {"maximum", "minimum"};
  if (!floating && !isPred(x->type)) combiners.push_back("add");
  if (floating && x->type != ElementType::kF8E8M0FNU && !b.forXla()) combiners.push_back("add");
  const std::string combiner = b.pickOf(combiners);
  const bool sum = combiner == "add" && floating;
  const int64_t rows = static_cast<int64_t>(b.pick(5));
  Value indices = b.need(ElementType::kS32, {rows, 1}, Need::kExact);
  Dims updateDims = x->dims;
  updateDims[0] = rows;
  Value updates = b.need(x->type, updateDims, sum ? Need::kOrdinary : Need::kAny);
  Value operand = sum ? b.need(x->type, x->dims, Need::kOrdinary) : *x;
  b.define(x->type, x->dims,
           "scatter(" + operand.name + ", " + indices.name + ", " + updates.name +
               "), update_window_dims=" + listText(iotaList(x->dims.size() - 1, 1)) +
               ", inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=" +
               b.binaryComputation(combiner, x->type),
           !sum && operand.exact && updates.exact, {&operand, &indices, &updates}, sum);
  return true;
}

bool writeIota(Builder& b) {
  const Dims dims = b.someDims();
  if (dims.empty()) return false;
  std::optional<ElementType> t = b.typeFor([](ElementType t) { return !isPred(t); });
  b.define(*t, dims, "iota(), iota_dimension=" + std::to_string(b.pick(dims.size())), true, {});
  return true;
}

bool writeConstant(Builder& b) {
  const Dims dims = b.someDims();
  if (elementCount(dims) > 64) return false;
  const ElementType t = b.oneIn(2) ? b.mainType() : b.pickOf(b.types());
  std::string text;
  std::function<void(size_t)> fill = [&](size_t d) {
    if (d == dims.size()) {
      text += b.scalarLiteral(t, !b.oneIn(3));
      return;
    }
    text += "{";
    for (int64_t i = 0; i < dims[d]; ++i) {
      if (i) text += ", ";
      fill(d + 1);
    }
    text += "}";
  };
  fill(0);
  b.define(t, dims, "constant(" + text + ")", true, {});
  return true;
}

bool writeCopy(Builder& b) {
  auto x = someValue(b);
  if (!x) return false;
  b.define(x->type, x->dims, "copy(" + x->name + ")", x->exact, {&*x});
  return true;
}

// Two values into a tuple (through an optimization barrier when asked) and
// one of them out again.
bool writeTuple(Builder& b, bool throughBarrier) {
  auto x = someValue(b), y = someValue(b);
  if (!x || !y) return false;
  const std::string shape = "(" + shapeText(x->type, x->dims) + ", " + shapeText(y->type, y->dims) + ")";
  std::string tuple = b.defineOther(shape, "tuple(" + x->name + ", " + y->name + ")", {&*x, &*y});
  if (throughBarrier) tuple = b.defineOther(shape, "opt-barrier(" + tuple + ")", {});
  const bool first = b.oneIn(2);
  const Value& chosen = first ? *x : *y;
  b.define(chosen.type, chosen.dims, "get-tuple-element(" + tuple + "), index=" + (first ? "0" : "1"), chosen.exact,
           {});
  return true;
}

bool writeGetDimensionSize(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  b.define(ElementType::kS32, {}, "get-dimension-size(" + x->name + "), dimensions={" +
                                      std::to_string(b.pick(x->dims.size())) + "}",
           true, {&*x});
  return true;
}

// A runtime size in [0, the static size]: hlo-run's random inputs give a
// size parameter a value in that range. The dynamic value only goes to the
// result.
bool writeSetDimensionSize(Builder& b) {
  auto x = someValue(b, 1);
  if (!x) return false;
  const size_t d = b.pick(x->dims.size());
  Value size = b.index(x->dims[d]);
  b.define(x->type, x->dims,
           "set-dimension-size(" + x->name + ", " + size.name + "), dimensions={" + std::to_string(d) + "}", x->exact,
           {&*x, &size}, true, static_cast<int>(d));
  return true;
}

}  // namespace hlo::conformance::fuzz
