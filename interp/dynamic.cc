// Dynamic sizes in the interpreter: set-dimension-size, get-dimension-size,
// dynamic-reshape, and every op given an operand with runtime sizes.
//
// The rule, as XLA:CPU runs it (its dynamic padder, from XLA's dynamic
// dimension inference):
//
// - Values carry the dynamism, not the declared shapes. A dimension of an
//   array is dynamic when the value holds a runtime size for it
//   (Literal::setDynamicSize); its value is then the elements below the
//   runtime size, the rest of the storage (up to the bound) being padding,
//   whose contents XLA leaves unspecified. set-dimension-size makes a
//   dimension dynamic (static again when its size is a constant equal to the
//   bound, as XLA does), dynamic-reshape makes its result's `<=` dimensions
//   dynamic, and the ops below pass dynamic dimensions on. A module's
//   parameters are static unless the caller gives runtime sizes.
// - An op computes on its operands' values, that is, on arrays of their
//   runtime shapes, and its result's dimensions are dynamic where XLA's
//   inference makes them so (the rules by op below). The result is stored
//   at its declared bounds, zero past its runtime sizes. So a reduce sees
//   only the valid elements, a pad pads the valid region, a reshape reshapes
//   the valid elements in row-major order, and so on.
// - Operands that must agree in a dimension (elementwise operands, the
//   contracting dimensions of a dot, ...): a static one adopts the runtime
//   size of the dynamic ones (XLA computes at the bound and reads only that
//   far), and dynamic ones must have equal sizes, except that for a binary
//   elementwise op XLA broadcasts a dynamic size of 1 against a larger one,
//   and otherwise takes the smaller.
// - set-dimension-size changes only the size, never the data: growing a size
//   exposes whatever the storage holds there (the operand's elements for an
//   array that was static, zeros past a computed result's runtime size; XLA
//   leaves them unspecified). A size outside [0, bound] is an error.
// - get-dimension-size answers a dynamic dimension's runtime size. Of a
//   dimension its operand's declared shape calls static it answers the
//   declared size: XLA folds it so, even where an ill-typed set-dimension-size
//   (declared static) made the value dynamic.
// - An op with no rule here is refused when an operand has a runtime size
//   below its bound; when every runtime size is at its bound it runs as on
//   static values (its result is static). So are the cases a rule cannot
//   answer without reading padding (a slice past a runtime size, ...).
#include <algorithm>

#include "hlo/indexing.h"
#include "interp/data_checks.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// Whether an array of `v` (tuples recursively) passes `test`: runtime sizes
// (Literal::hasDynamicSizes) or padding (Literal::hasPadding).
bool anyArray(const Literal& v, bool (Literal::*test)() const) {
  if (!v.shape().isTuple()) return (v.*test)();
  for (const Literal& e : v.tupleElements())
    if (anyArray(e, test)) return true;
  return false;
}

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

Status refuse(const Instruction& instr, const std::string& why) { return EvalContext::unsupported(instr, why); }

// One dimension of an operand: its runtime size and whether it is dynamic.
struct Size {
  int64_t size;
  bool dynamic;
};

Size sizeOf(const Literal& v, int d) { return {v.dimSize(d), v.isDynamicDim(d)}; }

// The size several operands share in one dimension: the dynamic ones' (which
// must agree), else the static one. `binary`: XLA's rule for the two operands
// of a binary elementwise op, which broadcasts a dynamic size of 1 against a
// larger one and otherwise takes the smaller.
StatusOr<Size> agree(const Instruction& instr, const std::vector<Size>& sizes, int dim, bool binary = false) {
  std::vector<int64_t> dynamic;
  for (const Size& s : sizes)
    if (s.dynamic) dynamic.push_back(s.size);
  if (dynamic.empty()) return Size{sizes.empty() ? 0 : sizes[0].size, false};
  if (binary && dynamic.size() == 2 && dynamic[0] != dynamic[1]) {
    int64_t lo = std::min(dynamic[0], dynamic[1]), hi = std::max(dynamic[0], dynamic[1]);
    return Size{lo == 1 ? hi : lo, true};
  }
  for (int64_t s : dynamic)
    if (s != dynamic[0])
      return refuse(instr, "operands have runtime sizes " + std::to_string(dynamic[0]) + " and " +
                                      std::to_string(s) + " in dimension " + std::to_string(dim) +
                                      ", which must agree");
  return Size{dynamic[0], true};
}

