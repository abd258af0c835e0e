// Folding one reduce by a group of threads (group_fold.h).
#include "backends/gpu/group_fold.h"

#include <algorithm>

#include "hlo/computation.h"

namespace hlo::gpu {

bool groupFoldable(const Instruction& reduce) {
  return jit::emitsReduce(reduce) && !jit::smallFloat(reduce.shape().type());
}

std::optional<ReduceView> reduceViewOf(const Instruction& reduce) {
  if (reduce.opcode() != Opcode::kReduce || reduce.operandCount() < 1) return std::nullopt;
  std::vector<int64_t> reduced = reduce.attrs().getInts(AttrKey::kDimensions);
  std::sort(reduced.begin(), reduced.end());
  const std::vector<int64_t>& dims = reduce.operand(0)->shape().dims();
  if (reduced.empty() || reduced.front() < 0 || reduced.back() >= static_cast<int64_t>(dims.size()))
    return std::nullopt;
  for (size_t i = 1; i < reduced.size(); ++i)
    if (reduced[i] != reduced[i - 1] + 1) return std::nullopt;
  ReduceView view;
  view.trailing = reduced.back() + 1 == static_cast<int64_t>(dims.size());
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    int64_t& part = d < reduced.front() ? view.outer : d <= reduced.back() ? view.reduced : view.inner;
    part *= dims[static_cast<size_t>(d)];
  }
  return view;
}

bool onlyOutputsReduce(const Instruction& instr, const std::vector<const Instruction*>& outputs) {
  if (instr.opcode() != Opcode::kFusion) return true;
  for (const auto& i : instr.calledComputations()[0]->instructions())
    if (i->opcode() == Opcode::kReduce && std::find(outputs.begin(), outputs.end(), i.get()) == outputs.end())
      return false;
  return true;
}

StatusOr<GroupFold> GroupFold::of(jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const Instruction& reduce) {
  GroupFold fold(emitter, b, reduce);
  fold.total_ = emitter.folding(reduce).total;
  fold.type_ = emitter.valueType(fold.total_);
  const Opcode op = *binaryOfParameters(reduce.attrs().getComputation(AttrKey::kToApply));
  fold.identity_ = emitter.identity(op, fold.total_);
  if (!fold.identity_)
    return jit::cannotCompile(reduce, "no identity value for " + std::string(elementTypeName(fold.total_)));
  return fold;
}

StatusOr<llvm::Value*> GroupFold::combine(llvm::Value* a, llvm::Value* c) const {
  return e_->reduceStep(*reduce_, a, c, total_, /*inBlock=*/true);
}

StatusOr<llvm::Value*> GroupFold::finish(llvm::Value* sum) const {
  HLO_ASSIGN_OR_RETURN(llvm::Value * init, e_->emitWidened(*reduce_->operand(1), e_->scalarIndex(), total_));
  HLO_ASSIGN_OR_RETURN(llvm::Value * v, e_->reduceStep(*reduce_, init, sum, total_, /*inBlock=*/false));
  const ElementType type = reduce_->shape().type();
  return total_ == type ? v : b_->CreateFPTrunc(v, e_->valueType(type));
}

}  // namespace hlo::gpu
