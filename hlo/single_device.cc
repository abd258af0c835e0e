// replica-id and partition-id are 0. Collectives over one participant: all-reduce, all-gather, reduce-scatter,
// all-to-all and collective-broadcast return their operand; collective-
// permute returns its operand where the device sends to itself, zeros
// otherwise. An async op's value is its state: ((operands...), result,
// context...).
#include "hlo/single_device.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "hlo/collectives.h"
#include "hlo/computation.h"
#include "hlo/custom_call_forms.h"
#include "hlo/instruction.h"

namespace hlo::single_device {
namespace {

// Custom calls that only annotate their operand for a compiler pass: the
// sharding ones (and the barriers sharding propagation may not cross), host
// offloading's moves, and a layout constraint (layouts do not change
// values). Each returns its operand.
bool isAnnotation(const Instruction& instr) {
  std::string_view target = instr.attrs().getString(AttrKey::kCustomCallTarget);
  return target == "Sharding" || target == "SPMDFullToShardShape" || target == "SPMDShardToFullShape" ||
         target == "ShardBarrierFrom" || target == "ShardBarrierTo" || target == "MoveToHost" ||
         target == "MoveToDevice" || target == "annotate_device_placement" || target == "LayoutConstraint";
}

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

bool isPermute(Opcode op) { return op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart; }

bool isGroupCollective(Opcode op) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kReduceScatter:
    case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast: return true;
    default: return false;
  }
}

// Ops that exchange data with the host (the infeed and outfeed queues) or
// with other devices (send, recv), and ops this project gives no meaning on
// one device: what a standalone run cannot supply. Both engines refuse them
// when they run, so code that never reaches them still runs.
const char* withoutStandaloneValue(Opcode op) {
  switch (op) {
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
      return "reads or writes the host's feed queue, which a standalone run does not have";
    case Opcode::kSend:
    case Opcode::kSendDone:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
      return "transfers data to or from another device or the host, which a standalone run does not have";
    case Opcode::kCollectiveReduce:
    case Opcode::kRaggedAllToAll:
    case Opcode::kShuffle:
      return "has no single-device semantics defined here";
    default:
      return nullptr;
  }
}

bool isCollectiveDone(Opcode op) {
  return op == Opcode::kAllReduceDone || op == Opcode::kAllGatherDone || op == Opcode::kCollectivePermuteDone;
}

// With no replica groups the participants are "every device", a number the
// module does not state; a result shaped unlike its operand (an all-gather
// that grows, a reduce-scatter that shrinks) shows there is more than one.
Status sameShapeAsOperand(const Instruction& instr, const Shape& operand, const Shape& result, const EngineHooks& hooks) {
  if (operand.compatible(result)) return okStatus();
  return hooks.refuse(instr, "result " + result.toString() + " differs from operand " + operand.toString() +
                                 ": needs more than one participant; only one device is simulated");
}

// The operand(s) as the result: one operand as itself, several as a tuple.
// A -start shaped (operands, results) is its own async state.
StatusOr<Literal> passThrough(const Instruction& instr, Values ops, const EngineHooks& hooks) {
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
      HLO_RETURN_IF_ERROR(sameShapeAsOperand(instr, operands.shape(), instr.shape().tupleElement(1), hooks));
      Literal state(instr.shape());
      state.tupleElements()[1] = operands;
      state.tupleElements()[0] = std::move(operands);
      return state;
    }
  }
  if (ops.size() == 1 && !instr.shape().isTuple()) {
    HLO_RETURN_IF_ERROR(sameShapeAsOperand(instr, ops[0]->shape(), instr.shape(), hooks));
    return *ops[0];
  }
  if (ops.size() == 1 && ops[0]->shape().compatible(instr.shape())) return *ops[0];
  Literal result(instr.shape());
  if (!result.shape().isTuple() || result.tupleElements().size() != ops.size())
    return hooks.refuse(instr, "unexpected result shape");
  for (size_t i = 0; i < ops.size(); ++i) {
    HLO_RETURN_IF_ERROR(sameShapeAsOperand(instr, ops[i]->shape(), result.tupleElements()[i].shape(), hooks));
    result.tupleElements()[i] = *ops[i];
  }
  return result;
}

bool sendsToItself(const Instruction& instr) {
  const AttrValue* pairs = instr.attrs().find(AttrKey::kSourceTargetPairs);
  if (!pairs) return false;
  for (const auto& p : pairs->intLists)
    if (p.size() == 2 && p[0] == 0 && p[1] == 0) return true;
  return false;
}

