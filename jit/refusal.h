// The error every emitter and library-op planner gives for an instruction it
// cannot compile, so that refusals read alike whichever part refused.
#pragma once
#include <string>

#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo::jit {

// "cannot compile <opcode> (%name)" plus an optional reason.
Status cannotCompile(const Instruction& instr, const std::string& why = "");

}  // namespace hlo::jit
