// The host steps (jit/host_steps.h).
#include "jit/host_steps.h"

#include <string>
#include <utility>

namespace hlo::jit {

HostStep hostStepOf(Opcode op) {
  static constexpr std::pair<Opcode, HostStep> kSteps[] = {
      {Opcode::kParameter, HostStep::kParameter},
      {Opcode::kConstant, HostStep::kConstant},
      {Opcode::kTuple, HostStep::kTuple},
      {Opcode::kGetTupleElement, HostStep::kGetTupleElement},
      {Opcode::kOptimizationBarrier, HostStep::kForward},
      {Opcode::kDomain, HostStep::kForward},
      {Opcode::kAddDependency, HostStep::kForward},
      {Opcode::kAfterAll, HostStep::kToken},
      {Opcode::kWhile, HostStep::kWhile},
      {Opcode::kCall, HostStep::kCall},
      {Opcode::kConditional, HostStep::kConditional},
  };
  for (const auto& [opcode, step] : kSteps)
    if (opcode == op) return step;
  return HostStep::kNone;
}

StatusOr<std::vector<const Computation*>> controlFlowCallees(const Instruction& instr, std::string_view backend) {
  const Attributes& a = instr.attrs();
  std::vector<const Computation*> callees;
  switch (hostStepOf(instr.opcode())) {
    case HostStep::kWhile:
      callees = {a.getComputation(AttrKey::kCondition), a.getComputation(AttrKey::kBody)};
      break;
    case HostStep::kCall:
      callees = {a.getComputation(AttrKey::kToApply)};
      break;
    case HostStep::kConditional:
      for (const Computation* c : a.conditionalBranches()) callees.push_back(c);
      if (callees.empty() || static_cast<int>(callees.size()) + 1 != instr.operandCount())
        return errorStatus(std::string(backend) + ": conditional %" + instr.name() + " needs one operand per branch",
                           instr.loc());
      break;
    case HostStep::kNone: case HostStep::kParameter: case HostStep::kConstant: case HostStep::kTuple:
    case HostStep::kGetTupleElement: case HostStep::kForward: case HostStep::kToken:
      break;
  }
  for (const Computation* c : callees)
    if (!c) return errorStatus(std::string(backend) + ": %" + instr.name() + " calls no computation", instr.loc());
  return callees;
}

const Computation* sharedSemanticsCallee(const Instruction& instr) {
  Opcode op = instr.opcode();
  if (op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate) return instr.attrs().getComputation(AttrKey::kCalls);
  // A scan's body; the reducer of a collective that combines devices' values.
  if (op == Opcode::kScan || op == Opcode::kAllReduce || op == Opcode::kAllReduceStart || op == Opcode::kReduceScatter)
    return instr.attrs().getComputation(AttrKey::kToApply);
  return nullptr;
}

}  // namespace hlo::jit
