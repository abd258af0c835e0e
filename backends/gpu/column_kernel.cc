// Column kernels (column_kernel.h): a tile of 32 columns, its rows shared
// among a block's 8 warps, the warps' partials joined in shared memory.
#include "backends/gpu/column_kernel.h"

#include "backends/gpu/group_fold.h"
#include "hlo/computation.h"

namespace hlo::gpu {
namespace {

constexpr int kWarps = kThreadsPerBlock / kWarpSize;

// `reduce`'s operand as [outer, rows, columns] when its reduced dimensions
// are consecutive and some kept dimension follows them.
std::optional<ColumnPlan> viewOf(const Instruction& reduce) {
  std::optional<ReduceView> view = reduceViewOf(reduce);
  if (!view || view->trailing || !groupFoldable(reduce)) return std::nullopt;
  ColumnPlan plan;
  plan.outer = view->outer;
  plan.rows = view->reduced;
  plan.columns = view->inner;
  return plan;
}

}  // namespace

std::optional<ColumnPlan> columnPlanOf(const Instruction& instr, const std::vector<const Instruction*>& outputs) {
  std::optional<ColumnPlan> plan;
  for (const Instruction* out : outputs) {
    std::optional<ColumnPlan> view = viewOf(*out);
    if (!view) return std::nullopt;
    if (plan && (view->outer != plan->outer || view->rows != plan->rows || view->columns != plan->columns))
      return std::nullopt;
    if (!plan) plan = view;
    plan->folds.push_back(out);
  }
  if (!plan || plan->rows < kColumnKernelMinRows || !onlyOutputsReduce(instr, outputs)) return std::nullopt;
  return plan;
}

Status emitColumnKernel(ThreadBlock& tb, jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const ColumnPlan& plan,
                        const std::vector<llvm::Value*>& outputBases) {
  std::vector<GroupFold> folds;
  std::vector<llvm::Value*> partials, shared;
  for (const Instruction* fold : plan.folds) {
    HLO_ASSIGN_OR_RETURN(GroupFold steps, GroupFold::of(e, b, *fold));
    partials.push_back(e.entryAlloca(steps.type(), "partial"));
    shared.push_back(tb.shared(steps.type(), kThreadsPerBlock, "column_partials"));
    folds.push_back(steps);
  }
  // Thread t of the block: lane t % 32 is column tile * 32 + lane of outer
  // index `outer`; warp t / 32 folds rows warp, warp + 8, ...
  auto place = [&](llvm::Value* t) {
    llvm::Value* tiles = b.getInt64(plan.tiles());
    llvm::Value* lane = b.CreateURem(t, b.getInt64(kWarpSize), "lane");
    llvm::Value* column = b.CreateAdd(b.CreateMul(b.CreateURem(tb.block(), tiles), b.getInt64(kWarpSize)), lane);
    return std::make_tuple(lane, b.CreateUDiv(t, b.getInt64(kWarpSize), "warp"), column,
                           b.CreateUDiv(tb.block(), tiles, "outer"));
  };
  HLO_RETURN_IF_ERROR(tb.forEachThread([&](llvm::Value* t) -> Status {
    auto [lane, warp, column, outer] = place(t);
    for (size_t k = 0; k < folds.size(); ++k) b.CreateStore(folds[k].identity(), partials[k]);
    HLO_RETURN_IF_ERROR(e.emitWhen(b.CreateICmpULT(column, b.getInt64(plan.columns)), "column", [&]() -> Status {
      llvm::Value* count = b.CreateUDiv(b.CreateSub(b.getInt64(plan.rows + kWarps - 1), warp), b.getInt64(kWarps));
      return e.emitLoop(
          b.getInt64(0), count, "rows",
          [&](llvm::Value* i) -> Status {
            llvm::Value* row = b.CreateAdd(warp, b.CreateMul(i, b.getInt64(kWarps)));
            llvm::Value* linear = b.CreateAdd(
                b.CreateMul(b.CreateAdd(b.CreateMul(outer, b.getInt64(plan.rows)), row), b.getInt64(plan.columns)),
                column);
            for (size_t k = 0; k < folds.size(); ++k) {
              const Instruction& input = *plan.folds[k]->operand(0);
              HLO_ASSIGN_OR_RETURN(llvm::Value * x, e.emitWidened(input, e.delinearize(linear, input.shape().dims()),
                                                                  folds[k].total()));
              HLO_ASSIGN_OR_RETURN(llvm::Value * v, folds[k].combine(b.CreateLoad(folds[k].type(), partials[k]), x));
              b.CreateStore(v, partials[k]);
            }
            return okStatus();
          },
          /*unroll=*/false);
    }));
    for (size_t k = 0; k < folds.size(); ++k)
      b.CreateStore(b.CreateLoad(folds[k].type(), partials[k]), b.CreateInBoundsGEP(folds[k].type(), shared[k], t));
    return okStatus();
  }));
  tb.barrier();
  return tb.forEachThread([&](llvm::Value* t) -> Status {
    auto [lane, warp, column, outer] = place(t);
    llvm::Value* go = b.CreateAnd(b.CreateICmpEQ(warp, b.getInt64(0)), b.CreateICmpULT(column, b.getInt64(plan.columns)));
    return e.emitWhen(go, "column", [&]() -> Status {
      llvm::Value* at = b.CreateAdd(b.CreateMul(outer, b.getInt64(plan.columns)), column);
      for (size_t k = 0; k < folds.size(); ++k) {
        llvm::Type* type = folds[k].type();
        llvm::Value* sum = b.CreateLoad(type, b.CreateInBoundsGEP(type, shared[k], lane));
        for (int w = 1; w < kWarps; ++w) {
          llvm::Value* slot = b.CreateInBoundsGEP(type, shared[k], b.CreateAdd(lane, b.getInt64(w * kWarpSize)));
          HLO_ASSIGN_OR_RETURN(sum, folds[k].combine(sum, b.CreateLoad(type, slot)));
        }
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, folds[k].finish(sum));
        e.store(v, outputBases[k], at, plan.folds[k]->shape().type());
      }
      return okStatus();
    });
  });
}

}  // namespace hlo::gpu
