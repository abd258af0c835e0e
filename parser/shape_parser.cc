// Parsing shapes (`f32[2,<=3]{1,0:T(8,128)}`) and literal values.
#include "parser/shape_parser.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "hlo/float_formats.h"
#include "parser/lookup.h"

namespace hlo {
namespace {

constexpr int kMaxNesting = 512;

StatusOr<Layout> parseLayout(Cursor& c, int rank) {
  Layout layout;
  layout.minorToMajor.reserve(rank);
  c.consume('{');
  // minor_to_major
  while (c.peek() != ':' && c.peek() != '}') {
    int64_t d;
    if (!c.integer(d)) return c.error("expected a dimension number in the layout");
    layout.minorToMajor.push_back(d);
    if (!c.consume(',')) break;
  }
  if (c.consume(':')) {
    while (c.peek() != '}') {
      size_t start = c.pos();
      if (c.consumeText("T(")) {
        // One or more tiles: T(8,128)(2,1)
        c.setPos(c.pos() - 1);
        while (c.rawPeek() == '(') {
          c.consume('(');
          Tile tile;
          while (!c.consume(')')) {
            int64_t d;
            if (c.consume('*')) d = Tile::kCombinedTileDim;
            else if (!c.integer(d)) return c.error("expected a tile dimension");
            tile.dims.push_back(d);
            if (!c.consume(',') && c.peek() != ')') return c.error("expected ',' or ')' in tile");
          }
          layout.tiles.push_back(std::move(tile));
        }
        continue;
      }
      auto number = [&](const char* prefix, int64_t& field) -> Status {
        if (!c.integer(field)) return c.error(std::string("expected a number in ") + prefix);
        if (!c.consume(')')) return c.error("expected ')' in layout");
        return okStatus();
      };
      if (c.consumeText("L(")) {
        HLO_RETURN_IF_ERROR(number("L(", layout.tailPaddingAlignment));
        continue;
      }
      if (c.consumeText("E(")) {
        HLO_RETURN_IF_ERROR(number("E(", layout.elementSizeBits));
        continue;
      }
      if (c.consumeText("S(")) {
        HLO_RETURN_IF_ERROR(number("S(", layout.memorySpace));
        continue;
      }
      // Carried items: #(...), *(...), SC(...)(...)..., P(...), M(...); and
      // D(...), checked and dropped, as XLA drops dimension level types.
      c.skipSpace();
      size_t p = c.pos();
      while (p < c.text().size() && c.text()[p] != '(' && c.text()[p] != '}') ++p;
      std::string_view key = c.text().substr(c.pos(), p - c.pos());
      if (key != "D" && key != "#" && key != "*" && key != "SC" && key != "P" && key != "M")
        return c.errorAt(start, "unknown layout item '" + std::string(key) + "'");
      if (key == "D") {
        // Dimension level types: D(D,C,S,...) — only these letters are valid.
        size_t close = c.text().find(')', p);
        if (close == std::string_view::npos) return c.error("unterminated D(...)");
        for (char ch : c.text().substr(p + 1, close - p - 1))
          if (ch != 'D' && ch != 'C' && ch != 'S' && ch != '+' && ch != '~' && ch != ',' &&
              ch != ' ' && ch != 'H' && ch != 'U')
            return c.errorAt(p, "invalid dimension level type in layout");
      }
      if (key == "P") return c.errorAt(start, "a layout may not give a physical shape here");
      c.setPos(p);
      std::string_view body;
      if (!c.balanced(body)) return c.error("unbalanced layout item");
      std::string item = std::string(key) + std::string(body);
      // Split configs: SC(0:3)(1:2), one group per config.
      while (key == "SC" && c.rawPeek() == '(') {
        if (!c.balanced(body)) return c.error("unbalanced layout item");
        item += body;
      }
      if (key != "D") layout.extras.push_back({std::move(item)});
    }
  }
  if (!c.consume('}')) return c.error("expected '}' to close the layout");
  if (!layout.minorToMajor.empty() && static_cast<int>(layout.minorToMajor.size()) != rank)
    return c.error("layout has " + std::to_string(layout.minorToMajor.size()) +
                   " dimensions but the shape has rank " + std::to_string(rank));
  return layout;
}

// `[2,<=3,?]{1,0,2}` after an element type.
StatusOr<Shape> parseArrayRest(Cursor& c, ElementType type, bool spacedLayout) {
  if (!c.consume('[')) return c.error("expected '[' after the element type");
  Shape shape(type, {});
  std::vector<int64_t> dims;
  dims.reserve(6);  // one allocation for nearly every shape
  std::vector<int> dynamic;  // positions of `<=n` and `?` dimensions
  while (!c.consume(']')) {
    if (c.consume('?')) {
      dynamic.push_back(static_cast<int>(dims.size()));
      dims.push_back(Shape::kUnboundedDim);
    } else {
      if (c.consumeText("<=")) dynamic.push_back(static_cast<int>(dims.size()));
      int64_t d;
      if (!c.integer(d) || d < 0) return c.error("expected a dimension size");
      dims.push_back(d);
    }
    if (!c.consume(',') && c.peek() != ']') return c.error("expected ',' or ']' in the shape");
  }
  shape.setDims(std::move(dims));
  for (int i : dynamic) shape.setDim(i, shape.dim(i), /*dynamic=*/true);
  // A layout follows directly; in instructions also after spaces
  // (`f32[2] {0}`), where a literal's values cannot follow.
  if (c.rawPeek() == '{' || (spacedLayout && c.peek() == '{')) {
    HLO_ASSIGN_OR_RETURN(Layout layout, parseLayout(c, shape.rank()));
    shape.setLayout(std::move(layout));
  }
  return shape;
}

StatusOr<Shape> parseShapeDepth(Cursor& c, int depth, bool spacedLayout) {
  if (depth > kMaxNesting) return c.error("shape nested too deeply");
  if (c.consume('(')) {
    std::vector<Shape> elements;
    if (!c.consume(')')) {
      do {
        HLO_ASSIGN_OR_RETURN(Shape e, parseShapeDepth(c, depth + 1, spacedLayout));
        elements.push_back(std::move(e));
      } while (c.consume(','));
      if (!c.consume(')')) return c.error("expected ')' to close the tuple shape");
    }
    return Shape::tuple(std::move(elements));
  }
  size_t start = c.pos();
  std::string_view typeName = c.name();
  if (typeName == "b" && c.rawPeek() == '(') {
    c.consume('(');
    HLO_ASSIGN_OR_RETURN(Shape inner, parseShapeDepth(c, depth + 1, spacedLayout));
    if (!c.consume(')')) return c.error("expected ')' to close the buffer shape");
    return Shape::buffer(std::move(inner));
  }
  std::optional<ElementType> type = lookupElementType(typeName);
  if (!type) {
    return c.errorAt(start, typeName.empty() ? "expected a shape"
                                             : "unknown element type '" + std::string(typeName) + "'");
  }
  return parseArrayRest(c, *type, spacedLayout);
}

// Integer range checks for storing into a type. As XLA reads an integer
// as 64 bits, a 64-bit type takes the other one's range too: an s64 takes
// 2^63..2^64-1 as the negative number of those bits, and a u64 a negative
// number as its bits (u64[] constant(-1) is the largest u64).
bool integerFits(ElementType t, bool negative, uint64_t magnitude) {
  int bits = bitWidth(t);
  if (bits == 64) return !negative || magnitude <= (uint64_t{1} << 63);
  if (isUnsigned(t)) return !negative || magnitude == 0 ? (bits == 64 || magnitude < (uint64_t{1} << bits)) : false;
  uint64_t limit = uint64_t{1} << (bits - 1);  // |min|
  return negative ? magnitude <= limit : magnitude < limit;
}

// Why parseFloatBits refused `tok` (a number token) for float type `t`.
std::string whyNotFloat(ElementType t, std::string_view tok) {
  std::string type(elementTypeName(t)), text(tok);
  if (text.find("nan(") != std::string::npos)
    return "invalid NaN payload in " + text + " for " + type;
  std::string_view digits = tok.substr(tok[0] == '-' || tok[0] == '+');
  if (digits == "inf" || digits == "nan") return "value " + text + " is not representable as " + type;
  double v;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (end != digits.data() + digits.size()) return "invalid number " + text + " for " + type;
  return "value " + text + " is out of range for " + type;
}

Status parseScalarInto(Cursor& c, Literal& lit, int64_t index) {
  ElementType t = lit.type();
  size_t start = c.pos();
  switch (typeKind(t)) {
    case TypeKind::kPred: {
      if (c.consumeWord("true")) return lit.setBitsAt(index, 1), okStatus();
      if (c.consumeWord("false")) return lit.setBitsAt(index, 0), okStatus();
      // Any integer, as XLA reads it: nonzero is true.
      int64_t v;
      if (c.integer(v)) return lit.setBitsAt(index, v != 0), okStatus();
      return c.errorAt(start, "expected true, false or an integer for a pred value");
    }
    case TypeKind::kSigned:
    case TypeKind::kUnsigned: {
      c.skipSpace();
      std::string_view tok = c.numberToken();
      bool negative = !tok.empty() && tok[0] == '-';
      std::string_view digits = tok.substr(!tok.empty() && (tok[0] == '-' || tok[0] == '+'));
      uint64_t mag = 0;
      bool ok = !digits.empty();
      bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
      for (size_t i = hex ? 2 : 0; ok && i < digits.size(); ++i) {
        char ch = digits[i];
        int d = ch >= '0' && ch <= '9' ? ch - '0'
                : hex && std::isxdigit(static_cast<unsigned char>(ch)) ? (ch | 0x20) - 'a' + 10
                                                                       : -1;
        int base = hex ? 16 : 10;
        if (d < 0 || mag > (UINT64_MAX - d) / base) ok = false;
        else mag = mag * base + d;
      }
      if (!ok) {
        // XLA also accepts integral float text such as `1.0` for integers? No: reject.
        return c.errorAt(start, "expected an integer value for " + std::string(elementTypeName(t)));
      }
      if (!integerFits(t, negative, mag))
        return c.errorAt(start, "value " + std::string(tok) + " is out of range for " +
                                    std::string(elementTypeName(t)));
      uint64_t bits = negative ? 0 - mag : mag;
      if (storageBytes(t) < 8) bits &= (uint64_t{1} << (storageBytes(t) * 8)) - 1;
      lit.setBitsAt(index, bits);
      return okStatus();
    }
    case TypeKind::kFloat: {
      std::string_view tok = c.numberToken();
      if (tok.empty()) return c.errorAt(start, "expected a number");
      std::optional<uint64_t> bits = parseFloatBits(t, tok);
      if (!bits) return c.errorAt(start, whyNotFloat(t, tok));
      lit.setBitsAt(index, *bits);
      return okStatus();
    }
    case TypeKind::kComplex: {
      ElementType part = complexComponentType(t);
      int n = storageBytes(part);
      uint64_t re = 0, im = 0;
      auto component = [&](uint64_t& out) -> Status {
        c.skipSpace();
        size_t s = c.pos();
        std::string_view tok = c.numberToken();
        if (tok.empty()) return c.errorAt(s, "expected a " + std::string(elementTypeName(part)) + " value");
        std::optional<uint64_t> b = parseFloatBits(part, tok);
        if (!b) return c.errorAt(s, whyNotFloat(part, tok));
        out = *b;
        return okStatus();
      };
      if (c.consume('(')) {
        HLO_RETURN_IF_ERROR(component(re));
        if (!c.consume(',')) return c.error("expected ',' in a complex value");
        HLO_RETURN_IF_ERROR(component(im));
        if (!c.consume(')')) return c.error("expected ')' after a complex value");
      } else {
        HLO_RETURN_IF_ERROR(component(re));
      }
      std::memcpy(lit.untypedData() + index * 2 * n, &re, n);
      std::memcpy(lit.untypedData() + index * 2 * n + n, &im, n);
      return okStatus();
    }
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  return c.errorAt(start, "a " + std::string(elementTypeName(t)) + " literal has no values");
}

// The values of an array in nested braces, `{{1, 2}, {3, 4}}`, read without
// recursion (as XLA reads them), so no input can nest deeper than the
// shape's rank: `{` opens the next dimension, `}` closes one and checks its
// element count, and commas are optional separators, as in XLA.
Status parseArrayValues(Cursor& c, Literal& lit) {
  const Shape& shape = lit.shape();
  const int rank = shape.rank();
  std::vector<int64_t> seen(rank, 0);  // elements (or sub-arrays) seen per open dimension
  std::vector<size_t> openedAt(rank, 0);
  int level = 0;  // open braces
  int64_t index = 0;
  // One more element in dimension `dim` (1-based level `dim + 1` is open).
  auto countOne = [&](int dim, size_t at) -> Status {
    if (++seen[dim] <= shape.dim(dim)) return okStatus();
    return c.errorAt(at, "too many elements in dimension " + std::to_string(dim) + ": expected " +
                             std::to_string(shape.dim(dim)));
  };
  do {
    c.skipSpace();
    size_t at = c.pos();
    char ch = c.rawPeek();
    if (ch == ',') {
      c.consume(',');
    } else if (ch == '{') {
      if (level == rank)
        return c.errorAt(at, "literal has more dimensions than its shape " + shape.toString(false));
      if (level > 0) HLO_RETURN_IF_ERROR(countOne(level - 1, at));
      openedAt[level++] = at;
      c.consume('{');
    } else if (ch == '}') {
      --level;
      if (seen[level] != shape.dim(level))
        return c.errorAt(openedAt[level], "dimension " + std::to_string(level) + " of the literal has " +
                                              std::to_string(seen[level]) + " elements but the shape " +
                                              shape.toString(false) + " says " +
                                              std::to_string(shape.dim(level)));
      seen[level] = 0;
      c.consume('}');
    } else if (ch == '\0' && c.atEnd()) {
      return c.errorAt(openedAt[level - 1], "this '{' of the literal is never closed");
    } else if (ch == ')' || ch == ']') {
      return c.errorAt(at, "expected ',' or '}' in the literal");
    } else {
      if (level != rank)
        return c.errorAt(at, "expected '{': the literal has fewer dimensions than its shape " +
                                 shape.toString(false));
      HLO_RETURN_IF_ERROR(countOne(rank - 1, at));
      HLO_RETURN_IF_ERROR(parseScalarInto(c, lit, index++));
    }
  } while (level > 0);
  return okStatus();
}

}  // namespace

bool atShape(Cursor& c) {
  char p = c.peek();
  if (p == '(') return true;
  size_t save = c.pos();
  std::string_view n = c.name();
  char next = c.peek();
  c.setPos(save);
  if (n == "b" && next == '(') return true;
  return next == '[' && lookupElementType(n).has_value();
}
StatusOr<Shape> parseShapeAt(Cursor& c, bool spacedLayout) {
  return parseShapeDepth(c, 0, spacedLayout);
}

StatusOr<Shape> parseArrayShapeAfterType(Cursor& c, ElementType type, bool spacedLayout) {
  return parseArrayRest(c, type, spacedLayout);
}

StatusOr<Literal> parseLiteralValuesAt(Cursor& c, const Shape& shape) {
  if (shape.isArray() && !shape.isDynamic() && c.peek() == '{') {
    // Values left out of the text, `{...}` (`{ ... }`, or some shown, as in
    // `{1, 2, ...}`, which XLA also reads): keep the shape, allocate nothing.
    size_t start = c.pos();
    std::string_view text;
    if (c.balanced(text) && text.find("...") != std::string_view::npos) return Literal::elidedArray(shape);
    c.setPos(start);
  }
  if (shape.isArray() && shape.elementCount() > (int64_t{1} << 28))
    return c.error("constant of shape " + shape.toString(false) + " is too large to hold in memory");
  Literal lit(shape);
  if (shape.isTuple()) {
    if (!c.consume('(')) return c.error("expected '(' for a tuple literal");
    for (int i = 0; i < shape.tupleSize(); ++i) {
      if (i && !c.consume(',')) return c.error("expected ',' between tuple literal elements");
      // Elements may be written with their shape.
      if (c.peek() != '(' && atShape(c)) {
        HLO_ASSIGN_OR_RETURN(Shape ignored, parseShapeAt(c));
        (void)ignored;
      }
      HLO_ASSIGN_OR_RETURN(Literal e, parseLiteralValuesAt(c, shape.tupleElement(i)));
      lit.tupleElements()[i] = std::move(e);
    }
    if (!c.consume(')')) return c.error("expected ')' to close the tuple literal");
    return lit;
  }
  if (!shape.isArray()) return lit;  // token
  if (shape.isDynamic()) return c.error("literals of dynamic shape are not supported");
  if (shape.rank() == 0) {
    // A scalar may be written bare or in braces.
    if (c.consume('{')) {
      HLO_RETURN_IF_ERROR(parseScalarInto(c, lit, 0));
      if (!c.consume('}')) return c.error("expected '}'");
      return lit;
    }
    HLO_RETURN_IF_ERROR(parseScalarInto(c, lit, 0));
    return lit;
  }
  if (c.peek() != '{') {
    // One value for every element (`f32[2,2] constant(0)`), as XLA accepts.
    if (lit.elementCount() == 0) {
      // Nowhere to store it (a fuzzing finding wrote past an empty array),
      // but the value is still read and checked.
      Literal scalar(Shape::scalar(shape.type()));
      HLO_RETURN_IF_ERROR(parseScalarInto(c, scalar, 0));
      return lit;
    }
    HLO_RETURN_IF_ERROR(parseScalarInto(c, lit, 0));
    // Copy the filled prefix onto the rest, doubling it each time.
    uint8_t* data = lit.untypedData();
    size_t total = lit.byteSize();
    for (size_t filled = total / std::max<int64_t>(lit.elementCount(), 1); filled < total;) {
      size_t chunk = std::min(filled, total - filled);
      std::memcpy(data + filled, data, chunk);
      filled += chunk;
    }
    return lit;
  }
  HLO_RETURN_IF_ERROR(parseArrayValues(c, lit));
  return lit;
}

// An array with runtime sizes, as XLA prints it: after its shape, every
// dimension's runtime size, then the values of that runtime shape:
// `s32[<=4,2](3,2) {{1, 2}, {3, 4}, {5, 6}}`. A `<=` dimension gets its runtime
// size (at most the bound); a static one must be given its size.
static StatusOr<Literal> parseDynamicValuesAt(Cursor& c, const Shape& shape) {
  size_t start = c.pos();
  c.consume('(');
  std::vector<int64_t> sizes;
  do {
    int64_t size;
    if (!c.integer(size)) return c.error("expected a runtime size");
    sizes.push_back(size);
  } while (c.consume(','));
  if (!c.consume(')')) return c.error("expected ')' after the runtime sizes");
  if (static_cast<int>(sizes.size()) != shape.rank())
    return c.errorAt(start, "expected " + std::to_string(shape.rank()) + " runtime sizes for " + shape.toString(false));
  for (int d = 0; d < shape.rank(); ++d)
    if (sizes[d] < 0 || sizes[d] > shape.dim(d) || (!shape.isDynamicDim(d) && sizes[d] != shape.dim(d)))
      return c.errorAt(start, "runtime size " + std::to_string(sizes[d]) + " does not fit dimension " +
                                  std::to_string(d) + " of " + shape.toString(false));
  HLO_ASSIGN_OR_RETURN(Literal value, parseLiteralValuesAt(c, Shape(shape.type(), sizes)));
  return Literal::expand(value, shape, shape.dynamicDims());
}

// `depth` counts the tuples around the literal, so `((((...` stops early.
static StatusOr<Literal> parseLiteralDepth(Cursor& c, int depth) {
  if (depth > kMaxNesting) return c.error("literal nested too deeply");
  if (c.peek() != '(') {
    HLO_ASSIGN_OR_RETURN(Shape shape, parseShapeAt(c));
    if (shape.isArray() && shape.isDynamic() && c.peek() == '(') return parseDynamicValuesAt(c, shape);
    return parseLiteralValuesAt(c, shape);
  }
  // `(f32[] 1, s32[] 2)`: a tuple of literals each with a shape.
  c.consume('(');
  std::vector<Literal> elements;
  std::vector<Shape> shapes;
  if (!c.consume(')')) {
    do {
      HLO_ASSIGN_OR_RETURN(Literal e, parseLiteralDepth(c, depth + 1));
      shapes.push_back(e.shape());
      elements.push_back(std::move(e));
    } while (c.consume(','));
    if (!c.consume(')')) return c.error("expected ')' to close the tuple literal");
  }
  Literal lit(Shape::tuple(std::move(shapes)));
  lit.tupleElements() = std::move(elements);
  return lit;
}

StatusOr<Literal> parseLiteralAt(Cursor& c) { return parseLiteralDepth(c, 0); }

}  // namespace hlo
