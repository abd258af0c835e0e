// .npy reading and writing (see npy.h for the format and what we accept; .npz is in npz.cc).
#include "hlo/npy.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

namespace hlo {
namespace {

using T = ElementType;

// Types NumPy lacks, under the names ml_dtypes gives them.
struct MlDtype {
  T type;
  std::string_view name;
};
constexpr std::array kMlDtypes = {
    MlDtype{T::kBF16, "bfloat16"},
    MlDtype{T::kF8E5M2, "float8_e5m2"},
    MlDtype{T::kF8E4M3, "float8_e4m3"},
    MlDtype{T::kF8E4M3FN, "float8_e4m3fn"},
    MlDtype{T::kF8E4M3B11FNUZ, "float8_e4m3b11fnuz"},
    MlDtype{T::kF8E5M2FNUZ, "float8_e5m2fnuz"},
    MlDtype{T::kF8E4M3FNUZ, "float8_e4m3fnuz"},
    MlDtype{T::kF8E3M4, "float8_e3m4"},
    MlDtype{T::kF8E8M0FNU, "float8_e8m0fnu"},
    MlDtype{T::kF4E2M1FN, "float4_e2m1fn"},
    MlDtype{T::kF6E2M3FN, "float6_e2m3fn"},
    MlDtype{T::kF6E3M2FN, "float6_e3m2fn"},
    MlDtype{T::kS4, "int4"},
    MlDtype{T::kU4, "uint4"},
    MlDtype{T::kS2, "int2"},
    MlDtype{T::kU2, "uint2"},
    MlDtype{T::kS1, "int1"},
    MlDtype{T::kU1, "uint1"},
};

uint16_t le16(const char* p) {
  return static_cast<uint16_t>(static_cast<uint8_t>(p[0]) | static_cast<uint8_t>(p[1]) << 8);
}
uint32_t le32(const char* p) { return le16(p) | static_cast<uint32_t>(le16(p + 2)) << 16; }
void put16(std::string& out, uint32_t v) {
  out += static_cast<char>(v & 0xff);
  out += static_cast<char>(v >> 8 & 0xff);
}
void put32(std::string& out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

// One element as stored in a Literal, from one element as stored in a file
// (little-endian, sub-byte types in the low bits of their byte).
void normalizeElement(T t, uint8_t* element) {
  int bits = bitWidth(t);
  if (t == T::kPred || bits >= 8) {
    if (t == T::kPred) *element = *element != 0;
    return;
  }
  // A sub-byte value in the low bits: signed ones sign-extended.
  if (isSigned(t)) *element = static_cast<uint8_t>(static_cast<int8_t>(*element << (8 - bits)) >> (8 - bits));
  else *element &= (1u << bits) - 1;
}

// The reverse: a Literal element as a file stores it.
uint8_t storedByte(T t, uint8_t element) {
  int bits = bitWidth(t);
  return t == T::kPred || bits >= 8 ? element : element & ((1u << bits) - 1);
}

struct Descr {
  T type = T::kU8;
  bool untyped = false;  // a raw void type
  bool swap = false;     // big-endian data
  int itemBytes = 1;
};

StatusOr<Descr> parseDescr(std::string_view text) {
  Descr d;
  std::string_view rest = text;
  if (!rest.empty() && std::string_view("<>|=").find(rest[0]) != std::string_view::npos) {
    d.swap = rest[0] == '>';
    rest.remove_prefix(1);
  }
  for (const MlDtype& m : kMlDtypes) {
    if (m.name == rest) {
      d.type = m.type;
      d.itemBytes = storageBytes(m.type);
      return d;
    }
  }
  std::string bad = "unsupported dtype '" + std::string(text) + "'";
  char kind = rest.empty() ? ' ' : rest[0];
  if (kind == 'O') return errorStatus(bad + ": object arrays (pickled Python objects) are not supported");
  if (kind == 'U' || kind == 'S') return errorStatus(bad + ": string arrays are not supported");
  if (kind == 'M' || kind == 'm') return errorStatus(bad + ": datetime arrays are not supported");
  if (rest.size() < 2) return errorStatus(bad);
  int size = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9' || size > 1000) return errorStatus(bad);
    size = size * 10 + (c - '0');
  }
  d.itemBytes = size;
  auto pick = [&](std::initializer_list<std::pair<int, T>> bySize) -> StatusOr<Descr> {
    for (auto [bytes, type] : bySize) {
      if (bytes == size) {
        d.type = type;
        return d;
      }
    }
    return errorStatus(bad);
  };
  switch (kind) {
    case 'b': return pick({{1, T::kPred}});
    case 'i': return pick({{1, T::kS8}, {2, T::kS16}, {4, T::kS32}, {8, T::kS64}});
    case 'u': return pick({{1, T::kU8}, {2, T::kU16}, {4, T::kU32}, {8, T::kU64}});
    // '<f1' is how numpy.save records ml_dtypes' float8_e5m2.
    case 'f': return pick({{1, T::kF8E5M2}, {2, T::kF16}, {4, T::kF32}, {8, T::kF64}});
    case 'c': return pick({{8, T::kC64}, {16, T::kC128}});
    case 'V':
      d.untyped = true;
      d.swap = false;  // raw bytes have no byte order
      return pick({{1, T::kU8}, {2, T::kU16}, {4, T::kU32}, {8, T::kU64}});
    default: return errorStatus(bad);
  }
}

// The header's Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderReader {
 public:
  explicit HeaderReader(std::string_view s) : s_(s) {}

