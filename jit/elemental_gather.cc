// gather, one output element at a time, with every dimension number XLA has
// (as interp/gather_scatter.cc defines them): the output's dimensions other
// than offset_dims pick an index vector from the start indices; component k
// starts the slice in operand dimension start_index_map[k], an operand
// batching dimension starts at its paired indices batching dimension's
// position; starts are clamped so the slice fits, and offset_dims add the
// position inside the slice along the operand dimensions neither collapsed
// nor batching. One load of the operand and one per index component, so a
// gather is an element kernel on a GPU.
#include <algorithm>

#include "hlo/gather_indices.h"
#include "hlo/shape_inference.h"
#include "jit/elemental_emitter.h"

namespace hlo::jit {
namespace {

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

bool emitsGather(const Instruction& instr) {
  if (instr.opcode() != Opcode::kGather || instr.operandCount() != 2 || !instr.shape().isArray()) return false;
  const Shape& operand = instr.operand(0)->shape();
  const Shape& indices = instr.operand(1)->shape();
  if (!operand.isArray() || !indices.isArray() || !isInteger(indices.type()) || !checkDeclaredShape(instr).ok())
    return false;
  const int64_t rank = operand.rank();
  const GatherDims g(instr, rank);
  if (static_cast<int64_t>(g.sliceSizes.size()) != rank || contains(g.indicesBatching, g.indexVectorDim) ||
      g.sliceDims.size() != g.offsetDims.size() || g.operandBatching.size() != g.indicesBatching.size())
    return false;
  for (int64_t d : g.startIndexMap)
    if (d < 0 || d >= rank) return false;
  // An implicit index vector (index_vector_dim = the indices' rank) holds one component.
  if (g.indexVectorDim == indices.rank() && g.startIndexMap.size() > 1) return false;
  // A collapsed or batching dimension of slice size 0 has no element to read
  // (the interpreter refuses it when it runs).
  for (int64_t d = 0; d < rank; ++d)
    if (g.sliceSizes[d] == 0 && (contains(g.collapsedSliceDims, d) || contains(g.operandBatching, d))) return false;
  return true;
}

StatusOr<llvm::Value*> ElementalEmitter::emitGather(const Instruction& instr, const IrIndex& index) {
  if (!emitsGather(instr))
    return cannotCompile(instr, "a gather computed in a kernel has integer start indices, dimension numbers that "
                                "fit its operand, and a slice of at least one element in each collapsed or "
                                "batching dimension");
  const Instruction& operand = *instr.operand(0);
  const Instruction& startIndices = *instr.operand(1);
  const std::vector<int64_t>& xDims = operand.shape().dims();
  const std::vector<int64_t>& indexDims = startIndices.shape().dims();
  const int64_t rank = static_cast<int64_t>(xDims.size());
  const GatherDims g(instr, rank);
  const int64_t vectorDim = g.indexVectorDim;

  // The output's batch positions: its dimensions other than offset_dims.
  std::vector<llvm::Value*> batch;
  for (size_t d = 0; d < index.multi.size(); ++d)
    if (!contains(g.offsetDims, static_cast<int64_t>(d))) batch.push_back(index.multi[d]);
  // Batch position `d` of the index array as an index into `batch`.
  auto batchPosition = [&](int64_t d) { return d < vectorDim ? d : d - 1; };
  ElementType indexType = startIndices.shape().type();
  // Component k of the index vector at `batch`, as i64.
  auto component = [&](int64_t k) -> StatusOr<llvm::Value*> {
    std::vector<llvm::Value*> at;
    for (int64_t e = 0; e < static_cast<int64_t>(indexDims.size()); ++e)
      at.push_back(e == vectorDim ? i64(k) : batch[batchPosition(e)]);
    HLO_ASSIGN_OR_RETURN(llvm::Value * v, emit(startIndices, IrIndex{indexDims, at, nullptr}));
    return isSigned(indexType) ? b_.CreateSExtOrTrunc(v, b_.getInt64Ty()) : b_.CreateZExtOrTrunc(v, b_.getInt64Ty());
  };

  std::vector<llvm::Value*> at(rank, i64(0));
  for (size_t k = 0; k < g.startIndexMap.size(); ++k) {
    HLO_ASSIGN_OR_RETURN(at[g.startIndexMap[k]], component(static_cast<int64_t>(k)));
  }
  for (size_t i = 0; i < g.operandBatching.size(); ++i)
    at[g.operandBatching[i]] = batch[batchPosition(g.indicesBatching[i])];
  // Clamped so the slice fits, then moved to the element inside it.
  for (int64_t d = 0; d < rank; ++d) {
    llvm::Value* high = i64(xDims[d] - g.sliceSizes[d]);
    llvm::Value* low = b_.CreateSelect(b_.CreateICmpSLT(at[d], i64(0)), i64(0), at[d]);
    at[d] = b_.CreateSelect(b_.CreateICmpSGT(low, high), high, low);
  }
  for (size_t k = 0; k < g.offsetDims.size(); ++k)
    at[g.sliceDims[k]] = b_.CreateAdd(at[g.sliceDims[k]], index.multi[g.offsetDims[k]]);
  return emit(operand, IrIndex{xDims, at, nullptr});
}

}  // namespace hlo::jit
