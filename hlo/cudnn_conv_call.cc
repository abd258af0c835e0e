// cuDNN's forward convolution call (cudnn_conv_call.h).
#include "hlo/cudnn_conv_call.h"

#include <cstdlib>
#include <string>
#include <string_view>

#include "hlo/shape_inference.h"

namespace hlo {
namespace {

// The number after `key` in the backend config, written as JSON inside a
// string (`\"key\":2`) or bare (`key: 2`); `fallback` when the key is absent.
StatusOr<double> configNumber(std::string_view config, std::string_view key, double fallback) {
  size_t at = config.find(key);
  if (at == std::string_view::npos) return fallback;
  at += key.size();
  while (at < config.size() && (config[at] == '\\' || config[at] == '"' || config[at] == ':' || config[at] == ' '))
    ++at;
  std::string rest(config.substr(at, 32));
  char* end = nullptr;
  double v = std::strtod(rest.c_str(), &end);
  if (end == rest.c_str()) return errorStatus(std::string(key) + " is not a number");
  return v;
}

}  // namespace

bool isCudnnConvForward(const Instruction& instr) {
  return instr.opcode() == Opcode::kCustomCall &&
         instr.attrs().getString(AttrKey::kCustomCallTarget) == "__cudnn$convForward";
}

StatusOr<CudnnConv> cudnnConvOf(const Instruction& instr) {
  auto bad = [&](const std::string& why) {
    return errorStatus("cuDNN convolution call %" + instr.name() + ": " + why);
  };
  if (instr.operandCount() != 2) return bad("takes an input and a filter");
  const Shape& s = instr.shape();
  if (!s.isTuple() || s.tupleSize() != 2 || !s.tupleElement(0).isArray() || !s.tupleElement(1).isArray() ||
      s.tupleElement(1).type() != ElementType::kU8 || s.tupleElement(1).rank() != 1)
    return bad("returns (result, u8[workspace])");
  if (!instr.attrs().has(AttrKey::kWindow) || !instr.attrs().has(AttrKey::kDimLabels))
    return bad("needs window and dim_labels");
  std::string_view config = instr.attrs().getString(AttrKey::kBackendConfig);
  StatusOr<double> mode = configNumber(config, "activation_mode", 0);
  bool noActivation = mode.ok() ? *mode == 0 : config.find("kNone") != std::string_view::npos;
  if (!noActivation) return bad("an activation is not supported");
  StatusOr<double> scale = configNumber(config, "conv_result_scale", 1);
  if (!scale.ok()) return bad(scale.status().message());
  if (*scale != 1 && !isFloat(s.tupleElement(0).type())) return bad("scales an integer result");
  // The convolution it stands for must be a valid one of the result's shape.
  Instruction conv(Opcode::kConvolution, "conv", s.tupleElement(0));
  copyConvolutionAttributes(instr, conv);
  const Shape operands[] = {instr.operand(0)->shape(), instr.operand(1)->shape()};
  if (Status valid = checkDeclaredShape(Opcode::kConvolution, "conv", operands, conv.attrs(), s.tupleElement(0));
      !valid.ok())
    return bad(valid.message());
  return CudnnConv{s.tupleElement(0), *scale};
}

void copyConvolutionAttributes(const Instruction& call, Instruction& conv) {
  for (AttrKey key : {AttrKey::kWindow, AttrKey::kDimLabels, AttrKey::kFeatureGroupCount, AttrKey::kBatchGroupCount})
    if (const AttrValue* v = call.attrs().find(key)) conv.attrs().set(key, *v);
}

}  // namespace hlo
