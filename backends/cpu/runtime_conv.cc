// Library op: convolution, as matrix products (im2col) through OpenBLAS,
// with full dimension numbers, window (strides, padding, lhs and rhs
// dilation, reversal), feature groups and batch groups.
//
// Algorithm, per output batch ob and group g (feature groups split the
// input features, batch groups the input batch; both split the output
// features into contiguous chunks of Og, as the semantics define them):
//   1. Patches: a matrix A[P, W*Ci] with one row per output spatial position
//      o (P of them) holding, for every kernel spatial position w (W of them,
//      row-major) and input feature f of the group, the input element at the
//      padded, lhs-dilated position o*stride + w*rhs_dilation - pad_low — or
//      0 where that falls in the padding or a dilation hole.
//   2. Weights: B[W*Ci, Og], the kernel's window of the group's output
//      features (read at size-1-w where the window is reversed).
//   3. C[P, Og] = A . B (runtime_blas.h: gemm, or a loop for small or integer
//      products), written to the output elements (ob, o, g*Og + j).
// Rows of A are built in blocks of at most kBlockElements, so a large image
// never needs its whole patch matrix at once.
#include <complex>
#include <vector>

#include "backends/cpu/runtime_blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/attributes.h"
#include "hlo/contraction.h"
#include "hlo/indexing.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kBlockElements = int64_t{1} << 22;

struct ConvShape {
  ConvDims dn;
  std::vector<WindowDim> window;
  int64_t groups = 1;          // feature groups or batch groups (one of them is 1)
  bool batchGrouped = false;   // the groups split the input batch
  int64_t ci = 1;              // input features per group (the kernel's input feature size)
  int64_t og = 1;              // output features per group
  int64_t outBatch = 1;
  Compute compute = Compute::kDouble;
};

StatusOr<ConvShape> classify(const Instruction& instr) {
  auto bad = [&](const std::string& why) { return jit::cannotCompile(instr, why); };
  if (instr.operandCount() != 2) return bad("expected an input and a kernel");
  const Shape& in = instr.operand(0)->shape();
  const Shape& kernel = instr.operand(1)->shape();
  const Shape& out = instr.shape();
  if (!in.isArray() || !kernel.isArray() || !out.isArray()) return bad("operands and result must be arrays");
  if (instr.attrs().has(AttrKey::kSparsity) || instr.attrs().has(AttrKey::kSparsityConfig))
    return bad("sparse kernels are not supported");
  StatusOr<ConvolutionPlan> plan = convolutionPlan(instr.attrs(), in, kernel, out);
  if (!plan.ok()) return bad(plan.status().message());
  if (plan->featureGroups > 1 && plan->batchGroups > 1) return bad("feature and batch groups together are not supported");
  ConvShape s;
  s.dn = plan->dn;
  s.window = plan->window;
  s.batchGrouped = plan->batchGroups > 1;
  s.groups = std::max(plan->featureGroups, plan->batchGroups);
  s.ci = plan->inFeaturesPerGroup;
  s.og = plan->outFeatures / s.groups;
  s.outBatch = plan->outBatch;
  ElementType tl = in.type(), tr = kernel.type(), to = out.type();
  if (!isNumeric(tl) || !isNumeric(tr) || !isNumeric(to))
    return bad("element type " + std::string(elementTypeName(to)) + " is not supported");
  s.compute = computeTypeFor(tl, tr, to);
  return s;
}

