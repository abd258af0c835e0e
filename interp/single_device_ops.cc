// Interpreter ops whose single-device meaning is bookkeeping (collectives
// over one participant, async wrappers, annotation custom calls, replica and
// partition ids): their values come from hlo/single_device.h, which the CPU
// runtime shares.
#include "hlo/single_device.h"
#include "interp/ops.h"

namespace hlo::interp {

StatusOr<Literal> evalSingleDevice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  single_device::Hooks hooks{
      [&ctx](const Computation& callee, single_device::Values args) { return ctx.call(callee, args); },
      [](const Instruction& i, const std::string& why) { return EvalContext::unsupported(i, why); }};
  return single_device::evaluate(instr, ops, hooks);
}

}  // namespace hlo::interp
