// Shape inference for data movement: tuples, slicing, padding, concatenation,
// transposes, broadcasts and reshapes, iota, dimension sizes, sort and top-k.
#include <algorithm>

#include "hlo/shape_inference_internal.h"

namespace hlo::inference {
namespace {

Status expectArray(const Ctx& c, int i) {
  if (c.operand(i).isArray()) return okStatus();
  return c.error("operand " + std::to_string(i) + " must be an array, got " + str(c.operand(i)));
}

// The single value of `dimensions={d}`, checked against `rank`.
StatusOr<int64_t> singleDimension(const Ctx& c, int64_t rank) {
  const std::vector<int64_t>& dims = c.attrs().getInts(AttrKey::kDimensions);
  if (dims.size() != 1) return c.error("expected dimensions={d} with one dimension");
  if (dims[0] < 0 || dims[0] >= rank)
    return c.error("dimension " + std::to_string(dims[0]) + " is out of range for rank " +
                   std::to_string(rank));
  return dims[0];
}

// The start indices of dynamic-slice and dynamic-update-slice: operands
// [first, end) are either one index vector or one integer scalar per dimension.
Status checkStartIndices(const Ctx& c, int first, int64_t rank) {
  int count = c.operandCount() - first;
  if (count == 1 && c.operand(first).isArray() && c.operand(first).rank() == 1) {
    const Shape& v = c.operand(first);
    if (!isInteger(v.type()) || v.dim(0) != rank)
      return c.error("start index vector must be an integer vector of " + std::to_string(rank) +
                     " elements, got " + str(v));
    return okStatus();
  }
  if (count != rank)
    return c.error("expected " + std::to_string(rank) + " start indices, got " +
                   std::to_string(count));
  for (int i = first; i < c.operandCount(); ++i) {
    const Shape& s = c.operand(i);
    if (!s.isScalar() || !isInteger(s.type()) || s.type() != c.operand(first).type())
      return c.error("start indices must be integer scalars of one type, got " + str(s));
  }
  return okStatus();
}

int64_t elementCount(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s.dims()) n *= d;
  return n;
}

bool hasUnbounded(const Shape& s) {
  for (int64_t d : s.dims())
    if (d == Shape::kUnboundedDim) return true;
  return false;
}

}  // namespace

StatusOr<Shape> inferTuple(const Ctx& c) {
  std::vector<Shape> elements;
  for (int i = 0; i < c.operandCount(); ++i) elements.push_back(c.operand(i));
  return Shape::tuple(std::move(elements));
}

StatusOr<Shape> inferGetTupleElement(const Ctx& c) {
  const Shape& t = c.operand(0);
  if (!t.isTuple()) return c.error("operand must be a tuple, got " + str(t));
  int64_t index = c.attrs().getInt(AttrKey::kIndex, -1);
  if (index < 0 || index >= t.tupleSize())
    return c.error("index " + std::to_string(index) + " is out of range for " + str(t));
  return t.tupleElement(static_cast<int>(index));
}

StatusOr<Shape> inferSlice(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  const AttrValue* v = c.attrs().find(AttrKey::kSlice);
  if (!v || static_cast<int>(v->slices.size()) != x.rank())
    return c.error("expected one slice={[start:limit:stride]} entry per dimension of " + str(x));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int i = 0; i < x.rank(); ++i) {
    const SliceDim& s = v->slices[i];
    bool unbounded = x.dim(i) == Shape::kUnboundedDim;
    if (s.start < 0 || s.start > s.limit || (!unbounded && s.limit > x.dim(i)) || s.stride <= 0)
      return c.error("slice [" + std::to_string(s.start) + ":" + std::to_string(s.limit) + ":" +
                     std::to_string(s.stride) + "] is out of range for dimension " +
                     std::to_string(i) + " of " + str(x));
    int64_t size = (s.limit - s.start + s.stride - 1) / s.stride;
    dims.push_back(size);
    dynamic.push_back(size != 1 && x.isDynamicDim(i) && !unbounded);
  }
  return makeArray(x.type(), dims, dynamic);
}

