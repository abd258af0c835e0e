// The verifier's pairing checks for asynchronous operations, as XLA makes
// them: every X-start is consumed by its X-done, every done is fed by its
// start, and async-start/update/done form chains.
//
// Algorithm:
//   1. An async-start or async-update value may only flow into async-update
//      or async-done (as operand 0), tuples, control flow and the few
//      instructions that pass values through ("intermediaries").
//   2. all-reduce-, all-gather-, collective-permute- and copy-start (and
//      send/recv) have exactly one user: their done or an intermediary.
//      Each done's operand is its start, directly or through intermediaries.
//   3. Each async-done traces back through async-updates to one async-start;
//      no start has two dones and no update is in two chains.
//
// What it leaves alone: a chain without its done (XLA requires one unless a
// while loop carries the state, but the parser's own tests write incomplete
// chains, and nothing is run wrong for it).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hlo/verifier_internal.h"

namespace hlo {
namespace {

Status pairError(const Instruction& instr, const std::string& message) {
  return errorStatus(std::string(opcodeName(instr.opcode())) + " '" + instr.name() + "': " +
                         message,
                     instr.loc());
}

bool isCustomCall(const Instruction& i, std::string_view target) {
  return i.opcode() == Opcode::kCustomCall &&
         i.attrs().getString(AttrKey::kCustomCallTarget) == target;
}

// Instructions an async value may pass through on its way to its done.
bool isIntermediary(const Instruction& i) {
  Opcode op = i.opcode();
  if (op == Opcode::kTuple || op == Opcode::kGetTupleElement ||
      op == Opcode::kOptimizationBarrier || op == Opcode::kCopy || op == Opcode::kParameter ||
      op == Opcode::kWhile)
    return true;
  for (std::string_view t : {"Sharding", "LocalToGlobalShape", "GlobalToLocalShape",
                             "xla.sdy.LocalToGlobalShape", "xla.sdy.GlobalToLocalShape",
                             "xla.sdy.FuncResultSharding"})
    if (isCustomCall(i, t)) return true;
  return false;
}

// The instruction that produced `value`, looking through tuples,
// get-tuple-elements, optimization barriers, copies and metadata custom
// calls; `value` itself when it passes through none of them.
const Instruction* producer(const Instruction* value) {
  std::vector<int64_t> path;  // tuple indices still to resolve, innermost last
  for (int hops = 0; value && hops < 10000; ++hops) {
    Opcode op = value->opcode();
    if (op == Opcode::kGetTupleElement && value->operandCount() == 1) {
      path.push_back(value->attrs().getInt(AttrKey::kIndex, 0));
      value = value->operand(0);
    } else if (op == Opcode::kTuple && !path.empty()) {
      int64_t index = path.back();
      path.pop_back();
      if (index < 0 || index >= value->operandCount()) return nullptr;
      value = value->operand(static_cast<int>(index));
    } else if ((op == Opcode::kOptimizationBarrier || op == Opcode::kCopy ||
                (op == Opcode::kCustomCall && isIntermediary(*value))) &&
               value->operandCount() == 1) {
      value = value->operand(0);
    } else {
      return path.empty() ? value : nullptr;
    }
  }
  return nullptr;
}

// The users that count (XLA ignores "control_dep" custom calls).
std::vector<const Instruction*> realUsers(const Instruction& i) {
  std::vector<const Instruction*> out;
  for (const Instruction* u : i.users())
    if (!isCustomCall(*u, "control_dep") && std::find(out.begin(), out.end(), u) == out.end())
      out.push_back(u);
  return out;
}

Status checkSingleUser(const Instruction& start, std::initializer_list<Opcode> dones) {
  std::vector<const Instruction*> users = realUsers(start);
  if (users.size() != 1)
    return pairError(start, "expected exactly one user, found " + std::to_string(users.size()));
  const Instruction* user = users[0];
  bool ok = isIntermediary(*user);
  for (Opcode d : dones) ok = ok || user->opcode() == d;
  if (ok) return okStatus();
  return pairError(start, "its user '" + user->name() + "' must be " +
                              std::string(opcodeName(*dones.begin())));
}

Status checkStartOperand(const Instruction& done, std::initializer_list<Opcode> starts) {
  if (done.operandCount() != 1) return pairError(done, "expected one operand");
  const Instruction* operand = done.operand(0);
  const Instruction* source = producer(operand);
  for (Opcode s : starts)
    if (operand->opcode() == s || (source && source->opcode() == s)) return okStatus();
  return pairError(done, "operand '" + operand->name() + "' must be a " +
                             std::string(opcodeName(*starts.begin())));
}

bool isAsyncState(Opcode op) { return op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate; }

Status checkAsyncUses(const Instruction& instr) {
  for (int i = 0; i < instr.operandCount(); ++i) {
    const Instruction* operand = instr.operand(i);
    if (!isAsyncState(operand->opcode())) continue;
    Opcode op = instr.opcode();
    if (op == Opcode::kAsyncUpdate || op == Opcode::kAsyncDone) {
      if (i != 0)
        return pairError(instr, "async state '" + operand->name() + "' must be operand 0");
      continue;
    }
    bool ok = isIntermediary(instr) || op == Opcode::kCall || op == Opcode::kConditional ||
              op == Opcode::kDomain;
    if (!ok)
      return pairError(instr, "cannot use the async state '" + operand->name() +
                                  "'; only async-update, async-done, tuples and control flow can");
  }
  return okStatus();
}

// Which instructions call each computation.
class Callers {
 public:
  explicit Callers(const Module& module) {
    for (const auto& comp : module.computations())
      for (const auto& instr : comp->instructions())
        for (const Computation* callee : instr->calledComputations())
          callers_[callee].push_back(instr.get());
  }
  bool isAsyncComputation(const Computation* comp) const {
    auto it = callers_.find(comp);
    if (it == callers_.end()) return false;
    for (const Instruction* caller : it->second)
      if (caller->opcode() == Opcode::kAsyncStart) return true;
    return false;
  }

