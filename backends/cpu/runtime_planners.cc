// Which planner plans each opcode's library op. Kept apart from the table of
// elemental forms (runtime_ops.cc), which needs the emitter, so that a
// runtime without LLVM (an ahead-of-time library) can plan its steps again.
#include "backends/cpu/runtime_ops.h"

namespace hlo::cpu {

namespace {

struct Planner {
  Opcode opcode;
  PlanFn plan;
};
constexpr Planner kPlanners[] = {
    {Opcode::kDot, planDot},
    {Opcode::kRaggedDot, planRaggedDot},
    {Opcode::kScaledDot, planScaledDot},
    {Opcode::kConvolution, planConvolution},
    {Opcode::kSort, planSort},
    {Opcode::kTopK, planTopK},
    {Opcode::kFft, planFft},
    {Opcode::kGather, planGather},
    {Opcode::kScatter, planScatter},
    {Opcode::kSelectAndScatter, planSelectAndScatter},
    {Opcode::kTriangularSolve, planTriangularSolve},
    {Opcode::kCholesky, planCholesky},
    {Opcode::kCustomCall, planLapackCall},
    {Opcode::kTranspose, planTranspose},
    {Opcode::kReduce, planReduce},
    {Opcode::kReduceWindow, planReduce},
    {Opcode::kBitcastConvert, planBitcastConvert},
};

}  // namespace

PlanFn libraryPlanner(Opcode opcode) {
  for (const Planner& p : kPlanners)
    if (p.opcode == opcode) return p.plan;
  return nullptr;
}

}  // namespace hlo::cpu
