// The random-number ops (semantics at the top of hlo/random.cc): XLA's
// generators bit for bit where XLA defines the bits, shared by the
// interpreter and the CPU runtime.
#pragma once
#include "hlo/engine_hooks.h"

namespace hlo {

StatusOr<Literal> evaluateRng(const Instruction& instr, Values operands, const EngineHooks& hooks);
StatusOr<Literal> evaluateRngBitGenerator(const Instruction& instr, Values operands, const EngineHooks& hooks);
StatusOr<Literal> evaluateRngGetAndUpdateState(const Instruction& instr, Values operands, const EngineHooks& hooks);

}  // namespace hlo
