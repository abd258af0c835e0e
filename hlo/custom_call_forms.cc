// The table of custom calls with a meaning (custom_call_forms.h).
#include "hlo/custom_call_forms.h"

#include "hlo/block_scaled_dot_call.h"
#include "hlo/builder_math_call.h"
#include "hlo/cudnn_conv_call.h"
#include "hlo/lapack_call.h"
#include "hlo/topk_call.h"

namespace hlo {

std::optional<KnownCustomCall> knownCustomCall(const Instruction& instr) {
  if (instr.opcode() != Opcode::kCustomCall) return std::nullopt;
  if (isTopKCall(instr)) return KnownCustomCall{CustomCallForm::kTopK, "a sort", topKCallOf(instr).status()};
  if (isCudnnConvForward(instr))
    return KnownCustomCall{CustomCallForm::kCudnnConvForward, "a convolution", cudnnConvOf(instr).status()};
  if (isBlockScaledDotCall(instr))
    return KnownCustomCall{CustomCallForm::kBlockScaledDot, "a scaled-dot", checkBlockScaledDotCall(instr)};
  if (std::optional<Opcode> op = builderMathOpcode(instr))
    return KnownCustomCall{CustomCallForm::kBuilderMath, opcodeName(*op), okStatus()};
  if (isLapackCall(instr))
    return KnownCustomCall{CustomCallForm::kLapack, "a LAPACK routine", lapackCallOf(instr).status(),
                           /*runByEngines=*/true};
  return std::nullopt;
}

}  // namespace hlo
