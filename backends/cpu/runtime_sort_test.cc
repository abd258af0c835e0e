// Sorts whose comparator orders by one operand's keys (runtime_sort.cc's
// keyOrder: compared in key order, by a radix sort once a slice has 256
// elements), run through the CPU JIT on slices with repeated keys, NaN of
// both signs, both zeros and infinities. A position operand rides along, so
// the expected result is one permutation: std::stable_sort's with a
// comparator written here from the definitions (TOTALORDER: -NaN < -inf <
// ... < -0 < +0 < ... < inf < NaN; JAX's form: every NaN as NaN, -0 as +0).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hlo/element_type.h"
#include "hlo/float_formats.h"
#include "jit/executable.h"
#include "parser/parse_or_fail.h"

namespace hlo::cpu {
namespace {

enum class Form { kPlain, kJax };

// The element as a double (every type here holds in one exactly).
double valueOf(ElementType t, uint64_t bits) {
  switch (t) {
    case ElementType::kBF16: return decodeBf16ToF32(static_cast<uint16_t>(bits));
    case ElementType::kF32: return std::bit_cast<float>(static_cast<uint32_t>(bits));
    case ElementType::kF64: return std::bit_cast<double>(bits);
    case ElementType::kS8: return static_cast<int8_t>(bits);
    case ElementType::kS32: return static_cast<int32_t>(bits);
    case ElementType::kS64: return static_cast<double>(static_cast<int64_t>(bits));
    case ElementType::kU8: return static_cast<uint8_t>(bits);
    default: return static_cast<double>(bits);
  }
}

// a strictly before b in TOTALORDER (floats) or by value (integers).
bool before(ElementType t, Form form, uint64_t a, uint64_t b) {
  if (!isFloat(t)) {
    if (t == ElementType::kS64) return static_cast<int64_t>(a) < static_cast<int64_t>(b);
    if (t == ElementType::kU64) return a < b;
    return valueOf(t, a) < valueOf(t, b);
  }
  double x = valueOf(t, a), y = valueOf(t, b);
  bool xNegative = std::signbit(x), yNegative = std::signbit(y);
  if (form == Form::kJax) {
    if (std::isnan(x)) x = std::numeric_limits<double>::quiet_NaN(), xNegative = false;
    if (std::isnan(y)) y = std::numeric_limits<double>::quiet_NaN(), yNegative = false;
    if (x == 0) xNegative = false;
    if (y == 0) yNegative = false;
  }
  // Classes in order: -NaN, numbers (with -0 before +0), +NaN.
  auto cls = [](double v, bool negative) { return std::isnan(v) ? (negative ? 0 : 2) : 1; };
  int cx = cls(x, xNegative), cy = cls(y, yNegative);
  if (cx != cy) return cx < cy;
  if (cx != 1) return false;  // one NaN of each sign here
  if (x != y) return x < y;
  return xNegative && !yNegative;
}

// Keys with many repeats, from a palette that has the special values.
std::vector<uint64_t> keys(ElementType t, int64_t n, std::mt19937& rng) {
  std::vector<uint64_t> palette;
  auto add = [&](double v) {
    switch (t) {
      case ElementType::kBF16: palette.push_back(std::bit_cast<uint32_t>(static_cast<float>(v)) >> 16); break;
      case ElementType::kF32: palette.push_back(std::bit_cast<uint32_t>(static_cast<float>(v))); break;
      case ElementType::kF64: palette.push_back(std::bit_cast<uint64_t>(v)); break;
      default: break;
    }
  };
  if (isFloat(t)) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    for (double v : {nan, -nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3e5, -7e-3}) add(v);
  } else {
    int bits = bitWidth(t);
    uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, mask, mask >> 1, (mask >> 1) + 1, uint64_t{5}, mask - 6}) palette.push_back(v & mask);
    for (int i = 0; i < 20; ++i) palette.push_back(rng() & mask);
  }
  std::vector<uint64_t> out(n);
  for (uint64_t& k : out) k = palette[rng() % palette.size()];
  return out;
}

