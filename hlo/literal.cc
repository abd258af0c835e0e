// Literal storage and XLA-style text printing.
#include "hlo/literal.h"

#include <algorithm>

#include "hlo/float_formats.h"
#include "hlo/indexing.h"

namespace hlo {
namespace {

// Copies the leading box `dims` (each at most both arrays' sizes) of `src`
// into the same box of `dst`, row by row; same element type.
void copyBox(const Literal& src, Literal& dst, const std::vector<int64_t>& dims) {
  int rank = static_cast<int>(dims.size());
  int64_t n = storageBytes(src.type());
  if (rank == 0) {
    std::memcpy(dst.untypedData(), src.untypedData(), n);
    return;
  }
  for (int64_t d : dims)
    if (d == 0) return;
  std::vector<int64_t> srcStrides = rowMajorStrides(src.shape().dims());
  std::vector<int64_t> dstStrides = rowMajorStrides(dst.shape().dims());
  std::vector<int64_t> outer(dims.begin(), dims.end() - 1);
  int64_t row = dims.back() * n;
  if (outer.empty()) {
    std::memcpy(dst.untypedData(), src.untypedData(), row);
    return;
  }
  // linearIndex reads as many strides as the index has: the row's start.
  forEachIndex(outer, [&](const std::vector<int64_t>& r, int64_t) {
    std::memcpy(dst.untypedData() + linearIndex(dstStrides, r) * n,
                src.untypedData() + linearIndex(srcStrides, r) * n, row);
  });
}

}  // namespace

Literal::Literal(const Shape& shape) : shape_(shape) {
  if (shape.isTuple()) {
    for (const Shape& e : shape.tupleElements()) elements_.emplace_back(e);
    return;
  }
  if (shape.isArray()) bytes_.assignZeros(shape.elementCount() * storageBytes(shape.type()));
}

Literal Literal::uninitialized(const Shape& shape) {
  Literal lit;
  lit.shape_ = shape;
  if (shape.isTuple()) {
    for (const Shape& e : shape.tupleElements()) lit.elements_.push_back(uninitialized(e));
  } else if (shape.isArray()) {
    lit.bytes_.assignUninitialized(shape.elementCount() * storageBytes(shape.type()));
  }
  return lit;
}

Literal Literal::borrow(const Shape& shape, uint8_t* data) {
  Literal lit;
  lit.shape_ = shape;
  if (shape.isArray()) lit.bytes_.assignBorrowed(data, shape.elementCount() * storageBytes(shape.type()));
  return lit;
}

Literal Literal::elidedArray(const Shape& shape) {
  Literal lit;
  lit.shape_ = shape;
  lit.elided_ = true;
  return lit;
}

// A c128 element is 16 bytes: only its first 8 (the real part) are read or
// written, never past the 8-byte variable.
uint64_t Literal::bitsAt(int64_t i) const {
  int n = storageBytes(type());
  uint64_t bits = 0;
  std::memcpy(&bits, bytes_.data() + i * n, std::min<size_t>(n, sizeof bits));  // little-endian host
  return bits;
}

void Literal::setBitsAt(int64_t i, uint64_t bits) {
  int n = storageBytes(type());
  std::memcpy(bytes_.data() + i * n, &bits, std::min<size_t>(n, sizeof bits));
}

double Literal::toDouble(int64_t i) const { return toComplex(i).real(); }

std::complex<double> Literal::toComplex(int64_t i) const {
  ElementType t = type();
  switch (typeKind(t)) {
    case TypeKind::kPred:
    case TypeKind::kUnsigned:
      return static_cast<double>(bitsAt(i));
    case TypeKind::kSigned: {
      int width = storageBytes(t) * 8;
      uint64_t bits = bitsAt(i);
      int64_t v = width == 64 ? static_cast<int64_t>(bits)
                              : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
      return static_cast<double>(v);
    }
    case TypeKind::kFloat:
      if (t == ElementType::kF64) return data<double>()[i];
      if (t == ElementType::kF32) return data<float>()[i];
      return decodeSmallFloat(t, static_cast<uint32_t>(bitsAt(i)));
    case TypeKind::kComplex:
      if (t == ElementType::kC64) return {data<float>()[2 * i], data<float>()[2 * i + 1]};
      return {data<double>()[2 * i], data<double>()[2 * i + 1]};
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  return 0;
}

std::vector<int64_t> Literal::runtimeDims() const {
  std::vector<int64_t> dims = shape_.dims();
  for (int d = 0; d < shape_.rank() && hasDynamicSizes(); ++d) dims[d] = dimSize(d);
  return dims;
}

bool Literal::hasPadding() const {
  for (int d = 0; d < shape_.rank() && hasDynamicSizes(); ++d)
    if (dimSize(d) < shape_.dim(d)) return true;
  return false;
}

void Literal::setDynamicSize(int d, int64_t size) {
  if (dynamicSizes_.empty()) dynamicSizes_.assign(shape_.rank(), -1);
  dynamicSizes_[d] = size;
  shape_.setDim(d, shape_.dim(d), true);
}

void Literal::setStaticDim(int d) {
  if (dynamicSizes_.empty()) return;
  dynamicSizes_[d] = -1;
  for (int64_t s : dynamicSizes_)
    if (s >= 0) return;
  dynamicSizes_.clear();
}

Literal Literal::compact() const {
  if (!hasPadding()) {
    Literal copy = *this;
    copy.clearDynamicSizes();
    copy.shape_ = Shape(type(), shape_.dims());
    return copy;
  }
  Literal out(Shape(type(), runtimeDims()));
  copyBox(*this, out, out.shape().dims());
  return out;
}

Literal Literal::expand(const Literal& value, const Shape& bound, const std::vector<bool>& dynamic) {
  Literal out(bound);
  copyBox(value, out, value.shape().dims());
  for (int d = 0; d < bound.rank(); ++d)
    if (d < static_cast<int>(dynamic.size()) && dynamic[d]) out.setDynamicSize(d, value.shape().dim(d));
  return out;
}

bool Literal::operator==(const Literal& other) const {
  if (hasDynamicSizes() || other.hasDynamicSizes()) {
    if (!shape_.compatible(other.shape_) || elided_ || other.elided_) return false;
    for (int d = 0; d < shape_.rank(); ++d)
      if (isDynamicDim(d) != other.isDynamicDim(d) || dimSize(d) != other.dimSize(d)) return false;
    return compact().bytes_ == other.compact().bytes_;
  }
  return shape_.compatible(other.shape_) && bytes_ == other.bytes_ &&
         elements_ == other.elements_;
}

std::string Literal::elementToString(int64_t i) const {
  ElementType t = type();
  uint64_t bits;
  switch (typeKind(t)) {
    case TypeKind::kPred:
      return bitsAt(i) ? "true" : "false";
    case TypeKind::kSigned: {
      bits = bitsAt(i);
      int width = storageBytes(t) * 8;
      int64_t v = width == 64 ? static_cast<int64_t>(bits)
                              : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
      return std::to_string(v);
    }
    case TypeKind::kUnsigned:
      return std::to_string(bitsAt(i));
    case TypeKind::kFloat:
      return formatFloatBits(t, bitsAt(i));
    case TypeKind::kComplex: {
      ElementType part = complexComponentType(t);
      int n = storageBytes(part);
      uint64_t re = 0, im = 0;
      std::memcpy(&re, bytes_.data() + i * 2 * n, n);
      std::memcpy(&im, bytes_.data() + i * 2 * n + n, n);
      return "(" + formatFloatBits(part, re) + ", " + formatFloatBits(part, im) + ")";
    }
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  return "";
}

void Literal::printValues(std::string& out) const {
  if (shape_.isTuple()) {
    out += '(';
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i) out += ", ";
      elements_[i].printValues(out);
    }
    out += ')';
    return;
  }
  if (!shape_.isArray()) return;  // token: nothing to print
  if (elided_) {
    out += "{...}";
    return;
  }
  if (hasPadding()) return compact().printValues(out);
  if (shape_.isScalar()) {
    out += elementToString(0);
    return;
  }
  // Nested braces, one level per dimension, row-major.
  const std::vector<int64_t>& dims = shape_.dims();
  int rank = shape_.rank();
  std::vector<int64_t> index(rank, 0);
  int64_t n = elementCount();
  if (n == 0) {
    // Braces down to the first empty dimension: f32[2,0] is {{}, {}}, which
    // is what the parser reads back (and f32[0,2] is {}).
    auto printEmpty = [&](auto& self, int d) -> void {
      out += '{';
      if (dims[d] != 0)
        for (int64_t k = 0; k < dims[d]; ++k) {
          if (k) out += ", ";
          self(self, d + 1);
        }
      out += '}';
    };
    printEmpty(printEmpty, 0);
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    // Open braces for every dimension whose index is at 0 (from the outermost
    // dimension that just restarted).
    int open = rank;
    while (open > 0 && index[open - 1] == 0) --open;
    if (i > 0) out += ", ";
    for (int d = open; d < rank; ++d) out += '{';
    out += elementToString(i);
    // Advance the index and close finished dimensions.
    int d = rank - 1;
    while (d >= 0) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
      out += '}';
      --d;
    }
  }
}

std::string Literal::valuesToString() const {
  std::string out;
  printValues(out);
  return out;
}

std::string Literal::toString() const {
  std::string out;
  if (shape_.isTuple()) {
    out += '(';
    for (size_t i = 0; i < elements_.size(); ++i) {
      if (i) out += ", ";
      out += elements_[i].toString();
    }
    return out + ')';
  }
  shape_.print(out, /*withLayout=*/false);
  if (!shape_.isArray()) return out;
  if (hasDynamicSizes()) {
    out += '(';
    for (int d = 0; d < shape_.rank(); ++d) out += (d ? "," : "") + std::to_string(dimSize(d));
    out += ')';
  }
  out += ' ';
  printValues(out);
  return out;
}

}  // namespace hlo
