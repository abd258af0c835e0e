#include "conformance/fuzz_coverage.h"

#include <set>

#include "conformance/fuzz_generator.h"

namespace hlo::conformance::fuzz {
namespace {

// The last array element type in `shape`, depth first (a loop's state is
// its counter, then its values).
std::optional<ElementType> lastArrayType(const Shape& shape) {
  if (shape.isArray()) return shape.type();
  if (!shape.isTuple()) return std::nullopt;
  for (auto it = shape.tupleElements().rbegin(); it != shape.tupleElements().rend(); ++it)
    if (auto t = lastArrayType(*it)) return t;
  return std::nullopt;
}

}  // namespace

void Coverage::add(const Module& module) {
  ++modules_;
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions()) {
      // A select's and a conditional's first operand only chooses.
      const bool chooser = instr->opcode() == Opcode::kSelect || instr->opcode() == Opcode::kConditional;
      std::optional<ElementType> type;
      for (int i = chooser ? 1 : 0; i < instr->operandCount(); ++i)
        if (instr->operand(i)->shape().isArray()) {
          type = instr->operand(i)->shape().type();
          break;
        }
      if (!type) type = lastArrayType(instr->shape());
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
