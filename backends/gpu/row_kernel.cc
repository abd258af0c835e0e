// Row kernels (row_kernel.h): a row's reductions folded by a warp or a
// block together, then the row's outputs.
#include "backends/gpu/row_kernel.h"

#include <algorithm>

#include "backends/gpu/group_fold.h"
#include "hlo/computation.h"
#include "hlo/passes/fusion_rules.h"

namespace hlo::gpu {
namespace {

// A reduce whose rows a group of threads may fold: groupFoldable, and it
// reduces the last dimensions of its operand.
bool foldsRows(const Instruction& reduce) {
  std::optional<ReduceView> view = reduceViewOf(reduce);
  return view && view->trailing && groupFoldable(reduce);
}

int groupFor(int64_t length) { return length > kWarpRowLimit ? kThreadsPerBlock : kWarpSize; }

// Reduce rows: every output a reduce of the same rows, and nothing else
// reduced.
std::optional<RowPlan> reduceRowsPlan(const Instruction& instr, const std::vector<const Instruction*>& outputs) {
  RowPlan plan;
  plan.outputsAreFolds = true;
  for (const Instruction* out : outputs) {
    if (out->opcode() != Opcode::kReduce || !foldsRows(*out)) return std::nullopt;
    int64_t rows = out->shape().elementCount(), length = reduceViewOf(*out)->reduced;
    if (!plan.folds.empty() && (rows != plan.rows || length != plan.length)) return std::nullopt;
    plan.rows = rows;
    plan.length = length;
    plan.folds.push_back(out);
  }
  if (!onlyOutputsReduce(instr, outputs)) return std::nullopt;
  // Shorter rows: a thread per row reads them as fast.
  if (plan.length < kWarpSize) return std::nullopt;
  plan.group = groupFor(plan.length);
  return plan;
}

// A row fusion: outputs of one shape, reading reductions along its last
// dimension once per row.
std::optional<RowPlan> rowFusionPlan(const Instruction& fusion, const std::vector<const Instruction*>& outputs) {
  const std::vector<int64_t>& dims = outputs[0]->shape().dims();
  if (dims.size() < 2) return std::nullopt;
  for (const Instruction* out : outputs)
    if (out->shape().dims() != dims) return std::nullopt;
  const Computation& fused = *fusion.calledComputations()[0];
  auto readings = fusion::rowReadings(fused);
  RowPlan plan;
  plan.length = dims.back();
  plan.rows = 1;
  for (size_t d = 0; d + 1 < dims.size(); ++d) plan.rows *= dims[d];
  for (const auto& i : fused.instructions()) {
    if (i->opcode() != Opcode::kReduce) continue;
    if (!fusion::rowFusibleReduce(*i) || !foldsRows(*i) || readings[i.get()] != fusion::RowReading::kOncePerRow ||
        i->operand(0)->shape().dims() != dims)
      return std::nullopt;
    plan.folds.push_back(i.get());
  }
  if (plan.folds.empty()) return std::nullopt;
  plan.group = groupFor(plan.length);
  return plan;
}

}  // namespace

std::optional<RowPlan> rowPlanOf(const Instruction& instr, const std::vector<const Instruction*>& outputs) {
  if (outputs.empty()) return std::nullopt;
  for (const Instruction* out : outputs)
    if (!out->shape().isArray()) return std::nullopt;
  if (std::optional<RowPlan> plan = reduceRowsPlan(instr, outputs)) return plan;
  if (instr.opcode() == Opcode::kFusion && !instr.calledComputations().empty()) return rowFusionPlan(instr, outputs);
  return std::nullopt;
}

namespace {

class RowKernel {
 public:
  RowKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const RowPlan& plan)
      : tb_(block), e_(emitter), b_(b), plan_(plan) {}

  Status emit(const std::vector<const Instruction*>& outputs, const std::vector<llvm::Value*>& bases) {
    for (const Instruction* fold : plan_.folds) HLO_RETURN_IF_ERROR(emitFold(*fold));
    if (plan_.outputsAreFolds)
      return tb_.forEachThread([&](llvm::Value* t) -> Status {
        llvm::Value* first = b_.CreateICmpEQ(laneOf(t), b_.getInt64(0));
        return ifRowExists(t, first, [&](llvm::Value* row) -> Status {
          for (size_t k = 0; k < outputs.size(); ++k)
            e_.store(b_.CreateLoad(values_[k].type, tb_.address(values_[k], t)), bases[k], row,
                     outputs[k]->shape().type());
          return okStatus();
        });
      });
    const std::vector<int64_t>& dims = outputs[0]->shape().dims();
    return tb_.forEachThread([&](llvm::Value* t) -> Status {
      bindFolds(t);
      return alongRow(t, [&](llvm::Value* linear) -> Status {
        jit::IrIndex index = e_.delinearize(linear, dims);
        for (size_t k = 0; k < outputs.size(); ++k) {
          HLO_ASSIGN_OR_RETURN(llvm::Value * v, e_.emit(*outputs[k], index));
          e_.store(v, bases[k], linear, outputs[k]->shape().type());
        }
        return okStatus();
      });
    });
  }

 private:
  llvm::Value* rowOf(llvm::Value* t) {
    int64_t perBlock = kThreadsPerBlock / plan_.group;
    return b_.CreateAdd(b_.CreateMul(tb_.block(), b_.getInt64(perBlock)), b_.CreateUDiv(t, b_.getInt64(plan_.group)),
                        "row");
  }
  llvm::Value* laneOf(llvm::Value* t) { return b_.CreateURem(t, b_.getInt64(plan_.group), "lane"); }