// The runtime shape `ops` agree on, dimension by dimension (agree()):
// operands of another rank than `rank` (an elementwise op's scalars) take
// no part, and dimension `skip` is left 0 and static (concatenate's).
struct Agreed {
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
};
StatusOr<Agreed> agreedShape(const Instruction& instr, Operands ops, int rank, bool binary = false, int skip = -1) {
  Agreed a{std::vector<int64_t>(rank, 0), std::vector<bool>(rank, false)};
  for (int d = 0; d < rank; ++d) {
    if (d == skip) continue;
    std::vector<Size> sizes;
    for (const Literal* o : ops)
      if (o->shape().rank() == rank) sizes.push_back(sizeOf(*o, d));
    HLO_ASSIGN_OR_RETURN(Size s, agree(instr, sizes, d, binary));
    a.dims[d] = s.size;
    a.dynamic[d] = s.dynamic;
  }
  return a;
}

// The value of `v` (its runtime shape) cut or broadcast to `want`: a longer
// dimension keeps its leading elements, a dimension of size 1 is repeated.
Literal fit(const Literal& v, const std::vector<int64_t>& want) {
  Literal value = v.compact();
  if (value.shape().dims() == want) return value;
  Literal out(Shape(value.type(), want));
  const std::vector<int64_t>& have = value.shape().dims();
  std::vector<int64_t> strides = rowMajorStrides(have);
  forEachIndex(want, [&](const std::vector<int64_t>& r, int64_t linear) {
    int64_t from = 0;
    for (size_t d = 0; d < r.size(); ++d) from += (have[d] == 1 ? 0 : r[d]) * strides[d];
    copyElement(value, from, out, linear);
  });
  return out;
}

// Runs `instr`'s op on static `operands` with `attrs`, its result (each array
// of a tuple) of sizes `dims`, and stores the result at the declared bounds
// with the dimensions `dynamic` names dynamic.
StatusOr<Literal> runOnValues(EvalContext& ctx, const Instruction& instr, const std::vector<Literal>& operands,
                              const std::vector<int64_t>& dims, const std::vector<bool>& dynamic,
                              const Attributes& attrs) {
  const Shape& bound = instr.shape().isTuple() ? instr.shape().tupleElement(0) : instr.shape();
  bool fits = bound.isArray() && static_cast<int>(dims.size()) == bound.rank();
  for (size_t d = 0; fits && d < dims.size(); ++d) fits = dims[d] >= 0 && dims[d] <= bound.dim(static_cast<int>(d));
  if (!fits)
    return errorStatus("internal error: runtime sizes " + dimsText(dims) + " do not fit " + bound.toString(false),
                       instr.loc());
  Computation scratch("runtime-shapes");
  std::vector<Instruction*> params;
  for (size_t i = 0; i < operands.size(); ++i) {
    auto p = std::make_unique<Instruction>(Opcode::kParameter, "operand." + std::to_string(i), operands[i].shape());
    p->setParameterNumber(static_cast<int64_t>(i));
    params.push_back(scratch.add(std::move(p)));
  }
  auto runtimeShape = [&](const Shape& declared) {
    return declared.isArray() ? Shape(declared.type(), dims) : declared;
  };
  Shape shape = instr.shape();
  if (shape.isTuple()) {
    std::vector<Shape> elements;
    for (const Shape& e : shape.tupleElements()) elements.push_back(runtimeShape(e));
    shape = Shape::tuple(std::move(elements));
  } else {
    shape = runtimeShape(shape);
  }
  Instruction* op = scratch.add(instr.opcode(), instr.name(), shape, params);
  op->attrs() = attrs;
  op->setLoc(instr.loc());
  std::vector<const Literal*> pointers;
  for (const Literal& o : operands) pointers.push_back(&o);
  HLO_ASSIGN_OR_RETURN(Literal value, evalStaticOp(ctx, *op, Operands(pointers.data(), pointers.size())));
  if (!instr.shape().isTuple()) return Literal::expand(value, instr.shape(), dynamic);
  Literal result(instr.shape());
  for (size_t i = 0; i < value.tupleElements().size(); ++i)
    result.tupleElements()[i] = instr.shape().tupleElement(static_cast<int>(i)).isArray()
                                    ? Literal::expand(value.tupleElements()[i],
                                                      instr.shape().tupleElement(static_cast<int>(i)), dynamic)
                                    : std::move(value.tupleElements()[i]);
  return result;
}

// ---- the rules, one per op family -------------------------------------------

// Elementwise ops (and copy): every non-scalar operand agrees in every
// dimension; scalars (clamp's bounds, ...) take no part.
StatusOr<Literal> elementwise(EvalContext& ctx, const Instruction& instr, Operands ops) {
  int rank = instr.shape().rank();
  HLO_ASSIGN_OR_RETURN(Agreed a, agreedShape(instr, ops, rank, opcodeArity(instr.opcode()) == 2));
  std::vector<Literal> operands;
  for (const Literal* o : ops) operands.push_back(o->shape().rank() == rank ? fit(*o, a.dims) : o->compact());
  return runOnValues(ctx, instr, operands, a.dims, a.dynamic, instr.attrs());
}

