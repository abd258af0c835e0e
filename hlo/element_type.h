// Element types of HLO arrays, generated from hlo/types.def.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace hlo {

enum class ElementType : uint8_t {
#define HLO_ELEMENT_TYPE(Enum, text, bits, bytes, kind) Enum,
#include "hlo/types.def"
#undef HLO_ELEMENT_TYPE
};

enum class TypeKind : uint8_t {
  kPred, kSigned, kUnsigned, kFloat, kComplex, kToken, kTuple, kOpaque, kBuffer
};

std::string_view elementTypeName(ElementType t);
// Parses an array or token element type name ("f32", "token"); not "tuple".
std::optional<ElementType> parseElementType(std::string_view text);
int bitWidth(ElementType t);
int storageBytes(ElementType t);
TypeKind typeKind(ElementType t);

inline bool isFloat(ElementType t) { return typeKind(t) == TypeKind::kFloat; }
inline bool isComplex(ElementType t) { return typeKind(t) == TypeKind::kComplex; }
inline bool isSigned(ElementType t) { return typeKind(t) == TypeKind::kSigned; }
inline bool isUnsigned(ElementType t) { return typeKind(t) == TypeKind::kUnsigned; }
inline bool isInteger(ElementType t) { return isSigned(t) || isUnsigned(t); }
inline bool isPred(ElementType t) { return t == ElementType::kPred; }
// True for types an array can hold (numbers and pred).
inline bool isArrayType(ElementType t) {
  TypeKind k = typeKind(t);
  return k != TypeKind::kToken && k != TypeKind::kTuple && k != TypeKind::kOpaque &&
         k != TypeKind::kBuffer;
}
// The real component type of a complex type (c64 -> f32, c128 -> f64).
ElementType complexComponentType(ElementType t);

}  // namespace hlo