  Status read(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    if (!eat('{')) return fail("expected '{'");
    bool seen[3] = {false, false, false};
    while (!eat('}')) {
      std::optional<std::string> key = str();
      if (!key) return fail("expected a quoted key");
      if (!eat(':')) return fail("expected ':' after '" + *key + "'");
      if (*key == "descr") {
        skip();
        if (p_ < s_.size() && s_[p_] == '[')
          return errorStatus("structured dtypes (a list as descr) are not supported");
        std::optional<std::string> d = str();
        if (!d) return fail("expected a string for 'descr'");
        descr = *d;
        seen[0] = true;
      } else if (*key == "fortran_order") {
        if (eatWord("True")) fortran = true;
        else if (eatWord("False")) fortran = false;
        else return fail("expected True or False for 'fortran_order'");
        seen[1] = true;
      } else if (*key == "shape") {
        if (!tuple(shape)) return fail("expected a tuple of sizes for 'shape'");
        seen[2] = true;
      } else {
        return fail("unexpected key '" + *key + "'");
      }
      if (!eat(',')) {
        if (!eat('}')) return fail("expected ',' or '}'");
        break;
      }
    }
    if (!seen[0] || !seen[1] || !seen[2])
      return errorStatus("bad .npy header: it needs the keys 'descr', 'fortran_order' and 'shape'");
    return okStatus();
  }

 private:
  Status fail(const std::string& what) const {
    return errorStatus("bad .npy header at byte " + std::to_string(p_) + ": " + what);
  }
  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r'))
      ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool eatWord(std::string_view w) {
    skip();
    if (s_.substr(p_, w.size()) != w) return false;
    p_ += w.size();
    return true;
  }
  std::optional<std::string> str() {
    skip();
    if (p_ >= s_.size() || (s_[p_] != '\'' && s_[p_] != '"')) return std::nullopt;
    char quote = s_[p_];
    size_t end = s_.find(quote, p_ + 1);
    if (end == std::string_view::npos) return std::nullopt;
    std::string out(s_.substr(p_ + 1, end - p_ - 1));
    p_ = end + 1;
    return out;
  }
  bool tuple(std::vector<int64_t>& dims) {
    dims.clear();
    if (!eat('(')) return false;
    while (!eat(')')) {
      skip();
      int64_t v = 0;
      size_t start = p_;
      while (p_ < s_.size() && s_[p_] >= '0' && s_[p_] <= '9') {
        if (v > (int64_t{1} << 58)) return false;
        v = v * 10 + (s_[p_++] - '0');
      }
      if (p_ == start) return false;
      if (p_ < s_.size() && s_[p_] == 'L') ++p_;  // Python 2 long
      dims.push_back(v);
      if (!eat(',')) {
        if (!eat(')')) return false;
        break;
      }
    }
    return true;
  }

  std::string_view s_;
  size_t p_ = 0;
};

constexpr std::string_view kNpyMagic = "\x93NUMPY";

std::string shapeRepr(const std::vector<int64_t>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(dims[i]);
  }
  if (dims.size() == 1) out += ',';
  return out + ")";
}

}  // namespace

std::string npyDescr(ElementType t) {
  for (const MlDtype& m : kMlDtypes)
    if (m.type == t) return std::string(m.name);
  int bytes = storageBytes(t);
  std::string order = bytes == 1 ? "|" : "<";
  switch (typeKind(t)) {
    case TypeKind::kPred: return "|b1";
    case TypeKind::kSigned: return order + "i" + std::to_string(bytes);
    case TypeKind::kUnsigned: return order + "u" + std::to_string(bytes);
    case TypeKind::kFloat: return order + "f" + std::to_string(bytes);
    case TypeKind::kComplex: return order + "c" + std::to_string(bytes);
    case TypeKind::kToken:
    case TypeKind::kTuple:
    case TypeKind::kOpaque:
    case TypeKind::kBuffer:
      break;
  }
  return "";
}

bool looksLikeNpy(std::string_view bytes) { return bytes.substr(0, 6) == kNpyMagic; }