// Result dimension dimensions[i] is operand dimension i; the others are static.
StatusOr<Literal> broadcast(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const std::vector<int64_t>& map = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size());
  for (size_t i = 0; i < map.size(); ++i) {
    dims[map[i]] = ops[0]->dimSize(static_cast<int>(i));
    dynamic[map[i]] = ops[0]->isDynamicDim(static_cast<int>(i));
  }
  return runOnValues(ctx, instr, {ops[0]->compact()}, dims, dynamic, instr.attrs());
}

// Result dimension i is operand dimension permutation[i].
StatusOr<Literal> transpose(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const std::vector<int64_t>& perm = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> dims(perm.size());
  std::vector<bool> dynamic(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    dims[i] = ops[0]->dimSize(static_cast<int>(perm[i]));
    dynamic[i] = ops[0]->isDynamicDim(static_cast<int>(perm[i]));
  }
  return runOnValues(ctx, instr, {ops[0]->compact()}, dims, dynamic, instr.attrs());
}

// The same dimensions as the operand (reverse: the valid elements reversed).
StatusOr<Literal> sameDims(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Literal& x = *ops[0];
  std::vector<bool> dynamic(x.shape().rank());
  for (int d = 0; d < x.shape().rank(); ++d) dynamic[d] = x.isDynamicDim(d);
  return runOnValues(ctx, instr, {x.compact()}, x.runtimeDims(), dynamic, instr.attrs());
}

// Groups of operand and result dimensions with equal products of bounds,
// as small as possible, and none without dimensions on either side (a
// size-1 dimension joins its neighbour): [begin, end) of each.
struct Group {
  size_t inBegin, inEnd, outBegin, outEnd;
};

