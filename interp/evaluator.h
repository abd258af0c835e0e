// The reference interpreter: evaluates a verified module on literals.
//
// Simple and obviously correct — the yardstick every pass and backend is
// compared against. Values are logical (row-major) literals; layouts matter
// only where they change a result (bitcast).
#pragma once

#include <cstdint>
#include <span>

#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/passes/fold.h"
#include "hlo/status.h"

namespace hlo::collectives {
struct Participant;
}

namespace hlo::interp {

struct Options {
  // Refuse an execution whose live values would exceed this many bytes.
  int64_t maxMemoryBytes = int64_t{8} << 30;
  // Stop a while loop after this many iterations (0: no limit).
  int64_t maxWhileIterations = 0;
  // The device this run is, in a run on several (hlo/transport.h): its
  // collectives exchange values with the others. Null: one device.
  collectives::Participant* participant = nullptr;
};

// What a run took (hlo-run --stats).
struct RunStats {
  // The most bytes of values alive at once: those the run computed (the
  // arguments, the caller's, not counted), as --max-memory counts them.
  int64_t peakLiveBytes = 0;
};

// Runs the entry computation. `args` are the entry parameters in order.
// `stats`, when given, receives the run's figures (also when it fails).
StatusOr<Literal> evaluate(const Module& module, std::span<const Literal> args,
                           const Options& options = {}, RunStats* stats = nullptr);

// Evaluates one instruction on the values of its operands (in operand order),
// exactly as evaluate() would inside its computation; a parameter has no value
// here. Constant folding uses it (interp/fold_evaluator.cc).
StatusOr<Literal> evaluateInstruction(const Instruction& instr,
                                      std::span<const Literal* const> operands,
                                      const Options& options = {});

// The `fold` pass's evaluator (hlo/passes/fold.h): evaluateInstruction,
// for PipelineOptions::constantEvaluator. Defined in interp/fold_evaluator.cc.
ConstantEvaluator constantEvaluator();

}  // namespace hlo::interp
