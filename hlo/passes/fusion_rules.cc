// The fusion pass's per-instruction rules; see fusion_rules.h.
#include "hlo/passes/fusion_rules.h"

#include <algorithm>
#include <iterator>

namespace hlo::fusion {

Role roleOf(const Instruction& i) {
  if (!i.controlPredecessors().empty() || !i.controlSuccessors().empty()) return Role::kNone;
  Opcode op = i.opcode();
  bool array = i.shape().isArray();
  switch (opcodeCategory(op)) {
    case OpCategory::kElementwise:  // map calls a computation per element
      return op == Opcode::kMap || !array ? Role::kNone : Role::kMember;
    case OpCategory::kDataMovement:
      // Plumbing (tuple, get-tuple-element), indexed or in-place access
      // (gather, scatter, dynamic-update-slice) and dynamic shapes stay out.
      if (op == Opcode::kTuple || op == Opcode::kGetTupleElement || op == Opcode::kGather ||
          op == Opcode::kScatter || op == Opcode::kDynamicUpdateSlice ||
          op == Opcode::kDynamicReshape || op == Opcode::kShuffle)
        return Role::kNone;
      return array ? Role::kMember : Role::kNone;
    case OpCategory::kReduction:
      return op == Opcode::kSelectAndScatter ? Role::kNone : Role::kRootOnly;
    case OpCategory::kLeaf:  // recomputed where used; parameters and big constants are read
      return op == Opcode::kIota || (op == Opcode::kConstant && i.shape().isScalar())
                 ? Role::kMember
                 : Role::kNone;
    case OpCategory::kLinearAlgebra:
    case OpCategory::kControlFlow:
    case OpCategory::kCollective:
    case OpCategory::kAsync:
    case OpCategory::kCommunication:
    case OpCategory::kOther:
      return Role::kNone;
  }
  return Role::kNone;
}

bool isExpensive(const Instruction& i) {
  static constexpr Opcode kExpensive[] = {
      Opcode::kAcos,     Opcode::kAcosh, Opcode::kAsin,      Opcode::kAsinh,
      Opcode::kAtan,     Opcode::kAtan2, Opcode::kAtanh,     Opcode::kCbrt,
      Opcode::kCos,      Opcode::kCosh,  Opcode::kDivide,    Opcode::kErf,
      Opcode::kExp,      Opcode::kExpm1, Opcode::kLog,       Opcode::kLog1p,
      Opcode::kLogistic, Opcode::kPower, Opcode::kRemainder, Opcode::kRsqrt,
      Opcode::kSin,      Opcode::kSinh,  Opcode::kSqrt,      Opcode::kStochasticConvert,
      Opcode::kTan,      Opcode::kTanh};
  return std::find(std::begin(kExpensive), std::end(kExpensive), i.opcode()) !=
         std::end(kExpensive);
}

bool duplicable(const Instruction& p) {
  if (isExpensive(p)) return false;
  int full = 0;
  for (const Instruction* op : p.operands())
    full += !(op->opcode() == Opcode::kBroadcast || op->opcode() == Opcode::kIota ||
              op->shape().isScalar() || op->shape().rank() < p.shape().rank());
  return full <= 1;
}

bool rereads(const Instruction& user, const Instruction& operand) {
  const Shape& shape = user.shape().isTuple() ? user.shape().tupleElement(0) : user.shape();
  int64_t out = shape.isArray() ? shape.elementCount() : 1;
  if (operand.shape().isScalar()) return out > 1;
  return user.opcode() == Opcode::kReduceWindow ||
         (user.opcode() == Opcode::kBroadcast && out > operand.shape().elementCount());
}

}  // namespace hlo::fusion
