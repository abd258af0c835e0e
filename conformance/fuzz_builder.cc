#include "conformance/fuzz_builder.h"

#include <algorithm>

namespace hlo::conformance::fuzz {
namespace {

using T = ElementType;

bool among(ElementType t, std::initializer_list<ElementType> types) {
  return std::find(types.begin(), types.end(), t) != types.end();
}
bool hasNan(ElementType t) {
  return hasInfinity(t) ||
         among(t, {T::kF8E4M3FN, T::kF8E4M3B11FNUZ, T::kF8E5M2FNUZ, T::kF8E4M3FNUZ, T::kF8E8M0FNU});
}
bool hasNegativeZero(ElementType t) {
  return !among(t, {T::kF8E4M3B11FNUZ, T::kF8E5M2FNUZ, T::kF8E4M3FNUZ, T::kF8E8M0FNU});
}

std::string realLiteral(Builder& b, ElementType t, bool edge) {
  if (t == T::kF8E8M0FNU) {  // powers of two only, no zero, no sign
    static const std::vector<std::string> kValues = {"1", "2", "0.5", "4", "0.25"};
    return edge && b.oneIn(3) ? "nan" : b.pickOf(kValues);
  }
  static const std::vector<std::string> kOrdinary = {"0", "1", "-1", "0.5", "-1.5", "2", "0.25", "-3"};
  if (!edge) return b.pickOf(kOrdinary);
  std::vector<std::string> edges = {"0", "-2", "3"};
  if (hasInfinity(t)) edges.insert(edges.end(), {"inf", "-inf"});
  if (hasNan(t)) edges.push_back("nan");
  if (hasNegativeZero(t)) edges.push_back("-0");
  switch (t) {  // values near the largest finite one
    case T::kF32: edges.insert(edges.end(), {"3.4e+38", "-3.4e+38"}); break;
    case T::kBF16: edges.insert(edges.end(), {"3.38e+38"}); break;
    case T::kF64: edges.insert(edges.end(), {"1.79e+308", "-1.79e+308"}); break;
    case T::kF16: edges.insert(edges.end(), {"65504", "-65504"}); break;
    default: break;
  }
  if (!b.forXla()) {
    switch (t) {  // a denormal
      case T::kF32: case T::kBF16: edges.push_back("1e-40"); break;
      case T::kF64: edges.push_back("4.9e-324"); break;
      case T::kF16: edges.push_back("6e-08"); break;
      default: break;
    }
  }
  return b.pickOf(edges);
}

// Nested braces of `dims` filled by `element`.
template <typename Element>
std::string arrayLiteral(const Dims& dims, size_t d, Element&& element) {
  if (d == dims.size()) return element();
  std::string text = "{";
  for (int64_t i = 0; i < dims[d]; ++i) text += (i ? ", " : "") + arrayLiteral(dims, d + 1, element);
  return text + "}";
}

}  // namespace

bool hasInfinity(ElementType t) {
  return among(t, {T::kF16, T::kBF16, T::kF32, T::kF64, T::kF8E5M2, T::kF8E4M3, T::kF8E3M4});
}

std::string shapeText(ElementType type, const Dims& dims, int dynamicDim) {
  std::string text = std::string(elementTypeName(type)) + "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "," : "") + std::string(static_cast<int>(i) == dynamicDim ? "<=" : "") + std::to_string(dims[i]);
  return text + "]";
}

int64_t elementCount(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string listText(const std::vector<int64_t>& items) {
  std::string text = "{";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? "," : "") + std::to_string(items[i]);
  return text + "}";
}

const std::vector<ElementType>& Builder::arrayTypes() {
  static const std::vector<ElementType> kTypes = [] {
    std::vector<ElementType> types;
#define HLO_ELEMENT_TYPE(Enum, text, bits, bytes, kind) \
  if (isArrayType(ElementType::Enum)) types.push_back(ElementType::Enum);
#include "hlo/types.def"
#undef HLO_ELEMENT_TYPE
    return types;
  }();
  return kTypes;
}

Builder::Builder(uint64_t seed, std::vector<ElementType> types, bool forXla)
    : state_(seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull), types_(std::move(types)), forXla_(forXla) {
  mainType_ = pickOf(types_);
  static const std::vector<int64_t> kSizes = {1, 2, 3, 4, 5, 7, 8, 16, 17, 33};
  int rank = static_cast<int>(pick(4));
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t size = pickOf(kSizes);
    while (elements * size > 2048) size /= 2;
    mainDims_.push_back(std::max<int64_t>(size, 1));
    elements *= mainDims_.back();
  }
  if (rank > 0 && oneIn(12)) mainDims_[pick(rank)] = 0;  // no elements at all
}