StatusOr<Shape> inferDynamicSlice(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected an operand");
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  HLO_RETURN_IF_ERROR(checkStartIndices(c, 1, x.rank()));
  const std::vector<int64_t>& sizes = c.attrs().getInts(AttrKey::kDynamicSliceSizes);
  if (static_cast<int>(sizes.size()) != x.rank())
    return c.error("expected one dynamic_slice_sizes entry per dimension of " + str(x));
  std::vector<bool> dynamic;
  for (int i = 0; i < x.rank(); ++i) {
    if (sizes[i] < 0 || (x.dim(i) != Shape::kUnboundedDim && sizes[i] > x.dim(i)))
      return c.error("slice size " + std::to_string(sizes[i]) + " is out of range for dimension " +
                     std::to_string(i) + " of " + str(x));
    dynamic.push_back(x.isDynamicDim(i) && sizes[i] > 1 && sizes[i] == x.dim(i));
  }
  return makeArray(x.type(), sizes, dynamic);
}

StatusOr<Shape> inferDynamicUpdateSlice(const Ctx& c) {
  if (c.operandCount() < 2) return c.error("expected an operand and an update");
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  HLO_RETURN_IF_ERROR(expectArray(c, 1));
  const Shape& x = c.operand(0);
  const Shape& update = c.operand(1);
  HLO_RETURN_IF_ERROR(checkStartIndices(c, 2, x.rank()));
  if (update.rank() != x.rank() || !sameTypeIgnoringFp(update.type(), x.type()))
    return c.error("update " + str(update) + " does not fit operand " + str(x));
  Shape out = x;
  for (int i = 0; i < x.rank(); ++i) {
    if (x.dim(i) != Shape::kUnboundedDim && update.dim(i) > x.dim(i))
      return c.error("update " + str(update) + " is larger than operand " + str(x));
    if (update.isDynamicDim(i) && update.dim(i) == x.dim(i)) out.setDim(i, x.dim(i), true);
  }
  return out;
}

StatusOr<Shape> inferPad(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  const Shape& value = c.operand(1);
  if (!value.isScalar() || !sameTypeIgnoringFp(value.type(), x.type()))
    return c.error("padding value must be a scalar of the operand's type, got " + str(value));
  const AttrValue* v = c.attrs().find(AttrKey::kPadding);
  if (!v || static_cast<int>(v->padding.size()) != x.rank())
    return c.error("expected one padding entry per dimension of " + str(x));
  std::vector<int64_t> dims;
  for (int i = 0; i < x.rank(); ++i) {
    const PadDim& p = v->padding[i];
    if (p.interior < 0) return c.error("interior padding must not be negative");
    if (x.dim(i) == Shape::kUnboundedDim) {
      dims.push_back(Shape::kUnboundedDim);
      continue;
    }
    int64_t size = x.dim(i) + p.low + p.high + std::max<int64_t>(x.dim(i) - 1, 0) * p.interior;
    if (size < 0)
      return c.error("padding makes dimension " + std::to_string(i) + " negative");
    dims.push_back(size);
  }
  return makeArray(higherPrecision(x.type(), value.type()), dims, x.dynamicDims());
}

