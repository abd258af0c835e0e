// Float encoding, decoding and text, all driven by one descriptor per float type.
#include "hlo/float_formats.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace hlo {
namespace {

// How a format spells NaN, which also decides whether it has infinities.
enum class NanStyle : uint8_t {
  kIeee,          // exponent all ones: mantissa 0 is +-inf, any other is NaN
  kAllOnes,       // "fn": only exponent and mantissa all ones is NaN; no inf
  kNegativeZero,  // "fnuz": only the pattern 1000...0 is NaN; no inf, no -0
  kNone,          // no NaN and no inf (f4e2m1fn)
};

struct FloatFormat {
  ElementType type;
  int exponentBits;
  int mantissaBits;
  int bias;
  bool isSigned;  // false: no sign bit (f8e8m0fnu)
  bool hasZero;   // false: exponent code 0 is an ordinary exponent (f8e8m0fnu)
  NanStyle nan;

  uint64_t signBit() const {
    return isSigned ? uint64_t{1} << (exponentBits + mantissaBits) : 0;
  }
  uint64_t magnitudeMask() const {
    return (uint64_t{1} << (exponentBits + mantissaBits)) - 1;
  }
  uint64_t mantissaMask() const { return (uint64_t{1} << mantissaBits) - 1; }
  uint64_t maxExponentCode() const { return (uint64_t{1} << exponentBits) - 1; }
  // The mantissa of the canonical quiet NaN (IEEE-style formats only).
  uint64_t quietBit() const { return uint64_t{1} << (mantissaBits - 1); }
  bool hasInfinity() const { return nan == NanStyle::kIeee; }
  bool hasNegativeZero() const { return isSigned && nan != NanStyle::kNegativeZero; }
  uint64_t infinityMagnitude() const { return maxExponentCode() << mantissaBits; }

  uint64_t maxFiniteMagnitude() const {
    switch (nan) {
      case NanStyle::kIeee: return infinityMagnitude() - 1;
      case NanStyle::kAllOnes: return magnitudeMask() - 1;
      case NanStyle::kNegativeZero: return magnitudeMask();
      case NanStyle::kNone: return magnitudeMask();
    }
    return 0;
  }

  bool isNan(uint64_t bits) const {
    uint64_t magnitude = bits & magnitudeMask();
    switch (nan) {
      case NanStyle::kIeee: return magnitude > infinityMagnitude();
      case NanStyle::kAllOnes: return magnitude == magnitudeMask();
      case NanStyle::kNegativeZero: return (bits & (signBit() | magnitudeMask())) == signBit();
      case NanStyle::kNone: return false;
    }
    return false;
  }
  bool isInfinity(uint64_t bits) const {
    return hasInfinity() && (bits & magnitudeMask()) == infinityMagnitude();
  }
  bool isNegative(uint64_t bits) const { return (bits & signBit()) != 0; }

  // The NaN that conversion produces (ml_dtypes' +-quiet_NaN()).
  uint64_t canonicalNan(bool negative) const {
    uint64_t sign = negative ? signBit() : 0;
    switch (nan) {
      case NanStyle::kIeee: return sign | infinityMagnitude() | quietBit();
      case NanStyle::kAllOnes: return sign | magnitudeMask();
      case NanStyle::kNegativeZero: return signBit();
      // No NaN: ml_dtypes' quiet_NaN() is the -0 pattern, and negating it
      // gives +0.
      case NanStyle::kNone: return negative ? 0 : signBit();
    }
    return 0;
  }

  // What a value beyond the largest finite one becomes.
  uint64_t overflow(bool negative) const {
    uint64_t sign = negative ? signBit() : 0;
    switch (nan) {
      case NanStyle::kIeee: return sign | infinityMagnitude();
      case NanStyle::kAllOnes:
      case NanStyle::kNegativeZero: return canonicalNan(negative);
      case NanStyle::kNone: return sign | maxFiniteMagnitude();
    }
    return 0;
  }