std::vector<Group> reshapeGroups(const std::vector<int64_t>& in, const std::vector<int64_t>& out) {
  std::vector<Group> groups;
  size_t i = 0, j = 0;
  while (i < in.size() || j < out.size()) {
    Group g{i, i, j, j};
    int64_t a = 1, b = 1;
    // Take at least one dimension from each side that has any left, then
    // more from the smaller product until the products meet.
    if (i < in.size()) a *= in[i++];
    if (j < out.size()) b *= out[j++];
    while (a != b && (i < in.size() || j < out.size())) {
      if ((a < b && i < in.size()) || j == out.size()) a *= in[i++];
      else b *= out[j++];
    }
    g.inEnd = i;
    g.outEnd = j;
    groups.push_back(g);
  }
  // A group empty on one side (trailing size-1 dimensions) joins the one before.
  for (size_t k = groups.size(); k-- > 1;) {
    Group& g = groups[k];
    if (g.inBegin == g.inEnd || g.outBegin == g.outEnd) {
      groups[k - 1].inEnd = g.inEnd;
      groups[k - 1].outEnd = g.outEnd;
      groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  return groups;
}

// The valid elements in row-major order, reshaped. Each group of dimensions
// (reshapeGroups) holding dynamic operand dimensions gives its runtime
// element count to one result dimension: the group's one `<=` dimension, or
// else its one dimension larger than 1, or its only one; its size is that
// count over the other dimensions' sizes, which must divide it.
StatusOr<Literal> reshape(const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const Shape& out = instr.shape();
  std::vector<int64_t> dims = out.dims();
  std::vector<bool> dynamic(dims.size(), false);
  if (product(x.shape().dims(), 0, x.shape().rank()) != 0) {
    std::vector<int64_t> in = x.runtimeDims();
    for (const Group& g : reshapeGroups(x.shape().dims(), out.dims())) {
      bool anyDynamicIn = false;
      for (size_t i = g.inBegin; i < g.inEnd; ++i) anyDynamicIn = anyDynamicIn || x.isDynamicDim(static_cast<int>(i));
      if (!anyDynamicIn) continue;
      std::vector<size_t> declared, large;
      for (size_t o = g.outBegin; o < g.outEnd; ++o) {
        if (out.isDynamicDim(static_cast<int>(o))) declared.push_back(o);
        if (out.dim(static_cast<int>(o)) > 1) large.push_back(o);
      }
      size_t k;
      if (declared.size() == 1) k = declared[0];
      else if (declared.empty() && large.size() == 1) k = large[0];
      else if (g.outEnd - g.outBegin == 1) k = g.outBegin;
      else
        return refuse(instr, "cannot tell which result dimension in " + std::to_string(g.outBegin) + ".." +
                                 std::to_string(g.outEnd - 1) + " takes the runtime size of operand dimensions " +
                                 std::to_string(g.inBegin) + ".." + std::to_string(g.inEnd - 1));
      int64_t count = product(in, g.inBegin, g.inEnd);
      int64_t rest = product(out.dims(), g.outBegin, g.outEnd) / out.dim(static_cast<int>(k));
      if (rest == 0 || count % rest != 0 || count / rest > out.dim(static_cast<int>(k)))
        return refuse(instr, "the operand's runtime shape " + dimsText(in) + " does not reshape into " +
                                 out.toString(false) + ": " + std::to_string(count) +
                                 " elements do not fill whole rows of dimension " + std::to_string(k));
      dims[k] = count / rest;
      dynamic[k] = true;
    }
  }
  Literal value = x.compact();
  value.mutableShape() = Shape(value.type(), dims);  // row-major: the same bytes
  return Literal::expand(value, out, dynamic);
}

// The concatenated dimension's runtime size is the sum of the operands';
// the other dimensions agree.
StatusOr<Literal> concatenate(EvalContext& ctx, const Instruction& instr, Operands ops) {
  int cat = static_cast<int>(instr.attrs().getInts(AttrKey::kDimensions)[0]);
  int rank = instr.shape().rank();
  HLO_ASSIGN_OR_RETURN(Agreed a, agreedShape(instr, ops, rank, false, cat));
  std::vector<int64_t>& dims = a.dims;
  std::vector<bool>& dynamic = a.dynamic;
  std::vector<Literal> operands;
  for (const Literal* o : ops) {
    std::vector<int64_t> want = dims;
    want[cat] = o->dimSize(cat);
    dims[cat] += want[cat];
    dynamic[cat] = dynamic[cat] || o->isDynamicDim(cat);
    operands.push_back(fit(*o, want));
  }
  return runOnValues(ctx, instr, operands, dims, dynamic, instr.attrs());
}

// A dynamic dimension of size s pads to low + high + s + max(s - 1, 0) * interior.
StatusOr<Literal> pad(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  if (ops[1]->hasDynamicSizes()) return refuse(instr, "the padding value is dynamic");
  const Literal& x = *ops[0];
  const std::vector<PadDim>& pads = instr.attrs().find(AttrKey::kPadding)->padding;
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  for (int d = 0; d < x.shape().rank(); ++d) {
    if (!x.isDynamicDim(d)) continue;
    int64_t s = x.dimSize(d);
    dims[d] = pads[d].low + pads[d].high + s + std::max<int64_t>(s - 1, 0) * pads[d].interior;
    if (dims[d] < 0) return refuse(instr, "dimension " + std::to_string(d) + " pads to a negative size");
    dynamic[d] = true;
  }
  return runOnValues(ctx, instr, {x.compact(), ops[1]->compact()}, dims, dynamic, instr.attrs());
}

// A slice of a whole dynamic dimension ([0:bound:1]) keeps it dynamic (all of
// its valid elements); any other slice of it is static and must read only
// valid elements.
StatusOr<Literal> slice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  Attributes attrs = instr.attrs();
  std::vector<SliceDim>& slices = attrs.find(AttrKey::kSlice)->slices;
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  for (int d = 0; d < x.shape().rank(); ++d) {
    if (!x.isDynamicDim(d)) continue;
    int64_t s = x.dimSize(d);
    SliceDim& sd = slices[d];
    if (sd.start == 0 && sd.stride == 1 && sd.limit == x.shape().dim(d)) {
      sd.limit = s;
      dims[d] = s;
      dynamic[d] = true;
    } else if (dims[d] > 0 && sd.start + (dims[d] - 1) * sd.stride >= s) {
      return refuse(instr, "the slice [" + std::to_string(sd.start) + ":" + std::to_string(sd.limit) +
                               "] of dimension " + std::to_string(d) + " reads past its runtime size " +
                               std::to_string(s) + ", into padding");
    }
  }
  return runOnValues(ctx, instr, {x.compact()}, dims, dynamic, attrs);
}

// The start indices of dynamic-slice and dynamic-update-slice from operand
// `first` on, clamped (as XLA does) against the bounds.
std::vector<int64_t> startsAt(Operands ops, size_t first, const std::vector<int64_t>& bounds,
                              const std::vector<int64_t>& sizes) {
  std::vector<int64_t> starts(bounds.size(), 0);
  bool vectorForm = ops.size() == first + 1 && ops[first]->shape().rank() == 1;
  for (size_t d = 0; d < bounds.size(); ++d) {
    int64_t value = vectorForm ? integerAt(*ops[first], static_cast<int64_t>(d)) : integerAt(*ops[first + d], 0);
    starts[d] = clampIndex(value, 0, bounds[d] - sizes[d]);
  }
  return starts;
}

// A dynamic-slice of a whole dynamic dimension keeps it dynamic; a smaller
// one is static and must lie within the runtime size.
StatusOr<Literal> dynamicSlice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  for (size_t i = 1; i < ops.size(); ++i)
    if (ops[i]->hasPadding()) return refuse(instr, "the start indices are dynamic");
  Attributes attrs = instr.attrs();
  std::vector<int64_t>& sizes = attrs.find(AttrKey::kDynamicSliceSizes)->ints;
  std::vector<int64_t> starts = startsAt(ops, 1, x.shape().dims(), sizes);
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  for (int d = 0; d < x.shape().rank(); ++d) {
    if (!x.isDynamicDim(d)) continue;
    int64_t s = x.dimSize(d);
    if (sizes[d] == x.shape().dim(d)) {
      sizes[d] = dims[d] = s;
      dynamic[d] = true;
    } else if (starts[d] + sizes[d] > s) {
      return refuse(instr, "the slice [" + std::to_string(starts[d]) + ":" + std::to_string(starts[d] + sizes[d]) +
                               "] of dimension " + std::to_string(d) + " reads past its runtime size " +
                               std::to_string(s) + ", into padding");
    }
  }
  std::vector<Literal> operands;
  for (const Literal* o : ops) operands.push_back(o->compact());
  return runOnValues(ctx, instr, operands, dims, dynamic, attrs);
}