StatusOr<Shape> inferConcatenate(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected at least one operand");
  for (int i = 0; i < c.operandCount(); ++i) HLO_RETURN_IF_ERROR(expectArray(c, i));
  const Shape& first = c.operand(0);
  HLO_ASSIGN_OR_RETURN(int64_t dim, singleDimension(c, first.rank()));
  Shape out = first;
  ElementType type = first.type();
  for (int i = 1; i < c.operandCount(); ++i) {
    const Shape& s = c.operand(i);
    if (s.rank() != first.rank() || !sameTypeIgnoringFp(s.type(), type))
      return c.error("operands " + str(first) + " and " + str(s) + " cannot be concatenated");
    type = higherPrecision(type, s.type());
    for (int d = 0; d < s.rank(); ++d) {
      bool dynamic = out.isDynamicDim(d) || s.isDynamicDim(d);
      if (d == dim) {
        bool unbounded = out.dim(d) == Shape::kUnboundedDim || s.dim(d) == Shape::kUnboundedDim;
        out.setDim(d, unbounded ? Shape::kUnboundedDim : out.dim(d) + s.dim(d), dynamic);
        continue;
      }
      if (!compatibleDim(out.dim(d), s.dim(d)))
        return c.error("operands " + str(first) + " and " + str(s) + " differ in dimension " +
                       std::to_string(d) + ", which is not concatenated");
      out.setDim(d, out.dim(d) == Shape::kUnboundedDim ? s.dim(d) : out.dim(d), dynamic);
    }
  }
  return withType(out, type);
}

StatusOr<Shape> inferTranspose(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  const std::vector<int64_t>& perm = c.attrs().getInts(AttrKey::kDimensions);
  if (!isPermutation(perm, x.rank()))
    return c.error("dimensions " + str(perm) + " are not a permutation of the dimensions of " +
                   str(x));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int64_t p : perm) {
    dims.push_back(x.dim(static_cast<int>(p)));
    dynamic.push_back(x.isDynamicDim(static_cast<int>(p)));
  }
  return makeArray(x.type(), dims, dynamic);
}

StatusOr<Shape> inferReverse(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  const std::vector<int64_t>& dims = c.attrs().getInts(AttrKey::kDimensions);
  if (!validDimList(dims, x.rank()))
    return c.error("dimensions " + str(dims) + " are not distinct dimensions of " + str(x));
  return x;
}

StatusOr<Shape> inferBroadcast(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  if (!c.declared) return c.cannotInfer();
  const Shape& x = c.operand(0);
  const Shape& out = *c.declared;
  if (!out.isArray() || !sameTypeIgnoringFp(out.type(), x.type()))
    return c.error("result " + str(out) + " must have the element type of operand " + str(x));
  const std::vector<int64_t>& dims = c.attrs().getInts(AttrKey::kDimensions);
  if (static_cast<int>(dims.size()) != x.rank())
    return c.error("expected one dimensions entry per dimension of operand " + str(x) + ", got " +
                   str(dims));
  for (int i = 0; i < x.rank(); ++i) {
    // A size-1 operand dimension may stretch (StableHLO's broadcast_in_dim).
    if (dims[i] < 0 || dims[i] >= out.rank() ||
        (out.dim(static_cast<int>(dims[i])) != x.dim(i) && x.dim(i) != 1))
      return c.error("operand dimension " + std::to_string(i) + " of " + str(x) +
                     " does not map to a dimension of the same size in " + str(out));
  }
  return out;
}

StatusOr<Shape> inferReshape(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  if (!c.declared) return c.cannotInfer();
  const Shape& x = c.operand(0);
  const Shape& out = *c.declared;
  if (!out.isArray() || !sameTypeIgnoringFp(out.type(), x.type()))
    return c.error("result " + str(out) + " must have the element type of operand " + str(x));
  if (!hasUnbounded(x) && !hasUnbounded(out) && elementCount(x) != elementCount(out))
    return c.error("cannot reshape " + str(x) + " (" + std::to_string(elementCount(x)) +
                   " elements) to " + str(out) + " (" + std::to_string(elementCount(out)) + ")");
  return out;
}

