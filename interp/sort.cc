// Interpreter ops sort and topk, and the TopK custom call.
//
// sort orders every 1-D slice along dimensions={d} of its operands together:
// the comparator computation is called on (lhs_0, rhs_0, lhs_1, rhs_1, ...),
// one scalar pair per operand, and says whether lhs goes strictly before rhs.
// The order it gives is applied to every operand. The sort is always stable,
// which is also a valid answer when is_stable=false.
#include <algorithm>

#include "interp/data_checks.h"
#include "hlo/indexing.h"
#include "hlo/topk_call.h"
#include "interp/ops.h"
#include "interp/scalar_ops.h"

namespace hlo::interp {
namespace {

// Stable bottom-up merge sort of `items` by `before`, a comparison that may
// fail (the first error stops the sort). Not std::stable_sort: a comparator
// computation need not be a strict weak order (an LE comparator, or NaNs under
// LT), and the standard sorts may then read out of bounds; a merge stays in
// bounds whatever the answers.
template <typename Before>
Status mergeSort(std::vector<int64_t>& items, Before&& before) {
  size_t n = items.size();
  std::vector<int64_t> merged(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, out = lo;
      while (i < mid && j < hi) {
        // Take from the right run only when it goes strictly first: stability.
        StatusOr<bool> rightFirst = before(items[j], items[i]);
        if (!rightFirst.ok()) return rightFirst.status();
        merged[out++] = *rightFirst ? items[j++] : items[i++];
      }
      while (i < mid) merged[out++] = items[i++];
      while (j < hi) merged[out++] = items[j++];
    }
    items.swap(merged);
  }
  return okStatus();
}

// x[a] < x[b] in total order (hlo/element_io.h's totalOrderKey).
bool valueLess(const Literal& x, int64_t a, int64_t b) { return totalOrderKey(x, a) < totalOrderKey(x, b); }

// Whether the comparator puts element `lhs` strictly before element `rhs`:
// it is called on (lhs, rhs) of each operand in turn, as a scalar program
// running on the elements in place when it compiles to one.
class ComparatorCall {
 public:
  ComparatorCall(EvalContext& ctx, const Instruction& instr, const Computation& comparator, Operands ops)
      : ctx_(ctx), instr_(instr), comparator_(comparator), ops_(ops) {
    std::vector<ElementType> argTypes;
    for (const Literal* op : ops) {
      for (int side = 0; side < 2; ++side) args_.emplace_back(Shape::scalar(op->type()));
      argTypes.insert(argTypes.end(), 2, op->type());
    }
    for (const Literal& arg : args_) argPointers_.push_back(&arg);
    const ElementType predType[] = {ElementType::kPred};
    program_ = ctx.scalarProgram(comparator);
    if (program_ && !program_->takes(argTypes, predType)) program_ = nullptr;
  }

  StatusOr<bool> operator()(int64_t lhs, int64_t rhs) {
    size_t n = ops_.size();
    if (program_) {
      for (size_t k = 0; k < n; ++k) {
        program_->setArgument(static_cast<int>(2 * k), *ops_[k], lhs);
        program_->setArgument(static_cast<int>(2 * k + 1), *ops_[k], rhs);
      }
      program_->runInPlace();
      return program_->resultIsTrue();
    }
    for (size_t k = 0; k < n; ++k) {
      copyElement(*ops_[k], lhs, args_[2 * k], 0);
      copyElement(*ops_[k], rhs, args_[2 * k + 1], 0);
    }
    HLO_ASSIGN_OR_RETURN(Literal answer, ctx_.call(comparator_, argPointers_));
    if (!answer.shape().isScalar() || answer.type() != ElementType::kPred)
      return EvalContext::unsupported(instr_, "the comparator does not return pred[]");
    return answer.bitsAt(0) != 0;
  }

 private:
  EvalContext& ctx_;
  const Instruction& instr_;
  const Computation& comparator_;
  Operands ops_;
  std::vector<Literal> args_;  // scalar arguments, reused for every call
  std::vector<const Literal*> argPointers_;
  const ScalarProgram* program_ = nullptr;
};

// Orders positions `slice` of row x[base, base + n) so that its first k are
// the k largest (smallest when !largest) in total order, equal values in
// position order: a strict total order, so partial_sort is exact.
void partialSortByValue(const Literal& x, int64_t base, std::vector<int64_t>& slice, int64_t k, bool largest) {
  std::partial_sort(slice.begin(), slice.begin() + k, slice.end(), [&](int64_t a, int64_t b) {
    if (valueLess(x, base + a, base + b)) return !largest;
    if (valueLess(x, base + b, base + a)) return largest;
    return a < b;
  });
}

}  // namespace

StatusOr<Literal> evalSort(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Computation* comparator = instr.attrs().getComputation(AttrKey::kToApply);
  int64_t dim = instr.attrs().getInts(AttrKey::kDimensions)[0];
  size_t n = ops.size();
  ComparatorCall before(ctx, instr, *comparator, ops);

  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  std::vector<Literal*> outs;
  if (instr.shape().isTuple()) {
    for (Literal& e : result.tupleElements()) outs.push_back(&e);
  } else {
    outs.push_back(&result);
  }
  for (size_t k = 0; k < n; ++k) HLO_RETURN_IF_ERROR(requireType(instr, *outs[k], ops[k]->type(), "a result"));

  // Visit each 1-D slice along `dim` by its first element: the index space
  // with `dim` collapsed to size 1.
  const std::vector<int64_t>& dims = ops[0]->shape().dims();
  std::vector<int64_t> strides = rowMajorStrides(dims);
  std::vector<int64_t> starts = dims;
  starts[dim] = 1;
  int64_t length = dims[dim], step = strides[dim];
  std::vector<int64_t> order(length);
  Status failure;
  forEachIndex(starts, [&](const std::vector<int64_t>& index, int64_t) {
    if (!failure.ok()) return;
    int64_t base = linearIndex(strides, index);
    for (int64_t i = 0; i < length; ++i) order[i] = base + i * step;
    failure = mergeSort(order, before);
    for (size_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < length; ++i) copyElement(*ops[k], order[i], *outs[k], base + i * step);
  });
  if (!failure.ok()) return failure;
  return result;
}