  uint64_t zero(bool negative) const {
    return negative && hasNegativeZero() ? signBit() : 0;
  }
};

// Facts from ml_dtypes (float8.h, mxfloat.h) and IEEE 754.
constexpr FloatFormat kFormats[] = {
    // type                        exp mant bias signed zero  NaN
    {ElementType::kF16,             5, 10,   15, true,  true,  NanStyle::kIeee},
    {ElementType::kBF16,            8,  7,  127, true,  true,  NanStyle::kIeee},
    {ElementType::kF32,             8, 23,  127, true,  true,  NanStyle::kIeee},
    {ElementType::kF64,            11, 52, 1023, true,  true,  NanStyle::kIeee},
    {ElementType::kF8E5M2,          5,  2,   15, true,  true,  NanStyle::kIeee},
    {ElementType::kF8E4M3,          4,  3,    7, true,  true,  NanStyle::kIeee},
    {ElementType::kF8E4M3FN,        4,  3,    7, true,  true,  NanStyle::kAllOnes},
    {ElementType::kF8E4M3B11FNUZ,   4,  3,   11, true,  true,  NanStyle::kNegativeZero},
    {ElementType::kF8E5M2FNUZ,      5,  2,   16, true,  true,  NanStyle::kNegativeZero},
    {ElementType::kF8E4M3FNUZ,      4,  3,    8, true,  true,  NanStyle::kNegativeZero},
    {ElementType::kF8E3M4,          3,  4,    3, true,  true,  NanStyle::kIeee},
    {ElementType::kF4E2M1FN,        2,  1,    1, true,  true,  NanStyle::kNone},
    {ElementType::kF8E8M0FNU,       8,  0,  127, false, false, NanStyle::kAllOnes},
    {ElementType::kF6E2M3FN,        2,  3,    1, true,  true,  NanStyle::kNone},
    {ElementType::kF6E3M2FN,        3,  2,    3, true,  true,  NanStyle::kNone},
};

const FloatFormat& formatOf(ElementType t) {
  for (const FloatFormat& f : kFormats)
    if (f.type == t) return f;
  assert(false && "not a float element type");
  return kFormats[0];
}

// value / 2^shift rounded to nearest, ties to even (shift >= 0).
uint64_t shiftRightRoundingToEven(uint64_t value, int shift) {
  if (shift == 0) return value;
  if (shift >= 64) return 0;  // value < 2^53, so the quotient is below 1/2
  uint64_t quotient = value >> shift;
  uint64_t remainder = value & ((uint64_t{1} << shift) - 1);
  uint64_t half = uint64_t{1} << (shift - 1);
  if (remainder > half || (remainder == half && (quotient & 1))) ++quotient;
  return quotient;
}

// The magnitude bits of finite a > 0 rounded into `f`; may exceed the largest
// finite magnitude, which the caller treats as overflow.
uint64_t roundMagnitude(const FloatFormat& f, double a) {
  int exponent;
  double fraction = std::frexp(a, &exponent);  // a = fraction * 2^exponent
  auto significand = static_cast<uint64_t>(std::ldexp(fraction, 53));  // exact
  int unbiased = exponent - 1;  // a is in [2^unbiased, 2^(unbiased+1))
  // Representable values near a are spaced 2^gridExponent apart; below the
  // normal range the spacing stays that of the smallest normals (subnormals).
  // f8e8m0fnu has no subnormals, but ml_dtypes rounds it the same way, and
  // then reads the 0 code as 2^-127.
  int gridExponent = std::max(unbiased, 1 - f.bias) - f.mantissaBits;
  uint64_t steps = shiftRightRoundingToEven(significand, gridExponent - (exponent - 53));
  // For a normal result `steps` carries the implicit leading one at bit
  // mantissaBits, so adding it to (biased exponent - 1) sets the exponent
  // field; a carry out of the mantissa while rounding moves into the exponent.
  int biasedExponent = std::max(unbiased + f.bias, 1);
  return (static_cast<uint64_t>(biasedExponent - 1) << f.mantissaBits) + steps;
}

uint64_t encode(const FloatFormat& f, double value) {
  bool negative = std::signbit(value);
  if (std::isnan(value)) return f.canonicalNan(negative);
  // f8e8m0fnu: no zero and no negatives; ml_dtypes gives NaN for them.
  if (!f.isSigned && (negative || value == 0)) return f.canonicalNan(false);
  if (std::isinf(value)) return f.overflow(negative);
  if (value == 0) return f.zero(negative);
  uint64_t magnitude = roundMagnitude(f, std::fabs(value));
  if (magnitude > f.maxFiniteMagnitude()) return f.overflow(negative);
  if (magnitude == 0) return f.zero(negative);  // fnuz: tiny negatives are +0
  return (negative ? f.signBit() : 0) | magnitude;
}

double decode(const FloatFormat& f, uint64_t bits) {
  bits &= f.signBit() | f.magnitudeMask();
  bool negative = f.isNegative(bits);
  if (f.isNan(bits)) {
    double nan = std::numeric_limits<double>::quiet_NaN();
    return negative ? -nan : nan;
  }
  double infinity = std::numeric_limits<double>::infinity();
  if (f.isInfinity(bits)) return negative ? -infinity : infinity;
  uint64_t magnitude = bits & f.magnitudeMask();
  auto exponent = static_cast<int>(magnitude >> f.mantissaBits);
  uint64_t mantissa = magnitude & f.mantissaMask();
  double value;
  if (exponent == 0 && f.hasZero)  // zero or subnormal: no implicit one
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissaBits);
  else
    value = std::ldexp(static_cast<double>((uint64_t{1} << f.mantissaBits) | mantissa),
                       exponent - f.bias - f.mantissaBits);
  return negative ? -value : value;
}

