// The block-scaled dot custom call (block_scaled_dot_call.h).
#include "hlo/block_scaled_dot_call.h"

#include <string>
#include <vector>

#include "hlo/shape_inference.h"

namespace hlo {

bool isBlockScaledDotCall(const Instruction& instr) {
  return instr.opcode() == Opcode::kCustomCall &&
         instr.attrs().getString(AttrKey::kCustomCallTarget) == "__op$block_scaled_dot";
}

void setBlockScaledDotDims(const Instruction& call, Instruction& dot) {
  int64_t last = call.operand(0)->shape().rank() - 1;
  dot.attrs().setInts(AttrKey::kLhsContractingDims, {last});
  dot.attrs().setInts(AttrKey::kRhsContractingDims, {last});
  if (last == 2) {
    dot.attrs().setInts(AttrKey::kLhsBatchDims, {0});
    dot.attrs().setInts(AttrKey::kRhsBatchDims, {0});
  }
}

Status checkBlockScaledDotCall(const Instruction& instr) {
  auto bad = [&](const std::string& why) {
    return errorStatus("block-scaled dot call %" + instr.name() + ": " + why);
  };
  if (instr.operandCount() != 4) return bad("takes lhs, rhs, lhs_scale and rhs_scale");
  if (instr.attrs().getString(AttrKey::kBackendConfig).find("block_size") != std::string_view::npos)
    return bad("a block size in the backend config is not supported");
  int64_t rank = instr.operand(0)->shape().isArray() ? instr.operand(0)->shape().rank() : 0;
  if (rank != 2 && rank != 3) return bad("its operands have rank 2 or 3");
  for (const Instruction* o : instr.operands())
    if (!o->shape().isArray() || o->shape().rank() != rank) return bad("its operands have one rank");
  // The scaled-dot it stands for must be a valid one of the result's shape.
  Instruction dot(Opcode::kScaledDot, "dot", instr.shape());
  setBlockScaledDotDims(instr, dot);
  std::vector<Shape> operands;
  for (const Instruction* o : instr.operands()) operands.push_back(o->shape());
  if (Status valid = checkDeclaredShape(Opcode::kScaledDot, "dot", operands, dot.attrs(), instr.shape()); !valid.ok())
    return bad(valid.message());
  return okStatus();
}

}  // namespace hlo
