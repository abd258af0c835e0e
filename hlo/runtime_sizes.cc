// The runtime-size rules, one per op family (interp/dynamic.cc states the
// model they implement).
#include "hlo/runtime_sizes.h"

#include <algorithm>

#include "hlo/indexing.h"
#include "hlo/opcode.h"

namespace hlo {

RuntimeDims RuntimeDims::atBounds(const std::vector<int64_t>& bounds) {
  return {bounds, bounds, std::vector<bool>(bounds.size(), false)};
}

RuntimeDims RuntimeDims::of(const Literal& array) {
  RuntimeDims r{array.shape().dims(), array.runtimeDims(), std::vector<bool>(array.shape().rank(), false)};
  for (int d = 0; d < r.rank(); ++d) r.dynamic[d] = array.isDynamicDim(d);
  return r;
}

bool RuntimeDims::anyDynamic() const { return std::find(dynamic.begin(), dynamic.end(), true) != dynamic.end(); }

bool RuntimeDims::padded() const {
  for (int d = 0; d < rank(); ++d)
    if (sizes[d] < bounds[d]) return true;
  return false;
}

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

namespace {

using Operands = std::span<const RuntimeDims* const>;
using Rule = StatusOr<std::optional<RuntimeRule>>;

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// One dimension of an operand: its runtime size and whether it is dynamic.
struct Size {
  int64_t size;
  bool dynamic;
};

Size sizeOf(const RuntimeDims& x, int d) { return {x.sizes[d], x.dynamic[d]}; }

// The size several operands share in one dimension: the dynamic ones' (which
// must agree), else the static one. `binary`: XLA's rule for the two operands
// of a binary elementwise op, which broadcasts a dynamic size of 1 against a
// larger one and otherwise takes the smaller.
StatusOr<Size> agree(const std::vector<Size>& sizes, int dim, bool binary = false) {
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
      return errorStatus("operands have runtime sizes " + std::to_string(dynamic[0]) + " and " + std::to_string(s) +
                         " in dimension " + std::to_string(dim) + ", which must agree");
  return Size{dynamic[0], true};
}

// The runtime dimensions `ops` agree on, dimension by dimension (agree()):
// operands of another rank than `rank` (an elementwise op's scalars) take
// no part, and dimension `skip` is left 0 and static (concatenate's).
StatusOr<RuntimeDims> agreedDims(Operands ops, int rank, bool binary = false, int skip = -1) {
  RuntimeDims a{std::vector<int64_t>(rank, 0), std::vector<int64_t>(rank, 0), std::vector<bool>(rank, false)};
  for (int d = 0; d < rank; ++d) {
    if (d == skip) continue;
    std::vector<Size> sizes;
    for (const RuntimeDims* o : ops)
      if (o && o->rank() == rank) {
        sizes.push_back(sizeOf(*o, d));
        a.bounds[d] = o->bounds[d];
      }
    HLO_ASSIGN_OR_RETURN(Size s, agree(sizes, d, binary));
    a.sizes[d] = s.size;
    a.dynamic[d] = s.dynamic;
  }
  return a;
}

// A rule whose result has `sizes`, dynamic where `dynamic` says, within the
// declared bounds of `instr` (its first array for a tuple).
Rule ruleOf(const Instruction& instr, std::vector<std::optional<std::vector<int64_t>>> fit,
            std::vector<int64_t> sizes, std::vector<bool> dynamic, Attributes attrs) {
  const Shape& first = instr.shape().isTuple() ? instr.shape().tupleElement(0) : instr.shape();
  return std::optional<RuntimeRule>{RuntimeRule{std::move(fit), RuntimeDims{first.dims(), std::move(sizes), std::move(dynamic)},
                                                std::move(attrs)}};
}

// Every operand as it is.
std::vector<std::optional<std::vector<int64_t>>> asTheyAre(Operands ops) {
  return std::vector<std::optional<std::vector<int64_t>>>(ops.size());
}

// Elementwise ops (and copy): every non-scalar operand agrees in every
// dimension; scalars (clamp's bounds, ...) take no part.
Rule elementwise(const Instruction& instr, Operands ops) {
  int rank = instr.shape().rank();
  HLO_ASSIGN_OR_RETURN(RuntimeDims a, agreedDims(ops, rank, opcodeArity(instr.opcode()) == 2));
  std::vector<std::optional<std::vector<int64_t>>> fit = asTheyAre(ops);
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i] && ops[i]->rank() == rank) fit[i] = a.sizes;
  return ruleOf(instr, std::move(fit), a.sizes, a.dynamic, instr.attrs());
}

