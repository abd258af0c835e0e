// What a group of threads needs to fold one reduce together (row_kernel.h,
// column_kernel.h): which reduces allow it, and the fold's steps.
#pragma once
#include <optional>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "hlo/instruction.h"
#include "jit/elemental_emitter.h"

namespace hlo::gpu {

// Whether threads may fold `reduce` in an order of their own: the emitter
// folds it (one input, a reducer of one op of its parameters) and its type
// does not round after every step (f16, bf16, f8 and f4 fold serially in
// the interpreter's order).
bool groupFoldable(const Instruction& reduce);

// A reduce's operand as [outer, reduced, inner], when its reduced
// dimensions are consecutive: `outer` the product of the kept dimensions
// before them, `inner` of those after; `trailing` when none follow (a row
// reduction), else a column reduction.
struct ReduceView {
  int64_t outer = 1, reduced = 1, inner = 1;
  bool trailing = false;
};
std::optional<ReduceView> reduceViewOf(const Instruction& reduce);

// Whether the only reduces of `instr` (a fusion's computation, or `instr`
// itself) are `outputs`: a group kernel folds its outputs and nothing else.
bool onlyOutputsReduce(const Instruction& instr, const std::vector<const Instruction*>& outputs);

// A group fold of `reduce`: each thread's partial starts at `identity` and
// takes elements and other partials by `combine`, all in `total`
// (ElementalEmitter::folding's total type: f64 for an f32 sum); `finish`
// joins the init value to the group's sum and rounds it to the reduce's
// type once.
class GroupFold {
 public:
  // An error when the reducer's op has no identity in the total type.
  static StatusOr<GroupFold> of(jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const Instruction& reduce);

  llvm::Type* type() const { return type_; }
  llvm::Value* identity() const { return identity_; }
  ElementType total() const { return total_; }
  StatusOr<llvm::Value*> combine(llvm::Value* a, llvm::Value* c) const;
  StatusOr<llvm::Value*> finish(llvm::Value* sum) const;

 private:
  GroupFold(jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const Instruction& r) : e_(&e), b_(&b), reduce_(&r) {}
  jit::ElementalEmitter* e_;
  llvm::IRBuilder<>* b_;
  const Instruction* reduce_;
  ElementType total_ = ElementType::kF32;
  llvm::Type* type_ = nullptr;
  llvm::Value* identity_ = nullptr;
};

}  // namespace hlo::gpu
