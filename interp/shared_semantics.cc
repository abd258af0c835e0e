// Interpreter ops whose semantics live in hlo/, shared with the CPU runtime
// (hlo/shared_semantics.h: the single-device ops, scan, the random-number
// ops).
#include "hlo/shared_semantics.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

EngineHooks hooksOf(EvalContext& ctx) {
  return EngineHooks{
      [&ctx](const Computation& callee, Values args) { return ctx.call(callee, args); },
      [](const Instruction& instr, const std::string& why) { return EvalContext::unsupported(instr, why); },
      [&ctx](const Instruction& instr, const Shape& shape) { return ctx.checkMemory(shapeBytes(shape), instr); },
      ctx.options().participant};
}

}  // namespace

StatusOr<Literal> evalShared(EvalContext& ctx, const Instruction& instr, Operands ops) {
  SharedSemantics shared = sharedSemanticsOf(instr);
  if (!shared) return EvalContext::unsupported(instr, "internal error: no shared semantics");
  return shared(instr, ops, hooksOf(ctx));
}

}  // namespace hlo::interp
