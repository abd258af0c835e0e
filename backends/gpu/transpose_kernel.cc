// Transpose kernels (transpose_kernel.h): 32 x 32 tiles through shared
// memory, read along the operand's minor dimension, written along the
// output's.
#include "backends/gpu/transpose_kernel.h"

#include <algorithm>
#include <functional>

namespace hlo::gpu {
namespace {

constexpr int64_t kTileRowsAtOnce = kThreadsPerBlock / kTransposeTile;  // one a warp
constexpr int64_t kTileStride = kTransposeTile + 1;                      // a row of the tile, padded

}  // namespace

std::optional<TransposePlan> transposePlanOf(const std::vector<const Instruction*>& outputs) {
  if (outputs.size() != 1 || outputs[0]->opcode() != Opcode::kTranspose || !outputs[0]->shape().isArray())
    return std::nullopt;
  const Instruction& t = *outputs[0];
  const std::vector<int64_t>& perm = t.attrs().getInts(AttrKey::kDimensions);
  const std::vector<int64_t>& dims = t.shape().dims();
  const int rank = static_cast<int>(dims.size());
  if (rank < 2 || static_cast<int>(perm.size()) != rank || perm.back() == rank - 1) return std::nullopt;
  TransposePlan plan;
  plan.transpose = &t;
  plan.across = static_cast<int>(std::find(perm.begin(), perm.end(), rank - 1) - perm.begin());
  const int64_t across = dims[static_cast<size_t>(plan.across)], along = dims.back();
  if (across < kTransposeTile / 2 || along < kTransposeTile / 2) return std::nullopt;
  plan.tilesAcross = (across + kTransposeTile - 1) / kTransposeTile;
  plan.tilesAlong = (along + kTransposeTile - 1) / kTransposeTile;
  for (int d = 0; d + 1 < rank; ++d)
    if (d != plan.across) plan.others *= dims[static_cast<size_t>(d)];
  return plan;
}

Status emitTransposeKernel(ThreadBlock& tb, jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const TransposePlan& plan,
                           llvm::Value* outputBase) {
  const Instruction& t = *plan.transpose;
  const Instruction& operand = *t.operand(0);
  const std::vector<int64_t>& dims = t.shape().dims();
  const std::vector<int64_t>& perm = t.attrs().getInts(AttrKey::kDimensions);
  const int rank = static_cast<int>(dims.size());
  const ElementType type = t.shape().type();
  llvm::Type* valueType = e.valueType(type);
  llvm::Value* tile = tb.shared(valueType, kTransposeTile * kTileStride, "tile");
  std::vector<int64_t> otherDims;
  for (int d = 0; d + 1 < rank; ++d)
    if (d != plan.across) otherDims.push_back(dims[static_cast<size_t>(d)]);

  // For each of the thread's rows of the tile (its warp's, then every 8th
  // after it): body(lane, row of the tile, the output index whose `across`
  // dimension is across0 + acrossOffset and last dimension along0 +
  // alongOffset), where that element exists. `transposed` says which of
  // lane and row is the offset across.
  auto eachElement = [&](llvm::Value* thread, bool transposed,
                         const std::function<Status(llvm::Value*, llvm::Value*, const jit::IrIndex&)>& body) -> Status {
    llvm::Value* lane = b.CreateURem(thread, b.getInt64(kTransposeTile), "lane");
    llvm::Value* warp = b.CreateUDiv(thread, b.getInt64(kTransposeTile), "warp");
    llvm::Value* alongTile = b.CreateURem(tb.block(), b.getInt64(plan.tilesAlong));
    llvm::Value* rest = b.CreateUDiv(tb.block(), b.getInt64(plan.tilesAlong));
    llvm::Value* acrossTile = b.CreateURem(rest, b.getInt64(plan.tilesAcross));
    llvm::Value* other = b.CreateUDiv(rest, b.getInt64(plan.tilesAcross));
    jit::IrIndex others = e.delinearize(other, otherDims);
    for (int64_t i = 0; i < kTransposeTile / kTileRowsAtOnce; ++i) {
      llvm::Value* row = b.CreateAdd(warp, b.getInt64(i * kTileRowsAtOnce));
      llvm::Value* acrossOffset = transposed ? row : lane;
      llvm::Value* alongOffset = transposed ? lane : row;
      llvm::Value* acrossAt = b.CreateAdd(b.CreateMul(acrossTile, b.getInt64(kTransposeTile)), acrossOffset);
      llvm::Value* alongAt = b.CreateAdd(b.CreateMul(alongTile, b.getInt64(kTransposeTile)), alongOffset);
      jit::IrIndex index{dims, std::vector<llvm::Value*>(dims.size()), nullptr};
      for (int d = 0, k = 0; d + 1 < rank; ++d)
        index.multi[static_cast<size_t>(d)] = d == plan.across ? acrossAt : others.multi[static_cast<size_t>(k++)];
      index.multi.back() = alongAt;
      llvm::Value* inside = b.CreateAnd(b.CreateICmpULT(acrossAt, b.getInt64(dims[static_cast<size_t>(plan.across)])),
                                        b.CreateICmpULT(alongAt, b.getInt64(dims.back())));
      HLO_RETURN_IF_ERROR(e.emitWhen(inside, "tile.element", [&] { return body(lane, row, index); }));
    }
    return okStatus();
  };
  // tile[along offset][across offset]
  auto slot = [&](llvm::Value* alongOffset, llvm::Value* acrossOffset) {
    return b.CreateInBoundsGEP(valueType, tile,
                               b.CreateAdd(b.CreateMul(alongOffset, b.getInt64(kTileStride)), acrossOffset));
  };
  HLO_RETURN_IF_ERROR(tb.forEachThread([&](llvm::Value* thread) -> Status {
    return eachElement(thread, false, [&](llvm::Value* lane, llvm::Value* row, const jit::IrIndex& out) -> Status {
      jit::IrIndex in{operand.shape().dims(), std::vector<llvm::Value*>(dims.size()), nullptr};
      for (int d = 0; d < rank; ++d) in.multi[static_cast<size_t>(perm[static_cast<size_t>(d)])] = out.multi[static_cast<size_t>(d)];
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, e.emit(operand, in));
      b.CreateStore(v, slot(row, lane));
      return okStatus();
    });
  }));
  tb.barrier();
  return tb.forEachThread([&](llvm::Value* thread) -> Status {
    return eachElement(thread, true, [&](llvm::Value* lane, llvm::Value* row, const jit::IrIndex& out) -> Status {
      e.store(b.CreateLoad(valueType, slot(lane, row)), outputBase, e.linearize(out), type);
      return okStatus();
    });
  });
}

}  // namespace hlo::gpu
