// Shapes and layouts: value types with ==, parsed and printed in XLA's syntax.
//
//   f32[2,3]{1,0}            array, minor_to_major layout
//   bf16[<=8,?]              dynamic (bounded) and unbounded dimensions
//   f32[8,128]{1,0:T(8,128)S(1)}   tiled layout in memory space 1
//   (f32[], token[])         tuple
//   b(s32[4])                buffer
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/element_type.h"

namespace hlo {

// One tile of a tiled layout, e.g. T(8,128); kCombinedTileDim prints as `*`.
struct Tile {
  static constexpr int64_t kCombinedTileDim = -1;
  std::vector<int64_t> dims;
  bool operator==(const Tile&) const = default;
};

// A layout item that is carried but not interpreted, kept verbatim
// (`#(s32)`, `*(s64)`, `SC(0:3)(1:2)`, `P(...)`, `M(8)`).
struct LayoutExtra {
  std::string text;  // the whole item, e.g. "SC(0:3)"
  bool operator==(const LayoutExtra&) const = default;
};

struct Layout {
  std::vector<int64_t> minorToMajor;
  std::vector<Tile> tiles;
  int64_t tailPaddingAlignment = 1;  // L(n)
  int64_t elementSizeBits = 0;       // E(n); 0 means the type's own size
  int64_t memorySpace = 0;           // S(n)
  std::vector<LayoutExtra> extras;   // printed after the typed items
  bool operator==(const Layout&) const = default;
  std::string toString() const;      // "{1,0:T(8,128)}"
};

class Shape {
 public:
  // An unbounded dimension (`?`): size unknown, dynamic.
  static constexpr int64_t kUnboundedDim = -1;

  Shape() = default;
  Shape(ElementType type, std::vector<int64_t> dims);
  static Shape tuple(std::vector<Shape> elements);
  static Shape token();
  static Shape buffer(Shape array);
  static Shape scalar(ElementType type) { return Shape(type, {}); }

  ElementType type() const { return type_; }
  void setType(ElementType t) { type_ = t; }
  bool isTuple() const { return type_ == ElementType::kTuple; }
  bool isToken() const { return type_ == ElementType::kToken; }
  bool isBuffer() const { return type_ == ElementType::kBuffer; }
  bool isArray() const { return isArrayType(type_); }

  // Arrays.
  int rank() const { return static_cast<int>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t dim(int i) const { return dims_[i]; }
  bool isDynamicDim(int i) const { return dynamic_[i]; }
  bool isDynamic() const;  // any dynamic dimension, also inside tuples
  void setDim(int i, int64_t size, bool dynamic = false);
  void setDims(std::vector<int64_t> dims);  // all static
  const std::vector<bool>& dynamicDims() const { return dynamic_; }
  // Number of elements (product of dims; bounds for dynamic dims; 0 if unbounded).
  int64_t elementCount() const;
  bool isScalar() const { return isArray() && dims_.empty(); }

  // Layout (arrays only; absent when the text had none).
  const std::optional<Layout>& layout() const { return layout_; }
  std::optional<Layout>& mutableLayout() { return layout_; }
  void setLayout(Layout l) { layout_ = std::move(l); }
  void clearLayout();  // also inside tuples
  // The minor-to-major order: the layout's, or the default (rank-1 ... 0).
  std::vector<int64_t> minorToMajor() const;

  // Tuples and buffers.
  int tupleSize() const { return static_cast<int>(elements_.size()); }
  const std::vector<Shape>& tupleElements() const { return elements_; }
  // A tuple's elements, or the shape itself: the arrays an instruction of
  // one or several results makes.
  std::vector<Shape> elementsOrSelf() const { return isTuple() ? elements_ : std::vector<Shape>{*this}; }
  std::vector<Shape>& mutableTupleElements() { return elements_; }
  const Shape& tupleElement(int i) const { return elements_[i]; }
  const Shape& bufferShape() const { return elements_[0]; }

  bool operator==(const Shape& other) const = default;
  // Equal up to layouts.
  bool compatible(const Shape& other) const;
  // Equal up to layouts and to which dimensions are dynamic: the same
  // element types and dimension sizes, tuples element by element (XLA's
  // ShapeUtil::Compatible).
  bool sameTypeAndDims(const Shape& other) const;
  // Same element type and dims (including dynamism), arrays only.
  bool sameDims(const Shape& other) const {
    return dims_ == other.dims_ && dynamic_ == other.dynamic_;
  }

  std::string toString(bool withLayout = true) const;
  void print(std::string& out, bool withLayout = true) const;

 private:
  ElementType type_ = ElementType::kTuple;  // default: the empty tuple ()
  std::vector<int64_t> dims_;
  std::vector<bool> dynamic_;
  std::optional<Layout> layout_;
  std::vector<Shape> elements_;
};

// A path into nested tuples, printed `{0,1}`.
using ShapeIndex = std::vector<int64_t>;
std::string shapeIndexToString(const ShapeIndex& index);
// The subshape at `index`, or nullptr if the path leaves the shape.
const Shape* subshape(const Shape& shape, const ShapeIndex& index);

}  // namespace hlo
