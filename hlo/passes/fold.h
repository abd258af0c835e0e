// The evaluator hook of the `fold` pass (hlo/passes/fold.cc).
//
// Folding must compute exactly what the reference interpreter computes, yet
// hlo/passes/ may not depend on interp/ (DESIGN.md). So the pass asks an
// injected function for each value, and the interpreter supplies it:
// interp::installConstantFolding() (interp/fold_evaluator.cc) installs
// interp::evaluateInstruction here. A program that wants folding calls it once
// at startup, before any pass runs (tools/hlo-opt.cc does). With no evaluator
// installed, `fold` changes nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "hlo/instruction.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

// The value of `instr` given the values of its operands, in operand order; an
// error when it cannot be computed (the instruction is then left alone).
using ConstantEvaluator =
    std::function<StatusOr<Literal>(const Instruction& instr, std::span<const Literal* const> operands)>;

// Installs `evaluator` for every later run of `fold` (an empty function
// uninstalls) and returns the one it replaces, so a test can restore it.
// One global, not synchronized: set it before passes run.
ConstantEvaluator setConstantEvaluator(ConstantEvaluator evaluator);

// Whether `instr`'s value is a pure, deterministic function of its operands
// that `fold` may compute: its opcode and the computations it calls decide;
// its size, uses and control edges, which the pass also checks, do not.
// The JIT computes runtime sizes from constants by the same definition.
bool pureFunctionOfOperands(const Instruction& instr);

// `fold` leaves an instruction alone when its result has more elements than
// this (fold.cc says why).
inline constexpr int64_t kMaxFoldedElements = 1024;

}  // namespace hlo
