// Parsing HLO text: modules, shapes and literals.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "hlo/literal.h"
#include "hlo/module.h"
#include "hlo/shape.h"
#include "hlo/status.h"

namespace hlo {

// Parses a whole module as XLA prints it (with or without the `HloModule`
// header, with or without `ENTRY`). Instructions written without a shape get
// the inferred one. Errors carry the line and column.
StatusOr<std::unique_ptr<Module>> parseModule(std::string_view text);

// `f32[2,3]{1,0}`, `(f32[], s32[])`.
StatusOr<Shape> parseShape(std::string_view text);

// A literal with its shape, as XLA prints it: `f32[2] {1, 2}`, `s32[] 3`,
// `(f32[] 1, pred[] true)`.
StatusOr<Literal> parseLiteral(std::string_view text);

// The values alone, for a shape known from elsewhere: `{1, 2}` or `3` for
// f32[2] or s32[] (what `hlo-run --input=3` means for an s32[] parameter).
StatusOr<Literal> parseLiteralValues(std::string_view text, const Shape& shape);

// `file:line:col: error: message`, then the source line and a caret.
std::string formatError(const Status& status, std::string_view fileName,
                        std::string_view text);

}  // namespace hlo