// Result dimension dimensions[i] is operand dimension i; the others are static.
Rule broadcast(const Instruction& instr, Operands ops) {
  const std::vector<int64_t>& map = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size());
  for (size_t i = 0; i < map.size(); ++i) {
    dims[map[i]] = ops[0]->sizes[i];
    dynamic[map[i]] = ops[0]->dynamic[i];
  }
  return ruleOf(instr, asTheyAre(ops), dims, dynamic, instr.attrs());
}

// Result dimension i is operand dimension permutation[i].
Rule transpose(const Instruction& instr, Operands ops) {
  const std::vector<int64_t>& perm = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> dims(perm.size());
  std::vector<bool> dynamic(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    dims[i] = ops[0]->sizes[perm[i]];
    dynamic[i] = ops[0]->dynamic[perm[i]];
  }
  return ruleOf(instr, asTheyAre(ops), dims, dynamic, instr.attrs());
}

// The same dimensions as the operand (reverse: the valid elements reversed).
Rule sameDims(const Instruction& instr, Operands ops) {
  return ruleOf(instr, asTheyAre(ops), ops[0]->sizes, ops[0]->dynamic, instr.attrs());
}

// The valid elements in row-major order, reshaped. Each group of dimensions
// (reshapeGroups, hlo/indexing.h) holding dynamic operand dimensions gives its runtime
// element count to one result dimension: the group's one `<=` dimension, or
// else its one dimension larger than 1, or its only one; its size is that
// count over the other dimensions' sizes, which must divide it.
Rule reshape(const Instruction& instr, Operands ops) {
  const RuntimeDims& x = *ops[0];
  const Shape& out = instr.shape();
  std::vector<int64_t> dims = out.dims();
  std::vector<bool> dynamic(dims.size(), false);
  if (product(x.bounds, 0, x.bounds.size()) != 0) {
    for (const ReshapeGroup& g : reshapeGroups(x.bounds, out.dims())) {
      bool anyDynamicIn = false;
      for (size_t i = g.inBegin; i < g.inEnd; ++i) anyDynamicIn = anyDynamicIn || x.dynamic[i];
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
        return errorStatus("cannot tell which result dimension in " + std::to_string(g.outBegin) + ".." +
                           std::to_string(g.outEnd - 1) + " takes the runtime size of operand dimensions " +
                           std::to_string(g.inBegin) + ".." + std::to_string(g.inEnd - 1));
      int64_t count = product(x.sizes, g.inBegin, g.inEnd);
      int64_t rest = product(out.dims(), g.outBegin, g.outEnd) / out.dim(static_cast<int>(k));
      if (rest == 0 || count % rest != 0 || count / rest > out.dim(static_cast<int>(k)))
        return errorStatus("the operand's runtime shape " + dimsText(x.sizes) + " does not reshape into " +
                           out.toString(false) + ": " + std::to_string(count) +
                           " elements do not fill whole rows of dimension " + std::to_string(k));
      dims[k] = count / rest;
      dynamic[k] = true;
    }
  }
  return ruleOf(instr, asTheyAre(ops), dims, dynamic, instr.attrs());
}

