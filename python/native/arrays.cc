#include "python/native/arrays.h"

#include <cstdint>
#include <cstring>
#include <map>

#include "hlo/element_type.h"

namespace hlo::python {
namespace {

py::module_ numpy() { return py::module_::import("numpy"); }

std::string text(py::handle object) { return py::str(object).cast<std::string>(); }

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + (dims.size() == 1 ? ",)" : ")");
}

// Values of fewer than 8 bits are stored one a byte by both sides, but a
// literal keeps signed ones sign-extended (s4 -1 is 0xff) where ml_dtypes
// keeps only their low bits (0x0f) and ignores the rest.
bool subByte(ElementType t) { return !isPred(t) && bitWidth(t) < 8; }

void bytesFromNumpy(ElementType t, uint8_t* bytes, int64_t count) {
  const int bits = bitWidth(t);
  const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1), sign = static_cast<uint8_t>(1u << (bits - 1));
  for (int64_t i = 0; i < count; ++i) {
    uint8_t low = bytes[i] & mask;
    bytes[i] = isSigned(t) ? static_cast<uint8_t>((low ^ sign) - sign) : low;
  }
}

void bytesToNumpy(ElementType t, uint8_t* bytes, int64_t count) {
  const uint8_t mask = static_cast<uint8_t>((1u << bitWidth(t)) - 1);
  for (int64_t i = 0; i < count; ++i) bytes[i] &= mask;
}

// The alignment a literal's element needs: a complex value's is its parts'.
size_t alignmentOf(ElementType t) {
  size_t bytes = storageBytes(t);
  return isComplex(t) ? bytes / 2 : bytes;
}

// The given value as a numpy array: arrays as they are; objects with a
// dtype of their own (jax or torch arrays) through numpy.asarray, keeping
// it; Python numbers and nested lists converted to the parameter's dtype.
py::array asArray(py::handle value, const py::dtype& dtype, const std::string& what) {
  if (py::isinstance<py::array>(value)) return py::reinterpret_borrow<py::array>(value);
  try {
    bool typed = py::hasattr(value, "dtype") && py::hasattr(value, "__array__");
    py::object array = typed ? numpy().attr("asarray")(value) : numpy().attr("asarray")(value, dtype);
    return array.cast<py::array>();
  } catch (py::error_already_set& e) {
    throw hloError(what + ": cannot be made an array of " + text(dtype) + ": " + e.what());
  }
}

}  // namespace

py::dtype dtypeOf(ElementType type) {
  static std::map<ElementType, py::object>* cache = new std::map<ElementType, py::object>();  // lives as the module does
  auto it = cache->find(type);
  if (it != cache->end()) return py::reinterpret_borrow<py::dtype>(it->second);
  py::object dtype = py::module_::import("hlo._dtypes").attr("dtype_of")(std::string(elementTypeName(type)));
  cache->emplace(type, dtype);
  return py::reinterpret_borrow<py::dtype>(dtype);
}

Literal literalFromPython(py::handle value, const Shape& want, const std::string& what,
                          std::vector<py::object>& keepAlive) {
  if (want.isToken()) {
    if (!value.is_none()) throw hloError(what + " is a token: give None");
    return Literal(want);
  }
  if (want.isTuple()) {
    const int n = want.tupleSize();
    if (!py::isinstance<py::tuple>(value) || py::len(value) != static_cast<size_t>(n))
      throw hloError(what + " is a tuple of " + std::to_string(n) + " elements: give a Python tuple of as many");
    py::tuple elements = py::reinterpret_borrow<py::tuple>(value);
    Literal literal(want);
    for (int i = 0; i < n; ++i)
      literal.tupleElements()[i] =
          literalFromPython(elements[i], want.tupleElement(i), what + " element " + std::to_string(i), keepAlive);
    return literal;
  }
  if (!want.isArray()) throw hloError(what + " is of type " + std::string(elementTypeName(want.type())) +
                                   ", which Python cannot give");
  const ElementType type = want.type();
  py::dtype dtype = dtypeOf(type);
  py::array array = asArray(value, dtype, what);
  if (!array.dtype().equal(dtype))
    throw hloError(what + " takes " + text(dtype) + " values but the array holds " + text(array.dtype()) +
                " (convert it with .astype(" + text(dtype.attr("name")) + "))");
  std::vector<int64_t> dims(array.shape(), array.shape() + array.ndim());
  bool fits = static_cast<int>(dims.size()) == want.rank();
  for (int d = 0; fits && d < want.rank(); ++d)
    fits = want.isDynamicDim(d) ? dims[d] <= want.dim(d) : dims[d] == want.dim(d);
  if (!fits)
    throw hloError(what + " has shape " + dimsText(want.dims()) + (want.isDynamic() ? " (or less where <=)" : "") +
                " but the array has shape " + dimsText(dims));
  const bool whole = dims == want.dims();
  const bool borrowable = whole && !subByte(type) && array.nbytes() > 0 &&
                          (array.flags() & py::array::c_style) &&
                          reinterpret_cast<uintptr_t>(array.data()) % alignmentOf(type) == 0;
  if (borrowable) {
    keepAlive.push_back(array);
    return Literal::borrow(want, const_cast<uint8_t*>(static_cast<const uint8_t*>(array.data())));
  }
  py::array contiguous = numpy().attr("ascontiguousarray")(array).cast<py::array>();
  Literal literal = Literal::uninitialized(Shape(type, dims));
  if (literal.byteSize() > 0) std::memcpy(literal.untypedData(), contiguous.data(), literal.byteSize());
  if (subByte(type)) bytesFromNumpy(type, literal.untypedData(), literal.elementCount());
  if (!whole) return Literal::expand(literal, want, want.dynamicDims());
  literal.mutableShape() = want;
  return literal;
}

py::object pythonFromLiteral(Literal&& value) {
  const Shape& shape = value.shape();
  if (shape.isTuple()) {
    py::tuple elements(value.tupleElements().size());
    for (size_t i = 0; i < value.tupleElements().size(); ++i)
      elements[i] = pythonFromLiteral(std::move(value.tupleElements()[i]));
    return elements;
  }
  if (shape.isToken()) return py::none();
  if (!shape.isArray())
    throw hloError("a result of type " + std::string(elementTypeName(shape.type())) + " has no Python value");
  if (value.hasDynamicSizes()) value = value.compact();
  if (value.borrowed()) {
    Literal owned = value;  // a copy of a borrowing literal owns its bytes
    value = std::move(owned);
  }
  if (subByte(value.type())) bytesToNumpy(value.type(), value.untypedData(), value.elementCount());
  py::dtype dtype = dtypeOf(value.type());
  std::vector<py::ssize_t> dims(value.shape().dims().begin(), value.shape().dims().end());
  if (value.elementCount() == 0) return py::array(dtype, dims);
  auto* owner = new Literal(std::move(value));
  py::capsule base(owner, [](void* literal) { delete static_cast<Literal*>(literal); });
  return py::array(dtype, dims, owner->untypedData(), base);
}

}  // namespace hlo::python
