// Folding one reduce by a group of threads (group_fold.h).
#include "backends/gpu/group_fold.h"

#include "hlo/computation.h"

namespace hlo::gpu {

bool groupFoldable(const Instruction& reduce) {
  return jit::emitsReduce(reduce) && !jit::smallFloat(reduce.shape().type());
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
