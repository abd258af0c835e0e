#include "jit/refusal.h"

namespace hlo::jit {

Status cannotCompile(const Instruction& instr, const std::string& why) {
  std::string message = "cannot compile " + std::string(opcodeName(instr.opcode())) + " (%" + instr.name() + ")";
  if (!why.empty()) message += ": " + why;
  return errorStatus(message, instr.loc());
}

}  // namespace hlo::jit