StatusOr<NpyArray> readNpy(std::string_view bytes) {
  if (!looksLikeNpy(bytes)) return errorStatus("not an .npy file (no \\x93NUMPY magic)");
  if (bytes.size() < 10) return errorStatus("truncated .npy header");
  int major = static_cast<uint8_t>(bytes[6]);
  size_t headerStart, headerLen;
  if (major == 1) {
    headerStart = 10;
    headerLen = le16(bytes.data() + 8);
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return errorStatus("truncated .npy header");
    headerStart = 12;
    headerLen = le32(bytes.data() + 8);
  } else {
    return errorStatus("unsupported .npy format version " + std::to_string(major) + "." +
                       std::to_string(static_cast<uint8_t>(bytes[7])));
  }
  if (headerStart + headerLen > bytes.size()) return errorStatus("truncated .npy header");
  std::string descrText;
  bool fortran = false;
  std::vector<int64_t> dims;
  HLO_RETURN_IF_ERROR(
      HeaderReader(bytes.substr(headerStart, headerLen)).read(descrText, fortran, dims));
  HLO_ASSIGN_OR_RETURN(Descr descr, parseDescr(descrText));
  std::string_view data = bytes.substr(headerStart + headerLen);
  uint64_t count = 1;
  for (int64_t d : dims) {
    if (d != 0 && count > (uint64_t{1} << 56) / static_cast<uint64_t>(d))
      return errorStatus("shape " + shapeRepr(dims) + " is too large");
    count *= static_cast<uint64_t>(d);
  }
  uint64_t need = count * descr.itemBytes;
  if (data.size() < need)
    return errorStatus("truncated .npy data: shape " + shapeRepr(dims) + " of '" + descrText +
                       "' needs " + std::to_string(need) + " bytes, the file has " +
                       std::to_string(data.size()));
  NpyArray out;
  out.untyped = descr.untyped;
  out.value = Literal(Shape(descr.type, dims));
  // Row-major element i comes from file element `src` (different in Fortran order).
  int rank = static_cast<int>(dims.size());
  std::vector<int64_t> index(rank, 0), fortranStride(rank, 1);
  for (int d = 1; d < rank; ++d) fortranStride[d] = fortranStride[d - 1] * dims[d - 1];
  int n = descr.itemBytes;
  int part = isComplex(descr.type) ? n / 2 : n;  // byte swapping is per component
  uint8_t* dst = out.value.untypedData();
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t src = i;
    if (fortran && rank > 1) {
      src = 0;
      for (int d = 0; d < rank; ++d) src += index[d] * fortranStride[d];
      for (int d = rank - 1; d >= 0; --d) {
        if (++index[d] < dims[d]) break;
        index[d] = 0;
      }
    }
    uint8_t* element = dst + i * n;
    std::memcpy(element, data.data() + src * n, n);
    if (descr.swap)
      for (int p = 0; p < n; p += part) std::reverse(element + p, element + p + part);
    if (!descr.untyped && n == 1) normalizeElement(descr.type, element);
  }
  return out;
}

Status retypeRaw(NpyArray& array, ElementType t) {
  if (!array.untyped) return okStatus();
  int have = storageBytes(array.value.type());
  if (!isArrayType(t) || storageBytes(t) != have)
    return errorStatus("raw '|V" + std::to_string(have) + "' elements (" + std::to_string(have) +
                       " bytes each) cannot hold " + std::string(elementTypeName(t)));
  array.value.mutableShape().setType(t);
  if (have == 1) {
    uint8_t* p = array.value.untypedData();
    for (int64_t i = 0; i < array.value.elementCount(); ++i) normalizeElement(t, p + i);
  }
  array.untyped = false;
  return okStatus();
}

StatusOr<std::string> writeNpy(const Literal& array) {
  // An array with runtime sizes is written as its value (the runtime shape).
  if (array.hasPadding()) return writeNpy(array.compact());
  const Shape& shape = array.shape();
  if (!shape.isArray())
    return errorStatus("only arrays can be written to .npy, not " + shape.toString(false));
  if (array.elided()) return errorStatus("the array's values are not known ({...})");
  std::string dict = "{'descr': '" + npyDescr(shape.type()) +
                     "', 'fortran_order': False, 'shape': " + shapeRepr(shape.dims()) + ", }";
  // numpy leaves room for the first dimension to grow to 21 digits in place.
  if (shape.rank() > 0) dict.append(21 - std::to_string(shape.dim(0)).size(), ' ');
  // Magic, version, length, dict, padding and '\n' fill a multiple of 64 bytes;
  // numpy pads a full 64 when it is already aligned.
  std::string out(kNpyMagic);
  size_t lengthBytes = 2;
  size_t pad = 64 - (kNpyMagic.size() + 2 + lengthBytes + dict.size() + 1) % 64;
  if (dict.size() + 1 + pad > 0xffff) {
    lengthBytes = 4;
    pad = 64 - (kNpyMagic.size() + 2 + lengthBytes + dict.size() + 1) % 64;
    out += '\x02';
    out += '\0';
    put32(out, static_cast<uint32_t>(dict.size() + 1 + pad));
  } else {
    out += '\x01';
    out += '\0';
    put16(out, static_cast<uint32_t>(dict.size() + 1 + pad));
  }
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  size_t start = out.size();
  out.append(reinterpret_cast<const char*>(array.untypedData()), array.byteSize());
  if (storageBytes(shape.type()) == 1)
    for (size_t i = start; i < out.size(); ++i)
      out[i] = static_cast<char>(storedByte(shape.type(), static_cast<uint8_t>(out[i])));
  return out;
}

}  // namespace hlo
