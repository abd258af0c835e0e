// Interpreter ops for collectives over a single participant: with one
// device in every group, all-reduce, all-gather, reduce-scatter, all-to-all
// and collective-broadcast return their operand; collective-permute returns
// its operand where the device sends to itself, zeros otherwise.
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// Largest replica group, or 1 when the groups are absent or empty.
int64_t largestGroup(const Instruction& instr) {
  const AttrValue* groups = instr.attrs().find(AttrKey::kReplicaGroups);
  if (!groups) return 1;
  int64_t largest = 1;
  if (!groups->s.empty()) {
    // Iota form [groups,size]<=[...]: the last number before '<=' is the size.
    const std::string& s = groups->s;
    size_t arrow = s.find("<=");
    size_t close = s.rfind(']', arrow);
    size_t comma = s.rfind(',', close);
    size_t open = s.rfind('[', close);
    size_t from = (comma != std::string::npos && comma > open ? comma : open) + 1;
    if (arrow == std::string::npos || close == std::string::npos) return 2;  // mesh form: assume many
    return std::stoll(s.substr(from, close - from));
  }
  for (const auto& g : groups->intLists) largest = std::max<int64_t>(largest, g.size());
  return largest;
}

Status singleParticipant(const Instruction& instr) {
  int64_t n = largestGroup(instr);
  if (n > 1)
    return EvalContext::unsupported(instr, "needs " + std::to_string(n) +
                                               " participants; only one device is simulated");
  return okStatus();
}

// With no replica groups the participants are "every device", a number the
// module does not state; a result shaped unlike its operand (an all-gather
// that grows, a reduce-scatter that shrinks) shows there is more than one.
Status sameShapeAsOperand(const Instruction& instr, const Shape& operand, const Shape& result) {
  if (operand.compatible(result)) return okStatus();
  return EvalContext::unsupported(instr, "result " + result.toString() + " differs from operand " +
                                             operand.toString() +
                                             ": needs more than one participant; only one device is simulated");
}

// The operand(s) as the result: one operand as itself, several as a tuple.
// A -start shaped (operands, results) is its own async state.
StatusOr<Literal> passThrough(const Instruction& instr, Operands ops) {
  bool isStart = instr.opcode() == Opcode::kAllGatherStart || instr.opcode() == Opcode::kAllReduceStart;
  if (isStart && instr.shape().isTuple() && instr.shape().tupleSize() == 2 && !ops.empty()) {
    Literal operands;
    if (ops.size() == 1) {
      operands = *ops[0];
    } else {
      std::vector<Shape> shapes;
      for (const Literal* op : ops) shapes.push_back(op->shape());
      operands = Literal(Shape::tuple(std::move(shapes)));
      for (size_t i = 0; i < ops.size(); ++i) operands.tupleElements()[i] = *ops[i];
    }
    if (operands.shape().compatible(instr.shape().tupleElement(0))) {
      HLO_RETURN_IF_ERROR(sameShapeAsOperand(instr, operands.shape(), instr.shape().tupleElement(1)));
      Literal state(instr.shape());
      state.tupleElements()[1] = operands;
      state.tupleElements()[0] = std::move(operands);
      return state;
    }
  }
  if (ops.size() == 1 && !instr.shape().isTuple()) {
    HLO_RETURN_IF_ERROR(sameShapeAsOperand(instr, ops[0]->shape(), instr.shape()));
    return *ops[0];
  }
  if (ops.size() == 1 && ops[0]->shape().compatible(instr.shape())) return *ops[0];
  Literal result(instr.shape());
  if (!result.shape().isTuple() || result.tupleElements().size() != ops.size())
    return EvalContext::unsupported(instr, "unexpected result shape");
  for (size_t i = 0; i < ops.size(); ++i) {
    HLO_RETURN_IF_ERROR(sameShapeAsOperand(instr, ops[i]->shape(), result.tupleElements()[i].shape()));
    result.tupleElements()[i] = *ops[i];
  }
  return result;
}

}  // namespace

StatusOr<Literal> evalAllReduce(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(singleParticipant(instr));
  return passThrough(instr, ops);
}

StatusOr<Literal> evalAllGather(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(singleParticipant(instr));
  return passThrough(instr, ops);
}

StatusOr<Literal> evalReduceScatter(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(singleParticipant(instr));
  return passThrough(instr, ops);
}

StatusOr<Literal> evalAllToAll(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(singleParticipant(instr));
  return passThrough(instr, ops);
}

StatusOr<Literal> evalCollectiveBroadcast(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(singleParticipant(instr));
  return passThrough(instr, ops);
}

StatusOr<Literal> evalCollectivePermute(EvalContext& ctx, const Instruction& instr, Operands ops) {
  const AttrValue* pairs = instr.attrs().find(AttrKey::kSourceTargetPairs);
  bool selfSend = false;
  if (pairs)
    for (const auto& p : pairs->intLists) {
      if (p.size() == 2 && p[0] == 0 && p[1] == 0) selfSend = true;
      if (p.size() == 2 && (p[0] > 0 || p[1] > 0))
        return EvalContext::unsupported(instr, "sends between devices; only one device is simulated");
    }
  if (ops.size() != 1) return EvalContext::unsupported(instr, "in-place form");
  Literal value = selfSend ? *ops[0] : Literal(ops[0]->shape());
  if (instr.opcode() == Opcode::kCollectivePermute) return value;
  // collective-permute-start: (operand, result, context...).
  HLO_ASSIGN_OR_RETURN(Literal state, ctx.allocate(instr.shape(), instr));
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return EvalContext::unsupported(instr, "unexpected state shape");
  state.tupleElements()[0] = *ops[0];
  state.tupleElements()[1] = std::move(value);
  return state;
}

// The -done of a start whose value is (operand, result, ...) or the result itself.
StatusOr<Literal> evalCollectiveDone(EvalContext&, const Instruction& instr, Operands ops) {
  const Literal& state = *ops[0];
  if (state.shape().compatible(instr.shape())) return state;
  if (state.shape().isTuple() && state.tupleElements().size() >= 2) return state.tupleElements()[1];
  return EvalContext::unsupported(instr, "unexpected state shape");
}

}  // namespace hlo::interp
