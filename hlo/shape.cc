// Shape construction, queries and XLA-syntax printing.
#include "hlo/shape.h"

#include <string>

namespace hlo {
namespace {

void appendInt(std::string& out, int64_t v) { out += std::to_string(v); }

template <typename T, typename F>
void appendJoined(std::string& out, const std::vector<T>& items, const char* sep, F each) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    each(items[i]);
  }
}

}  // namespace

Shape::Shape(ElementType type, std::vector<int64_t> dims)
    : type_(type), dims_(std::move(dims)), dynamic_(dims_.size(), false) {}

Shape Shape::tuple(std::vector<Shape> elements) {
  Shape s;
  s.type_ = ElementType::kTuple;
  s.elements_ = std::move(elements);
  return s;
}

Shape Shape::token() { return Shape(ElementType::kToken, {}); }

Shape Shape::buffer(Shape array) {
  Shape s;
  s.type_ = ElementType::kBuffer;
  s.elements_.push_back(std::move(array));
  return s;
}

bool Shape::isDynamic() const {
  for (bool d : dynamic_)
    if (d) return true;
  for (const Shape& e : elements_)
    if (e.isDynamic()) return true;
  return false;
}

void Shape::setDim(int i, int64_t size, bool dynamic) {
  dims_[i] = size;
  dynamic_[i] = dynamic;
}

void Shape::setDims(std::vector<int64_t> dims) {
  dims_ = std::move(dims);
  dynamic_.assign(dims_.size(), false);
}

int64_t Shape::elementCount() const {
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (d < 0) return 0;
    n *= d;
  }
  return n;
}

void Shape::clearLayout() {
  layout_.reset();
  for (Shape& e : elements_) e.clearLayout();
}

std::vector<int64_t> Shape::minorToMajor() const {
  if (layout_ && static_cast<int>(layout_->minorToMajor.size()) == rank())
    return layout_->minorToMajor;
  std::vector<int64_t> order(rank());
  for (int i = 0; i < rank(); ++i) order[i] = rank() - 1 - i;
  return order;
}

bool Shape::compatible(const Shape& other) const {
  if (type_ != other.type_ || dims_ != other.dims_ || dynamic_ != other.dynamic_ ||
      elements_.size() != other.elements_.size())
    return false;
  for (size_t i = 0; i < elements_.size(); ++i)
    if (!elements_[i].compatible(other.elements_[i])) return false;
  return true;
}

bool Shape::sameTypeAndDims(const Shape& other) const {
  if (type_ != other.type_ || dims_ != other.dims_ || elements_.size() != other.elements_.size()) return false;
  for (size_t i = 0; i < elements_.size(); ++i)
    if (!elements_[i].sameTypeAndDims(other.elements_[i])) return false;
  return true;
}

std::string Layout::toString() const {
  std::string out = "{";
  appendJoined(out, minorToMajor, ",", [&](int64_t d) { appendInt(out, d); });
  bool hasItems = !tiles.empty() || tailPaddingAlignment != 1 || elementSizeBits != 0 ||
                  memorySpace != 0 || !extras.empty();
  if (hasItems) {
    out += ':';
    // XLA's order: T L #(index type) *(pointer type) E S, then the others (SC P M).
    auto printExtras = [&](bool typeItems) {
      for (const LayoutExtra& e : extras)
        if ((e.text[0] == '#' || e.text[0] == '*') == typeItems) out += e.text;
    };
    if (!tiles.empty()) out += 'T';  // XLA writes the tiles as T(8,128)(2,1)
    for (const Tile& t : tiles) {
      out += '(';
      appendJoined(out, t.dims, ",", [&](int64_t d) {
        if (d == Tile::kCombinedTileDim) out += '*';
        else appendInt(out, d);
      });
      out += ')';
    }
    if (tailPaddingAlignment != 1) out += "L(" + std::to_string(tailPaddingAlignment) + ")";
    printExtras(true);
    if (elementSizeBits != 0) out += "E(" + std::to_string(elementSizeBits) + ")";
    if (memorySpace != 0) out += "S(" + std::to_string(memorySpace) + ")";
    printExtras(false);
  }
  out += '}';
  return out;
}

void Shape::print(std::string& out, bool withLayout) const {
  switch (typeKind(type_)) {
    case TypeKind::kTuple:
      out += '(';
      appendJoined(out, elements_, ", ", [&](const Shape& e) { e.print(out, withLayout); });
      out += ')';
      return;
    case TypeKind::kBuffer:
      out += "b(";
      elements_[0].print(out, withLayout);
      out += ')';
      return;
    case TypeKind::kToken:
      out += "token[]";
      return;
    case TypeKind::kOpaque:
      out += "opaque[]";
      return;
    case TypeKind::kPred:
    case TypeKind::kSigned:
    case TypeKind::kUnsigned:
    case TypeKind::kFloat:
    case TypeKind::kComplex:
      break;
  }
  out += elementTypeName(type_);
  out += '[';
  for (int i = 0; i < rank(); ++i) {
    if (i) out += ',';
    if (dims_[i] == kUnboundedDim) {
      out += '?';
      continue;
    }
    if (dynamic_[i]) out += "<=";
    appendInt(out, dims_[i]);
  }
  out += ']';
  if (withLayout && layout_) out += layout_->toString();
}

std::string Shape::toString(bool withLayout) const {
  std::string out;
  print(out, withLayout);
  return out;
}

std::string shapeIndexToString(const ShapeIndex& index) {
  std::string out = "{";
  appendJoined(out, index, ",", [&](int64_t d) { appendInt(out, d); });
  return out + "}";
}

const Shape* subshape(const Shape& shape, const ShapeIndex& index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->isTuple() || i < 0 || i >= s->tupleSize()) return nullptr;
    s = &s->tupleElement(static_cast<int>(i));
  }
  return s;
}

}  // namespace hlo