// --- Text -----------------------------------------------------------------

// NaN and infinity spellings; nullopt for a finite pattern.
std::optional<std::string> specialText(const FloatFormat& f, uint64_t bits) {
  std::string sign = f.isNegative(bits) ? "-" : "";
  if (f.isInfinity(bits)) return sign + "inf";
  if (!f.isNan(bits)) return std::nullopt;
  if (f.nan == NanStyle::kNegativeZero) return "nan";  // its one NaN has the sign bit
  if (f.nan != NanStyle::kIeee) return sign + "nan";
  uint64_t payload = bits & f.mantissaMask();
  if (payload == f.quietBit()) return sign + "nan";
  char hex[32];
  auto result = std::to_chars(hex, hex + sizeof(hex), payload, 16);
  return sign + "nan(0x" + std::string(hex, result.ptr) + ")";
}

template <typename T>
std::string shortestText(T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

// The fewest significant digits (as %.<p>g rounds them) that read back to
// `bits`. %.17g reads back to the exact double, which every value of these
// types is, so the loop always returns.
std::string fewestDigitsText(const FloatFormat& f, uint64_t bits) {
  double value = decode(f, bits);
  for (int precision = 1;; ++precision) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                std::chars_format::general, precision);
    std::string text(buffer, result.ptr);
    if (parseFloatBits(f.type, text) != bits) continue;
    // Same digits, written fixed or with an exponent, whichever is shorter
    // ("65500" rather than "6.55e+04"); any text naming this double reads
    // back to the same bits.
    return shortestText(std::strtod(text.c_str(), nullptr));
  }
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// True if `text` (sign already removed) is a decimal or C hex float:
//   digits ['.' digits] [('e'|'E') [sign] digits]    (some mantissa digit)
//   0x hexdigits ['.' hexdigits] [('p'|'P') [sign] digits]
// This keeps strtod from accepting more (spaces, "infinity", "nan(...)").
bool isNumberSyntax(std::string_view text) {
  size_t i = 0;
  bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (hex) i = 2;
  auto digitAt = [&](size_t k) {
    return k < text.size() && (hex ? isHexDigit(text[k]) : isDigit(text[k]));
  };
  size_t mantissaDigits = 0;
  for (; digitAt(i); ++i) ++mantissaDigits;
  if (i < text.size() && text[i] == '.')
    for (++i; digitAt(i); ++i) ++mantissaDigits;
  if (mantissaDigits == 0) return false;
  if (i == text.size()) return true;
  char marker = hex ? 'p' : 'e';
  if (text[i] != marker && text[i] != marker - 'a' + 'A') return false;
  ++i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  if (i == text.size()) return false;
  for (; i < text.size(); ++i)
    if (!isDigit(text[i])) return false;
  return true;
}

