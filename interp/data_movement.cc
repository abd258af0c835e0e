// Interpreter ops that move data without computing on it: bitcast, broadcast,
// concatenate, copy, dynamic-slice, dynamic-update-slice, iota, pad, reshape,
// reverse, slice and transpose (on static values; interp/dynamic.cc has the
// rules for values with runtime sizes).
//
// Most are one strided copy: result element r (row-major) reads operand
// element offset + sum(r[d] * srcStrides[d]). Each op only builds its offset
// and strides: a slice steps by its stride, a reverse steps backwards from the
// far end, a transpose permutes the operand's strides, a broadcast steps by
// zero along the dimensions it adds.
#include <algorithm>
#include <cstring>

#include "hlo/float_formats.h"
#include "interp/data_checks.h"
#include "hlo/array_copy.h"
#include "hlo/indexing.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// Fills every element of `dst` (row-major) from src[offset + sum(r[d] * srcStrides[d])].
void stridedCopy(const Literal& src, int64_t offset, const std::vector<int64_t>& srcStrides,
                 Literal& dst) {
  const std::vector<int64_t>& dims = dst.shape().dims();
  copyStrided(src, offset, srcStrides, dst, 0, rowMajorStrides(dims), dims);
}


// Writes the number `value` into element i of a numeric array, as a
// conversion to its element type would: integers wrap to their width, floats
// round to nearest, complex numbers get a zero imaginary part.
void setNumber(Literal& lit, int64_t i, int64_t value) {
  ElementType t = lit.type();
  switch (typeKind(t)) {
    case TypeKind::kPred:
      lit.setBitsAt(i, value != 0);
      return;
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      int width = bitWidth(t);
      uint64_t bits = static_cast<uint64_t>(value);
      if (width < 64) bits &= (uint64_t{1} << width) - 1;
      // Narrow signed types are stored sign-extended (s4 -1 is 0xff).
      if (isSigned(t) && width < 64 && (bits >> (width - 1)) & 1) bits |= ~uint64_t{0} << width;
      lit.setBitsAt(i, bits);
      return;
    }
    case TypeKind::kFloat:
      if (t == ElementType::kF64) lit.data<double>()[i] = static_cast<double>(value);
      else if (t == ElementType::kF32) lit.data<float>()[i] = static_cast<float>(value);
      else lit.setBitsAt(i, encodeSmallFloat(t, static_cast<double>(value)));
      return;
    case TypeKind::kComplex:
      if (t == ElementType::kC64) {
        lit.data<float>()[2 * i] = static_cast<float>(value);
        lit.data<float>()[2 * i + 1] = 0;
      } else {
        lit.data<double>()[2 * i] = static_cast<double>(value);
        lit.data<double>()[2 * i + 1] = 0;
      }
      return;
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      return;
  }
}

// The dimensions of `shape` from most major to most minor in its layout, or
// empty when the layout is not a permutation of the dimensions.
std::vector<int64_t> majorToMinor(const Shape& shape) {
  std::vector<int64_t> order = shape.minorToMajor();
  std::vector<bool> seen(shape.rank(), false);
  for (int64_t d : order) {
    if (d < 0 || d >= shape.rank() || seen[d]) return {};
    seen[d] = true;
  }
  return std::vector<int64_t>(order.rbegin(), order.rend());
}

// The same bits, read as a different element type of the same width.
void reinterpretElements(const Literal& src, Literal& dst) {
  ElementType to = dst.type();
  int width = bitWidth(to);
  for (int64_t i = 0; i < src.elementCount(); ++i) {
    uint64_t bits = src.bitsAt(i);
    if (width < 64) bits &= (uint64_t{1} << width) - 1;
    if (isSigned(to) && width < 64 && (bits >> (width - 1)) & 1) bits |= ~uint64_t{0} << width;
    dst.setBitsAt(i, bits);
  }
}

}  // namespace