// The update (static) must land within the operand's runtime sizes; the
// result keeps the operand's.
StatusOr<Literal> dynamicUpdateSlice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const Literal& update = *ops[1];
  for (size_t i = 1; i < ops.size(); ++i)
    if (ops[i]->hasPadding())
      return refuse(instr, i == 1 ? "the update is dynamic" : "the start indices are dynamic");
  std::vector<int64_t> starts = startsAt(ops, 2, x.shape().dims(), update.shape().dims());
  std::vector<bool> dynamic(x.shape().rank());
  for (int d = 0; d < x.shape().rank(); ++d) {
    dynamic[d] = x.isDynamicDim(d);
    if (starts[d] + update.shape().dim(d) > x.dimSize(d))
      return refuse(instr, "the update at [" + std::to_string(starts[d]) + ":" +
                               std::to_string(starts[d] + update.shape().dim(d)) + "] of dimension " +
                               std::to_string(d) + " reaches past its runtime size " +
                               std::to_string(x.dimSize(d)) + ", into padding");
  }
  std::vector<Literal> operands;
  for (const Literal* o : ops) operands.push_back(o->compact());
  return runOnValues(ctx, instr, operands, x.runtimeDims(), dynamic, instr.attrs());
}

// The inputs agree; the kept dimensions keep their runtime sizes and only
// the valid elements are reduced.
StatusOr<Literal> reduce(EvalContext& ctx, const Instruction& instr, Operands ops) {
  size_t inputs = ops.size() / 2;
  for (size_t i = inputs; i < ops.size(); ++i)
    if (ops[i]->hasDynamicSizes()) return refuse(instr, "an init value is dynamic");
  int rank = ops[0]->shape().rank();
  HLO_ASSIGN_OR_RETURN(Agreed agreed, agreedShape(instr, ops.first(inputs), rank));
  const std::vector<int64_t>& in = agreed.dims;
  const std::vector<bool>& inDynamic = agreed.dynamic;
  const std::vector<int64_t>& reduced = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int d = 0; d < rank; ++d)
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) {
      dims.push_back(in[d]);
      dynamic.push_back(inDynamic[d]);
    }
  std::vector<Literal> operands;
  for (size_t i = 0; i < ops.size(); ++i) operands.push_back(i < inputs ? fit(*ops[i], in) : ops[i]->compact());
  return runOnValues(ctx, instr, operands, dims, dynamic, instr.attrs());
}

// A dynamic dimension's windows must be unpadded and undilated (XLA counts
// the valid windows of the runtime size: (size - window) / stride + 1).
StatusOr<Literal> reduceWindow(EvalContext& ctx, const Instruction& instr, Operands ops) {
  size_t inputs = ops.size() / 2;
  for (size_t i = inputs; i < ops.size(); ++i)
    if (ops[i]->hasDynamicSizes()) return refuse(instr, "an init value is dynamic");
  const std::vector<WindowDim>& window = instr.attrs().find(AttrKey::kWindow)->window;
  int rank = ops[0]->shape().rank();
  HLO_ASSIGN_OR_RETURN(Agreed agreed, agreedShape(instr, ops.first(inputs), rank));
  const std::vector<int64_t>& in = agreed.dims;
  const std::vector<bool>& dynamic = agreed.dynamic;
  const Shape& first = instr.shape().isTuple() ? instr.shape().tupleElement(0) : instr.shape();
  std::vector<int64_t> dims(rank);
  for (int d = 0; d < rank; ++d) {
    dims[d] = first.dim(d);
    if (!dynamic[d]) continue;
    const WindowDim& w = window[d];
    if (w.padLow != 0 || w.padHigh != 0 || w.baseDilation != 1 || w.windowDilation != 1)
      return refuse(instr, "dimension " + std::to_string(d) + " is dynamic and its window is padded or dilated");
    dims[d] = in[d] < w.size ? 0 : (in[d] - w.size) / w.stride + 1;
  }
  std::vector<Literal> operands;
  for (size_t i = 0; i < ops.size(); ++i) operands.push_back(i < inputs ? fit(*ops[i], in) : ops[i]->compact());
  return runOnValues(ctx, instr, operands, dims, dynamic, instr.attrs());
}

