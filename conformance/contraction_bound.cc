// The rounding bound of float contractions (see contraction_bound.h).
#include "conformance/contraction_bound.h"

#include <cmath>
#include <set>

#include "hlo/contraction.h"
#include "hlo/cudnn_conv_call.h"

namespace hlo::conformance {
namespace {

bool isRealFloat(const Shape& shape) { return shape.isArray() && isFloat(shape.type()); }

// K of a convolution with these attributes, operands and result; 0 when
// they do not plan.
int64_t convolutionTerms(const Attributes& attrs, const Shape& lhs, const Shape& rhs, const Shape& out) {
  auto plan = convolutionPlan(attrs, lhs, rhs, out);
  if (!plan.ok()) return 0;
  int64_t k = plan->inFeaturesPerGroup;
  for (const WindowDim& w : plan->window) k *= w.size;
  return k;
}

// K for a dot or convolution with real float operands and result; 0 for
// anything else.
int64_t productsPerSum(const Instruction& instr) {
  if (isCudnnConvForward(instr)) {
    // Its result's element 0 is a convolution's (hlo/cudnn_conv_call.h).
    StatusOr<CudnnConv> call = cudnnConvOf(instr);
    if (!call.ok() || !isRealFloat(call->convolution)) return 0;
    Instruction conv(Opcode::kConvolution, instr.name(), call->convolution);
    copyConvolutionAttributes(instr, conv);
    return convolutionTerms(conv.attrs(), instr.operand(0)->shape(), instr.operand(1)->shape(), conv.shape());
  }
  if (!isRealFloat(instr.shape())) return 0;
  if (instr.operandCount() != 2) return 0;
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  if (!isRealFloat(lhs) || !isRealFloat(rhs)) return 0;
  if (instr.opcode() == Opcode::kDot) {
    auto dims = dotDims(instr.attrs(), lhs, rhs);
    return dims.ok() ? dims->k : 0;
  }
  if (instr.opcode() == Opcode::kConvolution) return convolutionTerms(instr.attrs(), lhs, rhs, instr.shape());
  return 0;
}

// Whether `instr` only moves its first operand's values (or pad's padding
// value) without arithmetic on them: the opcode table's one-operand data
// movement and pad, or a conversion between float types.
bool movesValues(const Instruction& instr) {
  if (instr.opcode() == Opcode::kConvert) return isRealFloat(instr.shape()) && isRealFloat(instr.operand(0)->shape());
  return opcodeCategory(instr.opcode()) == OpCategory::kDataMovement &&
         (opcodeArity(instr.opcode()) == 1 || instr.opcode() == Opcode::kPad);
}

ContractionSource sourceOf(const Instruction* instr) {
  while (movesValues(*instr)) instr = instr->operand(0);
  // Element 0 of a cuDNN convolution call is its convolution's values.
  if (instr->opcode() == Opcode::kGetTupleElement && instr->attrs().getInt(AttrKey::kIndex) == 0 &&
      isCudnnConvForward(*instr->operand(0)))
    instr = instr->operand(0);
  int64_t k = productsPerSum(*instr);
  return k > 0 ? ContractionSource{instr, k} : ContractionSource{};
}

// The unit roundoff of the type an engine sums in: double for f64, float
// for the narrower floats (their products are summed in f32).
double unitRoundoff(ElementType t) { return t == ElementType::kF64 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24); }

}  // namespace

std::vector<ContractionSource> contractionSources(const Module& module) {
  const Instruction* root = module.entry()->root();
  std::vector<ContractionSource> out;
  if (root->opcode() == Opcode::kTuple) {
    for (const Instruction* element : root->operands()) out.push_back(sourceOf(element));
  } else if (isCudnnConvForward(*root)) {
    out.push_back(sourceOf(root));  // the convolution's values
    out.push_back({});              // the workspace
  } else {
    out.push_back(sourceOf(root));
  }
  return out;
}

StatusOr<std::optional<ElementAllowance>> contractionAllowance(const Module& module, std::span<const Literal> args,
                                                               const interp::Options& options) {
  std::vector<ContractionSource> sources = contractionSources(module);
  bool any = false;
  for (const ContractionSource& s : sources) any = any || s.contraction;
  if (!any) return std::optional<ElementAllowance>();

  // The same module with |a| and |b| into each source contraction.
  std::unique_ptr<Module> magnitudes = module.clone();
  Computation& entry = *magnitudes->entry();
  std::set<const Instruction*> rewritten;
  for (const ContractionSource& s : sources) {
    if (!s.contraction || !rewritten.insert(s.contraction).second) continue;
    Instruction* contraction = entry.find(s.contraction->name());
    if (!contraction) return Status::error("contraction bound: " + s.contraction->name() + " is not in the clone");
    for (int i = 0; i < 2; ++i) {
      Instruction* operand = contraction->operand(i);
      Instruction* abs = entry.add(Opcode::kAbs, operand->name() + ".magnitude", operand->shape(), {operand});
      entry.setOperand(contraction, i, abs);
    }
  }
  HLO_RETURN_IF_ERROR(entry.sortTopologically());
  HLO_ASSIGN_OR_RETURN(Literal sums, interp::evaluate(*magnitudes, args, options));

  ElementAllowance allowance(sources.size());
  for (size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i].contraction) continue;
    const Literal& array = module.entry()->root()->shape().isTuple() ? sums.tupleElements()[i] : sums;
    if (array.hasPadding()) continue;  // runtime sizes: compared compacted, left out here
    const double scale =
        static_cast<double>(sources[i].terms + 8) * unitRoundoff(sources[i].contraction->shape().type());
    std::vector<double>& bound = allowance[i];
    bound.resize(static_cast<size_t>(array.elementCount()));
    for (int64_t e = 0; e < array.elementCount(); ++e) bound[e] = scale * std::fabs(array.toDouble(e));
  }
  return std::optional<ElementAllowance>(std::move(allowance));
}

EngineComparison compareEngines(const Module& module, std::span<const Literal> args, const interp::Options& options,
                                const Literal& actual, const Literal& expected) {
  EngineComparison out;
  out.plain = compareWithTypeTolerances(actual, expected);
  out.agree = out.plain.equal;
  if (out.agree) return out;
  auto allowance = contractionAllowance(module, args, options);
  out.byContractionBound =
      allowance.ok() && *allowance && compareWithTypeTolerances(actual, expected, {}, &**allowance).equal;
  out.agree = out.byContractionBound;
  return out;
}

}  // namespace hlo::conformance