// bitcast reinterprets memory: the operand's elements in its physical order
// become the result's elements in the result's physical order. Physical order
// is row-major over the dimensions taken major-to-minor by the layout, so with
// default layouts on both sides a bitcast is a reshape.
StatusOr<Literal> evalBitcast(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& x = *ops[0];
  const Shape& from = instr.operand(0)->shape();  // layouts live on the instructions
  const Shape& to = instr.shape();
  if (!from.isArray() || !to.isArray()) return EvalContext::unsupported(instr, "bitcast of a non-array");
  if (hasUnboundedDim(from) || hasUnboundedDim(to))
    return EvalContext::unsupported(instr, "unbounded (?) dimensions have no values to run on");
  bool tiled = (from.layout() && !from.layout()->tiles.empty()) ||
               (to.layout() && !to.layout()->tiles.empty());
  // Tiling pads dimensions, so a tiled bitcast may read padding; only one
  // between identical shapes and layouts (the same bytes, read the same way)
  // has defined values.
  if (tiled && from == to) return x;
  if (tiled) return EvalContext::unsupported(instr, "tiled layouts");
  if (from.elementCount() != to.elementCount())
    return EvalContext::unsupported(instr, "element counts differ (" + from.toString(false) +
                                               " to " + to.toString(false) + ")");
  bool sameType = from.type() == to.type();
  bool sameWidth = bitWidth(from.type()) == bitWidth(to.type()) && bitWidth(to.type()) <= 64 &&
                   !isComplex(from.type()) && !isComplex(to.type());
  if (!sameType && !sameWidth)
    return EvalContext::unsupported(instr, "element types of different widths (" +
                                               from.toString(false) + " to " + to.toString(false) + ")");
  std::vector<int64_t> fromOrder = majorToMinor(from);
  std::vector<int64_t> toOrder = majorToMinor(to);
  if (static_cast<int>(fromOrder.size()) != from.rank() || static_cast<int>(toOrder.size()) != to.rank())
    return EvalContext::unsupported(instr, "a layout that is not a permutation of the dimensions");

  // 1. The operand in physical order: a transpose whose dimension i is operand
  //    dimension fromOrder[i].
  std::vector<int64_t> xStrides = rowMajorStrides(x.shape().dims());
  std::vector<int64_t> physicalDims, readStrides;
  for (int64_t d : fromOrder) {
    physicalDims.push_back(x.shape().dim(static_cast<int>(d)));
    readStrides.push_back(xStrides[d]);
  }
  HLO_RETURN_IF_ERROR(ctx.checkMemory(2 * shapeBytes(x.shape()), instr));
  Literal physical(Shape(x.type(), physicalDims));
  stridedCopy(x, 0, readStrides, physical);
  if (!sameType) {
    Literal converted(Shape(to.type(), {physical.elementCount()}));
    reinterpretElements(physical, converted);
    physical = std::move(converted);
  }
  // 2. Result element r sits at physical position sum(r[d] * strides[d]),
  //    where the strides are row-major over the result's dimensions taken
  //    major-to-minor, given back to the logical dimensions they belong to.
  std::vector<int64_t> toPhysicalDims;
  for (int64_t d : toOrder) toPhysicalDims.push_back(to.dim(static_cast<int>(d)));
  std::vector<int64_t> physicalStrides = rowMajorStrides(toPhysicalDims);
  std::vector<int64_t> writeStrides(to.rank());
  for (size_t i = 0; i < toOrder.size(); ++i) writeStrides[toOrder[i]] = physicalStrides[i];
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(to, instr));
  stridedCopy(physical, 0, writeStrides, result);
  return result;
}

// Operand dimension i runs along result dimension dimensions[i]; the result's
// other dimensions (and size-1 operand dimensions) repeat the operand.
StatusOr<Literal> evalBroadcast(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  HLO_RETURN_IF_ERROR(requireType(instr, x, instr.shape().type(), "the operand"));
  const std::vector<int64_t>& dims = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> xStrides = rowMajorStrides(x.shape().dims());
  std::vector<int64_t> srcStrides(instr.shape().rank(), 0);
  for (size_t i = 0; i < dims.size(); ++i)
    if (x.shape().dim(static_cast<int>(i)) != 1) srcStrides[dims[i]] = xStrides[i];
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  stridedCopy(x, 0, srcStrides, result);
  return result;
}

// The operands one after another along dimensions={d}.
StatusOr<Literal> evalConcatenate(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  for (const Literal* op : ops) HLO_RETURN_IF_ERROR(requireType(instr, *op, instr.shape().type(), "an operand"));
  int64_t dim = instr.attrs().getInts(AttrKey::kDimensions)[0];
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  std::vector<int64_t> origin(instr.shape().rank(), 0);
  for (const Literal* op : ops) {
    copyInto(*op, origin, result);
    origin[dim] += op->shape().dim(static_cast<int>(dim));
  }
  return result;
}

// Values are logical, so a copy (whatever layout it gives) is the identity.
StatusOr<Literal> evalCopy(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  return *ops[0];
}

