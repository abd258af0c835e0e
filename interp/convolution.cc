// Interpreter op: convolution, with full dimension numbers (dim_labels),
// window (strides, padding, lhs and rhs dilation, window reversal), feature
// groups and batch groups.
//
// Algorithm, for every output element (batch ob, feature oz, spatial o...):
//   1. Feature group fg = oz / (O / feature_group_count) picks the input
//      features fg*Ci ... fg*Ci + Ci - 1 (Ci = kernel input features); batch
//      group bg = oz / (O / batch_group_count) picks input batch
//      bg * (B / batch_group_count) + ob. (StableHLO's definition: split lhs
//      and rhs into contiguous groups, convolve pairwise, concatenate.)
//   2. For each kernel spatial position w... (row-major), the position in the
//      padded, lhs-dilated input is p = o*stride + w*rhs_dilation - pad_low.
//      Padding (p outside the dilated input) and lhs-dilation holes
//      (p % lhs_dilation != 0) contribute nothing; otherwise the input
//      coordinate is p / lhs_dilation. With window reversal the kernel is
//      read at size-1-w.
//   3. For each input feature of the group, accumulate input * kernel in the
//      accumulation type of the result (interp/dense.h) and round once.
#include <complex>

#include "hlo/contraction.h"
#include "hlo/cudnn_conv_call.h"
#include "hlo/element_io.h"
#include "interp/data_checks.h"
#include "interp/dense.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// The dimension analysis lives in hlo/contraction.h, shared with the CPU
// backend's library ops; a malformed instruction is an unsupported one here.
using ConvPlan = ConvolutionPlan;

StatusOr<ConvPlan> planConv(const Instruction& instr, const Shape& in, const Shape& kernel) {
  StatusOr<ConvolutionPlan> p = convolutionPlan(instr.attrs(), in, kernel, instr.shape());
  if (!p.ok()) return EvalContext::unsupported(instr, p.status().message());
  return p;
}

template <typename T>
StatusOr<Literal> convAs(EvalContext& ctx, const Instruction& instr, const Literal& in,
                         const Literal& kernel, const ConvPlan& p) {
  HLO_RETURN_IF_ERROR(ctx.checkMemory((in.elementCount() + kernel.elementCount()) * int64_t(sizeof(T)), instr));
  std::vector<int64_t> inPerm(in.shape().rank()), kPerm(kernel.shape().rank());
  for (size_t i = 0; i < inPerm.size(); ++i) inPerm[i] = static_cast<int64_t>(i);
  for (size_t i = 0; i < kPerm.size(); ++i) kPerm[i] = static_cast<int64_t>(i);
  std::vector<T> x = gatherAs<T>(in, inPerm);
  std::vector<T> k = gatherAs<T>(kernel, kPerm);
  std::vector<int64_t> inStrides = rowMajorStrides(in.shape().dims());
  std::vector<int64_t> kStrides = rowMajorStrides(kernel.shape().dims());
  const ConvDims& dn = p.dn;
  size_t n = dn.inputSpatial.size();
  std::vector<int64_t> windowSizes(n);
  for (size_t i = 0; i < n; ++i) windowSizes[i] = p.window[i].size;
  int64_t featureGroupSize = p.outFeatures / p.featureGroups;
  int64_t batchGroupSize = p.outFeatures / p.batchGroups;
  int64_t inBatchPerGroup = p.outBatch;
  int64_t inFeatureStride = inStrides[dn.inputFeature];
  int64_t kFeatureStride = kStrides[dn.kernelInputFeature];

  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  RoundVia round(instr);
  forEachIndex(instr.shape().dims(), [&](const std::vector<int64_t>& o, int64_t linear) {
    int64_t oz = o[dn.outputFeature];
    int64_t fg = oz / featureGroupSize;
    int64_t bg = oz / batchGroupSize;
    int64_t inBase = (bg * inBatchPerGroup + o[dn.outputBatch]) * inStrides[dn.inputBatch] +
                     fg * p.inFeaturesPerGroup * inFeatureStride;
    int64_t kBase = oz * kStrides[dn.kernelOutputFeature];
    T acc{};
    forEachIndex(windowSizes, [&](const std::vector<int64_t>& w, int64_t) {
      int64_t inOffset = inBase, kOffset = kBase;
      for (size_t s = 0; s < n; ++s) {
        const WindowDim& wd = p.window[s];
        int64_t inSize = in.shape().dim(static_cast<int>(dn.inputSpatial[s]));
        int64_t pos = o[dn.outputSpatial[s]] * wd.stride + w[s] * wd.windowDilation - wd.padLow;
        if (pos < 0 || pos % wd.baseDilation != 0 || pos / wd.baseDilation >= inSize) return;
        inOffset += pos / wd.baseDilation * inStrides[dn.inputSpatial[s]];
        kOffset += (wd.reversal ? wd.size - 1 - w[s] : w[s]) * kStrides[dn.kernelSpatial[s]];
      }
      for (int64_t f = 0; f < p.inFeaturesPerGroup; ++f)
        acc += x[inOffset + f * inFeatureStride] * k[kOffset + f * kFeatureStride];
    });
    writeAs(out, linear, round(acc));
  });
  return out;
}

// The convolution `instr` describes, of the values `ops`; its shape is
// checked against them by the caller.
StatusOr<Literal> convolve(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (instr.attrs().has(AttrKey::kSparsity) || instr.attrs().has(AttrKey::kSparsityConfig))
    return EvalContext::unsupported(instr, "sparse kernels");
  if (ops.size() != 2) return EvalContext::unsupported(instr, "expected an input and a kernel");
  HLO_ASSIGN_OR_RETURN(ConvPlan p, planConv(instr, ops[0]->shape(), ops[1]->shape()));
  switch (accKindFor(instr.shape().type(), ops[0]->type(), ops[1]->type())) {
    case AccKind::kInt: return convAs<uint64_t>(ctx, instr, *ops[0], *ops[1], p);
    case AccKind::kReal: return convAs<double>(ctx, instr, *ops[0], *ops[1], p);
    case AccKind::kComplex: return convAs<std::complex<double>>(ctx, instr, *ops[0], *ops[1], p);
  }
  return EvalContext::unsupported(instr);
}

}  // namespace

StatusOr<Literal> evalConvolution(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  return convolve(ctx, instr, ops);
}

// cuDNN's forward convolution call (hlo/cudnn_conv_call.h): the
// convolution its attributes describe, times conv_result_scale (a second
// rounding, as the CPU JIT's multiply after its convolution), and a
// workspace of zeros.
StatusOr<Literal> evalCudnnConvForward(EvalContext& ctx, const Instruction& instr, Operands ops) {
  StatusOr<CudnnConv> call = cudnnConvOf(instr);
  if (!call.ok()) return EvalContext::unsupported(instr, call.status().message());
  Instruction conv(Opcode::kConvolution, instr.name(), call->convolution);
  conv.setLoc(instr.loc());
  copyConvolutionAttributes(instr, conv);
  // cudnnConvOf has checked the convolution's shape against the operands.
  HLO_ASSIGN_OR_RETURN(Literal y, convolve(ctx, conv, ops));
  if (call->scale != 1)
    for (int64_t i = 0; i < y.elementCount(); ++i) writeFloat(y, i, y.toDouble(i) * call->scale);
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  result.tupleElements()[0] = std::move(y);
  return result;
}

}  // namespace hlo::interp