StatusOr<Shape> inferDynamicReshape(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected an operand");
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  if (!c.declared) return c.cannotInfer();
  const Shape& x = c.operand(0);
  const Shape& out = *c.declared;
  if (!out.isArray() || !sameTypeIgnoringFp(out.type(), x.type()))
    return c.error("result " + str(out) + " must have the element type of operand " + str(x));
  if (c.operandCount() != out.rank() + 1)
    return c.error("expected one size operand per result dimension (" +
                   std::to_string(out.rank()) + "), got " + std::to_string(c.operandCount() - 1));
  for (int i = 1; i < c.operandCount(); ++i)
    if (c.operand(i).type() != ElementType::kS32 || !c.operand(i).isScalar())
      return c.error("size operands must be s32 scalars, got " + str(c.operand(i)));
  if (!hasUnbounded(x) && !hasUnbounded(out) && elementCount(x) != elementCount(out))
    return c.error("cannot reshape " + str(x) + " to " + str(out));
  return out;
}

StatusOr<Shape> inferIota(const Ctx& c) {
  if (!c.declared) return c.cannotInfer();
  const Shape& out = *c.declared;
  if (!out.isArray() || out.rank() == 0 || isPred(out.type()))
    return c.error("result must be a numeric array of rank at least 1, got " + str(out));
  int64_t dim = c.attrs().getInt(AttrKey::kIotaDimension, -1);
  if (dim < 0 || dim >= out.rank())
    return c.error("iota_dimension " + std::to_string(dim) + " is out of range for " + str(out));
  return out;
}

StatusOr<Shape> inferGetDimensionSize(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  HLO_RETURN_IF_ERROR(singleDimension(c, c.operand(0).rank()).status());
  return Shape::scalar(ElementType::kS32);
}

StatusOr<Shape> inferSetDimensionSize(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  HLO_ASSIGN_OR_RETURN(int64_t dim, singleDimension(c, x.rank()));
  if (!c.operand(1).isScalar() || c.operand(1).type() != ElementType::kS32)
    return c.error("size must be an s32 scalar, got " + str(c.operand(1)));
  Shape out = x;
  out.setDim(static_cast<int>(dim), x.dim(static_cast<int>(dim)), true);
  return out;
}

StatusOr<Shape> inferSort(const Ctx& c) {
  int n = c.operandCount();
  if (n < 1) return c.error("expected at least one operand");
  for (int i = 0; i < n; ++i) {
    HLO_RETURN_IF_ERROR(expectArray(c, i));
    if (!sameDims(c.operand(i), c.operand(0)))
      return c.error("operands " + str(c.operand(0)) + " and " + str(c.operand(i)) +
                     " must have the same dimensions");
  }
  HLO_RETURN_IF_ERROR(singleDimension(c, c.operand(0).rank()).status());
  const Computation* cmp = c.attrs().getComputation(AttrKey::kToApply);
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, cmp, "to_apply"));
  if (!root.isScalar() || !isPred(root.type()))
    return c.error("comparator must return pred[], got " + str(root));
  if (cmp->parameterCount() != 2 * n)
    return c.error("comparator '" + cmp->name() + "' takes " +
                   std::to_string(cmp->parameterCount()) + " parameters, expected " +
                   std::to_string(2 * n));
  for (int i = 0; i < 2 * n; ++i) {
    const Instruction* p = cmp->parameter(i);
    ElementType want = c.operand(i / 2).type();
    if (!p || !p->shape().isScalar() || !sameTypeIgnoringFp(p->shape().type(), want))
      return c.error("comparator parameter " + std::to_string(i) + " must be a " +
                     std::string(elementTypeName(want)) + " scalar");
  }
  if (n == 1) return c.operand(0);
  return inferTuple(c);
}

StatusOr<Shape> inferTopK(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArray(c, 0));
  const Shape& x = c.operand(0);
  int64_t k = c.attrs().getInt(AttrKey::kK, -1);
  if (x.rank() < 1) return c.error("operand must have rank at least 1");
  int last = x.rank() - 1;
  if (k < 0 || (x.dim(last) != Shape::kUnboundedDim && x.dim(last) < k))
    return c.error("k=" + std::to_string(k) + " does not fit the last dimension of " + str(x));
  Shape values = x;
  values.setDim(last, k, false);
  return Shape::tuple({values, withType(values, ElementType::kS32)});
}

}  // namespace hlo::inference
