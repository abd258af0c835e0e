// Transpose kernels: a transpose that moves the minor dimension, through
// shared-memory tiles.
//
// With a thread per output element, neighbouring threads of a transpose
// that moves the minor dimension read elements of its operand far apart:
// every load touches its own memory segment. Here a block takes a tile of
// 32 x 32 elements (the output's minor dimension by the output dimension
// that is the operand's minor one, at one index of the others): its 8
// warps read the tile's rows of the operand, a warp 32 neighbouring
// elements (computing a fusion's producers there), into shared memory;
// after a barrier they write the tile's rows of the output, a warp 32
// neighbouring elements again. The tile's rows are 33 wide, so a warp's
// column of it falls in 32 different shared-memory banks.
#pragma once
#include <cstdint>
#include <optional>

#include "backends/gpu/thread_block.h"
#include "hlo/instruction.h"

namespace hlo::gpu {

inline constexpr int64_t kTransposeTile = 32;

struct TransposePlan {
  const Instruction* transpose = nullptr;  // the kernel's output
  int across = 0;                          // the output dimension that is the operand's minor one
  int64_t tilesAcross = 0, tilesAlong = 0, others = 1;
  int64_t blocks() const { return others * tilesAcross * tilesAlong; }
};

// The plan of a kernel whose one output is a transpose moving the minor
// dimension, both tiled dimensions at least half a tile; else nullopt.
std::optional<TransposePlan> transposePlanOf(const std::vector<const Instruction*>& outputs);

Status emitTransposeKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b,
                           const TransposePlan& plan, llvm::Value* outputBase);

}  // namespace hlo::gpu