uint64_t Builder::pick(uint64_t n) {  // splitmix64
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) % n;
}

Dims Builder::someDims() {
  std::vector<const Value*> open;
  for (const Value& v : values_)
    if (!v.terminal) open.push_back(&v);
  if (open.empty() || oneIn(2)) return mainDims_;
  return pickOf(open)->dims;
}

std::optional<Value> Builder::existing(ElementType type, const Dims& dims, Need need) {
  std::vector<const Value*> fit;
  for (const Value& v : values_)
    if (!v.terminal && v.type == type && v.dims == dims && (v.exact || need == Need::kAny)) fit.push_back(&v);
  if (fit.empty()) return std::nullopt;
  return *pickOf(fit);
}

Value Builder::need(ElementType type, const Dims& dims, Need need) {
  if (need == Need::kOrdinary) {
    for (const Value& v : values_)
      if (v.name[0] == 'p' && v.type == type && v.dims == dims && !oneIn(3)) return v;
    return parameter(type, dims);
  }
  if (auto v = existing(type, dims, need); v && !oneIn(4)) return *v;
  if (oneIn(2)) {  // a conversion of a value of the same dimensions
    std::vector<const Value*> sources;
    for (const Value& v : values_)
      // Only exact values: an inexact float converted to an integer may land
      // on either side of a step, and to a wider float keeps an error the
      // wider type's tolerance does not allow.
      if (!v.terminal && v.dims == dims && v.type != type && !isComplex(v.type) && v.exact) sources.push_back(&v);
    if (!sources.empty()) {
      Value source = *pickOf(sources);
      return define(type, dims, "convert(" + source.name + ")", true, {&source});
    }
  }
  if (parameters_ < 5 && oneIn(2)) return parameter(type, dims);
  return constant(type, dims);
}

Value Builder::index(int64_t bound) {
  if (parameters_ < 5 && oneIn(2)) return parameter(T::kS32, {});
  return define(T::kS32, {}, "constant(" + std::to_string(pick(bound + 1)) + ")", true, {});
}

Value Builder::parameter(ElementType type, const Dims& dims) {
  Value v{"p" + std::to_string(parameters_), type, dims};
  body_ += "  " + v.name + " = " + shapeText(type, dims) + " parameter(" + std::to_string(parameters_) + ")\n";
  ++parameters_;
  values_.push_back(v);
  return v;
}

Value Builder::constant(ElementType type, const Dims& dims) {
  const bool edge = !oneIn(3);
  if (elementCount(dims) <= 16 && oneIn(2))
    return define(type, dims,
                  "constant(" + arrayLiteral(dims, 0, [&] { return scalarLiteral(type, edge); }) + ")", true, {});
  if (!dims.empty() && !isPred(type) && oneIn(3))
    return define(type, dims, "iota(), iota_dimension=" + std::to_string(pick(dims.size())), true, {});
  Value scalar = define(type, {}, "constant(" + scalarLiteral(type, edge) + ")", true, {});
  if (dims.empty()) return scalar;
  return define(type, dims, "broadcast(" + scalar.name + "), dimensions={}", true, {&scalar});
}

std::string Builder::scalarLiteral(ElementType type, bool edge) {
  if (isPred(type)) return oneIn(2) ? "true" : "false";
  const int bits = bitWidth(type);
  if (isSigned(type)) {
    const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1, min = -max - 1;
    if (edge) return std::to_string(pickOf(std::vector<int64_t>{min, max, 0, -1, std::min<int64_t>(1, max)}));
    return std::to_string(std::clamp<int64_t>(static_cast<int64_t>(pick(9)) - 4, min, max));
  }
  if (isUnsigned(type)) {
    const uint64_t max = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    if (edge) return std::to_string(pickOf(std::vector<uint64_t>{0, max, 1}));
    return std::to_string(std::min<uint64_t>(pick(6), max));
  }
  if (isComplex(type)) {
    ElementType part = complexComponentType(type);
    return "(" + realLiteral(*this, part, edge) + ", " + realLiteral(*this, part, edge) + ")";
  }
  return realLiteral(*this, type, edge);
}

