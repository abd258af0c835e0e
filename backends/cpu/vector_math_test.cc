// The C library's math functions in loops long enough to be vectorized
// (vector_math.h: with glibc's libmvec the loop vectorizer calls its vector
// forms, 16 f32 or 8 f64 lanes a call on AVX-512), each against the C++
// standard library's double-precision function on the same inputs: ordinary
// values across the function's domain and, in the middle of the vector
// loop, NaN, infinities, signed zeros, a subnormal and a value outside the
// domain. A result must be within 4 units in the last place of the
// correctly rounded value (glibc's bound for libmvec), NaN where that is,
// and exactly the infinity or the signed zero where that is one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/vector_math.h"
#include "hlo/literal.h"
#include "jit/executable.h"
#include "parser/parse_or_fail.h"

namespace hlo::cpu {
namespace {

struct MathCase {
  const char* opcode;
  double (*reference)(double);
  double lo, hi;    // ordinary inputs spread over [lo, hi]
  double outside;   // an input outside the domain (NaN result), or 0 for none
};

const MathCase kCases[] = {
    {"tanh", [](double x) { return std::tanh(x); }, -12, 12, 0},
    {"erf", [](double x) { return std::erf(x); }, -5, 5, 0},
    {"log-plus-one", [](double x) { return std::log1p(x); }, -0.99, 50, -2},
    {"exponential-minus-one", [](double x) { return std::expm1(x); }, -20, 20, 0},
    {"log", [](double x) { return std::log(x); }, 1e-3, 1e4, -1},
    {"sine", [](double x) { return std::sin(x); }, -10, 10, 0},
    {"cosine", [](double x) { return std::cos(x); }, -10, 10, 0},
    {"tan", [](double x) { return std::tan(x); }, -1.5, 1.5, 0},
    {"atan", [](double x) { return std::atan(x); }, -100, 100, 0},
    {"asin", [](double x) { return std::asin(x); }, -1, 1, 2},
    {"acos", [](double x) { return std::acos(x); }, -1, 1, -2},
    {"sinh", [](double x) { return std::sinh(x); }, -20, 20, 0},
    {"cosh", [](double x) { return std::cosh(x); }, -20, 20, 0},
    {"asinh", [](double x) { return std::asinh(x); }, -100, 100, 0},
    {"acosh", [](double x) { return std::acosh(x); }, 1, 100, 0.5},
    {"atanh", [](double x) { return std::atanh(x); }, -0.999, 0.999, 3},
    {"cbrt", [](double x) { return std::cbrt(x); }, -1000, 1000, 0},
};

constexpr int kCount = 101;  // 6 vectors of 16 and a remainder of 5

// The inputs: ordinary values, with the special ones at positions inside
// the vector loop.
std::vector<double> inputsFor(const MathCase& c) {
  std::vector<double> x(kCount);
  for (int i = 0; i < kCount; ++i) x[i] = c.lo + (c.hi - c.lo) * i / (kCount - 1);
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {std::numeric_limits<double>::quiet_NaN(), inf, -inf, 0.0, -0.0, 1e-40,
                             c.outside != 0 ? c.outside : 0.5};
  int at = 7;
  for (double s : specials) x[at] = s, at += 11;
  return x;
}

// Distance in units in the last place between two finite values of T.
template <typename T>
int64_t ulps(T a, T b) {
  using Bits = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;
  auto ordered = [](T v) {
    Bits i;
    std::memcpy(&i, &v, sizeof i);
    return i < 0 ? -static_cast<int64_t>(i & std::numeric_limits<Bits>::max()) : static_cast<int64_t>(i);
  };
  return std::llabs(ordered(a) - ordered(b));
}

template <typename T>
void expectFunction(const MathCase& c, const char* type) {
  std::string text = std::string("HloModule m\nENTRY e {\n  x = ") + type + "[" + std::to_string(kCount) +
                     "] parameter(0)\n  ROOT r = " + type + "[" + std::to_string(kCount) + "] " + c.opcode +
                     "(x)\n}\n";
  auto module = parseOrFail(text);
  auto exe = jit::compile(*module);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<double> x = inputsFor(c);
  Literal in(module->entry()->parameter(0)->shape());
  for (int i = 0; i < kCount; ++i) in.data<T>()[i] = static_cast<T>(x[i]);
  std::vector<Literal> args;
  args.push_back(std::move(in));
  auto result = (*exe)->run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  for (int i = 0; i < kCount; ++i) {
    const T input = args[0].data<T>()[i];
    const T want = static_cast<T>(c.reference(static_cast<double>(input)));
    const T got = result->data<T>()[i];
    const std::string where = std::string(c.opcode) + "(" + type + " " + std::to_string(input) + ")";
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << where << " = " << got << ", expected NaN";
    } else if (std::isinf(want) || want == 0) {
      EXPECT_TRUE(got == want && std::signbit(got) == std::signbit(want)) << where << " = " << got << ", expected " << want;
    } else {
      EXPECT_TRUE(std::isfinite(got) && ulps(got, want) <= 4) << where << " = " << got << ", expected " << want;
    }
  }
}

TEST(LibraryMath, F32InVectorLoops) {
  for (const MathCase& c : kCases) expectFunction<float>(c, "f32");
}

TEST(LibraryMath, F64InVectorLoops) {
  for (const MathCase& c : kCases) expectFunction<double>(c, "f64");
}

// f32 exp is computed inline (jit/elemental_scalar.cc, emitExpF32; on
// AVX-512 its vector form ends in vscalefps): within 1.06 ulp of the exact
// value at every f32 in [-104, 88.7] (checked exhaustively when it was
// written). Here every 509th bit pattern of that range, both signs, in
// fractions of an ulp of the exact value (2^-149 for subnormal results).
// The AVX-512 forms ('e') only where the host has AVX-512, the AVX2 forms
// ('d') only with AVX2: libmvec defines them all on every machine.
TEST(LibraryMath, VariantsOnlyOfTheHostsInstructionSets) {
  auto everySymbol = [](const std::string&) { return true; };
  auto names = [](const std::vector<LibraryVariant>& variants) {
    std::vector<std::string> out;
    for (const LibraryVariant& v : variants) out.push_back(v.vector);
    return out;
  };
  auto avx2 = names(libmvecVariants(everySymbol, [](const std::string& f) { return f == "avx2"; }));
  auto avx512 = names(libmvecVariants(everySymbol, [](const std::string&) { return true; }));
  auto sse = names(libmvecVariants(everySymbol, [](const std::string&) { return false; }));
  auto has = [](const std::vector<std::string>& v, const std::string& name) {
    return std::find(v.begin(), v.end(), name) != v.end();
  };
  // tanh is not in LLVM's own table: every instruction set's form is ours.
  EXPECT_TRUE(has(avx512, "_ZGVeN16v_tanhf") && has(avx512, "_ZGVdN8v_tanhf") && has(avx512, "_ZGVbN4v_tanhf"));
  EXPECT_TRUE(!has(avx2, "_ZGVeN16v_tanhf") && has(avx2, "_ZGVdN8v_tanhf") && has(avx2, "_ZGVdN4v_tanh"));
  EXPECT_TRUE(!has(sse, "_ZGVdN8v_tanhf") && has(sse, "_ZGVbN4v_tanhf") && has(sse, "_ZGVbN2v_tanh"));
  for (const std::string& name : avx2) EXPECT_NE(name.rfind("_ZGVe", 0), 0u) << name;
  // exp is in LLVM's table but for AVX-512: only its 'e' forms are added.
  EXPECT_TRUE(has(avx512, "_ZGVeN16v_expf") && !has(avx512, "_ZGVdN8v_expf"));
  EXPECT_FALSE(has(avx2, "_ZGVeN16v_expf"));
}

TEST(InlineMath, ExpF32WithinATenthOverOneUlp) {
  std::vector<float> x;
  for (uint32_t bits = 0;; bits += 509) {
    float v;
    std::memcpy(&v, &bits, sizeof v);
    if (!(v <= 104.0f)) break;
    if (v <= 88.7f) x.push_back(v);
    x.push_back(-v);
  }
  const std::string shape = "f32[" + std::to_string(x.size()) + "]";
  auto module = parseOrFail("HloModule m\nENTRY e {\n  x = " + shape + " parameter(0)\n  ROOT r = " + shape +
                            " exponential(x)\n}\n");
  auto exe = jit::compile(*module);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Literal in(module->entry()->parameter(0)->shape());
  std::memcpy(in.data<float>(), x.data(), x.size() * sizeof(float));
  std::vector<Literal> args;
  args.push_back(std::move(in));
  auto result = (*exe)->run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  double worst = 0;
  float worstAt = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double exact = std::exp(static_cast<double>(x[i]));
    int exponent;
    std::frexp(exact, &exponent);
    const double ulp = std::ldexp(1.0, std::max(exponent - 24, -149));
    const double error = std::fabs(result->data<float>()[i] - exact) / ulp;
    if (error > worst) worst = error, worstAt = x[i];
  }
  EXPECT_LE(worst, 1.1) << "exp(" << worstAt << ") is " << worst << " ulp off";
  EXPECT_GT(x.size(), size_t{4} << 20);
}

}  // namespace
}  // namespace hlo::cpu
