// The one table of ops whose values both engines take from hlo/: the
// single-device ops (single_device.h), scan (scan.h) and the random-number
// ops (random.h). The interpreter evaluates them through it, and the CPU
// runtime runs them as runtime steps with compiled callees.
#pragma once
#include "hlo/engine_hooks.h"

namespace hlo {

// The shared semantics of `instr`, or nullptr when its values are computed
// by each engine its own way.
SharedSemantics sharedSemanticsOf(const Instruction& instr);

}  // namespace hlo
