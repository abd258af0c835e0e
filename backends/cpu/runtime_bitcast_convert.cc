// Library op: a bitcast-convert between element types of different widths
// (one wide element becomes several narrow ones along a new minor dimension,
// or the reverse), or to or from pred or a complex type: a byte copy, or
// hlo/bitcast_convert.h's bit shuffling for sub-byte types and pred. Other
// same-width ones are elementwise and emitted in kernels.
#include "backends/cpu/runtime_ops.h"
#include "hlo/bitcast_convert.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

Status runBitcastConvert(const RuntimeCall& call) {
  Status done = bitcastConvert(*call.operands[0], call.result);
  if (!done.ok()) return errorStatus("cpu: %" + call.instr.name() + ": " + done.message(), call.instr.loc());
  return okStatus();
}

}  // namespace

bool sameWidthBitcastConvert(const Instruction& instr) {
  if (instr.operandCount() != 1 || !instr.operand(0)->shape().isArray() || !instr.shape().isArray() ||
      instr.operand(0)->shape().dims() != instr.shape().dims())
    return false;
  // pred (0 or 1 from any nonzero byte) and complex values are not one LLVM
  // bitcast: the library op runs them.
  auto plain = [](ElementType t) { return t != ElementType::kPred && !isComplex(t); };
  return plain(instr.operand(0)->shape().type()) && plain(instr.shape().type());
}

StatusOr<RuntimePlan> planBitcastConvert(HelperModule&, const Instruction& instr, const std::string&) {
  if (instr.operandCount() != 1 || !instr.operand(0)->shape().isArray() || !instr.shape().isArray() ||
      instr.operand(0)->shape().isDynamic() || instr.shape().isDynamic())
    return jit::cannotCompile(instr, "expected a static array operand and result");
  return RuntimePlan{runBitcastConvert, {}};
}

}  // namespace hlo::cpu