// The operands agree; only the valid elements are sorted.
StatusOr<Literal> sort(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(Agreed a, agreedShape(instr, ops, ops[0]->shape().rank()));
  std::vector<Literal> operands;
  for (const Literal* o : ops) operands.push_back(fit(*o, a.dims));
  return runOnValues(ctx, instr, operands, a.dims, a.dynamic, instr.attrs());
}

// Batch and contracting dimensions agree pairwise (only the valid part of a
// dynamic contracting dimension is summed); the result's batch dimensions,
// then the lhs's free ones, then the rhs's, keep their runtime sizes.
StatusOr<Literal> dot(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const Attributes& a = instr.attrs();
  const Literal& lhs = *ops[0];
  const Literal& rhs = *ops[1];
  std::vector<int64_t> lhsDims = lhs.runtimeDims(), rhsDims = rhs.runtimeDims();
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  auto pairUp = [&](AttrKey lk, AttrKey rk, bool keep) -> Status {
    const std::vector<int64_t>& l = a.getInts(lk);
    const std::vector<int64_t>& r = a.getInts(rk);
    for (size_t i = 0; i < l.size() && i < r.size(); ++i) {
      int ld = static_cast<int>(l[i]), rd = static_cast<int>(r[i]);
      HLO_ASSIGN_OR_RETURN(Size s, agree(instr, {sizeOf(lhs, ld), sizeOf(rhs, rd)}, ld));
      lhsDims[ld] = rhsDims[rd] = s.size;
      if (keep) {
        dims.push_back(s.size);
        dynamic.push_back(s.dynamic);
      }
    }
    return okStatus();
  };
  HLO_RETURN_IF_ERROR(pairUp(AttrKey::kLhsBatchDims, AttrKey::kRhsBatchDims, true));
  HLO_RETURN_IF_ERROR(pairUp(AttrKey::kLhsContractingDims, AttrKey::kRhsContractingDims, false));
  auto free = [&](const Literal& v, AttrKey batch, AttrKey contracting) {
    const std::vector<int64_t>& b = a.getInts(batch);
    const std::vector<int64_t>& c = a.getInts(contracting);
    for (int d = 0; d < v.shape().rank(); ++d)
      if (std::find(b.begin(), b.end(), d) == b.end() && std::find(c.begin(), c.end(), d) == c.end()) {
        dims.push_back(v.dimSize(d));
        dynamic.push_back(v.isDynamicDim(d));
      }
  };
  free(lhs, AttrKey::kLhsBatchDims, AttrKey::kLhsContractingDims);
  free(rhs, AttrKey::kRhsBatchDims, AttrKey::kRhsContractingDims);
  if (static_cast<int>(dims.size()) != instr.shape().rank()) return refuse(instr, "unexpected result rank");
  return runOnValues(ctx, instr, {fit(lhs, lhsDims), fit(rhs, rhsDims)}, dims, dynamic, a);
}

// Dynamic start indices: the result's batch dimensions (those not in
// offset_dims, in order) take the runtime sizes of the indices' dimensions
// (index_vector_dim left out). The operand must have no padding.
StatusOr<Literal> gather(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops[0]->hasPadding()) return refuse(instr, "the operand is dynamic");
  const Literal& indices = *ops[1];
  const Attributes& a = instr.attrs();
  int64_t indexVectorDim = a.getInt(AttrKey::kIndexVectorDim);
  if (indexVectorDim < indices.shape().rank() && indices.dimSize(static_cast<int>(indexVectorDim)) <
                                                     indices.shape().dim(static_cast<int>(indexVectorDim)))
    return refuse(instr, "the index vector dimension is dynamic");
  const std::vector<int64_t>& offsetDims = a.getInts(AttrKey::kOffsetDims);
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  int next = 0;
  for (int o = 0; o < instr.shape().rank(); ++o) {
    if (std::find(offsetDims.begin(), offsetDims.end(), o) != offsetDims.end()) continue;
    if (next == indexVectorDim) ++next;
    dims[o] = indices.dimSize(next);
    dynamic[o] = indices.isDynamicDim(next);
    ++next;
  }
  return runOnValues(ctx, instr, {ops[0]->compact(), indices.compact()}, dims, dynamic, a);
}