 private:
  std::unordered_map<const Computation*, std::vector<const Instruction*>> callers_;
};

// Each X-start with its X-done; send and recv may also be tupled.
struct Pair {
  Opcode start, done, alsoUser, alsoOperand;
};
constexpr Pair kPairs[] = {
    {Opcode::kAllReduceStart, Opcode::kAllReduceDone, Opcode::kAllReduceDone,
     Opcode::kAllReduceStart},
    {Opcode::kAllGatherStart, Opcode::kAllGatherDone, Opcode::kAllGatherDone,
     Opcode::kAllGatherStart},
    {Opcode::kCollectivePermuteStart, Opcode::kCollectivePermuteDone,
     Opcode::kCollectivePermuteDone, Opcode::kCollectivePermuteStart},
    {Opcode::kCopyStart, Opcode::kCopyDone, Opcode::kCopyDone, Opcode::kCopyStart},
    {Opcode::kSend, Opcode::kSendDone, Opcode::kTuple, Opcode::kGetTupleElement},
    {Opcode::kRecv, Opcode::kRecvDone, Opcode::kTuple, Opcode::kGetTupleElement},
};

Status checkPairs(const Instruction& i, const Callers& callers) {
  for (const Pair& p : kPairs) {
    if (i.opcode() == p.start) {
      bool sendRecv = p.start == Opcode::kSend || p.start == Opcode::kRecv;
      // A send or recv may be the whole of an async computation.
      if (sendRecv && i.parent()->root() == &i && callers.isAsyncComputation(i.parent()))
        return okStatus();
      return checkSingleUser(i, {p.done, p.alsoUser});
    }
    if (i.opcode() == p.done) return checkStartOperand(i, {p.start, p.alsoOperand});
  }
  return okStatus();
}

Status checkChains(const Module& module) {
  std::unordered_map<const Instruction*, const Instruction*> doneOf;
  std::unordered_set<const Instruction*> chainedUpdates;
  for (const auto& comp : module.computations())
    for (const auto& p : comp->instructions()) {
      const Instruction& instr = *p;
      if (instr.opcode() != Opcode::kAsyncDone) continue;
      const Instruction* at = producer(instr.operand(0));
      while (at && at->opcode() == Opcode::kAsyncUpdate) {
        if (!chainedUpdates.insert(at).second)
          return pairError(*at, "is part of two async chains (or a cycle)");
        at = at->operandCount() > 0 ? producer(at->operand(0)) : nullptr;
      }
      if (!at || at->opcode() != Opcode::kAsyncStart) {
        // Fed through a parameter or loop: XLA's parser allows a done whose
        // start is not in view; the chain is checked where it is.
        if (!at || at->opcode() == Opcode::kParameter || at->opcode() == Opcode::kWhile) continue;
        return pairError(instr, "does not trace back to an async-start");
      }
      auto [it, inserted] = doneOf.emplace(at, &instr);
      if (!inserted)
        return pairError(*at, "is finished by two async-dones, '" + it->second->name() +
                                  "' and '" + instr.name() + "'");
    }
  return okStatus();
}

}  // namespace

Status checkAsyncPairs(const Module& module) {
  Callers callers(module);
  for (const auto& comp : module.computations())
    for (const auto& instr : comp->instructions()) {
      HLO_RETURN_IF_ERROR(checkAsyncUses(*instr));
      HLO_RETURN_IF_ERROR(checkPairs(*instr, callers));
    }
  return checkChains(module);
}

}  // namespace hlo
