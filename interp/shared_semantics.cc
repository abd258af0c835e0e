// Interpreter ops whose semantics live in hlo/, shared with the CPU runtime:
// the single-device ops (hlo/single_device.h: collectives over one
// participant, async wrappers, annotation custom calls, replica and
// partition ids), scan (hlo/scan.h) and the random-number ops
// (hlo/random.h).
#include "hlo/random.h"
#include "hlo/scan.h"
#include "hlo/single_device.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

EngineHooks hooksOf(EvalContext& ctx) {
  return EngineHooks{
      [&ctx](const Computation& callee, Values args) { return ctx.call(callee, args); },
      [](const Instruction& instr, const std::string& why) { return EvalContext::unsupported(instr, why); },
      [&ctx](const Instruction& instr, const Shape& shape) { return ctx.checkMemory(shapeBytes(shape), instr); }};
}

}  // namespace

StatusOr<Literal> evalSingleDevice(EvalContext& ctx, const Instruction& instr, Operands ops) {
  return single_device::evaluate(instr, ops, hooksOf(ctx));
}

StatusOr<Literal> evalScan(EvalContext& ctx, const Instruction& instr, Operands ops) {
  return evaluateScan(instr, ops, hooksOf(ctx));
}

StatusOr<Literal> evalRng(EvalContext& ctx, const Instruction& instr, Operands ops) {
  return evaluateRng(instr, ops, hooksOf(ctx));
}

StatusOr<Literal> evalRngBitGenerator(EvalContext& ctx, const Instruction& instr, Operands ops) {
  return evaluateRngBitGenerator(instr, ops, hooksOf(ctx));
}

StatusOr<Literal> evalRngGetAndUpdateState(EvalContext& ctx, const Instruction& instr, Operands ops) {
  return evaluateRngGetAndUpdateState(instr, ops, hooksOf(ctx));
}

}  // namespace hlo::interp