// The concatenated dimension's runtime size is the sum of the operands';
// the other dimensions agree.
Rule concatenate(const Instruction& instr, Operands ops) {
  int cat = static_cast<int>(instr.attrs().getInts(AttrKey::kDimensions)[0]);
  int rank = instr.shape().rank();
  HLO_ASSIGN_OR_RETURN(RuntimeDims a, agreedDims(ops, rank, false, cat));
  std::vector<std::optional<std::vector<int64_t>>> fit = asTheyAre(ops);
  for (size_t i = 0; i < ops.size(); ++i) {
    std::vector<int64_t> want = a.sizes;
    want[cat] = ops[i]->sizes[cat];
    a.sizes[cat] += want[cat];
    a.dynamic[cat] = a.dynamic[cat] || ops[i]->dynamic[cat];
    fit[i] = std::move(want);
  }
  return ruleOf(instr, std::move(fit), a.sizes, a.dynamic, instr.attrs());
}

// A dynamic dimension of size s pads to low + high + s + max(s - 1, 0) * interior.
Rule pad(const Instruction& instr, Operands ops) {
  const RuntimeDims& x = *ops[0];
  const std::vector<PadDim>& pads = instr.attrs().find(AttrKey::kPadding)->padding;
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  for (int d = 0; d < x.rank(); ++d) {
    if (!x.dynamic[d]) continue;
    int64_t s = x.sizes[d];
    dims[d] = pads[d].low + pads[d].high + s + std::max<int64_t>(s - 1, 0) * pads[d].interior;
    if (dims[d] < 0) return errorStatus("dimension " + std::to_string(d) + " pads to a negative size");
    dynamic[d] = true;
  }
  return ruleOf(instr, asTheyAre(ops), dims, dynamic, instr.attrs());
}

// A slice of a whole dynamic dimension ([0:bound:1]) keeps it dynamic (all of
// its valid elements); any other slice of it is static and must read only
// valid elements.
Rule slice(const Instruction& instr, Operands ops) {
  const RuntimeDims& x = *ops[0];
  Attributes attrs = instr.attrs();
  std::vector<SliceDim>& slices = attrs.find(AttrKey::kSlice)->slices;
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  for (int d = 0; d < x.rank(); ++d) {
    if (!x.dynamic[d]) continue;
    int64_t s = x.sizes[d];
    SliceDim& sd = slices[d];
    if (sd.start == 0 && sd.stride == 1 && sd.limit == x.bounds[d]) {
      sd.limit = s;
      dims[d] = s;
      dynamic[d] = true;
    } else if (dims[d] > 0 && sd.start + (dims[d] - 1) * sd.stride >= s) {
      return errorStatus("the slice [" + std::to_string(sd.start) + ":" + std::to_string(sd.limit) +
                         "] of dimension " + std::to_string(d) + " reads past its runtime size " +
                         std::to_string(s) + ", into padding");
    }
  }
  return ruleOf(instr, asTheyAre(ops), dims, dynamic, std::move(attrs));
}

// A dynamic-slice of a whole dynamic dimension keeps it dynamic; a smaller
// one is static and must lie within the runtime size (where it starts is
// data: the engine checks that).
Rule dynamicSlice(const Instruction& instr, Operands ops) {
  const RuntimeDims& x = *ops[0];
  for (size_t i = 1; i < ops.size(); ++i)
    if (ops[i]->padded()) return errorStatus("the start indices are dynamic");
  Attributes attrs = instr.attrs();
  std::vector<int64_t>& sizes = attrs.find(AttrKey::kDynamicSliceSizes)->ints;
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  for (int d = 0; d < x.rank(); ++d) {
    if (!x.dynamic[d]) continue;
    int64_t s = x.sizes[d];
    if (sizes[d] == x.bounds[d]) {
      sizes[d] = dims[d] = s;
      dynamic[d] = true;
    } else if (sizes[d] > s) {
      return errorStatus("a slice of " + std::to_string(sizes[d]) + " elements of dimension " + std::to_string(d) +
                         " reads past its runtime size " + std::to_string(s) + ", into padding");
    }
  }
  return ruleOf(instr, asTheyAre(ops), dims, dynamic, std::move(attrs));
}

