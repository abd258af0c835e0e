// Fast name -> enum lookups for the words the parser meets on every line:
// element types (`f32`), opcodes (`add`) and attribute keys (`dimensions`). The hlo/ functions scan a table
// or hash into a node-based map; these use one flat NameTable built once.
#pragma once

#include <optional>
#include <string_view>

#include "hlo/attributes.h"
#include "hlo/element_type.h"
#include "hlo/opcode.h"

namespace hlo {

// The array element type (or token) named `name`, as parseElementType.
std::optional<ElementType> lookupElementType(std::string_view name);
// As parseOpcode.
std::optional<Opcode> lookupOpcode(std::string_view name);
// As parseAttrKey.
std::optional<AttrKey> lookupAttrKey(std::string_view name);

}  // namespace hlo