// Dynamic indices and updates: only the valid updates apply. The indices'
// dimensions (index_vector_dim left out) agree with the updates' scatter
// dimensions (those not in update_window_dims, in order); the operands must
// have no padding, and the result is static.
StatusOr<Literal> scatter(EvalContext& ctx, const Instruction& instr, Operands ops) {
  size_t n = ops.size() / 2;
  for (size_t i = 0; i < n; ++i)
    if (ops[i]->hasPadding()) return refuse(instr, "an operand is dynamic");
  const Literal& indices = *ops[n];
  const Attributes& a = instr.attrs();
  int64_t indexVectorDim = a.getInt(AttrKey::kIndexVectorDim);
  const std::vector<int64_t>& windowDims = a.getInts(AttrKey::kUpdateWindowDims);
  std::vector<int64_t> indexDims = indices.runtimeDims();
  std::vector<std::vector<int64_t>> updateDims;
  for (size_t i = n + 1; i < ops.size(); ++i) updateDims.push_back(ops[i]->runtimeDims());
  if (indexVectorDim < indices.shape().rank() && indices.dimSize(static_cast<int>(indexVectorDim)) <
                                                     indices.shape().dim(static_cast<int>(indexVectorDim)))
    return refuse(instr, "the index vector dimension is dynamic");
  int next = 0;
  for (int u = 0; u < ops[n + 1]->shape().rank(); ++u) {
    bool window = std::find(windowDims.begin(), windowDims.end(), u) != windowDims.end();
    if (window) {
      for (size_t i = n + 1; i < ops.size(); ++i)
        if (ops[i]->dimSize(u) < ops[i]->shape().dim(u))
          return refuse(instr, "update window dimension " + std::to_string(u) + " is dynamic");
      continue;
    }
    if (next == indexVectorDim) ++next;
    std::vector<Size> sizes = {sizeOf(indices, next)};
    for (size_t i = n + 1; i < ops.size(); ++i) sizes.push_back(sizeOf(*ops[i], u));
    HLO_ASSIGN_OR_RETURN(Size s, agree(instr, sizes, u));
    indexDims[next] = s.size;
    for (auto& dims : updateDims) dims[u] = s.size;
    ++next;
  }
  std::vector<Literal> operands;
  for (size_t i = 0; i < n; ++i) operands.push_back(ops[i]->compact());
  operands.push_back(fit(indices, indexDims));
  for (size_t i = n + 1; i < ops.size(); ++i) operands.push_back(fit(*ops[i], updateDims[i - n - 1]));
  const Shape& first = instr.shape().isTuple() ? instr.shape().tupleElement(0) : instr.shape();
  return runOnValues(ctx, instr, operands, first.dims(), std::vector<bool>(first.rank(), false), a);
}

}  // namespace

bool takesDynamicRules(const Instruction& instr, Operands ops) {
  switch (instr.opcode()) {
    // These pass values on whole (their dynamic sizes with them), or are the
    // dynamic-size ops themselves.
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple: case Opcode::kGetTupleElement:
    case Opcode::kCall: case Opcode::kFusion: case Opcode::kWhile: case Opcode::kConditional:
    case Opcode::kOptimizationBarrier: case Opcode::kAddDependency: case Opcode::kDomain:
    case Opcode::kAfterAll: case Opcode::kSetDimensionSize: case Opcode::kGetDimensionSize:
    case Opcode::kDynamicReshape:
      return false;
    default:
      break;
  }
  for (const Literal* o : ops)
    if (anyArray(*o, &Literal::hasDynamicSizes)) return true;
  return false;
}