// The update (static) must land within the operand's runtime sizes (where it
// lands is data: the engine checks that); the result keeps the operand's.
Rule dynamicUpdateSlice(const Instruction& instr, Operands ops) {
  const RuntimeDims& x = *ops[0];
  for (size_t i = 1; i < ops.size(); ++i)
    if (ops[i]->padded()) return errorStatus(i == 1 ? "the update is dynamic" : "the start indices are dynamic");
  for (int d = 0; d < x.rank(); ++d)
    if (ops[1]->bounds[d] > x.sizes[d])
      return errorStatus("an update of " + std::to_string(ops[1]->bounds[d]) + " elements in dimension " +
                         std::to_string(d) + " reaches past its runtime size " + std::to_string(x.sizes[d]) +
                         ", into padding");
  return ruleOf(instr, asTheyAre(ops), x.sizes, x.dynamic, instr.attrs());
}

// reduce and reduce-window: N inputs, then N init values. The init values
// must be static; the inputs agree (agreedDims).
StatusOr<RuntimeDims> agreedInputs(Operands ops) {
  size_t inputs = ops.size() / 2;
  for (size_t i = inputs; i < ops.size(); ++i)
    if (ops[i]->anyDynamic()) return errorStatus("an init value is dynamic");
  return agreedDims(ops.first(inputs), ops[0]->rank());
}

// The inputs fit to their agreed dimensions, the init values as they are.
std::vector<std::optional<std::vector<int64_t>>> inputsFit(Operands ops, const RuntimeDims& in) {
  std::vector<std::optional<std::vector<int64_t>>> fit = asTheyAre(ops);
  for (size_t i = 0; i < ops.size() / 2; ++i) fit[i] = in.sizes;
  return fit;
}

// The inputs agree; the kept dimensions keep their runtime sizes and only
// the valid elements are reduced.
Rule reduce(const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(RuntimeDims in, agreedInputs(ops));
  int rank = in.rank();
  const std::vector<int64_t>& reduced = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int d = 0; d < rank; ++d)
    if (!contains(reduced, d)) {
      dims.push_back(in.sizes[d]);
      dynamic.push_back(in.dynamic[d]);
    }
  return ruleOf(instr, inputsFit(ops, in), dims, dynamic, instr.attrs());
}

// A dynamic dimension's windows must be unpadded and undilated (XLA counts
// the valid windows of the runtime size: (size - window) / stride + 1).
Rule reduceWindow(const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(RuntimeDims in, agreedInputs(ops));
  int rank = in.rank();
  const std::vector<WindowDim>& window = instr.attrs().find(AttrKey::kWindow)->window;
  const Shape& first = instr.shape().isTuple() ? instr.shape().tupleElement(0) : instr.shape();
  std::vector<int64_t> dims(rank);
  for (int d = 0; d < rank; ++d) {
    dims[d] = first.dim(d);
    if (!in.dynamic[d]) continue;
    const WindowDim& w = window[d];
    if (w.padLow != 0 || w.padHigh != 0 || w.baseDilation != 1 || w.windowDilation != 1)
      return errorStatus("dimension " + std::to_string(d) + " is dynamic and its window is padded or dilated");
    dims[d] = in.sizes[d] < w.size ? 0 : (in.sizes[d] - w.size) / w.stride + 1;
  }
  return ruleOf(instr, inputsFit(ops, in), dims, in.dynamic, instr.attrs());
}

// The operands agree; only the valid elements are sorted.
Rule sort(const Instruction& instr, Operands ops) {
  HLO_ASSIGN_OR_RETURN(RuntimeDims a, agreedDims(ops, ops[0]->rank()));
  std::vector<std::optional<std::vector<int64_t>>> fit(ops.size(), a.sizes);
  return ruleOf(instr, std::move(fit), a.sizes, a.dynamic, instr.attrs());
}