StatusOr<Literal> evalDynamicSlice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const std::vector<int64_t>& sizes = instr.attrs().getInts(AttrKey::kDynamicSliceSizes);
  std::vector<int64_t> starts = clampedStarts(ops, 1, x.shape().dims(), sizes);
  std::vector<int64_t> xStrides = rowMajorStrides(x.shape().dims());
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  stridedCopy(x, linearIndex(xStrides, starts), xStrides, result);
  return result;
}

StatusOr<Literal> evalDynamicUpdateSlice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const Literal& update = *ops[1];
  HLO_RETURN_IF_ERROR(requireType(instr, update, x.type(), "the update"));
  std::vector<int64_t> starts = clampedStarts(ops, 2, x.shape().dims(), update.shape().dims());
  HLO_RETURN_IF_ERROR(ctx.checkMemory(shapeBytes(x.shape()), instr));
  Literal result = x;
  copyInto(update, starts, result);
  return result;
}

// Element r holds r[iota_dimension], converted to the element type.
StatusOr<Literal> evalIota(EvalContext& ctx, const Instruction& instr, Operands) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  int64_t dim = instr.attrs().getInt(AttrKey::kIotaDimension);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  forEachIndex(instr.shape().dims(), [&](const std::vector<int64_t>& r, int64_t linear) {
    setNumber(result, linear, r[dim]);
  });
  return result;
}

// Operand element x lands at low + x * (interior + 1) in each dimension; the
// rest is the padding value. Negative low/high padding crops: an operand
// element whose position falls outside the result is dropped.
StatusOr<Literal> evalPad(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const Literal& value = *ops[1];
  HLO_RETURN_IF_ERROR(requireType(instr, x, instr.shape().type(), "the operand"));
  HLO_RETURN_IF_ERROR(requireType(instr, value, instr.shape().type(), "the padding value"));
  const std::vector<PadDim>& pads = instr.attrs().find(AttrKey::kPadding)->padding;
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  for (int64_t i = 0; i < result.elementCount(); ++i) copyElement(value, 0, result, i);
  const std::vector<int64_t>& outDims = instr.shape().dims();
  std::vector<int64_t> outStrides = rowMajorStrides(outDims);
  forEachIndex(x.shape().dims(), [&](const std::vector<int64_t>& index, int64_t linear) {
    int64_t to = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      int64_t position = pads[d].low + index[d] * (pads[d].interior + 1);
      if (position < 0 || position >= outDims[d]) return;
      to += position * outStrides[d];
    }
    copyElement(x, linear, result, to);
  });
  return result;
}

// Values are row-major, so a reshape keeps the bytes and changes the shape.
StatusOr<Literal> evalReshape(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  HLO_RETURN_IF_ERROR(requireType(instr, x, instr.shape().type(), "the operand"));
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  if (result.byteSize() != x.byteSize())
    return EvalContext::unsupported(instr, "element counts differ");
  if (x.byteSize() > 0) std::memcpy(result.untypedData(), x.untypedData(), x.byteSize());
  return result;
}

// A reversed dimension is read from its far end with a negative stride.
StatusOr<Literal> evalReverse(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  std::vector<int64_t> strides = rowMajorStrides(x.shape().dims());
  int64_t offset = 0;
  for (int64_t d : instr.attrs().getInts(AttrKey::kDimensions)) {
    int64_t size = x.shape().dim(static_cast<int>(d));
    if (size > 0) offset += (size - 1) * strides[d];
    strides[d] = -strides[d];
  }
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  stridedCopy(x, offset, strides, result);
  return result;
}

// Result element r reads operand element start + r * stride in each dimension.
StatusOr<Literal> evalSlice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const std::vector<SliceDim>& slices = instr.attrs().find(AttrKey::kSlice)->slices;
  std::vector<int64_t> xStrides = rowMajorStrides(x.shape().dims());
  std::vector<int64_t> strides(xStrides.size());
  int64_t offset = 0;
  for (size_t d = 0; d < slices.size(); ++d) {
    offset += slices[d].start * xStrides[d];
    strides[d] = slices[d].stride * xStrides[d];
  }
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  stridedCopy(x, offset, strides, result);
  return result;
}

// Result dimension i is operand dimension dimensions[i].
StatusOr<Literal> evalTranspose(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  std::vector<int64_t> xStrides = rowMajorStrides(x.shape().dims());
  std::vector<int64_t> strides;
  for (int64_t d : instr.attrs().getInts(AttrKey::kDimensions)) strides.push_back(xStrides[d]);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  stridedCopy(x, 0, strides, result);
  return result;
}

}  // namespace hlo::interp
