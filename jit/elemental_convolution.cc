// The elemental emitter's convolution: one output element computed
// directly, as the interpreter computes it (interp/convolution.cc), so a
// backend without a convolution library (the GPU's kernels) runs any
// convolution XLA writes: dimension numbers, strides, padding, both
// dilations, window reversal, feature and batch groups.
//
// For the output element (batch ob, feature oz, spatial o...):
//   - feature group fg = oz / (O / feature_group_count) reads input features
//     fg * Ci .. fg * Ci + Ci - 1 (Ci the kernel's input features), batch
//     group bg = oz / (O / batch_group_count) the input batch
//     bg * B' + ob (B' the output's batch);
//   - for each kernel position w... (row-major) the position in the padded,
//     lhs-dilated input is p = o * stride + w * rhs_dilation - pad_low; it
//     contributes when 0 <= p, p % lhs_dilation == 0 and p / lhs_dilation is
//     inside the input; the kernel is read at size - 1 - w when reversed;
//   - for each input feature of the group, input * kernel is summed in
//     double for a float result (rounded once at the end) and in 64-bit
//     integers, wrapping, for an integer one.
#include <functional>

#include "hlo/contraction.h"
#include "jit/elemental_emitter.h"

namespace hlo::jit {

StatusOr<llvm::Value*> ElementalEmitter::emitConvolution(const Instruction& instr, const IrIndex& index) {
  if (instr.operandCount() != 2 || instr.attrs().has(AttrKey::kSparsity) ||
      instr.attrs().has(AttrKey::kSparsityConfig))
    return cannotCompile(instr, "a convolution of a dense input and kernel");
  const Instruction& in = *instr.operand(0);
  const Instruction& kernel = *instr.operand(1);
  StatusOr<ConvolutionPlan> plan = convolutionPlan(instr.attrs(), in.shape(), kernel.shape(), instr.shape());
  if (!plan.ok()) return cannotCompile(instr, plan.status().message());
  const ElementType out = instr.shape().type();
  const ElementType lhsType = in.shape().type(), rhsType = kernel.shape().type();
  auto integral = [](ElementType t) { return isInteger(t) || isPred(t); };
  const bool floatResult = isFloat(out);
  if (!(isFloat(lhsType) || integral(lhsType)) || !(isFloat(rhsType) || integral(rhsType)) ||
      !(floatResult || (isInteger(out) && integral(lhsType) && integral(rhsType))))
    return cannotCompile(instr, "element types " + std::string(elementTypeName(lhsType)) + " x " +
                                    std::string(elementTypeName(rhsType)) + " -> " +
                                    std::string(elementTypeName(out)) +
                                    " (real operands, and integer ones for an integer result)");
  const ConvolutionPlan& p = *plan;
  const ConvDims& dn = p.dn;
  const ElementType acc = floatResult ? ElementType::kF64 : ElementType::kS64;
  llvm::Type* accType = valueType(acc);
  auto widen = [&](const Instruction& from, const IrIndex& at) -> StatusOr<llvm::Value*> {
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, emit(from, at));
    ElementType t = from.shape().type();
    if (floatResult) return convert(instr, t, acc, x);
    return isSigned(t) ? b_.CreateSExt(x, accType) : b_.CreateZExt(x, accType);
  };

  llvm::Value* oz = index.multi[static_cast<size_t>(dn.outputFeature)];
  llvm::Value* fg = b_.CreateUDiv(oz, i64(p.outFeatures / p.featureGroups));
  llvm::Value* bg = b_.CreateUDiv(oz, i64(p.outFeatures / p.batchGroups));
  IrIndex x{in.shape().dims(), std::vector<llvm::Value*>(in.shape().rank(), i64(0)), nullptr};
  IrIndex k{kernel.shape().dims(), std::vector<llvm::Value*>(kernel.shape().rank(), i64(0)), nullptr};
  x.multi[static_cast<size_t>(dn.inputBatch)] =
      b_.CreateAdd(b_.CreateMul(bg, i64(p.outBatch)), index.multi[static_cast<size_t>(dn.outputBatch)]);
  k.multi[static_cast<size_t>(dn.kernelOutputFeature)] = oz;
  llvm::Value* firstFeature = b_.CreateMul(fg, i64(p.inFeaturesPerGroup));

  llvm::AllocaInst* sum = entryAlloca(accType, "conv_sum");
  b_.CreateStore(floatResult ? llvm::ConstantFP::get(accType, 0.0) : llvm::ConstantInt::get(accType, 0), sum);
  const size_t spatial = dn.inputSpatial.size();
  std::function<Status(size_t, llvm::Value*)> nest = [&](size_t s, llvm::Value* inside) -> Status {
    if (s == spatial)
      return emitWhen(inside, "conv_tap", [&]() -> Status {
        return emitLoop(i64(0), i64(p.inFeaturesPerGroup), "conv_feature", [&](llvm::Value* f) -> Status {
          x.multi[static_cast<size_t>(dn.inputFeature)] = b_.CreateAdd(firstFeature, f);
          k.multi[static_cast<size_t>(dn.kernelInputFeature)] = f;
          HLO_ASSIGN_OR_RETURN(llvm::Value * a, widen(in, x));
          HLO_ASSIGN_OR_RETURN(llvm::Value * c, widen(kernel, k));
          llvm::Value* total = b_.CreateLoad(accType, sum);
          b_.CreateStore(floatResult ? b_.CreateFAdd(total, b_.CreateFMul(a, c))
                                     : b_.CreateAdd(total, b_.CreateMul(a, c)),
                         sum);
          return okStatus();
        });
      });
    const WindowDim& wd = p.window[s];
    const int64_t inSize = in.shape().dim(static_cast<int>(dn.inputSpatial[s]));
    return emitLoop(i64(0), i64(wd.size), "conv_window", [&](llvm::Value* w) -> Status {
      llvm::Value* o = index.multi[static_cast<size_t>(dn.outputSpatial[s])];
      llvm::Value* pos = b_.CreateSub(b_.CreateAdd(b_.CreateMul(o, i64(wd.stride)), b_.CreateMul(w, i64(wd.windowDilation))),
                                      i64(wd.padLow));
      llvm::Value* dilation = i64(wd.baseDilation);
      // A negative pos fails the first test; its quotient is then not used.
      llvm::Value* at = b_.CreateSDiv(pos, dilation);
      llvm::Value* ok = b_.CreateAnd(b_.CreateICmpSGE(pos, i64(0)),
                                     b_.CreateAnd(b_.CreateICmpEQ(b_.CreateSRem(pos, dilation), i64(0)),
                                                  b_.CreateICmpSLT(at, i64(inSize))));
      x.multi[static_cast<size_t>(dn.inputSpatial[s])] = b_.CreateSelect(ok, at, i64(0));
      k.multi[static_cast<size_t>(dn.kernelSpatial[s])] = wd.reversal ? b_.CreateSub(i64(wd.size - 1), w) : w;
      return nest(s + 1, b_.CreateAnd(inside, ok));
    });
  };
  HLO_RETURN_IF_ERROR(nest(0, b_.getTrue()));
  llvm::Value* total = b_.CreateLoad(accType, sum);
  if (floatResult) return roundedFromDouble(instr, total, out);
  return b_.CreateTrunc(total, valueType(out));
}

}  // namespace hlo::jit