// Batch and contracting dimensions agree pairwise (only the valid part of a
// dynamic contracting dimension is summed); the result's batch dimensions,
// then the lhs's free ones, then the rhs's, keep their runtime sizes.
Rule dot(const Instruction& instr, Operands ops) {
  const Attributes& a = instr.attrs();
  const RuntimeDims& lhs = *ops[0];
  const RuntimeDims& rhs = *ops[1];
  std::vector<int64_t> lhsDims = lhs.sizes, rhsDims = rhs.sizes;
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  auto pairUp = [&](AttrKey lk, AttrKey rk, bool keep) -> Status {
    const std::vector<int64_t>& l = a.getInts(lk);
    const std::vector<int64_t>& r = a.getInts(rk);
    for (size_t i = 0; i < l.size() && i < r.size(); ++i) {
      int ld = static_cast<int>(l[i]), rd = static_cast<int>(r[i]);
      HLO_ASSIGN_OR_RETURN(Size s, agree({sizeOf(lhs, ld), sizeOf(rhs, rd)}, ld));
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
  auto free = [&](const RuntimeDims& v, AttrKey batch, AttrKey contracting) {
    for (int d = 0; d < v.rank(); ++d)
      if (!contains(a.getInts(batch), d) && !contains(a.getInts(contracting), d)) {
        dims.push_back(v.sizes[d]);
        dynamic.push_back(v.dynamic[d]);
      }
  };
  free(lhs, AttrKey::kLhsBatchDims, AttrKey::kLhsContractingDims);
  free(rhs, AttrKey::kRhsBatchDims, AttrKey::kRhsContractingDims);
  if (static_cast<int>(dims.size()) != instr.shape().rank()) return errorStatus("unexpected result rank");
  return ruleOf(instr, {lhsDims, rhsDims}, dims, dynamic, a);
}

// Whether dimension `d` of `indices` is the index vector dimension and has a
// runtime size below its bound.
bool dynamicIndexVector(const RuntimeDims& indices, int64_t indexVectorDim) {
  return indexVectorDim < indices.rank() && indices.sizes[indexVectorDim] < indices.bounds[indexVectorDim];
}

// Dynamic start indices: the result's batch dimensions (those not in
// offset_dims, in order) take the runtime sizes of the indices' dimensions
// (index_vector_dim left out). The operand must have no padding.
Rule gather(const Instruction& instr, Operands ops) {
  if (ops[0]->padded()) return errorStatus("the operand is dynamic");
  const RuntimeDims& indices = *ops[1];
  const Attributes& a = instr.attrs();
  int64_t indexVectorDim = a.getInt(AttrKey::kIndexVectorDim);
  if (dynamicIndexVector(indices, indexVectorDim)) return errorStatus("the index vector dimension is dynamic");
  const std::vector<int64_t>& offsetDims = a.getInts(AttrKey::kOffsetDims);
  std::vector<int64_t> dims = instr.shape().dims();
  std::vector<bool> dynamic(dims.size(), false);
  int next = 0;
  for (int o = 0; o < instr.shape().rank(); ++o) {
    if (contains(offsetDims, o)) continue;
    if (next == indexVectorDim) ++next;
    dims[o] = indices.sizes[next];
    dynamic[o] = indices.dynamic[next];
    ++next;
  }
  return ruleOf(instr, asTheyAre(ops), dims, dynamic, a);
}

// Dynamic indices and updates: only the valid updates apply. The indices'
// dimensions (index_vector_dim left out) agree with the updates' scatter
// dimensions (those not in update_window_dims, in order); the operands must
// have no padding, and the result is static.
Rule scatter(const Instruction& instr, Operands ops) {
  size_t n = ops.size() / 2;
  for (size_t i = 0; i < n; ++i)
    if (ops[i]->padded()) return errorStatus("an operand is dynamic");
  const RuntimeDims& indices = *ops[n];
  const Attributes& a = instr.attrs();
  int64_t indexVectorDim = a.getInt(AttrKey::kIndexVectorDim);
  const std::vector<int64_t>& windowDims = a.getInts(AttrKey::kUpdateWindowDims);
  std::vector<int64_t> indexDims = indices.sizes;
  std::vector<std::vector<int64_t>> updateDims;
  for (size_t i = n + 1; i < ops.size(); ++i) updateDims.push_back(ops[i]->sizes);
  if (dynamicIndexVector(indices, indexVectorDim)) return errorStatus("the index vector dimension is dynamic");
  int next = 0;
  for (int u = 0; u < ops[n + 1]->rank(); ++u) {
    if (contains(windowDims, u)) {
      for (size_t i = n + 1; i < ops.size(); ++i)
        if (ops[i]->sizes[u] < ops[i]->bounds[u])
          return errorStatus("update window dimension " + std::to_string(u) + " is dynamic");
      continue;
    }
    if (next == indexVectorDim) ++next;
    std::vector<Size> sizes = {sizeOf(indices, next)};
    for (size_t i = n + 1; i < ops.size(); ++i) sizes.push_back(sizeOf(*ops[i], u));
    HLO_ASSIGN_OR_RETURN(Size s, agree(sizes, u));
    indexDims[next] = s.size;
    for (auto& dims : updateDims) dims[u] = s.size;
    ++next;
  }
  std::vector<std::optional<std::vector<int64_t>>> fit = asTheyAre(ops);
  fit[n] = indexDims;
  for (size_t i = n + 1; i < ops.size(); ++i) fit[i] = updateDims[i - n - 1];
  const Shape& first = instr.shape().isTuple() ? instr.shape().tupleElement(0) : instr.shape();
  return ruleOf(instr, std::move(fit), first.dims(), std::vector<bool>(first.rank(), false), a);
}

}  // namespace

bool takesRuntimeRule(Opcode op) {
  switch (op) {
    // These pass values on whole (their runtime sizes with them), or are the
    // dynamic-size ops themselves.
    case Opcode::kParameter: case Opcode::kConstant: case Opcode::kTuple: case Opcode::kGetTupleElement:
    case Opcode::kCall: case Opcode::kFusion: case Opcode::kWhile: case Opcode::kConditional:
    case Opcode::kOptimizationBarrier: case Opcode::kAddDependency: case Opcode::kDomain:
    case Opcode::kAfterAll: case Opcode::kSetDimensionSize: case Opcode::kGetDimensionSize:
    case Opcode::kDynamicReshape:
      return false;
    default:
      return true;
  }
}

StatusOr<std::optional<RuntimeRule>> runtimeRule(const Instruction& instr, Operands ops) {
  Opcode op = instr.opcode();
  if (opcodeCategory(op) == OpCategory::kElementwise || op == Opcode::kCopy) {
    // A width-changing bitcast-convert adds or drops a dimension: no rule.
    if (op != Opcode::kBitcastConvert || instr.shape().rank() == instr.operand(0)->shape().rank())
      return elementwise(instr, ops);
  }
  switch (op) {
    case Opcode::kBroadcast: return broadcast(instr, ops);
    case Opcode::kTranspose: return transpose(instr, ops);
    case Opcode::kReverse: return sameDims(instr, ops);
    case Opcode::kReshape: return reshape(instr, ops);
    case Opcode::kConcatenate: return concatenate(instr, ops);
    case Opcode::kPad: return pad(instr, ops);
    case Opcode::kSlice: return slice(instr, ops);
    case Opcode::kDynamicSlice: return dynamicSlice(instr, ops);
    case Opcode::kDynamicUpdateSlice: return dynamicUpdateSlice(instr, ops);
    case Opcode::kReduce: return reduce(instr, ops);
    case Opcode::kReduceWindow: return reduceWindow(instr, ops);
    case Opcode::kSort: return sort(instr, ops);
    case Opcode::kDot: return dot(instr, ops);
    case Opcode::kGather: return gather(instr, ops);
    case Opcode::kScatter: return scatter(instr, ops);
    default: return std::optional<RuntimeRule>();
  }
}

namespace {

// The window of a dynamic-slice (its slice sizes) or dynamic-update-slice
// (its update's dimensions).
std::vector<int64_t> windowSizes(const Instruction& instr) {
  return instr.opcode() == Opcode::kDynamicSlice ? instr.attrs().getInts(AttrKey::kDynamicSliceSizes)
                                                 : instr.operand(1)->shape().dims();
}

}  // namespace

int firstStartIndexOperand(const Instruction& instr) {
  switch (instr.opcode()) {
    case Opcode::kDynamicSlice: return 1;
    case Opcode::kDynamicUpdateSlice: return 2;
    default: return -1;
  }
}

bool windowNeedsStartIndices(const Instruction& instr, const RuntimeDims& x) {
  if (firstStartIndexOperand(instr) < 0) return false;
  std::vector<int64_t> sizes = windowSizes(instr);
  for (int d = 0; d < x.rank(); ++d)
    if (x.sizes[d] < x.bounds[d] && sizes[d] != x.bounds[d]) return true;
  return false;
}

Status checkWindowInRuntimeSizes(const Instruction& instr, const RuntimeDims& x, const std::vector<int64_t>& starts) {
  std::vector<int64_t> sizes = windowSizes(instr);
  bool slice = instr.opcode() == Opcode::kDynamicSlice;
  for (int d = 0; d < x.rank() && d < static_cast<int>(starts.size()); ++d) {
    if (x.sizes[d] == x.bounds[d] || sizes[d] == x.bounds[d]) continue;
    int64_t start = std::clamp<int64_t>(starts[d], 0, x.bounds[d] - sizes[d]);
    if (start + sizes[d] > x.sizes[d])
      return errorStatus(std::string(slice ? "the slice [" : "the update at [") + std::to_string(start) + ":" +
                         std::to_string(start + sizes[d]) + "] of dimension " + std::to_string(d) +
                         (slice ? " reads" : " reaches") + " past its runtime size " + std::to_string(x.sizes[d]) +
                         ", into padding");
  }
  return okStatus();
}

StatusOr<RuntimeDims> setDimensionSizeRule(const Instruction& instr, const RuntimeDims& x, int64_t size,
                                           bool sizeIsConstant) {
  int dim = static_cast<int>(instr.attrs().getInts(AttrKey::kDimensions)[0]);
  int64_t bound = x.bounds[dim];
  if (size < 0 || size > bound)
    return errorStatus("set-dimension-size '" + instr.name() + "': size " + std::to_string(size) +
                           " is outside [0, " + std::to_string(bound) + "], the bound of dimension " +
                           std::to_string(dim),
                       instr.loc());
  RuntimeDims result = x;
  result.sizes[dim] = size;
  // XLA keeps a dimension static whose size is a constant equal to its bound.
  result.dynamic[dim] = !(sizeIsConstant && size == bound);
  return result;
}

int64_t getDimensionSizeRule(const Instruction& instr, const Shape& operandShape, const RuntimeDims& x) {
  int dim = static_cast<int>(instr.attrs().getInts(AttrKey::kDimensions)[0]);
  return operandShape.isDynamicDim(dim) ? x.sizes[dim] : x.bounds[dim];
}

StatusOr<RuntimeDims> dynamicReshapeRule(const Instruction& instr, const RuntimeDims& x,
                                         const std::vector<int64_t>& sizes) {
  const Shape& out = instr.shape();
  RuntimeDims result{out.dims(), sizes, std::vector<bool>(out.rank())};
  for (int d = 0; d < out.rank(); ++d) {
    result.dynamic[d] = out.isDynamicDim(d);
    if (sizes[d] < 0 || sizes[d] > out.dim(d) || (!result.dynamic[d] && sizes[d] != out.dim(d)))
      return errorStatus("dynamic-reshape '" + instr.name() + "': size " + std::to_string(sizes[d]) +
                             " of dimension " + std::to_string(d) + " is not " +
                             (result.dynamic[d] ? "within its bound " : "its static size ") +
                             std::to_string(out.dim(d)),
                         instr.loc());
  }
  int64_t have = product(x.sizes, 0, x.sizes.size()), want = product(sizes, 0, sizes.size());
  if (have != want)
    return errorStatus("dynamic-reshape '" + instr.name() + "': sizes " + dimsText(sizes) + " hold " +
                           std::to_string(want) + " elements but the operand's runtime shape " + dimsText(x.sizes) +
                           " has " + std::to_string(have),
                       instr.loc());
  return result;
}

}  // namespace hlo
