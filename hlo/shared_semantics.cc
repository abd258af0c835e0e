#include "hlo/shared_semantics.h"

#include "hlo/instruction.h"
#include "hlo/random.h"
#include "hlo/scan.h"
#include "hlo/single_device.h"

namespace hlo {

SharedSemantics sharedSemanticsOf(const Instruction& instr) {
  if (single_device::handles(instr)) return single_device::evaluate;
  switch (instr.opcode()) {
    case Opcode::kScan: return evaluateScan;
    case Opcode::kRng: return evaluateRng;
    case Opcode::kRngBitGenerator: return evaluateRngBitGenerator;
    case Opcode::kRngGetAndUpdateState: return evaluateRngGetAndUpdateState;
    default: return nullptr;
  }
}

}  // namespace hlo
