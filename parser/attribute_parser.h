// Parsing the value of one `key=value` instruction attribute.
#pragma once

#include <functional>
#include <string_view>

#include "hlo/attributes.h"
#include "parser/cursor.h"

namespace hlo {

// Resolves a computation name (or, for `calls={...}`, parses an inline
// computation body at the cursor) into a Computation*; may return a
// placeholder that the module parser fixes up later.
struct ComputationResolver {
  // Called with the name and the offset of the reference.
  std::function<StatusOr<Computation*>(std::string_view name, size_t pos)> byName;
  // Called when the cursor is at `{` in a computation position.
  std::function<StatusOr<Computation*>()> inlineBody;
};

// Parses the value for `key` at the cursor (after the `=`) into `out`, which
// starts empty (parsing in place spares moving the large AttrValue around).
Status parseAttrValue(Cursor& cursor, AttrKey key, ComputationResolver& resolver, AttrValue& out);

}  // namespace hlo
