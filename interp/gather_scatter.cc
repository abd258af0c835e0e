// Interpreter ops gather and scatter, with every dimension number XLA has:
// offset/window dimensions, collapsed/inserted dimensions, the map from the
// index vector to operand dimensions, batching dimensions, and an
// index_vector_dim equal to the indices' rank (an implicit trailing 1).
//
// Both read the index array the same way: its dimensions other than
// index_vector_dim are "batch" positions, each holding one index vector.
#include <algorithm>

#include "hlo/gather_indices.h"
#include "interp/data_checks.h"
#include "interp/element_io.h"
#include "hlo/indexing.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// A batching dimension of the index array must not be its index vector dimension.
Status checkBatchingDims(const Instruction& instr, const std::vector<int64_t>& indexBatching,
                         int64_t vectorDim) {
  if (contains(indexBatching, vectorDim))
    return errorStatus(std::string(opcodeName(instr.opcode())) + " '" + instr.name() +
                           "': a batching dimension of the indices is the index_vector_dim",
                       instr.loc());
  return okStatus();
}

}  // namespace

// For each result index: its batch dimensions (those not in offset_dims) pick
// an index vector; component k starts the slice in operand dimension
// start_index_map[k]; an operand batching dimension starts at the position of
// its paired indices batching dimension. Starts are clamped so the slice
// (slice_sizes) fits, then the offset dimensions add the position inside the
// slice along the operand dimensions that are neither collapsed nor batching.
StatusOr<Literal> evalGather(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  const int64_t rank = x.shape().rank();
  const GatherDims g(instr, rank);
  IndexArray indices(*ops[1], g.indexVectorDim);
  HLO_RETURN_IF_ERROR(checkBatchingDims(instr, g.indicesBatching, indices.vectorDim));

  const std::vector<int64_t>& xDims = x.shape().dims();
  std::vector<int64_t> xStrides = rowMajorStrides(xDims);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));

  std::vector<bool> isOffset(instr.shape().rank(), false);
  for (int64_t d : g.offsetDims) isOffset[d] = true;
  std::vector<int64_t> batch, start(rank), at(rank);
  Status failure;
  forEachIndex(instr.shape().dims(), [&](const std::vector<int64_t>& out, int64_t linear) {
    if (!failure.ok()) return;
    batch.clear();
    for (size_t d = 0; d < out.size(); ++d)
      if (!isOffset[d]) batch.push_back(out[d]);
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < g.startIndexMap.size(); ++k) start[g.startIndexMap[k]] = indices.component(batch, k);
    for (size_t i = 0; i < g.operandBatching.size(); ++i)
      start[g.operandBatching[i]] = batch[indices.batchPosition(g.indicesBatching[i])];
    for (int64_t d = 0; d < rank; ++d) at[d] = clampIndex(start[d], 0, xDims[d] - g.sliceSizes[d]);
    for (size_t k = 0; k < g.offsetDims.size(); ++k) at[g.sliceDims[k]] += out[g.offsetDims[k]];
    for (int64_t d = 0; d < rank; ++d)
      if (at[d] < 0 || at[d] >= xDims[d]) {
        // Only a collapsed or batching dimension of slice size 0 gets here.
        failure = EvalContext::unsupported(instr, "a slice of size 0 in a collapsed or batching dimension");
        return;
      }
    copyElement(x, linearIndex(xStrides, at), result, linear);
  });
  if (!failure.ok()) return failure;
  return result;
}

// For each scatter position of the updates (their dimensions other than
// update_window_dims) the index vector gives the window's start in the
// operand, as in gather but without clamping: a window that does not lie
// wholly inside the operand is skipped, as XLA does. Inside the window, each
// update element is combined with the operand element it lands on by the
// to_apply computation, called as (operands..., updates...) on scalars.
// Scatter positions are visited in row-major order (and each window's
// elements in row-major order), so duplicate indices combine in that order.
StatusOr<Literal> evalScatter(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Computation* combine = instr.attrs().getComputation(AttrKey::kToApply);
  if (!combine) return EvalContext::unsupported(instr, "no to_apply computation");
  size_t n = ops.size() / 2;
  Operands operands = ops.first(n);
  Operands updates = ops.last(n);
  const Attributes& a = instr.attrs();
  IndexArray indices(*ops[n], a.getInt(AttrKey::kIndexVectorDim));
  HLO_RETURN_IF_ERROR(checkBatchingDims(instr, a.getInts(AttrKey::kScatterIndicesBatchingDims), indices.vectorDim));
  for (size_t k = 1; k < n; ++k)
    if (operands[k]->shape().dims() != operands[0]->shape().dims() ||
        updates[k]->shape().dims() != updates[0]->shape().dims())
      return EvalContext::unsupported(instr, "operands (or updates) of different dimensions");
  ScatterGeometry geometry(instr, operands[0]->shape().dims(), updates[0]->shape().dims(), indices);

  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  std::vector<Literal*> outs;
  if (instr.shape().isTuple()) {
    for (size_t k = 0; k < n; ++k) result.tupleElements()[k] = *operands[k];
    for (Literal& e : result.tupleElements()) outs.push_back(&e);
  } else {
    result = *operands[0];
    outs.push_back(&result);
  }
  // Scalar arguments of to_apply, reused for every call: current values, then updates.
  std::vector<Literal> args;
  for (size_t k = 0; k < n; ++k)
    args.emplace_back(Shape::scalar(declaredScalarType(*combine, static_cast<int>(k), operands[k]->type())));
  for (size_t k = 0; k < n; ++k)
    args.emplace_back(Shape::scalar(declaredScalarType(*combine, static_cast<int>(n + k), updates[k]->type())));
  std::vector<const Literal*> argPointers;
  for (const Literal& arg : args) argPointers.push_back(&arg);

  Status failure;
  geometry.forEachLanding([&](int64_t from, int64_t to) {
    for (size_t k = 0; k < n; ++k) {
      convertElement(*outs[k], to, args[k], 0);
      convertElement(*updates[k], from, args[n + k], 0);
    }
    StatusOr<Literal> combined = ctx.call(*combine, argPointers);
    if (!combined.ok()) {
      failure = combined.status();
      return false;
    }
    bool tuple = combined->shape().isTuple();
    if (tuple && combined->tupleElements().size() != n) {
      failure = EvalContext::unsupported(instr, "to_apply does not return one value per operand");
      return false;
    }
    for (size_t k = 0; k < n; ++k) {
      const Literal& value = tuple ? combined->tupleElements()[k] : *combined;
      if (!value.shape().isScalar() || !value.shape().isArray()) {
        failure = EvalContext::unsupported(instr, "to_apply does not return scalars");
        return false;
      }
      convertElement(value, 0, *outs[k], to);
    }
    return true;
  });
  if (!failure.ok()) return failure;
  return result;
}

}  // namespace hlo::interp