  // body(row) where thread t's row exists and `also` holds.
  Status ifRowExists(llvm::Value* t, llvm::Value* also, const std::function<Status(llvm::Value* row)>& body) {
    llvm::Value* row = rowOf(t);
    llvm::Value* go = b_.CreateICmpULT(row, b_.getInt64(plan_.rows));
    if (also) go = b_.CreateAnd(go, also);
    return e_.emitWhen(go, "row", [&] { return body(row); });
  }

  // body(linear position of element j of thread t's row) for j = lane,
  // lane + group, ... below the row's length.
  Status alongRow(llvm::Value* t, const std::function<Status(llvm::Value* linear)>& body) {
    return ifRowExists(t, nullptr, [&](llvm::Value* row) -> Status {
      const int64_t group = plan_.group;
      llvm::Value* lane = laneOf(t);
      llvm::Value* count = b_.CreateUDiv(b_.CreateSub(b_.getInt64(plan_.length + group - 1), lane), b_.getInt64(group));
      llvm::Value* start = b_.CreateAdd(b_.CreateMul(row, b_.getInt64(plan_.length)), lane);
      return e_.emitLoop(
          b_.getInt64(0), count, "along",
          [&](llvm::Value* k) { return body(b_.CreateAdd(start, b_.CreateMul(k, b_.getInt64(group)))); },
          /*unroll=*/false);
    });
  }

  // Reads of the folds done so far are thread t's values for its row.
  void bindFolds(llvm::Value* t) {
    for (size_t k = 0; k < values_.size(); ++k)
      e_.bindValue(plan_.folds[k], b_.CreateLoad(values_[k].type, tb_.address(values_[k], t)));
  }

  // Steps 1-4 of row_kernel.h for `fold`; its row's value joins values_.
  Status emitFold(const Instruction& fold) {
    HLO_ASSIGN_OR_RETURN(const GroupFold steps, GroupFold::of(e_, b_, fold));
    llvm::Type* totalType = steps.type();
    auto combine = [&](llvm::Value* a, llvm::Value* c) { return steps.combine(a, c); };
    const Instruction& input = *fold.operand(0);

    ThreadBlock::PerThread partial = tb_.perThread(totalType, "partial." + fold.name());
    HLO_RETURN_IF_ERROR(tb_.forEachThread([&](llvm::Value* t) -> Status {
      bindFolds(t);
      llvm::Value* mine = tb_.address(partial, t);
      b_.CreateStore(steps.identity(), mine);
      return alongRow(t, [&](llvm::Value* linear) -> Status {
        HLO_ASSIGN_OR_RETURN(llvm::Value * x,
                             e_.emitWidened(input, e_.delinearize(linear, input.shape().dims()), steps.total()));
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, combine(b_.CreateLoad(totalType, mine), x));
        b_.CreateStore(v, mine);
        return okStatus();
      });
    }));
    HLO_RETURN_IF_ERROR(tb_.butterfly(partial, std::min(plan_.group, kWarpSize), combine));
    llvm::Value* warpSums = nullptr;
    const int warps = plan_.group / kWarpSize;
    if (warps > 1) {
      warpSums = tb_.shared(totalType, warps, "warp_sums");
      HLO_RETURN_IF_ERROR(tb_.forEachThread([&](llvm::Value* t) -> Status {
        llvm::Value* lane0 = b_.CreateICmpEQ(b_.CreateURem(t, b_.getInt64(kWarpSize)), b_.getInt64(0));
        return e_.emitWhen(lane0, "warp.sum", [&]() -> Status {
          llvm::Value* slot = b_.CreateInBoundsGEP(totalType, warpSums, b_.CreateUDiv(t, b_.getInt64(kWarpSize)));
          b_.CreateStore(b_.CreateLoad(totalType, tb_.address(partial, t)), slot);
          return okStatus();
        });
      }));
      tb_.barrier();
    }
    ThreadBlock::PerThread value = tb_.perThread(e_.valueType(fold.shape().type()), "row." + fold.name());
    HLO_RETURN_IF_ERROR(tb_.forEachThread([&](llvm::Value* t) -> Status {
      llvm::Value* sum = b_.CreateLoad(totalType, tb_.address(partial, t));
      if (warpSums) {
        sum = b_.CreateLoad(totalType, b_.CreateInBoundsGEP(totalType, warpSums, b_.getInt64(0)));
        for (int w = 1; w < warps; ++w) {
          HLO_ASSIGN_OR_RETURN(sum, combine(sum, b_.CreateLoad(totalType, b_.CreateInBoundsGEP(
                                                                             totalType, warpSums, b_.getInt64(w)))));
        }
      }
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, steps.finish(sum));
      b_.CreateStore(v, tb_.address(value, t));
      return okStatus();
    }));
    values_.push_back(value);
    return okStatus();
  }

  ThreadBlock& tb_;
  jit::ElementalEmitter& e_;
  llvm::IRBuilder<>& b_;
  const RowPlan& plan_;
  std::vector<ThreadBlock::PerThread> values_;  // per fold: the row's value
};

}  // namespace

Status emitRowKernel(ThreadBlock& block, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const RowPlan& plan,
                     const std::vector<const Instruction*>& outputs, const std::vector<llvm::Value*>& outputBases) {
  RowKernel kernel(block, emitter, b, plan);
  Status s = kernel.emit(outputs, outputBases);
  for (const Instruction* fold : plan.folds) emitter.unbindValue(fold);
  return s;
}

}  // namespace hlo::gpu
