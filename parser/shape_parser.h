// Shape and literal syntax shared by the module parser and parseLiteral.
#pragma once

#include "hlo/literal.h"
#include "hlo/shape.h"
#include "parser/cursor.h"

namespace hlo {

// True when the cursor is at the start of a shape (`f32[`, `(`, `token[`, `b(`).
bool atShape(Cursor& cursor);
// `spacedLayout`: a `{` after spaces still starts the layout (instruction
// shapes); in literal text it starts the values.
StatusOr<Shape> parseShapeAt(Cursor& cursor, bool spacedLayout = false);
// The rest of an array shape whose element type name was just read:
// `[2,3]{1,0}` (lets a caller that read a word find out it was a type).
StatusOr<Shape> parseArrayShapeAfterType(Cursor& cursor, ElementType type, bool spacedLayout);
// The values of a literal of a known shape: `{1, 2}`, `3`, `(1, 2)`, `{...}`.
StatusOr<Literal> parseLiteralValuesAt(Cursor& cursor, const Shape& shape);
// A literal written with its shape: `f32[2] {1, 2}`, or a tuple of such.
StatusOr<Literal> parseLiteralAt(Cursor& cursor);

}  // namespace hlo
