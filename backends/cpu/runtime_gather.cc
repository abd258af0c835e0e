// Library ops: gather and scatter, with every dimension number XLA has
// (offset/window dimensions, collapsed/inserted dimensions, the index vector
// map, batching dimensions, an implicit trailing index vector dimension).
//
// Algorithm (gather): walk the result in row-major order. The result
// dimensions that are not offset dimensions pick an index vector; its
// components (and the batching dimensions) give the slice's start in the
// operand, clamped so the slice fits, computed once per index vector. The
// offset dimensions then add the position inside the slice. When the
// result's innermost dimension is an offset dimension along the operand's
// innermost dimension, whole rows are copied with memcpy.
//
// Algorithm (scatter): for each scatter position of the updates (row-major)
// the index vector gives the window's start, not clamped: a window not
// wholly inside the operand is skipped. Each update element of the window
// (row-major) is combined with the element it lands on by the compiled
// to_apply computation, in that order, so duplicate indices combine in the
// order the semantics give.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/runtime_ops.h"
#include "hlo/computation.h"
#include "hlo/element_io.h"
#include "hlo/gather_indices.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

Status runGather(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  const Literal& x = *call.operands[0];
  Literal& out = call.result;
  const int64_t rank = x.shape().rank();
  const GatherDims g(instr, rank);
  IndexArray indices(*call.operands[1], g.indexVectorDim);
  const std::vector<int64_t>& xDims = x.shape().dims();
  std::vector<int64_t> xStrides = rowMajorStrides(xDims);
  const std::vector<int64_t>& outDims = out.shape().dims();
  if (out.elementCount() == 0) return okStatus();
  int bytes = storageBytes(x.type());

  // Offset dimension k of the result reads operand dimension g.sliceDims[k].
  std::vector<int64_t> operandDimOf(outDims.size(), -1);
  for (size_t k = 0; k < g.offsetDims.size(); ++k) operandDimOf[g.offsetDims[k]] = g.sliceDims[k];
  // Whole rows: the result's last dimension walks the operand's last one.
  int outRank = static_cast<int>(outDims.size());
  int64_t run = 1;
  if (outRank > 0 && operandDimOf[outRank - 1] == rank - 1) run = outDims[outRank - 1];
  std::vector<int64_t> outerDims = outDims;
  if (run > 1) outerDims.back() = 1;

  std::vector<int64_t> index(outDims.size(), 0), position, start(rank), at(rank);
  const char* from = reinterpret_cast<const char*>(x.untypedData());
  char* to = reinterpret_cast<char*>(out.untypedData());
  int64_t linear = 0;
  size_t changed = 0;  // the first time, everything is new
  int64_t total = out.elementCount();
  while (linear < total) {
    bool newPosition = false;
    for (size_t d = changed; d < index.size() && !newPosition; ++d) newPosition = operandDimOf[d] < 0;
    if (linear == 0 || newPosition) {
      position.clear();
      for (size_t d = 0; d < index.size(); ++d)
        if (operandDimOf[d] < 0) position.push_back(index[d]);
      std::fill(start.begin(), start.end(), 0);
      for (size_t k = 0; k < g.startIndexMap.size(); ++k) start[g.startIndexMap[k]] = indices.component(position, k);
      for (size_t i = 0; i < g.operandBatching.size(); ++i)
        start[g.operandBatching[i]] = position[indices.batchPosition(g.indicesBatching[i])];
      for (int64_t d = 0; d < rank; ++d) start[d] = std::clamp<int64_t>(start[d], 0, std::max<int64_t>(0, xDims[d] - g.sliceSizes[d]));
    }
    at = start;
    for (size_t d = 0; d < index.size(); ++d)
      if (operandDimOf[d] >= 0) at[operandDimOf[d]] += index[d];
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (at[d] < 0 || at[d] >= xDims[d])
        return errorStatus("cpu: %" + instr.name() + ": a slice of size 0 in a collapsed or batching dimension",
                           instr.loc());
      offset += at[d] * xStrides[d];
    }
    std::memcpy(to + linear * bytes, from + offset * bytes, run * bytes);
    linear += run;
    changed = advanceRowMajor(index, outerDims);
  }
  return okStatus();
}

Status runScatter(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  auto combine = reinterpret_cast<ScalarFn>(call.helpers[0]);
  size_t n = call.operands.size() / 2;
  IndexArray indices(*call.operands[n], instr.attrs().getInt(AttrKey::kIndexVectorDim));
  std::vector<Literal*> outs = resultArrays(call.result);
  for (size_t k = 0; k < n; ++k) std::memcpy(outs[k]->untypedData(), call.operands[k]->untypedData(), outs[k]->byteSize());
  ScatterGeometry geometry(instr, call.operands[0]->shape().dims(), call.operands[n + 1]->shape().dims(), indices);
  std::vector<int> bytes(n);
  for (size_t k = 0; k < n; ++k) bytes[k] = storageBytes(outs[k]->type());

  std::vector<const char*> args(2 * n);
  std::vector<char> scratch(16 * n);
  std::vector<char*> results(n);
  for (size_t k = 0; k < n; ++k) results[k] = scratch.data() + 16 * k;
  geometry.forEachLanding([&](int64_t from, int64_t to) {
    for (size_t k = 0; k < n; ++k) {
      args[k] = reinterpret_cast<const char*>(outs[k]->untypedData()) + to * bytes[k];
      args[n + k] = reinterpret_cast<const char*>(call.operands[n + 1 + k]->untypedData()) + from * bytes[k];
    }
    // Results land in scratch first: a later output may still read an argument.
    combine(args.data(), results.data());
    for (size_t k = 0; k < n; ++k) std::memcpy(outs[k]->untypedData() + to * bytes[k], results[k], bytes[k]);
    return true;
  });
  return okStatus();
}

