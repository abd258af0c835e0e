// Element-type queries, all answered from hlo/types.def.
#include "hlo/element_type.h"

#include <array>

namespace hlo {
namespace {

struct TypeInfo {
  std::string_view name;
  int bits;
  int bytes;
  TypeKind kind;
};

constexpr std::array kTypes = {
#define HLO_ELEMENT_TYPE(Enum, text, bits, bytes, kind) TypeInfo{text, bits, bytes, TypeKind::kind},
#include "hlo/types.def"
#undef HLO_ELEMENT_TYPE
};

const TypeInfo& info(ElementType t) { return kTypes[static_cast<size_t>(t)]; }

}  // namespace

std::string_view elementTypeName(ElementType t) { return info(t).name; }
int bitWidth(ElementType t) { return info(t).bits; }
int storageBytes(ElementType t) { return info(t).bytes; }
TypeKind typeKind(ElementType t) { return info(t).kind; }

std::optional<ElementType> parseElementType(std::string_view text) {
  for (size_t i = 0; i < kTypes.size(); ++i) {
    TypeKind k = kTypes[i].kind;
    if (k == TypeKind::kTuple || k == TypeKind::kBuffer) continue;
    if (kTypes[i].name == text) return static_cast<ElementType>(i);
  }
  return std::nullopt;
}

ElementType complexComponentType(ElementType t) {
  return t == ElementType::kC128 ? ElementType::kF64 : ElementType::kF32;
}

}  // namespace hlo
