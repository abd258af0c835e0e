// Shape inference for the linear-algebra operations: dot, ragged-dot,
// scaled-dot, convolution, fft, triangular-solve, cholesky and batch norm.
#include <algorithm>

#include "hlo/shape_inference_internal.h"

namespace hlo::inference {
namespace {

bool contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The result element type of dot-like ops: the declared one (XLA's
// "preferred element type"), else the wider operand type.
ElementType dotType(const Ctx& c, const Shape& lhs, const Shape& rhs) {
  if (c.declared && c.declared->isArray()) return c.declared->type();
  return higherPrecision(lhs.type(), rhs.type());
}

struct DotDims {
  std::vector<int64_t> lhsBatch, lhsContracting, rhsBatch, rhsContracting;
};

StatusOr<DotDims> checkDotDims(const Ctx& c, const Shape& lhs, const Shape& rhs) {
  const Attributes& a = c.attrs();
  DotDims d{a.getInts(AttrKey::kLhsBatchDims), a.getInts(AttrKey::kLhsContractingDims),
            a.getInts(AttrKey::kRhsBatchDims), a.getInts(AttrKey::kRhsContractingDims)};
  if (!lhs.isArray() || !rhs.isArray())
    return c.error("operands must be arrays, got " + str(lhs) + " and " + str(rhs));
  auto distinct = [](std::vector<int64_t> x, const std::vector<int64_t>& y, int64_t rank) {
    x.insert(x.end(), y.begin(), y.end());
    return validDimList(x, rank);
  };
  if (!distinct(d.lhsBatch, d.lhsContracting, lhs.rank()) ||
      !distinct(d.rhsBatch, d.rhsContracting, rhs.rank()))
    return c.error("batch and contracting dimensions must be distinct dimensions of " +
                   str(lhs) + " and " + str(rhs));
  if (d.lhsContracting.size() != d.rhsContracting.size() ||
      d.lhsBatch.size() != d.rhsBatch.size())
    return c.error("lhs and rhs must have as many batch and contracting dimensions");
  for (size_t i = 0; i < d.lhsContracting.size(); ++i)
    if (!compatibleDim(lhs.dim(static_cast<int>(d.lhsContracting[i])),
                       rhs.dim(static_cast<int>(d.rhsContracting[i]))))
      return c.error("contracting dimensions of " + str(lhs) + " and " + str(rhs) + " differ");
  for (size_t i = 0; i < d.lhsBatch.size(); ++i)
    if (!compatibleDim(lhs.dim(static_cast<int>(d.lhsBatch[i])),
                       rhs.dim(static_cast<int>(d.rhsBatch[i]))))
      return c.error("batch dimensions of " + str(lhs) + " and " + str(rhs) + " differ");
  return d;
}

// Batch dimensions, then lhs free, then rhs free (less `rhsSkip`).
void appendDotDims(const Shape& lhs, const Shape& rhs, const DotDims& d,
                   const std::vector<int64_t>& rhsSkip, std::vector<int64_t>& dims,
                   std::vector<bool>& dynamic) {
  for (int64_t b : d.lhsBatch) {
    dims.push_back(lhs.dim(static_cast<int>(b)));
    dynamic.push_back(lhs.isDynamicDim(static_cast<int>(b)));
  }
  for (int i = 0; i < lhs.rank(); ++i)
    if (!contains(d.lhsBatch, i) && !contains(d.lhsContracting, i)) {
      dims.push_back(lhs.dim(i));
      dynamic.push_back(lhs.isDynamicDim(i));
    }
  for (int i = 0; i < rhs.rank(); ++i)
    if (!contains(d.rhsBatch, i) && !contains(d.rhsContracting, i) && !contains(rhsSkip, i)) {
      dims.push_back(rhs.dim(i));
      dynamic.push_back(rhs.isDynamicDim(i));
    }
}

// A scaled-dot scale: a scalar, or one value per block of the operand.
Status checkScale(const Ctx& c, int operand, int scale) {
  const Shape& x = c.operand(operand);
  const Shape& s = c.operand(scale);
  if (!s.isArray()) return c.error("scale " + str(s) + " must be an array");
  if (s.isScalar()) return okStatus();
  if (s.rank() != x.rank())
    return c.error("scale " + str(s) + " must be a scalar or have the rank of " + str(x));
  for (int i = 0; i < x.rank(); ++i)
    if (s.dim(i) <= 0 || x.dim(i) % s.dim(i) != 0)
      return c.error("dimension " + std::to_string(i) + " of " + str(x) +
                     " is not a multiple of the scale's " + str(s));
  return okStatus();
}

int64_t dilated(int64_t bound, int64_t dilation) {
  return bound == 0 ? 0 : (bound - 1) * dilation + 1;
}

// The spatial output sizes of a windowed operation over `base` sizes.
StatusOr<std::vector<int64_t>> windowOutput(const Ctx& c, const std::vector<int64_t>& base,
                                            const std::vector<WindowDim>& window) {
  if (window.size() != base.size())
    return c.error("window has " + std::to_string(window.size()) + " dimensions, expected " +
                   std::to_string(base.size()));
  std::vector<int64_t> out;
  for (size_t i = 0; i < base.size(); ++i) {
    const WindowDim& w = window[i];
    if (w.size <= 0 || w.stride <= 0 || w.baseDilation < 1 || w.windowDilation < 1)
      return c.error("window sizes and strides must be positive and dilations at least 1");
    if (base[i] == Shape::kUnboundedDim) {
      out.push_back(Shape::kUnboundedDim);
      continue;
    }
    int64_t padded = w.padLow + dilated(base[i], w.baseDilation) + w.padHigh;
    int64_t span = dilated(w.size, w.windowDilation);
    out.push_back(span > padded ? 0 : (padded - span) / w.stride + 1);
  }
  return out;
}

}  // namespace

StatusOr<Shape> windowedShape(const Ctx& c, const Shape& base, const std::vector<WindowDim>& w,
                              ElementType type) {
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> dims, windowOutput(c, base.dims(), w));
  return makeArray(type, dims, base.dynamicDims());
}

StatusOr<Shape> inferDot(const Ctx& c) {
  const Shape& lhs = c.operand(0);
  const Shape& rhs = c.operand(1);
  HLO_ASSIGN_OR_RETURN(DotDims d, checkDotDims(c, lhs, rhs));
  if (c.op() == Opcode::kScaledDot) {
    HLO_RETURN_IF_ERROR(checkScale(c, 0, 2));
    HLO_RETURN_IF_ERROR(checkScale(c, 1, 3));
    if (c.operand(2).isScalar() && c.operand(3).isScalar())
      return c.error("at least one scale must not be a scalar");
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  appendDotDims(lhs, rhs, d, {}, dims, dynamic);
  return makeArray(dotType(c, lhs, rhs), dims, dynamic);
}

// Exactly one lhs ragged dimension; it is (1) a free lhs dimension: rhs has a
// group dimension of g groups that is dropped, (2) a contracting dimension:
// the result gains a leading group dimension, or (3) a batch dimension.
StatusOr<Shape> inferRaggedDot(const Ctx& c) {
  const Shape& lhs = c.operand(0);
  const Shape& rhs = c.operand(1);
  const Shape& groups = c.operand(2);
  HLO_ASSIGN_OR_RETURN(DotDims d, checkDotDims(c, lhs, rhs));
  if (!groups.isArray() || groups.rank() < 1)
    return c.error("group sizes must be an array of rank at least 1, got " + str(groups));
  const auto& ragged = c.attrs().getInts(AttrKey::kLhsRaggedDims);
  const auto& rhsGroup = c.attrs().getInts(AttrKey::kRhsGroupDims);
  if (ragged.size() != 1 || ragged[0] < 0 || ragged[0] >= lhs.rank())
    return c.error("expected exactly one lhs ragged dimension of " + str(lhs));
  bool contracting = contains(d.lhsContracting, ragged[0]);
  bool batch = contains(d.lhsBatch, ragged[0]);
  int64_t numGroups = groups.dim(groups.rank() - 1);
  for (int64_t g : rhsGroup)
    if (g < 0 || g >= rhs.rank() || contains(d.rhsBatch, g) || contains(d.rhsContracting, g))
      return c.error("rhs group dimension " + std::to_string(g) +
                     " must be a free dimension of " + str(rhs));
  if (contracting || batch) {
    if (!rhsGroup.empty())
      return c.error("rhs must have no group dimension when the ragged dimension is a batch or "
                     "contracting dimension");
  } else if (rhsGroup.size() != 1 ||
             !compatibleDim(rhs.dim(static_cast<int>(rhsGroup[0])), numGroups)) {
    return c.error("rhs must have one group dimension of " + std::to_string(numGroups) +
                   " groups");
  }
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  if (contracting) {
    dims.push_back(numGroups);
    dynamic.push_back(groups.isDynamicDim(groups.rank() - 1));
  }
  appendDotDims(lhs, rhs, d, rhsGroup, dims, dynamic);
  return makeArray(dotType(c, lhs, rhs), dims, dynamic);
}

StatusOr<Shape> inferConvolution(const Ctx& c) {
  if (c.operandCount() < 2) return c.error("expected an input and a kernel");
  const Shape& lhs = c.operand(0);
  const Shape& rhs = c.operand(1);
  if (!lhs.isArray() || !rhs.isArray())
    return c.error("operands must be arrays, got " + str(lhs) + " and " + str(rhs));
  const Attributes& a = c.attrs();
  int64_t featureGroups = a.getInt(AttrKey::kFeatureGroupCount, 1);
  int64_t batchGroups = a.getInt(AttrKey::kBatchGroupCount, 1);
  if (featureGroups <= 0 || batchGroups <= 0 || (featureGroups > 1 && batchGroups > 1))
    return c.error("group counts must be positive and at most one of them above 1");
  const AttrValue* labels = a.find(AttrKey::kDimLabels);
  if (!labels) return c.error("expected dim_labels");
  const ConvDims& dn = labels->conv;
  const AttrValue* windowAttr = a.find(AttrKey::kWindow);
  std::vector<WindowDim> window = windowAttr ? windowAttr->window : std::vector<WindowDim>{};
  size_t n = dn.inputSpatial.size();
  int64_t rank = static_cast<int64_t>(n) + 2;
  if (dn.kernelSpatial.size() != n || dn.outputSpatial.size() != n || window.size() != n)
    return c.error("dim_labels and window must have the same number of spatial dimensions");
  if (lhs.rank() != rank || rhs.rank() != rank)
    return c.error("input " + str(lhs) + " and kernel " + str(rhs) + " must have rank " +
                   std::to_string(rank));
  auto perm = [&](int64_t x, int64_t y, const std::vector<int64_t>& rest) {
    std::vector<int64_t> v = rest;
    v.push_back(x);
    v.push_back(y);
    return isPermutation(v, rank);
  };
  if (!perm(dn.inputBatch, dn.inputFeature, dn.inputSpatial) ||
      !perm(dn.kernelInputFeature, dn.kernelOutputFeature, dn.kernelSpatial) ||
      !perm(dn.outputBatch, dn.outputFeature, dn.outputSpatial))
    return c.error("dim_labels must name each dimension exactly once");
  int64_t inFeatures = lhs.dim(static_cast<int>(dn.inputFeature));
  int64_t batch = lhs.dim(static_cast<int>(dn.inputBatch));
  int64_t kernelIn = rhs.dim(static_cast<int>(dn.kernelInputFeature));
  int64_t kernelOut = rhs.dim(static_cast<int>(dn.kernelOutputFeature));
  std::vector<int64_t> inSpatial, kernelSpatial;
  for (size_t i = 0; i < n; ++i) {
    inSpatial.push_back(lhs.dim(static_cast<int>(dn.inputSpatial[i])));
    kernelSpatial.push_back(rhs.dim(static_cast<int>(dn.kernelSpatial[i])));
  }
  if (kernelOut % batchGroups != 0 || kernelOut % featureGroups != 0 || batch % batchGroups != 0)
    return c.error("kernel output features (" + std::to_string(kernelOut) +
                   ") and batch must divide by the group counts");
  // XLA's verifier infers every kind (fprop, dgrad, wgrad) the forward way;
  // convolution_kind is a hint for backends. A sparse kernel (sparsity_config)
  // packs its input features, so their count is not checked.
  bool sparse = a.has(AttrKey::kSparsity) || a.has(AttrKey::kSparsityConfig);
  ElementType type = dotType(c, lhs, rhs);
  if (!sparse && (inFeatures % featureGroups != 0 || inFeatures / featureGroups != kernelIn))
    return c.error("input features (" + std::to_string(inFeatures) +
                   ") divided by feature_group_count (" + std::to_string(featureGroups) +
                   ") must equal the kernel's input features (" + std::to_string(kernelIn) + ")");
  for (size_t i = 0; i < n; ++i)
    if (window[i].size != kernelSpatial[i])
      return c.error("window size " + std::to_string(window[i].size) +
                     " does not match kernel spatial dimension " + std::to_string(i) + " of " +
                     str(rhs));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> outSpatial, windowOutput(c, inSpatial, window));
  std::vector<int64_t> dims(rank);
  std::vector<bool> dynamic(rank, false);
  dims[dn.outputBatch] = batch / batchGroups;
  dims[dn.outputFeature] = kernelOut;
  dynamic[dn.outputBatch] = lhs.isDynamicDim(static_cast<int>(dn.inputBatch));
  for (size_t i = 0; i < n; ++i) {
    dims[dn.outputSpatial[i]] = outSpatial[i];
    dynamic[dn.outputSpatial[i]] = lhs.isDynamicDim(static_cast<int>(dn.inputSpatial[i])) ||
                                   rhs.isDynamicDim(static_cast<int>(dn.kernelSpatial[i]));
  }
  return makeArray(type, dims, dynamic);
}

StatusOr<Shape> inferFft(const Ctx& c) {
  const Shape& x = c.operand(0);
  const std::vector<int64_t>& length = c.attrs().getInts(AttrKey::kFftLength);
  std::string_view type = c.attrs().getString(AttrKey::kFftType);
  int64_t n = static_cast<int64_t>(length.size());
  if (!x.isArray() || n < 1 || n > 3 || x.rank() < n)
    return c.error("fft_length must have 1 to 3 entries, at most the rank of " + str(x));
  int last = x.rank() - 1;
  if (type == "FFT" || type == "IFFT") {
    if (!isComplex(x.type())) return c.error(std::string(type) + " needs a complex operand");
    return x;
  }
  if (type == "RFFT") {
    if (x.type() != ElementType::kF32 && x.type() != ElementType::kF64)
      return c.error("RFFT needs an f32 or f64 operand, got " + str(x));
    for (int64_t i = 0; i < n; ++i)
      if (!compatibleDim(x.dim(static_cast<int>(x.rank() - n + i)), length[i]))
        return c.error("the minor dimensions of " + str(x) + " must equal fft_length=" +
                       str(length));
    Shape out = withType(x, x.type() == ElementType::kF32 ? ElementType::kC64 : ElementType::kC128);
    if (length[n - 1] != 0) out.setDim(last, length[n - 1] / 2 + 1, x.isDynamicDim(last));
    return out;
  }
  if (type == "IRFFT") {
    if (!isComplex(x.type())) return c.error("IRFFT needs a complex operand");
    for (int64_t i = 0; i + 1 < n; ++i)
      if (!compatibleDim(x.dim(static_cast<int>(x.rank() - n + i)), length[i]))
        return c.error("the minor dimensions of " + str(x) + " must match fft_length=" +
                       str(length));
    int64_t want = length[n - 1] / 2 + 1;
    if ((x.dim(last) != 0 || length[n - 1] != 0) && !compatibleDim(x.dim(last), want))
      return c.error("the minor dimension of " + str(x) + " must be " + std::to_string(want));
    Shape out = withType(x, complexComponentType(x.type()));
    out.setDim(last, length[n - 1], x.isDynamicDim(last));
    return out;
  }
  return c.error("unknown fft_type '" + std::string(type) + "'");
}

StatusOr<Shape> inferTriangularSolve(const Ctx& c) {
  const Shape& a = c.operand(0);
  const Shape& b = c.operand(1);
  if (!a.isArray() || !b.isArray() || (!isFloat(a.type()) && !isComplex(a.type())) ||
      a.type() != b.type())
    return c.error("operands must be floating-point or complex arrays of one type, got " +
                   str(a) + " and " + str(b));
  if (a.rank() < 2 || b.rank() != a.rank())
    return c.error("operands must have the same rank, at least 2, got " + str(a) + " and " +
                   str(b));
  int r = a.rank();
  bool left = c.attrs().getBool(AttrKey::kLeftSide, false);
  if (!compatibleDim(a.dim(r - 2), a.dim(r - 1)))
    return c.error("the two minor dimensions of " + str(a) + " must be equal");
  if (!compatibleDim(a.dim(r - 1), b.dim(left ? r - 2 : r - 1)))
    return c.error("the shared dimension of " + str(a) + " and " + str(b) + " differs");
  for (int i = 0; i < r - 2; ++i)
    if (a.dim(i) != b.dim(i)) return c.error("batch dimensions of " + str(a) + " and " + str(b) +
                                             " differ");
  std::string_view t = c.attrs().getString(AttrKey::kTransposeA);
  if (!t.empty() && t != "NO_TRANSPOSE" && t != "TRANSPOSE" && t != "ADJOINT")
    return c.error("unknown transpose_a '" + std::string(t) + "'");
  return b;
}

StatusOr<Shape> inferCholesky(const Ctx& c) {
  const Shape& a = c.operand(0);
  if (!a.isArray() || (!isFloat(a.type()) && !isComplex(a.type())) || a.rank() < 2 ||
      !compatibleDim(a.dim(a.rank() - 2), a.dim(a.rank() - 1)))
    return c.error("operand must be a floating-point or complex array of square matrices, got " +
                   str(a));
  return a;
}

// training(operand, scale, offset); inference(operand, scale, offset, mean,
// variance); grad(operand, scale, mean, variance, grad_output).
StatusOr<Shape> inferBatchNorm(const Ctx& c) {
  const Shape& x = c.operand(0);
  int64_t feature = c.attrs().getInt(AttrKey::kFeatureIndex, -1);
  if (!x.isArray() || !isFloat(x.type()) || x.rank() < 1)
    return c.error("operand must be a floating-point array, got " + str(x));
  if (feature < 0 || feature >= x.rank())
    return c.error("feature_index " + std::to_string(feature) + " is out of range for " + str(x));
  int64_t features = x.dim(static_cast<int>(feature));
  bool grad = c.op() == Opcode::kBatchNormGrad;
  for (int i = 1; i < c.operandCount(); ++i) {
    const Shape& s = c.operand(i);
    if (!s.isArray() || !sameTypeIgnoringFp(s.type(), x.type()))
      return c.error("operand " + std::to_string(i) + " must have the type of " + str(x));
    bool gradOutput = grad && i == 4;
    if (gradOutput ? !sameDims(s, x) : (s.rank() != 1 || !compatibleDim(s.dim(0), features)))
      return c.error("operand " + std::to_string(i) + " " + str(s) + " must be " +
                     (gradOutput ? "shaped like the operand" : "a vector of the feature count"));
  }
  if (c.op() == Opcode::kBatchNormInference) return x;
  Shape perFeature = makeArray(x.type(), {features}, {x.isDynamicDim(static_cast<int>(feature))});
  return Shape::tuple({x, perFeature, perFeature});
}

}  // namespace hlo::inference