// The checks both ops need before they can index anything.
Status checkIndexVectorDim(const Instruction& instr, const Shape& indices, int64_t vectorDim,
                           const std::vector<int64_t>& indexBatching, size_t components) {
  if (!indices.isArray() || (!isSigned(indices.type()) && !isUnsigned(indices.type())))
    return jit::cannotCompile(instr, "indices must be an integer array");
  if (vectorDim < 0 || vectorDim > indices.rank()) return jit::cannotCompile(instr, "index_vector_dim out of range");
  int64_t size = vectorDim == indices.rank() ? 1 : indices.dim(static_cast<int>(vectorDim));
  if (size != static_cast<int64_t>(components))
    return jit::cannotCompile(instr, "the index vector does not match the index map");
  if (contains(indexBatching, vectorDim)) return jit::cannotCompile(instr, "a batching dimension is the index_vector_dim");
  return okStatus();
}

}  // namespace

StatusOr<RuntimePlan> planGather(HelperModule&, const Instruction& instr, const std::string&) {
  if (instr.operandCount() != 2) return jit::cannotCompile(instr, "expected an operand and indices");
  const Shape& x = instr.operand(0)->shape();
  if (!x.isArray() || !instr.shape().isArray() || !instr.operand(1)->shape().isArray())
    return jit::cannotCompile(instr, "operands must be arrays");
  const Attributes& a = instr.attrs();
  if (a.getInts(AttrKey::kSliceSizes).size() != static_cast<size_t>(x.rank()))
    return jit::cannotCompile(instr, "slice_sizes must have one entry per operand dimension");
  HLO_RETURN_IF_ERROR(checkIndexVectorDim(instr, instr.operand(1)->shape(), a.getInt(AttrKey::kIndexVectorDim),
                                          a.getInts(AttrKey::kStartIndicesBatchingDims),
                                          a.getInts(AttrKey::kStartIndexMap).size()));
  if (instr.shape().type() != x.type()) return jit::cannotCompile(instr, "the result type differs from the operand's");
  return RuntimePlan{runGather, {}};
}

StatusOr<RuntimePlan> planScatter(HelperModule& helpers, const Instruction& instr, const std::string& prefix) {
  const Computation* combine = instr.attrs().getComputation(AttrKey::kToApply);
  if (!combine) return jit::cannotCompile(instr, "no to_apply computation");
  if (instr.operandCount() < 3 || instr.operandCount() % 2 == 0)
    return jit::cannotCompile(instr, "expected operands, indices and as many updates");
  size_t n = static_cast<size_t>(instr.operandCount() / 2);
  if (combine->parameterCount() != static_cast<int>(2 * n))
    return jit::cannotCompile(instr, "to_apply needs two parameters per operand");
  const Shape& first = instr.operand(0)->shape();
  const Shape& firstUpdate = instr.operand(static_cast<int>(n + 1))->shape();
  for (size_t k = 0; k < n; ++k) {
    const Shape& x = instr.operand(static_cast<int>(k))->shape();
    const Shape& u = instr.operand(static_cast<int>(n + 1 + k))->shape();
    if (!x.isArray() || !u.isArray() || x.dims() != first.dims() || u.dims() != firstUpdate.dims() ||
        u.type() != x.type())
      return jit::cannotCompile(instr, "operands and updates must be arrays of matching shapes and types");
    for (size_t side : {k, n + k}) {
      const Shape& p = combine->parameter(static_cast<int>(side))->shape();
      if (!p.isArray() || p.rank() != 0) return jit::cannotCompile(instr, "to_apply parameters must be scalars");
    }
  }
  const Attributes& a = instr.attrs();
  HLO_RETURN_IF_ERROR(checkIndexVectorDim(instr, instr.operand(static_cast<int>(n))->shape(),
                                          a.getInt(AttrKey::kIndexVectorDim),
                                          a.getInts(AttrKey::kScatterIndicesBatchingDims),
                                          a.getInts(AttrKey::kScatterDimsToOperandDims).size()));
  if (static_cast<int64_t>(a.getInts(AttrKey::kUpdateWindowDims).size()) !=
      first.rank() - static_cast<int64_t>(a.getInts(AttrKey::kInsertedWindowDims).size() +
                                          a.getInts(AttrKey::kInputBatchingDims).size()))
    return jit::cannotCompile(instr, "update_window_dims do not match the operand");
  // to_apply runs on the types it declares; the operands' elements convert
  // to them and its results back (as the interpreter calls it).
  std::vector<ElementType> argTypes(2 * n), resultTypes(n);
  for (size_t k = 0; k < n; ++k)
    argTypes[k] = argTypes[n + k] = resultTypes[k] = instr.operand(static_cast<int>(k))->shape().type();
  std::string name = prefix + ".helper.0";
  HLO_RETURN_IF_ERROR(helpers.scalarFunction(*combine, name, argTypes, resultTypes));
  return RuntimePlan{runScatter, {name}};
}

}  // namespace hlo::cpu