std::string comparatorText(const std::string& type, Form form, bool descending, bool swapped) {
  std::string text = "cmp {\n  x = " + type + "[] parameter(0)\n  y = " + type + "[] parameter(1)\n" +
                     "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n";
  std::string lhs = "x", rhs = "y";
  if (form == Form::kJax) {
    text += "  nan = " + type + "[] constant(nan)\n  zero = " + type + "[] constant(0)\n";
    for (const char* v : {"x", "y"}) {
      std::string s = v;
      text += "  " + s + ".ne = pred[] compare(" + s + ", " + s + "), direction=NE\n";
      text += "  " + s + ".eq = pred[] compare(" + s + ", zero), direction=EQ\n";
      text += "  " + s + ".z = " + type + "[] select(" + s + ".eq, zero, " + s + ")\n";
      text += "  " + s + ".k = " + type + "[] select(" + s + ".ne, nan, " + s + ".z)\n";
    }
    lhs = "x.k", rhs = "y.k";
  }
  if (swapped) std::swap(lhs, rhs);
  // Swapped parameters and GT each reverse the order.
  std::string direction = descending != swapped ? "GT" : "LT";
  text += "  ROOT lt = pred[] compare(" + lhs + ", " + rhs + "), direction=" + direction;
  if (isFloat(*parseElementType(type))) text += ", type=TOTALORDER";
  return text + "\n}\n";
}

void expectSorted(ElementType t, Form form, bool descending, bool swapped, int64_t rows, int64_t length,
                  std::mt19937& rng) {
  std::string type(elementTypeName(t));
  std::string dims = std::to_string(rows) + "," + std::to_string(length);
  std::string text = "HloModule m\n" + comparatorText(type, form, descending, swapped) + "ENTRY e {\n  k = " + type +
                     "[" + dims + "] parameter(0)\n  p = s32[" + dims + "] parameter(1)\n  ROOT s = (" + type + "[" +
                     dims + "], s32[" + dims + "]) sort(k, p), dimensions={1}, is_stable=true, to_apply=cmp\n}\n";
  auto module = parseOrFail(text);
  ASSERT_TRUE(module);
  jit::CompileOptions options;
  auto exe = jit::compile(*module, "cpu", options);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<uint64_t> k = keys(t, rows * length, rng);
  std::vector<Literal> args;
  args.emplace_back(Shape(t, {rows, length}));
  args.emplace_back(Shape(ElementType::kS32, {rows, length}));
  for (int64_t i = 0; i < rows * length; ++i) {
    args[0].setBitsAt(i, k[i]);
    args[1].setBitsAt(i, static_cast<uint32_t>(i % length));
  }
  StatusOr<Literal> result = (*exe)->run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Literal& positions = result->tupleElements()[1];
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> want(length);
    for (int64_t i = 0; i < length; ++i) want[i] = i;
    std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
      uint64_t x = k[r * length + a], y = k[r * length + b];
      return descending ? before(t, form, y, x) : before(t, form, x, y);
    });
    for (int64_t i = 0; i < length; ++i)
      ASSERT_EQ(static_cast<int64_t>(positions.bitsAt(r * length + i)), want[i])
          << type << (form == Form::kJax ? " jax" : "") << (descending ? " descending" : "")
          << (swapped ? " swapped" : "") << " row " << r << " position " << i;
  }
}

TEST(KeySort, MatchesAStableSortByTheDefinition) {
  std::mt19937 rng(7);
  for (ElementType t : {ElementType::kBF16, ElementType::kF32, ElementType::kF64})
    for (Form form : {Form::kPlain, Form::kJax})
      for (bool descending : {false, true}) {
        expectSorted(t, form, descending, false, 3, 1000, rng);  // radix sort
        expectSorted(t, form, descending, true, 2, 77, rng);     // std::sort
      }
  for (ElementType t : {ElementType::kS8, ElementType::kU8, ElementType::kS32, ElementType::kS64, ElementType::kU64})
    for (bool descending : {false, true}) {
      expectSorted(t, Form::kPlain, descending, false, 2, 700, rng);
      expectSorted(t, Form::kPlain, descending, true, 1, 100, rng);
    }
}

}  // namespace
}  // namespace hlo::cpu
