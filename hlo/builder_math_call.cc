// The builder math library's custom calls (builder_math_call.h).
#include "hlo/builder_math_call.h"

#include <string_view>

namespace hlo {

std::optional<Opcode> builderMathOpcode(const Instruction& instr) {
  if (instr.opcode() != Opcode::kCustomCall) return std::nullopt;
  std::string_view target = instr.attrs().getString(AttrKey::kCustomCallTarget);
  constexpr std::string_view kPrefix = "xla_builder.math.";
  if (!target.starts_with(kPrefix)) return std::nullopt;
  static constexpr std::pair<std::string_view, Opcode> kFunctions[] = {
      {"Acos", Opcode::kAcos}, {"Acosh", Opcode::kAcosh}, {"Asin", Opcode::kAsin},
      {"Asinh", Opcode::kAsinh}, {"Atan", Opcode::kAtan}, {"Atanh", Opcode::kAtanh},
      {"Cosh", Opcode::kCosh}, {"Sinh", Opcode::kSinh}, {"Tan", Opcode::kTan},
  };
  std::string_view name = target.substr(kPrefix.size());
  for (auto [function, op] : kFunctions) {
    if (name != function) continue;
    if (instr.operandCount() != 1) return std::nullopt;
    const Shape& x = instr.operand(0)->shape();
    const Shape& y = instr.shape();
    bool fits = x.isArray() && y.isArray() && x.type() == y.type() && x.dims() == y.dims() &&
                (isFloat(x.type()) || isComplex(x.type()));
    return fits ? std::optional<Opcode>(op) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace hlo
