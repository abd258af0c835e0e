// The value of a scan instruction (semantics in hlo/scan.cc), shared by the
// interpreter and the CPU runtime.
#pragma once
#include "hlo/engine_hooks.h"

namespace hlo {

// Refuses malformed instances through hooks.refuse; runs to_apply through
// hooks.call once per step.
StatusOr<Literal> evaluateScan(const Instruction& instr, Values operands, const EngineHooks& hooks);

}  // namespace hlo
