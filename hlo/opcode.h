// HLO opcodes, generated from hlo/opcodes.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hlo {

enum class Opcode : uint8_t {
#define HLO_OPCODE(Enum, text, arity, category, effect) Enum,
#include "hlo/opcodes.def"
#undef HLO_OPCODE
};

enum class OpCategory : uint8_t {
  kElementwise, kDataMovement, kReduction, kLinearAlgebra, kControlFlow,
  kCollective, kAsync, kCommunication, kLeaf, kOther
};

inline constexpr int kVariadic = -1;

std::string_view opcodeName(Opcode op);
std::optional<Opcode> parseOpcode(std::string_view text);
// Operand count, or kVariadic.
int opcodeArity(Opcode op);
OpCategory opcodeCategory(Opcode op);
// True when the instruction must be kept even if its result is unused.
bool opcodeHasSideEffect(Opcode op);
// Number of opcodes in the table.
int opcodeCount();

// add, multiply, maximum, minimum, and, or, xor, mulhi: operand order is irrelevant.
bool isCommutative(Opcode op);

}  // namespace hlo