StatusOr<Literal> permute(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  if (ops.size() != 1) return hooks.refuse(instr, "in-place form");
  Literal value = sendsToItself(instr) ? *ops[0] : Literal(ops[0]->shape());
  if (instr.opcode() == Opcode::kCollectivePermute || !instr.shape().isTuple()) return value;
  // collective-permute-start: (operand, result, context...), or the result alone.
  Literal state(instr.shape());
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return hooks.refuse(instr, "unexpected state shape");
  state.tupleElements()[0] = *ops[0];
  state.tupleElements()[1] = std::move(value);
  return state;
}

// The -done of a start whose value is (operand, result, ...) or the result itself.
StatusOr<Literal> collectiveDone(const Instruction& instr, const Literal& state, const EngineHooks& hooks) {
  if (state.shape().compatible(instr.shape())) return state;
  if (state.shape().isTuple() && state.tupleElements().size() >= 2) return state.tupleElements()[1];
  return hooks.refuse(instr, "unexpected state shape");
}

// The wrapped computation of an async-start runs as soon as every one of its
// operands is bound: at the start, or at the async-update that supplies the
// last of them (XLA allows `fusion-start()` followed by
// `async-update(start, p0, p1)`). async-done picks out the result; it
// refuses a state whose operands were never all bound, so a zero-filled
// placeholder is never passed off as the result. copy-start is
// ((copy), source, context) in the same spirit.

// The operands recorded in an async state's first element.
std::vector<const Literal*> boundOperands(const Literal& state) {
  const Literal& slot = state.tupleElements()[0];
  std::vector<const Literal*> bound;
  if (slot.shape().isTuple())
    for (const Literal& operand : slot.tupleElements()) bound.push_back(&operand);
  else
    bound.push_back(&slot);
  return bound;
}

// A fresh state of `instr`'s shape holding `operands` and, once they are all
// there, the wrapped computation's result (or `earlier`'s, when it already ran).
StatusOr<Literal> makeAsyncState(const Instruction& instr, const Computation& callee,
                                 const std::vector<const Literal*>& operands, const Literal* earlier,
                                 const EngineHooks& hooks) {
  Literal state(instr.shape());
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return hooks.refuse(instr, "unexpected async state shape");
  Literal& slot = state.tupleElements()[0];
  if (slot.shape().isTuple() && slot.tupleElements().size() == operands.size()) {
    for (size_t i = 0; i < operands.size(); ++i) slot.tupleElements()[i] = *operands[i];
  } else if (operands.size() == 1 && !slot.shape().isTuple()) {
    slot = *operands[0];
  } else if (!operands.empty()) {
    return hooks.refuse(instr, "async state does not hold its operands");
  }
  if (static_cast<int>(operands.size()) != callee.parameterCount()) return state;
  if (earlier && static_cast<int>(boundOperands(*earlier).size()) == callee.parameterCount() &&
      earlier->tupleElements()[1].shape().compatible(state.tupleElements()[1].shape())) {
    state.tupleElements()[1] = earlier->tupleElements()[1];
    return state;
  }
  HLO_ASSIGN_OR_RETURN(state.tupleElements()[1], hooks.call(callee, operands));
  return state;
}

StatusOr<Literal> asyncStart(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  if (instr.opcode() == Opcode::kCopyStart) {
    Literal state(instr.shape());
    if (!state.shape().isTuple() || state.tupleElements().size() < 2)
      return hooks.refuse(instr, "unexpected async state shape");
    state.tupleElements()[0] = *ops[0];
    state.tupleElements()[1] = *ops[0];
    return state;
  }
  const Computation* callee = instr.attrs().getComputation(AttrKey::kCalls);
  if (!callee) return hooks.refuse(instr, "no wrapped computation");
  return makeAsyncState(instr, *callee, std::vector<const Literal*>(ops.begin(), ops.end()), nullptr, hooks);
}

// An update passes the state on; extra operands bind more of the wrapped
// computation's parameters.
StatusOr<Literal> asyncUpdate(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  const Literal& state = *ops[0];
  const Computation* callee = instr.attrs().getComputation(AttrKey::kCalls);
  // An update may also restate the state's shape, e.g. with the result slot
  // that the start left as ().
  if (ops.size() == 1 && (!callee || state.shape().compatible(instr.shape()))) return state;
  if (!callee) return hooks.refuse(instr, "operands bound by an update of an unknown wrapped computation");
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return hooks.refuse(instr, "operand is not an async state");
  std::vector<const Literal*> operands = boundOperands(state);
  operands.insert(operands.end(), ops.begin() + 1, ops.end());
  return makeAsyncState(instr, *callee, operands, &state, hooks);
}

