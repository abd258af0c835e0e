// One walk over the steps of a compiled program, for every backend's
// runtime (backends/cpu/cpu_runtime.cc, backends/gpu/gpu_runtime.cc).
//
// A compiled program is one step per instruction, run in order; step i
// defines value slot i. The host steps (jit/host_steps.h) are taken here,
// one way for every backend, over the backend's own kind of value: which
// argument a parameter is, an elided constant's error, tuples and their
// elements, values passed on, a while loop (its predicate read on the host,
// the iteration limit), a conditional's choice of branch and a call. Every
// other step — a kernel, a library op, the interpreter fallback — the
// backend runs itself.
//
// The backend's side is a Run: one run of one program.
//   types      Value (a cheap handle: a shared pointer), Step, Program
//   members    std::vector<Value> values   (a slot per step, empty at first)
//              const Program& program      (steps; root)
//              std::string backend         (prefixes errors: "cpu: ...")
//              int64_t maxWhileIterations  (0: no limit)
//   static HostStep hostStep(const Step&)  kNone: a step the backend runs
//   size_t argumentCount(); Value argument(size_t)
//   StatusOr<Value> constant(const Instruction&)    its literal is present
//   Value tuple(size_t s)                           of step s's operands
//   int64_t tupleSize(const Value&); Value element(const Value&, int64_t)
//   StatusOr<Value> copyTuple(size_t s, const Value&)   a tuple's copy
//   Value token(const Shape&)
//   Status reserve(size_t s)      before control flow makes step s's value
//   StatusOr<Value> loopState(size_t s, const Value& init)
//   StatusOr<Value> runCallee(size_t s, const Program&, std::span<const Value>)
//   StatusOr<const Literal*> onHost(const Value&)  valid until the next call
//   Status iterate(size_t s, const Program& body, Value& state)
//                                 runs the body on the state; the next state
//   StatusOr<Value> keep(size_t s, Value calleeResult)
//                                 a callee's result where step s keeps it
//   void made(size_t s)           control flow made step s's value
//   Status runStep(size_t s)      a step of the backend's own: sets values[s]
//   auto traceStep(size_t s)      held while step s runs (a profile span)
//   void stepDone(size_t s)       after step s (values whose last reader it is)
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hlo/conditional_branch.h"
#include "hlo/instruction.h"
#include "hlo/status.h"
#include "jit/executable.h"
#include "jit/host_steps.h"