std::string Builder::identityLiteral(const std::string& op, ElementType type) {
  const int bits = bitWidth(type);
  if (op == "add" || op == "or") return isPred(type) ? "false" : "0";
  // In s1 (values -1 and 0) the product's identity is -1: its bit is 1.
  if (op == "multiply" || op == "and") return isPred(type) ? "true" : type == ElementType::kS1 ? "-1" : "1";
  const bool lowest = op == "maximum";
  if (isPred(type)) return lowest ? "false" : "true";
  if (isFloat(type)) return lowest ? "-inf" : "inf";
  if (isSigned(type)) {
    const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
    return std::to_string(lowest ? -max - 1 : max);
  }
  return lowest ? "0" : std::to_string(bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1);
}

std::string Builder::fresh(const std::string& prefix) { return prefix + std::to_string(++counter_); }

Value Builder::define(ElementType type, const Dims& dims, const std::string& rhs, bool exact,
                      std::initializer_list<const Value*> operands, bool terminal, int dynamicDim) {
  Value v{fresh("v"), type, dims, exact, terminal, dynamicDim};
  for (const Value* operand : operands) use(*operand);
  body_ += "  " + v.name + " = " + shapeText(type, dims, dynamicDim) + " " + rhs + "\n";
  values_.push_back(v);
  return v;
}

void Builder::use(const Value& v) {
  for (Value& w : values_)
    if (w.name == v.name) ++w.uses;
}

std::string Builder::defineOther(const std::string& shape, const std::string& rhs,
                                 std::initializer_list<const Value*> operands) {
  std::string name = fresh("t");
  for (const Value* operand : operands) use(*operand);
  body_ += "  " + name + " = " + shape + " " + rhs + "\n";
  return name;
}

std::string Builder::computation(const std::string& name, const std::string& body) {
  if (computationNames_.insert(name).second) computations_ += name + " {\n" + body + "}\n\n";
  return name;
}

std::string Builder::binaryComputation(const std::string& op, ElementType type) {
  std::string name = op + "_" + std::string(elementTypeName(type));
  std::replace(name.begin(), name.end(), '-', '_');
  const std::string scalar = shapeText(type, {});
  return computation(name, "  a = " + scalar + " parameter(0)\n  b = " + scalar + " parameter(1)\n  ROOT r = " + scalar +
                               " " + op + "(a, b)\n");
}

std::string Builder::comparator(const std::vector<ElementType>& types, const std::string& direction) {
  std::string name = "compare_" + direction;
  std::string body;
  for (size_t i = 0; i < types.size(); ++i) {
    const std::string scalar = shapeText(types[i], {});
    name += "_" + std::string(elementTypeName(types[i]));
    body += "  lhs" + std::to_string(i) + " = " + scalar + " parameter(" + std::to_string(2 * i) + ")\n";
    body += "  rhs" + std::to_string(i) + " = " + scalar + " parameter(" + std::to_string(2 * i + 1) + ")\n";
  }
  body += "  ROOT r = pred[] compare(lhs0, rhs0), direction=" + direction +
          (isFloat(types[0]) ? ", type=TOTALORDER" : "") + "\n";
  return computation(name, body);
}

std::string Builder::text(const std::string& moduleName) {
  std::vector<const Value*> results;
  for (const Value& v : values_)
    if (v.uses == 0 && v.terminal) results.push_back(&v);
  int open = 0;
  for (auto it = values_.rbegin(); it != values_.rend() && open < 4; ++it)
    if (it->uses == 0 && !it->terminal) results.push_back(&*it), ++open;
  if (results.size() > 8) results.resize(8);
  if (results.empty()) results.push_back(&values_.back());
  if (results.size() == 1) {  // the value itself, not a tuple of one
    const Value& v = *results[0];
    return "HloModule " + moduleName + "\n\n" + computations_ + "ENTRY main {\n" + body_ + "  ROOT out = " +
           shapeText(v.type, v.dims, v.dynamicDim) + " copy(" + v.name + ")\n}\n";
  }
  std::string types, names;
  for (const Value* v : results) {
    types += (types.empty() ? "" : ", ") + shapeText(v->type, v->dims, v->dynamicDim);
    names += (names.empty() ? "" : ", ") + v->name;
  }
  return "HloModule " + moduleName + "\n\n" + computations_ + "ENTRY main {\n" + body_ + "  ROOT out = (" + types +
         ") tuple(" + names + ")\n}\n";
}

}  // namespace hlo::conformance::fuzz