StatusOr<Literal> asyncDone(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  const Literal& state = *ops[0];
  if (!state.shape().isTuple() || state.tupleElements().size() < 2)
    return hooks.refuse(instr, "operand is not an async state");
  if (instr.opcode() == Opcode::kCopyDone) return state.tupleElements()[0];
  const Computation* callee = instr.attrs().getComputation(AttrKey::kCalls);
  if (callee && static_cast<int>(boundOperands(state).size()) != callee->parameterCount())
    return hooks.refuse(instr, "the wrapped computation's operands were never all bound");
  return state.tupleElements()[1];
}

// A custom call the engines run themselves (the LAPACK calls) is not this
// file's to refuse.
bool runByEngines(const Instruction& instr) {
  std::optional<KnownCustomCall> known = knownCustomCall(instr);
  return known && known->runByEngines;
}

}  // namespace

bool handles(const Instruction& instr) {
  Opcode op = instr.opcode();
  return isGroupCollective(op) || isPermute(op) || isCollectiveDone(op) || op == Opcode::kAsyncStart ||
         op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone || op == Opcode::kCopyStart ||
         op == Opcode::kCopyDone || (op == Opcode::kCustomCall && !runByEngines(instr)) || op == Opcode::kReplicaId ||
         op == Opcode::kPartitionId || withoutStandaloneValue(op);
}

Status check(const Instruction& instr, const EngineHooks& hooks) {
  Opcode op = instr.opcode();
  if (hooks.participant && (collectives::isCollective(instr) || collectives::isPointToPoint(instr))) return okStatus();
  if (const char* why = withoutStandaloneValue(op)) return hooks.refuse(instr, why);
  if (isGroupCollective(op)) {
    int64_t n = largestGroup(instr);
    if (n > 1)
      return hooks.refuse(instr, "needs " + std::to_string(n) + " participants; only one device is simulated");
  }
  if (isPermute(op)) {
    if (const AttrValue* pairs = instr.attrs().find(AttrKey::kSourceTargetPairs))
      for (const auto& p : pairs->intLists)
        if (p.size() == 2 && (p[0] > 0 || p[1] > 0))
          return hooks.refuse(instr, "sends between devices; only one device is simulated");
  }
  if (std::optional<KnownCustomCall> known = knownCustomCall(instr)) {
    if (!known->valid.ok()) return hooks.refuse(instr, known->valid.message());
    return hooks.refuse(instr, "the call runs as " + std::string(known->standsFor) + " (the custom-call-decomposer pass)");
  }
  if (op == Opcode::kCustomCall && !isAnnotation(instr))
    return hooks.refuse(instr, "custom-call target \"" +
                                   std::string(instr.attrs().getString(AttrKey::kCustomCallTarget)) + "\"");
  return okStatus();
}

StatusOr<Literal> evaluate(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  HLO_RETURN_IF_ERROR(check(instr, hooks));
  if (hooks.participant && (collectives::isCollective(instr) || collectives::isPointToPoint(instr)))
    return collectives::evaluate(instr, ops, hooks);
  Opcode op = instr.opcode();
  if (isGroupCollective(op)) return passThrough(instr, ops, hooks);
  if (isPermute(op)) return permute(instr, ops, hooks);
  if (isCollectiveDone(op)) return collectiveDone(instr, *ops[0], hooks);
  switch (op) {
    case Opcode::kAsyncStart:
    case Opcode::kCopyStart: return asyncStart(instr, ops, hooks);
    case Opcode::kAsyncUpdate: return asyncUpdate(instr, ops, hooks);
    case Opcode::kAsyncDone:
    case Opcode::kCopyDone: return asyncDone(instr, ops, hooks);
    case Opcode::kReplicaId:
    case Opcode::kPartitionId: return Literal(instr.shape());  // the only device is number 0
    case Opcode::kCustomCall:
      // An annotation is the identity on one device.
      if (ops.size() == 1 && ops[0]->shape().compatible(instr.shape())) return *ops[0];
      return hooks.refuse(instr, "custom-call target \"" +
                                     std::string(instr.attrs().getString(AttrKey::kCustomCallTarget)) + "\"");
    default: return hooks.refuse(instr, "not a single-device op");
  }
}

}  // namespace hlo::single_device
