// What the host does for an instruction no kernel computes, for every
// backend (backends/cpu/cpu_compiler.cc, backends/gpu/gpu_compiler.cc):
// bookkeeping over values (parameters, constants, tuples, the ops that pass
// a value on), and control flow, which runs the programs of the
// computations it calls.
#pragma once
#include <string_view>
#include <vector>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo::jit {

enum class HostStep {
  kNone,  // not a host step: a kernel, a library op, or something else the backend decides
  kParameter, kConstant, kTuple, kGetTupleElement,
  kForward,  // passes its first operand on (optimization-barrier, domain, add-dependency)
  kToken,    // after-all
  kWhile, kCall, kConditional,
};

HostStep hostStepOf(Opcode op);

// The computations a control-flow step runs, in the order its runtime
// takes them: a while's {condition, body}, a call's {to_apply}, a
// conditional's branches (one operand each after the selector). An error
// naming the instruction, prefixed by `backend`, when one is missing.
StatusOr<std::vector<const Computation*>> controlFlowCallees(const Instruction& instr, std::string_view backend);

// The computation an op of hlo/shared_semantics.h runs through its engine:
// an async-start's or async-update's wrapped computation, a scan's body,
// the reducer of an all-reduce or reduce-scatter; null for the others.
const Computation* sharedSemanticsCallee(const Instruction& instr);

}  // namespace hlo::jit