StatusOr<Literal> evalWithDynamicSizes(EvalContext& ctx, const Instruction& instr, Operands ops) {
  Opcode op = instr.opcode();
  if (opcodeCategory(op) == OpCategory::kElementwise || op == Opcode::kCopy) {
    if (op == Opcode::kBitcastConvert && instr.shape().rank() != ops[0]->shape().rank()) {
      // A width-changing bitcast-convert adds or drops a dimension: no rule.
    } else {
      return elementwise(ctx, instr, ops);
    }
  }
  switch (op) {
    case Opcode::kBroadcast: return broadcast(ctx, instr, ops);
    case Opcode::kTranspose: return transpose(ctx, instr, ops);
    case Opcode::kReverse: return sameDims(ctx, instr, ops);
    case Opcode::kReshape: return reshape(instr, ops);
    case Opcode::kConcatenate: return concatenate(ctx, instr, ops);
    case Opcode::kPad: return pad(ctx, instr, ops);
    case Opcode::kSlice: return slice(ctx, instr, ops);
    case Opcode::kDynamicSlice: return dynamicSlice(ctx, instr, ops);
    case Opcode::kDynamicUpdateSlice: return dynamicUpdateSlice(ctx, instr, ops);
    case Opcode::kReduce: return reduce(ctx, instr, ops);
    case Opcode::kReduceWindow: return reduceWindow(ctx, instr, ops);
    case Opcode::kSort: return sort(ctx, instr, ops);
    case Opcode::kDot: return dot(ctx, instr, ops);
    case Opcode::kGather: return gather(ctx, instr, ops);
    case Opcode::kScatter: return scatter(ctx, instr, ops);
    default:
      break;
  }
  // No rule: only values at their bounds, which run as static ones.
  for (size_t i = 0; i < ops.size(); ++i)
    if (anyArray(*ops[i], &Literal::hasPadding))
      return refuse(instr, "operand " + std::to_string(i) + " has runtime sizes below its bounds (" +
                               (ops[i]->shape().isArray() ? dimsText(ops[i]->runtimeDims()) + " of " +
                                                                ops[i]->shape().toString(false)
                                                          : std::string("inside a tuple")) +
                               "), which this op does not model");
  return evalStaticOp(ctx, instr, ops);
}

// Sets the runtime size of one dimension; the data stay as they are.
StatusOr<Literal> evalSetDimensionSize(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  int dim = static_cast<int>(instr.attrs().getInts(AttrKey::kDimensions)[0]);
  const Literal& x = *ops[0];
  int64_t bound = x.shape().dim(dim);
  int64_t size = integerAt(*ops[1], 0);
  if (size < 0 || size > bound)
    return errorStatus("set-dimension-size '" + instr.name() + "': size " + std::to_string(size) +
                           " is outside [0, " + std::to_string(bound) + "], the bound of dimension " +
                           std::to_string(dim),
                       instr.loc());
  Literal result = x;
  result.mutableShape() = instr.shape();
  for (int d = 0; d < x.shape().rank(); ++d)
    if (d != dim && x.isDynamicDim(d)) result.setDynamicSize(d, x.dimSize(d));
  // XLA keeps a dimension static whose size is a constant equal to its bound.
  bool staticSize = instr.operand(1)->opcode() == Opcode::kConstant && size == bound;
  if (staticSize) result.setStaticDim(dim);
  else result.setDynamicSize(dim, size);
  return result;
}

// The runtime size of a dynamic dimension, the declared size of a static one.
StatusOr<Literal> evalGetDimensionSize(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  int dim = static_cast<int>(instr.attrs().getInts(AttrKey::kDimensions)[0]);
  const Literal& x = *ops[0];
  int64_t size = instr.operand(0)->shape().isDynamicDim(dim) ? x.dimSize(dim) : x.shape().dim(dim);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  result.setBitsAt(0, static_cast<uint32_t>(size));
  return result;
}

// The valid elements in row-major order, in an array of the given sizes:
// the runtime sizes of the result's `<=` dimensions (each at most its
// bound); a static dimension's size must be its bound, and the sizes must
// hold exactly the operand's valid elements.
StatusOr<Literal> evalDynamicReshape(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const Shape& out = instr.shape();
  std::vector<int64_t> dims(out.rank());
  std::vector<bool> dynamic(out.rank());
  for (int d = 0; d < out.rank(); ++d) {
    if (ops[d + 1]->hasDynamicSizes()) return refuse(instr, "a size operand is dynamic");
    dims[d] = integerAt(*ops[d + 1], 0);
    dynamic[d] = out.isDynamicDim(d);
    if (dims[d] < 0 || dims[d] > out.dim(d) || (!dynamic[d] && dims[d] != out.dim(d)))
      return errorStatus("dynamic-reshape '" + instr.name() + "': size " + std::to_string(dims[d]) +
                             " of dimension " + std::to_string(d) + " is not " +
                             (dynamic[d] ? "within its bound " : "its static size ") + std::to_string(out.dim(d)),
                         instr.loc());
  }
  std::vector<int64_t> in = x.runtimeDims();
  int64_t have = product(in, 0, in.size()), want = product(dims, 0, dims.size());
  if (have != want)
    return errorStatus("dynamic-reshape '" + instr.name() + "': sizes " + dimsText(dims) + " hold " +
                           std::to_string(want) + " elements but the operand's runtime shape " + dimsText(in) +
                           " has " + std::to_string(have),
                       instr.loc());
  Literal value = x.compact();
  value.mutableShape() = Shape(value.type(), dims);  // row-major: the same bytes
  return Literal::expand(value, out, dynamic);
}

}  // namespace hlo::interp