template <typename T>
Status convAs(const RuntimeCall& call, const ConvShape& s) {
  const Literal& in = *call.operands[0];
  const Literal& kernel = *call.operands[1];
  Literal& out = call.result;
  const ConvDims& dn = s.dn;
  size_t n = dn.inputSpatial.size();
  std::vector<int64_t> inStrides = rowMajorStrides(in.shape().dims());
  std::vector<int64_t> kStrides = rowMajorStrides(kernel.shape().dims());
  std::vector<int64_t> outStrides = rowMajorStrides(out.shape().dims());

  // The input in the compute type (f32 read in place).
  std::vector<T> inCopy;
  const T* x = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (in.type() == ElementType::kF32) x = in.data<float>();
  }
  if (!x) {
    inCopy.resize(static_cast<size_t>(in.elementCount()));
    for (int64_t i = 0; i < in.elementCount(); ++i) inCopy[i] = readAs<T>(in, i);
    x = inCopy.data();
  }

  std::vector<int64_t> windowDims(n), outSpatialDims(n);
  int64_t windowCount = 1, positions = 1;
  for (size_t i = 0; i < n; ++i) {
    windowDims[i] = s.window[i].size;
    outSpatialDims[i] = out.shape().dim(static_cast<int>(dn.outputSpatial[i]));
    windowCount *= windowDims[i];
    positions *= outSpatialDims[i];
  }
  int64_t cols = windowCount * s.ci;
  // Every window position as a multi-index, once.
  std::vector<std::vector<int64_t>> windowIndex;
  forEachIndex(windowDims, [&](const std::vector<int64_t>& w, int64_t) { windowIndex.push_back(w); });
  std::vector<std::vector<int64_t>> outIndex;
  forEachIndex(outSpatialDims, [&](const std::vector<int64_t>& o, int64_t) { outIndex.push_back(o); });

  int threads = call.pool.workers() + 1;
  int64_t blockRows = std::max<int64_t>(1, std::min<int64_t>(positions, kBlockElements / std::max<int64_t>(cols, 1)));
  std::vector<T> b(static_cast<size_t>(cols * s.og));
  std::vector<T> a(static_cast<size_t>(blockRows * cols));
  std::vector<T> c(static_cast<size_t>(blockRows * s.og));
  ResultWriter writer(out, in, kernel);

  for (int64_t g = 0; g < s.groups; ++g) {
    // 2. Weights of this group.
    for (int64_t wi = 0; wi < windowCount; ++wi)
      for (int64_t f = 0; f < s.ci; ++f)
        for (int64_t j = 0; j < s.og; ++j) {
          int64_t offset = f * kStrides[dn.kernelInputFeature] + (g * s.og + j) * kStrides[dn.kernelOutputFeature];
          for (size_t d = 0; d < n; ++d) {
            int64_t w = windowIndex[wi][d];
            offset += (s.window[d].reversal ? s.window[d].size - 1 - w : w) * kStrides[dn.kernelSpatial[d]];
          }
          b[(wi * s.ci + f) * s.og + j] = readAs<T>(kernel, offset);
        }
    int64_t featureBase = s.batchGrouped ? 0 : g * s.ci;
    for (int64_t ob = 0; ob < s.outBatch; ++ob) {
      int64_t ib = (s.batchGrouped ? g * s.outBatch : 0) + ob;
      int64_t inBase = ib * inStrides[dn.inputBatch] + featureBase * inStrides[dn.inputFeature];
      for (int64_t p0 = 0; p0 < positions; p0 += blockRows) {
        int64_t rows = std::min(blockRows, positions - p0);
        // 1. Patches, rows split across the pool.
        call.pool.parallelFor(rows, rows * cols >= (int64_t{1} << 16) ? threads : 1, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const std::vector<int64_t>& o = outIndex[p0 + r];
            T* row = a.data() + r * cols;
            for (int64_t wi = 0; wi < windowCount; ++wi) {
              T* cell = row + wi * s.ci;
              int64_t offset = inBase;
              bool inside = true;
              for (size_t d = 0; d < n && inside; ++d) {
                const WindowDim& wd = s.window[d];
                int64_t pos = o[d] * wd.stride + windowIndex[wi][d] * wd.windowDilation - wd.padLow;
                int64_t size = in.shape().dim(static_cast<int>(dn.inputSpatial[d]));
                if (pos < 0 || pos % wd.baseDilation != 0 || pos / wd.baseDilation >= size) inside = false;
                else offset += pos / wd.baseDilation * inStrides[dn.inputSpatial[d]];
              }
              if (!inside) {
                std::fill(cell, cell + s.ci, T{});
                continue;
              }
              int64_t fs = inStrides[dn.inputFeature];
              for (int64_t f = 0; f < s.ci; ++f) cell[f] = x[offset + f * fs];
            }
          }
        });
        // 3. The product and its output elements.
        matmul<T>(false, false, rows, s.og, cols, a.data(), b.data(), c.data(), threads);
        for (int64_t r = 0; r < rows; ++r) {
          const std::vector<int64_t>& o = outIndex[p0 + r];
          int64_t offset = ob * outStrides[dn.outputBatch] + g * s.og * outStrides[dn.outputFeature];
          for (size_t d = 0; d < n; ++d) offset += o[d] * outStrides[dn.outputSpatial[d]];
          int64_t fs = outStrides[dn.outputFeature];
          for (int64_t j = 0; j < s.og; ++j) writer.write(offset + j * fs, c[r * s.og + j]);
        }
      }
    }
  }
  return okStatus();
}

Status runConv(const RuntimeCall& call) {
  HLO_ASSIGN_OR_RETURN(ConvShape s, classify(call.instr));
  if (call.result.elementCount() == 0) return okStatus();
  return withComputeType(s.compute, [&](auto t) { return convAs<decltype(t)>(call, s); });
}

}  // namespace

StatusOr<RuntimePlan> planConvolution(llvm::Module&, const Instruction& instr, const std::string&) {
  HLO_RETURN_IF_ERROR(classify(instr).status());
  return RuntimePlan{runConv, {}};
}

}  // namespace hlo::cpu