// "(0x<hex>)" after "nan": the payload, or nullopt if malformed.
std::optional<uint64_t> parsePayload(std::string_view text) {
  if (text.size() < 5 || text.substr(0, 3) != "(0x" || text.back() != ')') return std::nullopt;
  std::string_view digits = text.substr(3, text.size() - 4);
  uint64_t payload = 0;
  auto result = std::from_chars(digits.data(), digits.data() + digits.size(), payload, 16);
  if (result.ec != std::errc() || result.ptr != digits.data() + digits.size())
    return std::nullopt;
  return payload;
}

// The correctly rounded double for `body` (sign removed, syntax checked by
// isNumberSyntax). std::from_chars is several times faster than strtod;
// only out-of-range text, where from_chars gives no value, goes to strtod
// for IEEE's answer (infinity, or a value rounded towards zero).
double readDouble(std::string_view body, bool negative) {
  bool hex = body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
  const char* begin = body.data() + (hex ? 2 : 0);
  const char* end = body.data() + body.size();
  double value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value, hex ? std::chars_format::hex : std::chars_format::general);
  if (ec == std::errc() && ptr == end) return negative ? -value : value;
  std::string copy(body);  // strtod needs a terminated string
  value = std::strtod(copy.c_str(), nullptr);
  return negative ? -value : value;
}

}  // namespace

bool isSmallFloat(ElementType t) { return isFloat(t) && bitWidth(t) < 32; }

double decodeSmallFloat(ElementType t, uint32_t bits) {
  assert(bitWidth(t) <= 32);
  return decode(formatOf(t), bits);
}

uint32_t encodeSmallFloat(ElementType t, double value) {
  assert(bitWidth(t) <= 32);
  return static_cast<uint32_t>(encode(formatOf(t), value));
}

bool fitsInFloatType(ElementType t, double value) {
  if (!std::isfinite(value)) return true;
  const FloatFormat& f = formatOf(t);
  uint64_t bits = encode(f, value);
  return !f.isNan(bits) && !f.isInfinity(bits);
}

std::string formatFloatBits(ElementType t, uint64_t bits) {
  const FloatFormat& f = formatOf(t);
  bits &= f.signBit() | f.magnitudeMask();
  if (std::optional<std::string> special = specialText(f, bits)) return *special;
  if (t == ElementType::kF64) return shortestText(std::bit_cast<double>(bits));
  if (t == ElementType::kF32) {
    // Shortest for float almost always reads back through double as well;
    // the digit search below covers any case where double rounding bites.
    std::string text = shortestText(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    if (parseFloatBits(t, text) == bits) return text;
  }
  return fewestDigitsText(f, bits);
}

std::string formatFloat(double value, ElementType t) {
  if (t == ElementType::kF64) return formatFloatBits(t, std::bit_cast<uint64_t>(value));
  return formatFloatBits(t, encode(formatOf(t), value));
}

std::optional<uint64_t> parseFloatBits(ElementType t, std::string_view text) {
  if (!isFloat(t)) return std::nullopt;
  const FloatFormat& f = formatOf(t);
  std::string_view body = text;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "inf") {
    if (!f.hasInfinity()) return std::nullopt;
    return (negative ? f.signBit() : 0) | f.infinityMagnitude();
  }
  if (body.substr(0, 3) == "nan") {
    if (f.nan == NanStyle::kNone) return std::nullopt;
    if (body.size() == 3) return f.canonicalNan(negative);
    std::optional<uint64_t> payload = parsePayload(body.substr(3));
    if (!payload || f.nan != NanStyle::kIeee || *payload == 0 || *payload > f.mantissaMask())
      return std::nullopt;
    return (negative ? f.signBit() : 0) | f.infinityMagnitude() | *payload;
  }
  if (!isNumberSyntax(body)) return std::nullopt;
  double value = readDouble(body, negative);
  if (std::isinf(value) || !fitsInFloatType(t, value)) return std::nullopt;
  return encode(f, value);
}

}  // namespace hlo
