// Literal: a dense value of any shape and element type, tuples included.
//
// Arrays are stored row-major (logical order, layouts ignored), one element
// per `storageBytes(type)` bytes: pred as 0/1 bytes, s2/s4 sign-extended into
// int8, u2/u4 in uint8, f16/bf16/f8/f4 as their raw bit patterns, c64 as two
// floats, c128 as two doubles. Tuples hold element literals.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hlo/byte_buffer.h"

#include "hlo/shape.h"

namespace hlo {

class Literal {
 public:
  Literal() = default;  // the empty tuple
  // Zero-filled (false, 0, +0.0) value of `shape`; tuples recursively.
  explicit Literal(const Shape& shape);
  // A value of `shape` whose array elements are unspecified: for a result
  // that is about to be written whole (a compiled kernel's output), which
  // then costs no zero-filling pass.
  static Literal uninitialized(const Shape& shape);
  // An array of `shape` stored at `data`, memory the literal does not own:
  // the caller keeps it valid while the literal (or one it is moved into) is
  // used. A copy of it owns a copy of the elements.
  static Literal borrow(const Shape& shape, uint8_t* data);
  // Whether this array's elements are borrowed (see borrow()).
  bool borrowed() const { return bytes_.borrowed(); }
  // A borrowed array pointed at other memory of its size, shape and all: a
  // runtime that keeps its literals from run to run, where only the bytes'
  // address changes, rebinds them instead of building them again.
  void rebind(uint8_t* data) {
    bytes_.assignBorrowed(data, bytes_.size());
    dynamicSizes_.clear();
  }

  const Shape& shape() const { return shape_; }
  Shape& mutableShape() { return shape_; }
  ElementType type() const { return shape_.type(); }
  int64_t elementCount() const { return shape_.elementCount(); }

  // Arrays: the raw element bytes.
  uint8_t* untypedData() { return bytes_.data(); }
  const uint8_t* untypedData() const { return bytes_.data(); }
  size_t byteSize() const { return bytes_.size(); }
  template <typename T>
  T* data() { return reinterpret_cast<T*>(bytes_.data()); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes_.data()); }

  // The stored bits of element i of a non-complex array, zero-extended
  // (s4 -1 reads as 0xff, f16 1.0 as 0x3c00).
  uint64_t bitsAt(int64_t i) const;
  void setBitsAt(int64_t i, uint64_t bits);

  // Element i of a real array as a double (pred and integers exactly up to
  // 2^53, floats exactly); complex arrays give their real part.
  double toDouble(int64_t i) const;
  // Element i of a complex array as (re, im); real arrays give (x, 0).
  std::complex<double> toComplex(int64_t i) const;

  // Tuples.
  std::vector<Literal>& tupleElements() { return elements_; }
  const std::vector<Literal>& tupleElements() const { return elements_; }

  // An array whose values the text left out (`{...}`): it has a shape but no
  // storage, and cannot be evaluated.
  static Literal elidedArray(const Shape& shape);
  bool elided() const { return elided_; }

  // Dynamic sizes (arrays). A dimension given a runtime size is dynamic,
  // and is marked dynamic (`<=`) in shape() too.
  bool hasDynamicSizes() const { return !dynamicSizes_.empty(); }
  bool isDynamicDim(int d) const { return !dynamicSizes_.empty() && dynamicSizes_[d] >= 0; }
  // The runtime size of dimension d: the shape's size for a static one.
  int64_t dimSize(int d) const { return isDynamicDim(d) ? dynamicSizes_[d] : shape_.dim(d); }
  std::vector<int64_t> runtimeDims() const;
  // Whether some runtime size is below its bound (the value has padding).
  bool hasPadding() const;
  // Makes dimension d dynamic with runtime size `size` (0 <= size <= bound).
  void setDynamicSize(int d, int64_t size);
  // Makes dimension d, or every dimension, static again (the shape keeps
  // its `<=` marks).
  void setStaticDim(int d);
  void clearDynamicSizes() { dynamicSizes_.clear(); }
  // The value as a static array of the runtime sizes (no layout, no `<=`
  // marks, no runtime sizes). Arrays only.
  Literal compact() const;
  // The inverse: `value` (an array of sizes at most `bound`'s, same element
  // type) stored in an array of shape `bound`, zero past its sizes, with
  // runtime sizes for the dimensions `dynamic` names.
  static Literal expand(const Literal& value, const Shape& bound, const std::vector<bool>& dynamic);

  // Same shape (layouts aside), same runtime sizes and identical bits (of the
  // value: padding is not compared).
  bool operator==(const Literal& other) const;

  // `f32[2] {1, 2.5}`, `(f32[] 1, s32[] 2)`.
  std::string toString() const;
  // Just the values, as inside `constant(...)`: `{1, 2.5}`, `3`, `(1, 2)`.
  void printValues(std::string& out) const;
  std::string valuesToString() const;
  // One element of an array as text (`1`, `true`, `(1, 2)`, `nan`).
  std::string elementToString(int64_t i) const;

 private:
  Shape shape_;
  ByteBuffer bytes_;
  std::vector<Literal> elements_;
  // Empty when every dimension is static; else per dimension the runtime
  // size, or -1 for a static dimension.
  std::vector<int64_t> dynamicSizes_;
  bool elided_ = false;
};

}  // namespace hlo
