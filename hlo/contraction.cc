#include "hlo/contraction.h"

#include <algorithm>
#include <string>

namespace hlo {
namespace {

int64_t product(const std::vector<int64_t>& dims, const std::vector<int64_t>& which) {
  int64_t p = 1;
  for (int64_t d : which) p *= dims[d];
  return p;
}

bool isPermutation(std::vector<int64_t> v, int64_t rank) {
  if (static_cast<int64_t>(v.size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t d : v) {
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

std::vector<int64_t> withTwo(std::vector<int64_t> v, int64_t a, int64_t b) {
  v.push_back(a);
  v.push_back(b);
  return v;
}

}  // namespace

StatusOr<DotDims> dotDims(const Attributes& a, const Shape& lhs, const Shape& rhs,
                          const std::vector<int64_t>& rhsGroup) {
  const std::vector<int64_t>& lb = a.getInts(AttrKey::kLhsBatchDims);
  const std::vector<int64_t>& lc = a.getInts(AttrKey::kLhsContractingDims);
  const std::vector<int64_t>& rb = a.getInts(AttrKey::kRhsBatchDims);
  const std::vector<int64_t>& rc = a.getInts(AttrKey::kRhsContractingDims);
  auto bad = [](const std::string& why) { return errorStatus(why); };
  if (!lhs.isArray() || !rhs.isArray()) return bad("operands must be arrays");
  if (lb.size() != rb.size() || lc.size() != rc.size())
    return bad("lhs and rhs need as many batch and contracting dimensions");
  auto valid = [](const std::vector<int64_t>& dims, int rank, std::vector<bool>& seen) {
    for (int64_t d : dims) {
      if (d < 0 || d >= rank || seen[d]) return false;
      seen[d] = true;
    }
    return true;
  };
  std::vector<bool> lseen(lhs.rank(), false), rseen(rhs.rank(), false);
  if (!valid(lb, lhs.rank(), lseen) || !valid(lc, lhs.rank(), lseen) || !valid(rb, rhs.rank(), rseen) ||
      !valid(rc, rhs.rank(), rseen) || !valid(rhsGroup, rhs.rank(), rseen))
    return bad("batch, contracting and group dimensions must be distinct dimensions of the operands");
  for (size_t i = 0; i < lb.size(); ++i)
    if (lhs.dim(lb[i]) != rhs.dim(rb[i])) return bad("batch dimension sizes differ");
  for (size_t i = 0; i < lc.size(); ++i)
    if (lhs.dim(lc[i]) != rhs.dim(rc[i])) return bad("contracting dimension sizes differ");
  DotDims p;
  for (int i = 0; i < lhs.rank(); ++i)
    if (!lseen[i]) p.lhsFree.push_back(i);
  for (int i = 0; i < rhs.rank(); ++i)
    if (!rseen[i]) p.rhsFree.push_back(i);
  p.lhsPerm = lb;
  p.lhsPerm.insert(p.lhsPerm.end(), p.lhsFree.begin(), p.lhsFree.end());
  p.lhsPerm.insert(p.lhsPerm.end(), lc.begin(), lc.end());
  p.rhsPerm = rhsGroup;
  p.rhsPerm.insert(p.rhsPerm.end(), rb.begin(), rb.end());
  p.rhsPerm.insert(p.rhsPerm.end(), rc.begin(), rc.end());
  p.rhsPerm.insert(p.rhsPerm.end(), p.rhsFree.begin(), p.rhsFree.end());
  p.batch = product(lhs.dims(), lb);
  p.m = product(lhs.dims(), p.lhsFree);
  p.k = product(lhs.dims(), lc);
  p.n = product(rhs.dims(), p.rhsFree);
  return p;
}

StatusOr<RaggedDotPlan> raggedDotPlan(const Attributes& attrs, const Shape& lhs, const Shape& rhs,
                                      const Shape& groupSizes) {
  const std::vector<int64_t>& ragged = attrs.getInts(AttrKey::kLhsRaggedDims);
  const std::vector<int64_t>& rhsGroup = attrs.getInts(AttrKey::kRhsGroupDims);
  if (ragged.size() != 1 || ragged[0] < 0 || ragged[0] >= lhs.rank())
    return errorStatus("expected exactly one lhs ragged dimension");
  if (!groupSizes.isArray() || groupSizes.rank() < 1 || !isInteger(groupSizes.type()))
    return errorStatus("group_sizes must be an integer array");
  RaggedDotPlan plan;
  plan.raggedDim = ragged[0];
  plan.groups = groupSizes.dim(groupSizes.rank() - 1);
  auto contains = [](const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  if (contains(attrs.getInts(AttrKey::kLhsBatchDims), plan.raggedDim))
    plan.mode = RaggedDotPlan::Mode::kBatch;
  else if (contains(attrs.getInts(AttrKey::kLhsContractingDims), plan.raggedDim))
    plan.mode = RaggedDotPlan::Mode::kContracting;
  else
    plan.mode = RaggedDotPlan::Mode::kFree;
  bool free = plan.mode == RaggedDotPlan::Mode::kFree;
  if (free != (rhsGroup.size() == 1) || rhsGroup.size() > 1)
    return errorStatus("rhs needs one group dimension exactly when the ragged dimension is free");
  if (free && (rhsGroup[0] < 0 || rhsGroup[0] >= rhs.rank() || rhs.dim(static_cast<int>(rhsGroup[0])) != plan.groups))
    return errorStatus("the rhs group dimension must have one entry per group");
  HLO_ASSIGN_OR_RETURN(plan.dot, dotDims(attrs, lhs, rhs, rhsGroup));
  if (plan.mode == RaggedDotPlan::Mode::kBatch || groupSizes.rank() == 1) return plan;
  plan.prefix = attrs.getInts(AttrKey::kLhsBatchDims);
  const std::vector<int64_t>& kind =
      plan.mode == RaggedDotPlan::Mode::kContracting ? attrs.getInts(AttrKey::kLhsContractingDims) : plan.dot.lhsFree;
  for (int64_t d : kind) {
    if (d == plan.raggedDim) break;
    plan.prefix.push_back(d);
  }
  if (static_cast<int64_t>(plan.prefix.size()) != groupSizes.rank() - 1)
    return errorStatus("group_sizes must be [g] or [batch..., outer dims..., g]");
  for (size_t i = 0; i < plan.prefix.size(); ++i)
    if (groupSizes.dim(static_cast<int>(i)) != lhs.dim(static_cast<int>(plan.prefix[i])))
      return errorStatus("group_sizes dimensions must match the lhs dimensions they index");
  return plan;
}

Status checkDotScale(const Shape& x, const Shape& scale) {
  if (!scale.isArray()) return errorStatus("scales must be arrays");
  if (scale.isScalar()) return okStatus();
  if (scale.rank() != x.rank()) return errorStatus("a scale must be a scalar or have its operand's rank");
  for (int d = 0; d < x.rank(); ++d)
    if (scale.dim(d) <= 0 || x.dim(d) % scale.dim(d) != 0)
      return errorStatus("operand dimensions must be multiples of the scale's");
  return okStatus();
}

StatusOr<ConvolutionPlan> convolutionPlan(const Attributes& attrs, const Shape& in, const Shape& kernel,
                                          const Shape& out) {
  auto bad = [](const std::string& why) { return errorStatus(why); };
  const AttrValue* labels = attrs.find(AttrKey::kDimLabels);
  if (!labels) return bad("missing dim_labels");
  ConvolutionPlan p;
  p.dn = labels->conv;
  if (const AttrValue* w = attrs.find(AttrKey::kWindow)) p.window = w->window;
  p.featureGroups = attrs.getInt(AttrKey::kFeatureGroupCount, 1);
  p.batchGroups = attrs.getInt(AttrKey::kBatchGroupCount, 1);
  size_t n = p.dn.inputSpatial.size();
  int64_t rank = static_cast<int64_t>(n) + 2;
  if (!in.isArray() || !kernel.isArray() || !out.isArray() || in.rank() != rank || kernel.rank() != rank ||
      out.rank() != rank || p.dn.kernelSpatial.size() != n || p.dn.outputSpatial.size() != n)
    return bad("operand ranks do not match dim_labels");
  if (!isPermutation(withTwo(p.dn.inputSpatial, p.dn.inputBatch, p.dn.inputFeature), rank) ||
      !isPermutation(withTwo(p.dn.kernelSpatial, p.dn.kernelInputFeature, p.dn.kernelOutputFeature), rank) ||
      !isPermutation(withTwo(p.dn.outputSpatial, p.dn.outputBatch, p.dn.outputFeature), rank))
    return bad("dim_labels must name every dimension once");
  if (p.window.empty() && n > 0) p.window.resize(n);
  if (p.window.size() != n) return bad("window has the wrong number of dimensions");
  for (size_t i = 0; i < n; ++i) {
    const WindowDim& w = p.window[i];
    if (w.size != kernel.dim(static_cast<int>(p.dn.kernelSpatial[i])) || w.stride <= 0 ||
        w.baseDilation < 1 || w.windowDilation < 1)
      return bad("window does not match the kernel");
  }
  int64_t inFeatures = in.dim(static_cast<int>(p.dn.inputFeature));
  int64_t inBatch = in.dim(static_cast<int>(p.dn.inputBatch));
  p.inFeaturesPerGroup = kernel.dim(static_cast<int>(p.dn.kernelInputFeature));
  p.outFeatures = kernel.dim(static_cast<int>(p.dn.kernelOutputFeature));
  p.outBatch = out.dim(static_cast<int>(p.dn.outputBatch));
  if (p.featureGroups < 1 || p.batchGroups < 1 || p.outFeatures % p.featureGroups != 0 ||
      p.outFeatures % p.batchGroups != 0 || inFeatures != p.inFeaturesPerGroup * p.featureGroups ||
      inBatch != p.outBatch * p.batchGroups || out.dim(static_cast<int>(p.dn.outputFeature)) != p.outFeatures)
    return bad("feature and batch sizes do not fit the group counts");
  return p;
}

}  // namespace hlo