namespace hlo::jit {

// --allow-interpreter-fallback: `instr` computed by the interpreter, under
// the run's memory and loop limits.
StatusOr<Literal> interpretStep(const Instruction& instr, std::span<const Literal* const> operands,
                                const CompileOptions& options);

// The while loop of step s: the state starts as its operand, and the body
// runs while the condition gives true.
template <class Run>
StatusOr<typename Run::Value> walkWhile(Run& run, size_t s) {
  using Value = typename Run::Value;
  const auto& step = run.program.steps[s];
  const Instruction& instr = *step.instr;
  const auto& condition = *step.callees[0];
  const auto& body = *step.callees[1];
  HLO_ASSIGN_OR_RETURN(Value state, run.loopState(s, run.values[step.operands[0]]));
  for (int64_t iteration = 0;; ++iteration) {
    HLO_ASSIGN_OR_RETURN(Value go, run.runCallee(s, condition, std::span<const Value>(&state, 1)));
    HLO_ASSIGN_OR_RETURN(const Literal* predicate, run.onHost(go));
    if (!predicate->shape().isArray() || predicate->type() != ElementType::kPred || predicate->elementCount() != 1)
      return errorStatus(run.backend + ": the condition of %" + instr.name() + " is not a pred scalar", instr.loc());
    if (predicate->bitsAt(0) == 0) break;
    if (run.maxWhileIterations > 0 && iteration >= run.maxWhileIterations)
      return errorStatus(run.backend + ": %" + instr.name() + " ran more than " +
                             std::to_string(run.maxWhileIterations) + " iterations (--max-while-iterations)",
                         instr.loc());
    HLO_RETURN_IF_ERROR(run.iterate(s, body, state));
  }
  return state;
}

// A call, or a conditional's branch: the branch its selector (operand 0)
// picks, run on the operand that follows the selector by the branch's index.
template <class Run>
StatusOr<typename Run::Value> walkCall(Run& run, size_t s, HostStep kind) {
  using Value = typename Run::Value;
  const auto& step = run.program.steps[s];
  const auto* callee = step.callees[0];
  std::vector<Value> args;
  if (kind == HostStep::kConditional) {
    HLO_ASSIGN_OR_RETURN(const Literal* selector, run.onHost(run.values[step.operands[0]]));
    int64_t branch = conditionalBranch(*selector, static_cast<int64_t>(step.callees.size()));
    callee = step.callees[branch];
    args.push_back(run.values[step.operands[branch + 1]]);
  } else {
    for (int op : step.operands) args.push_back(run.values[op]);
  }
  HLO_ASSIGN_OR_RETURN(Value result, run.runCallee(s, *callee, args));
  return run.keep(s, std::move(result));
}

// Runs every step of run.program; returns the root's value.
template <class Run>
StatusOr<typename Run::Value> walkSteps(Run& run) {
  using Value = typename Run::Value;
  const auto& steps = run.program.steps;
  std::vector<Value>& values = run.values;
  for (size_t s = 0; s < steps.size(); ++s) {
    const auto& step = steps[s];
    const Instruction& instr = *step.instr;
    [[maybe_unused]] auto span = run.traceStep(s);
    const HostStep kind = Run::hostStep(step);
    switch (kind) {
      case HostStep::kNone:
        HLO_RETURN_IF_ERROR(run.runStep(s));
        break;
      case HostStep::kParameter: {
        int64_t n = instr.parameterNumber();
        if (n < 0 || n >= static_cast<int64_t>(run.argumentCount()))
          return errorStatus(run.backend + ": parameter %" + instr.name() + " has no argument", instr.loc());
        values[s] = run.argument(static_cast<size_t>(n));
        break;
      }
      case HostStep::kConstant: {
        // A constant whose values the text left out ({...}) compiles, so a
        // dump can be compiled and inspected; running it is the error.
        if (!instr.hasLiteral() || instr.literal().elided())
          return errorStatus(run.backend + ": constant %" + instr.name() +
                                 " has its values left out of the text ({...})",
                             instr.loc());
        HLO_ASSIGN_OR_RETURN(values[s], run.constant(instr));
        break;
      }
      case HostStep::kTuple:
        values[s] = run.tuple(s);
        break;
      case HostStep::kGetTupleElement: {
        int64_t index = instr.attrs().getInt(AttrKey::kIndex);
        const Value& tuple = values[step.operands[0]];
        if (!tuple || index < 0 || index >= run.tupleSize(tuple))
          return errorStatus(run.backend + ": %" + instr.name() + ": tuple index " + std::to_string(index) +
                                 " out of range",
                             instr.loc());
        values[s] = run.element(tuple, index);
        break;
      }
      case HostStep::kForward:
        if (instr.opcode() == Opcode::kCopy) {  // a tuple's copy: new buffers
          HLO_ASSIGN_OR_RETURN(values[s], run.copyTuple(s, values[step.operands[0]]));
        } else {
          values[s] = values[step.operands[0]];
        }
        break;
      case HostStep::kToken:
        values[s] = run.token(instr.shape());
        break;
      case HostStep::kWhile: {
        HLO_RETURN_IF_ERROR(run.reserve(s));
        HLO_ASSIGN_OR_RETURN(values[s], walkWhile(run, s));
        run.made(s);
        break;
      }
      case HostStep::kCall:
      case HostStep::kConditional: {
        HLO_RETURN_IF_ERROR(run.reserve(s));
        HLO_ASSIGN_OR_RETURN(values[s], walkCall(run, s, kind));
        run.made(s);
        break;
      }
    }
    run.stepDone(s);
  }
  return std::move(values[run.program.root]);
}

}  // namespace hlo::jit
