// The static work estimate of a module, and the interpreter limits of a corpus run.
#include "conformance/work_estimate.h"

#include <algorithm>
#include <cmath>

#include "hlo/custom_call_forms.h"
#include "hlo/lapack_call.h"
#include "interp/fast_reducer.h"

namespace hlo::conformance {
namespace {

double operandElements(const Instruction& instr) {
  double n = 0;
  for (const Instruction* op : instr.operands()) n += shapeElements(op->shape());
  return n;
}

// Instructions of `c` and of every computation they call (fusions in a reducer).
double deepInstructionCount(const Computation& c, int depth = 0) {
  double n = c.instructionCount();
  if (depth > 50) return n;
  for (const auto& instr : c.instructions())
    for (const Computation* callee : instr->calledComputations())
      if (callee) n += deepInstructionCount(*callee, depth + 1);
  return n;
}

// 1 + the instruction count of the computations an instruction applies per
// element; 1 for a reducer the interpreter applies directly (fast_reducer.h).
double appliedCost(const Instruction& instr) {
  if (interp::fastReducer(instr.attrs().getComputation(AttrKey::kToApply)) &&
      !instr.attrs().getComputation(AttrKey::kSelect))
    return 1;
  double n = 0;
  for (AttrKey key : {AttrKey::kToApply, AttrKey::kSelect, AttrKey::kScatter})
    if (const Computation* c = instr.attrs().getComputation(key)) n += deepInstructionCount(*c);
  return 1 + n;
}

// A convolution's result elements x kernel elements / output features.
double convolutionWork(const Instruction& instr, double resultElements) {
  const Shape& kernel = instr.operand(1)->shape();
  const AttrValue* labels = instr.attrs().find(AttrKey::kDimLabels);
  double outputFeatures = 1;
  if (labels && labels->conv.kernelOutputFeature < kernel.rank())
    outputFeatures = std::max<double>(1, kernel.dim(static_cast<int>(labels->conv.kernelOutputFeature)));
  return resultElements * shapeElements(kernel) / outputFeatures;
}

// A custom call that stands for HLO (hlo/custom_call_forms.h) costs what
// that HLO costs, so a cuDNN convolution is not priced as a copy of its
// small result; any other custom call, or one that does not fit its form
// (refused before any work), its result's elements.
double customCallWork(const Instruction& instr, double resultElements) {
  std::optional<KnownCustomCall> known = knownCustomCall(instr);
  if (!known || !known->valid.ok()) return resultElements;
  const Shape& shape = instr.shape();
  switch (known->form) {
    case CustomCallForm::kCudnnConvForward:
      if (instr.operandCount() < 2 || !shape.isTuple() || shape.tupleSize() == 0) return resultElements;
      return convolutionWork(instr, shapeElements(shape.tupleElement(0)));
    case CustomCallForm::kTopK: {
      double n = operandElements(instr);
      return n * std::log2(n + 2) * appliedCost(instr);
    }
    case CustomCallForm::kBlockScaledDot: {
      // The scaled dot contracts the lhs's last dimension.
      if (instr.operandCount() < 1 || instr.operand(0)->shape().rank() == 0) return resultElements;
      const Shape& lhs = instr.operand(0)->shape();
      return resultElements * static_cast<double>(std::max<int64_t>(1, lhs.dim(lhs.rank() - 1)));
    }
    case CustomCallForm::kBuilderMath:
      return resultElements;
    case CustomCallForm::kLapack: {
      // O(m n min(m, n)) per matrix of the batch.
      LapackCall call = *lapackCallOf(instr);
      double m = static_cast<double>(call.m), n = static_cast<double>(call.n);
      return static_cast<double>(call.batch) * m * n * std::max(1.0, std::min(m, n));
    }
  }
  return resultElements;
}

double instructionWork(const Instruction& instr) {
  const Shape& shape = instr.shape();
  double result = shapeElements(shape);
  Opcode op = instr.opcode();
  if (op == Opcode::kDot && instr.operandCount() >= 1) {
    double contracted = 1;
    const Shape& lhs = instr.operand(0)->shape();
    for (int64_t d : instr.attrs().getInts(AttrKey::kLhsContractingDims))
      if (d >= 0 && d < lhs.rank()) contracted *= static_cast<double>(lhs.dim(static_cast<int>(d)));
    return result * contracted;
  }
  if (op == Opcode::kConvolution && instr.operandCount() >= 2) return convolutionWork(instr, result);
  if (op == Opcode::kCustomCall) return customCallWork(instr, result);
  if (op == Opcode::kReduce || op == Opcode::kMap || op == Opcode::kScatter ||
      op == Opcode::kAllReduce || op == Opcode::kAllReduceStart ||
      op == Opcode::kReduceScatter)
    return result + operandElements(instr) * appliedCost(instr);
  if (op == Opcode::kReduceWindow || op == Opcode::kSelectAndScatter) {
    double window = 1;
    if (const AttrValue* w = instr.attrs().find(AttrKey::kWindow))
      for (const WindowDim& d : w->window) window *= static_cast<double>(d.size);
    return result * window * appliedCost(instr);
  }
  if (op == Opcode::kSort || op == Opcode::kTopK || op == Opcode::kFft) {
    double n = operandElements(instr);
    return n * std::log2(n + 2) * appliedCost(instr);
  }
  if ((op == Opcode::kCholesky || op == Opcode::kTriangularSolve) && shape.isArray() && shape.rank() >= 2)
    return result * static_cast<double>(shape.dim(shape.rank() - 1));
  return result;
}

}  // namespace

double shapeElements(const Shape& shape) {
  double n = shape.isArray() ? static_cast<double>(shape.elementCount()) : 0;
  for (const Shape& e : shape.tupleElements()) n += shapeElements(e);
  return n;
}

double moduleWork(const Module& module, int64_t devices) {
  double work = 0;
  double n = static_cast<double>(devices);
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions()) {
      Opcode op = instr->opcode();
      bool foldsGroup = op == Opcode::kAllReduce || op == Opcode::kAllReduceStart || op == Opcode::kReduceScatter;
      work += instructionWork(*instr) * (foldsGroup ? n * n : n);
    }
  return work;
}

bool argumentsOverMemory(const Computation& entry, int64_t maxMemory) {
  double argBytes = 0;
  for (int p = 0; p < entry.parameterCount(); ++p)
    argBytes += shapeElements(entry.parameter(p)->shape()) * 16;  // at most 16 bytes an element
  return argBytes > static_cast<double>(maxMemory);
}

interp::Options corpusEvaluationOptions(double work, double maxWork, int64_t maxMemory,
                                        int64_t maxWhileIterations) {
  interp::Options options;
  options.maxMemoryBytes = maxMemory;
  double whileLimit = std::max(10.0, 10 * std::min(maxWork, kLoopWorkScale) / std::max(work, 1.0));
  options.maxWhileIterations =
      std::min(maxWhileIterations, static_cast<int64_t>(std::min(whileLimit, 1e15)));
  return options;
}

}  // namespace hlo::conformance
