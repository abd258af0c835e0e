// Opcode queries, all answered from hlo/opcodes.def.
#include "hlo/opcode.h"

#include <array>
#include <string>
#include <unordered_map>

namespace hlo {
namespace {

struct OpcodeInfo {
  std::string_view name;
  int arity;
  OpCategory category;
  bool sideEffect;
};

constexpr bool kPure = false;
constexpr bool kSideEffect = true;

constexpr std::array kOpcodes = {
#define HLO_OPCODE(Enum, text, arity, category, effect) \
  OpcodeInfo{text, arity, OpCategory::category, effect},
#include "hlo/opcodes.def"
#undef HLO_OPCODE
};

const OpcodeInfo& info(Opcode op) { return kOpcodes[static_cast<size_t>(op)]; }

}  // namespace

std::string_view opcodeName(Opcode op) { return info(op).name; }
int opcodeArity(Opcode op) { return info(op).arity; }
OpCategory opcodeCategory(Opcode op) { return info(op).category; }
bool opcodeHasSideEffect(Opcode op) { return info(op).sideEffect; }
int opcodeCount() { return static_cast<int>(kOpcodes.size()); }

std::optional<Opcode> parseOpcode(std::string_view text) {
  static const auto* byName = [] {
    auto* m = new std::unordered_map<std::string_view, Opcode>();
    for (size_t i = 0; i < kOpcodes.size(); ++i) (*m)[kOpcodes[i].name] = static_cast<Opcode>(i);
    return m;
  }();
  auto it = byName->find(text);
  if (it == byName->end()) return std::nullopt;
  return it->second;
}

bool isCommutative(Opcode op) {
  return op == Opcode::kAdd || op == Opcode::kMultiply || op == Opcode::kMaximum ||
         op == Opcode::kMinimum || op == Opcode::kAnd || op == Opcode::kOr ||
         op == Opcode::kXor || op == Opcode::kMulhi;
}

}  // namespace hlo
