// Name tables for element types and opcodes, built on first use.
#include "parser/lookup.h"

#include <vector>

#include "parser/name_table.h"

namespace hlo {
namespace {

// Every enum value whose parse function accepts its own name, keyed by it.
template <typename Enum>
struct EnumTable {
  std::vector<Enum> values;  // reserved up front: the table points into it
  NameTable<const Enum> byName;
};

template <typename Enum, typename NameOf, typename Parse>
const EnumTable<Enum>* buildTable(int count, NameOf nameOf, Parse parse) {
  auto* table = new EnumTable<Enum>();  // lives for the program
  table->values.reserve(count);
  for (int i = 0; i < count; ++i) {
    Enum e = static_cast<Enum>(i);
    if (parse(nameOf(e)) != e) continue;  // e.g. tuple and buffer have no array syntax
    table->values.push_back(e);
    table->byName.insert(nameOf(e), &table->values.back());
  }
  return table;
}

template <typename Enum>
std::optional<Enum> find(const EnumTable<Enum>& table, std::string_view name) {
  const Enum* e = table.byName.find(name);
  return e ? std::optional<Enum>(*e) : std::nullopt;
}

constexpr int kAttrKeyCount = 0
#define HLO_ATTR(Enum, key, kind) +1
#include "hlo/attributes.def"
#undef HLO_ATTR
    ;

}  // namespace

std::optional<ElementType> lookupElementType(std::string_view name) {
  static const EnumTable<ElementType>* table = buildTable<ElementType>(
      static_cast<int>(ElementType::kBuffer) + 1, elementTypeName, parseElementType);
  return find(*table, name);
}

std::optional<Opcode> lookupOpcode(std::string_view name) {
  static const EnumTable<Opcode>* table = buildTable<Opcode>(opcodeCount(), opcodeName, parseOpcode);
  return find(*table, name);
}

std::optional<AttrKey> lookupAttrKey(std::string_view name) {
  static const EnumTable<AttrKey>* table = buildTable<AttrKey>(kAttrKeyCount, attrKeyName, parseAttrKey);
  return find(*table, name);
}

}  // namespace hlo