// The k largest (smallest with largest=false) values along the last
// dimension, in order, with their s32 indices; equal values keep index order.
// Floats compare in total order, so NaN counts as the largest value (and -NaN
// as the smallest).
StatusOr<Literal> evalTopK(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  if (isComplex(x.type())) return EvalContext::unsupported(instr, "complex values have no order");
  int64_t k = instr.attrs().getInt(AttrKey::kK);
  bool largest = instr.attrs().getBool(AttrKey::kLargest, true);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  Literal& values = result.tupleElements()[0];
  Literal& indices = result.tupleElements()[1];
  int64_t n = x.shape().dims().back();
  int64_t rows = n == 0 ? 0 : x.elementCount() / n;
  std::vector<int64_t> order(n);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t base = row * n;
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    partialSortByValue(x, base, order, k, largest);
    for (int64_t i = 0; i < k; ++i) {
      copyElement(x, base + order[i], values, row * k + i);
      indices.setBitsAt(row * k + i, static_cast<uint32_t>(order[i]));
    }
  }
  return result;
}

// Whether `comparator` (of two or four parameters, the first two of type t)
// is GT (1) or LT (-1) of its first two parameters in a strict total order:
// total order for floats, the type's own for integers. Then stably sorting
// by it and taking the first k is a partial sort by value, then index.
int valueOrderOf(const Computation& comparator, ElementType t) {
  const Instruction* root = comparator.root();
  if (root->opcode() != Opcode::kCompare || isComplex(t)) return 0;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter) return 0;
  StatusOr<ComparisonType> type = comparisonTypeOf(root->attrs(), t);
  ComparisonType wanted = isFloat(t) ? ComparisonType::kTotalOrder : defaultComparisonType(t);
  if (!type.ok() || *type != wanted) return 0;
  std::optional<ComparisonDirection> dir = parseComparisonDirection(root->attrs().getString(AttrKey::kDirection));
  int sign = dir == ComparisonDirection::kGt ? 1 : dir == ComparisonDirection::kLt ? -1 : 0;
  if (a->parameterNumber() == 0 && b->parameterNumber() == 1) return sign;
  if (a->parameterNumber() == 1 && b->parameterNumber() == 0) return -sign;
  return 0;
}

// The TopK custom call (hlo/topk_call.h): each slice along the last
// dimension merge-sorted stably by the comparator, called on (x, x, index,
// index) or (x, x), or in total order, larger first, without one; then its
// first k elements and their indices. A comparator that is GT or LT of the
// values in a strict total order (valueOrderOf), or none, takes a partial
// sort instead: bf16 [64, 256000] with k = 40 took 20 s by the merge sort.
StatusOr<Literal> evalTopKCall(EvalContext& ctx, const Instruction& instr, Operands ops) {
  StatusOr<TopKCall> call = topKCallOf(instr);
  if (!call.ok()) return EvalContext::unsupported(instr, call.status().message());
  const Literal& x = *ops[0];
  int64_t n = x.shape().dims().back(), k = call->k;
  int64_t rows = n == 0 ? 0 : x.elementCount() / n;
  // Larger first (1) or smaller first (-1) in a strict total order: a
  // partial sort gives the same first k as the stable merge sort.
  int order = call->comparator ? valueOrderOf(*call->comparator, x.type()) : 1;
  // Otherwise the comparator, on x and (with four parameters) an iota of
  // the positions along the last dimension; the merge sort orders
  // positions in x.
  Literal iota(Shape(ElementType::kS32, order == 0 && call->comparator->parameterCount() == 4 ? x.shape().dims()
                                                                                               : std::vector<int64_t>{0}));
  for (int64_t i = 0; i < iota.elementCount(); ++i) iota.setBitsAt(i, static_cast<uint32_t>(i % n));
  std::vector<const Literal*> compared{&x};
  if (iota.elementCount() > 0) compared.push_back(&iota);
  std::optional<ComparatorCall> before;
  if (order == 0) before.emplace(ctx, instr, *call->comparator, compared);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  Literal& values = call->withIndices ? result.tupleElements()[0] : result;
  std::vector<int64_t> slice(n);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t base = row * n;
    if (order != 0) {
      for (int64_t i = 0; i < n; ++i) slice[i] = i;
      partialSortByValue(x, base, slice, k, order > 0);
    } else {
      for (int64_t i = 0; i < n; ++i) slice[i] = base + i;
      HLO_RETURN_IF_ERROR(mergeSort(slice, *before));
      for (int64_t& position : slice) position -= base;
    }
    for (int64_t i = 0; i < k; ++i) {
      copyElement(x, base + slice[i], values, row * k + i);
      if (call->withIndices) result.tupleElements()[1].setBitsAt(row * k + i, static_cast<uint32_t>(slice[i]));
    }
  }
  return result;
}

}  // namespace hlo::interp
