#include "conformance/fuzz_coverage.h"

#include <set>

#include "conformance/fuzz_generator.h"

namespace hlo::conformance::fuzz {
namespace {

// The first array element type in `shape`, depth first.
std::optional<ElementType> firstArrayType(const Shape& shape) {
  if (shape.isArray()) return shape.type();
  if (!shape.isTuple()) return std::nullopt;
  for (const Shape& element : shape.tupleElements())
    if (auto t = firstArrayType(element)) return t;
  return std::nullopt;
}

}  // namespace

void Coverage::add(const Module& module) {
  ++modules_;
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions()) {
      std::optional<ElementType> type;
      for (const Instruction* operand : instr->operands())
        if (operand->shape().isArray()) {
          type = operand->shape().type();
          break;
        }
      if (!type) type = firstArrayType(instr->shape());
      if (!type && instr->shape().isToken()) type = ElementType::kToken;
      if (type) ++hits_[{instr->opcode(), *type}];
    }
}

int64_t Coverage::opcodes() const {
  std::set<Opcode> seen;
  for (const auto& [key, count] : hits_) seen.insert(key.first);
  return static_cast<int64_t>(seen.size());
}

std::string Coverage::report() const {
  std::string text;
  for (int i = 0; i < opcodeCount(); ++i) {
    const Opcode op = static_cast<Opcode>(i);
    std::string line = "  " + std::string(opcodeName(op)) + ":";
    int types = 0;
    for (auto it = hits_.lower_bound({op, ElementType{}}); it != hits_.end() && it->first.first == op; ++it, ++types)
      line += " " + std::string(elementTypeName(it->first.second)) + "=" + std::to_string(it->second);
    if (types == 0) {
      auto why = notGenerated(op);
      line += why ? " not written: " + std::string(*why) : " none";
    }
    text += line + "\n";
  }
  return text;
}

}  // namespace hlo::conformance::fuzz
