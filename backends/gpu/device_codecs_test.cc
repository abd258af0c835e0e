// The host runtime's bit-level helpers the GPU's kernels carry as IR
// (jit/elemental_codecs.cc), run on the host grid runner and held bit for
// bit to the definitions the interpreter applies:
//   - the f8, f6 and f4 codecs to hlo/float_formats.h's encodeSmallFloat and
//     decodeSmallFloat: every representable value, its neighbours, every
//     midpoint between two values and its neighbours, zeros, infinities,
//     NaNs and values far out of range, from f64 and from f32;
//   - reduce-precision to hlo/reduce_precision.h's reducePrecisionOf: every
//     bit pattern of the narrow types, and bit patterns spread over f32 and
//     f64, for several exponent and mantissa widths;
//   - stochastic-convert to hlo/stochastic_round.h's stochasticRound:
//     values around every integer, halves, saturation, NaN and infinities
//     against random bits below, at and above each threshold.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "backends/cpu/cpu_options.h"
#include "hlo/float_formats.h"
#include "hlo/reduce_precision.h"
#include "hlo/stochastic_round.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace hlo::gpu {
namespace {

std::vector<double> probes(ElementType t) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> finite;
  for (uint32_t code = 0; code < (1u << bitWidth(t)); ++code)
    if (double v = decodeSmallFloat(t, code); std::isfinite(v)) finite.push_back(v);
  std::sort(finite.begin(), finite.end());
  std::vector<double> out = {0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(),
                             -std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min(),
                             -std::numeric_limits<double>::denorm_min(), 1e300, -1e300};
  auto around = [&](double v) {
    out.push_back(v);
    out.push_back(std::nextafter(v, inf));
    out.push_back(std::nextafter(v, -inf));
  };
  for (size_t i = 0; i < finite.size(); ++i) {
    around(finite[i]);
    if (i + 1 < finite.size()) around(finite[i] / 2 + finite[i + 1] / 2);
    around(finite[i] * 1.5);
    around(finite[i] * 4);
  }
  return out;
}

// convert(x) to t and back to f32, compiled for gpu-host.
void checkCodec(ElementType t, ElementType from) {
  std::vector<double> xs = probes(t);
  std::string n = std::to_string(xs.size()), name = std::string(elementTypeName(t)),
              src = std::string(elementTypeName(from));
  auto module = parseModule("HloModule codec\nENTRY e (x: " + src + "[" + n + "]) -> (" + name + "[" + n + "], f32[" +
                            n + "]) {\n  x = " + src + "[" + n + "] parameter(0)\n  c = " + name + "[" + n +
                            "] convert(x)\n  d = f32[" + n + "] convert(c)\n  ROOT t = (" + name + "[" + n + "], f32[" +
                            n + "]) tuple(c, d)\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto exe = jit::compile(**module, "gpu-host", cpu::withCpuOptions({}, cpu::cpuThreads(1)));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Literal x(Shape(from, {static_cast<int64_t>(xs.size())}));
  for (size_t i = 0; i < xs.size(); ++i) {
    if (from == ElementType::kF64) x.data<double>()[i] = xs[i];
    else x.data<float>()[i] = static_cast<float>(xs[i]);
  }
  std::vector<Literal> args;
  args.push_back(std::move(x));
  auto result = (*exe)->run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const Literal& codes = result->tupleElements()[0];
  const Literal& decoded = result->tupleElements()[1];
  int mismatches = 0;
  for (size_t i = 0; i < xs.size() && mismatches < 5; ++i) {
    double in = from == ElementType::kF64 ? xs[i] : static_cast<double>(static_cast<float>(xs[i]));
    uint32_t expected = encodeSmallFloat(t, in);
    uint32_t got = static_cast<uint32_t>(codes.bitsAt(static_cast<int64_t>(i)));
    float back = decoded.data<float>()[i];
    float want = static_cast<float>(decodeSmallFloat(t, expected));
    bool same = got == expected && (std::bit_cast<uint32_t>(back) == std::bit_cast<uint32_t>(want) ||
                                    (std::isnan(back) && std::isnan(want)));
    if (!same) {
      ++mismatches;
      ADD_FAILURE() << name << " from " << src << ": " << in << " encodes to " << got << ", expected " << expected
                    << "; decodes to " << back << ", expected " << want;
    }
  }
}

class DeviceCodecs : public ::testing::TestWithParam<ElementType> {};

TEST_P(DeviceCodecs, FromF64) { checkCodec(GetParam(), ElementType::kF64); }
TEST_P(DeviceCodecs, FromF32) { checkCodec(GetParam(), ElementType::kF32); }

INSTANTIATE_TEST_SUITE_P(EveryEncodedFloat, DeviceCodecs,
                         ::testing::Values(ElementType::kF8E5M2, ElementType::kF8E4M3, ElementType::kF8E4M3FN,
                                           ElementType::kF8E4M3B11FNUZ, ElementType::kF8E5M2FNUZ,
                                           ElementType::kF8E4M3FNUZ, ElementType::kF8E3M4, ElementType::kF4E2M1FN,
                                           ElementType::kF8E8M0FNU, ElementType::kF6E2M3FN, ElementType::kF6E3M2FN),
                         [](const auto& info) { return std::string(elementTypeName(info.param)); });

// reduce-precision(x) of type t with widths e and m, compiled for gpu-host.
void checkReducePrecision(ElementType t, int e, int m) {
  std::vector<uint64_t> patterns;
  int width = bitWidth(t);
  if (width <= 16) {
    for (uint64_t p = 0; p < (uint64_t{1} << width); ++p) patterns.push_back(p);
  } else {
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 20000; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      patterns.push_back(width == 64 ? state : state >> 32);
    }
    for (uint64_t special : {0x7f800000ull, 0xff800000ull, 0x7fc00000ull, 0x00000001ull, 0x7f7fffffull})
      patterns.push_back(width == 64 ? std::bit_cast<uint64_t>(static_cast<double>(std::bit_cast<float>(
                                           static_cast<uint32_t>(special))))
                                     : special);
  }
  std::string n = std::to_string(patterns.size()), name = std::string(elementTypeName(t));
  auto module = parseModule("HloModule rp\nENTRY e (x: " + name + "[" + n + "]) -> " + name + "[" + n + "] {\n  x = " +
                            name + "[" + n + "] parameter(0)\n  ROOT r = " + name + "[" + n +
                            "] reduce-precision(x), exponent_bits=" + std::to_string(e) +
                            ", mantissa_bits=" + std::to_string(m) + "\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto exe = jit::compile(**module, "gpu-host", cpu::withCpuOptions({}, cpu::cpuThreads(1)));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Literal x(Shape(t, {static_cast<int64_t>(patterns.size())}));
  for (size_t i = 0; i < patterns.size(); ++i) x.setBitsAt(static_cast<int64_t>(i), patterns[i]);
  std::vector<Literal> args;
  args.push_back(std::move(x));
  auto result = (*exe)->run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  int mismatches = 0;
  for (size_t i = 0; i < patterns.size() && mismatches < 5; ++i) {
    uint64_t expected = reducePrecisionOf(t, patterns[i], e, m);
    uint64_t got = result->bitsAt(static_cast<int64_t>(i));
    if (got != expected) {
      ++mismatches;
      ADD_FAILURE() << name << " reduce-precision e=" << e << " m=" << m << " of bits 0x" << std::hex << patterns[i]
                    << ": 0x" << got << ", expected 0x" << expected;
    }
  }
}

TEST(DeviceReducePrecision, IeeeTypesOnTheirBits) {
  for (auto [e, m] : {std::pair{5, 10}, {8, 7}, {4, 3}, {2, 1}, {8, 0}})
    for (ElementType t : {ElementType::kF32, ElementType::kF16, ElementType::kBF16, ElementType::kF64,
                          ElementType::kF8E5M2, ElementType::kF8E4M3})
      checkReducePrecision(t, e, m);
  checkReducePrecision(ElementType::kF64, 11, 52);
  checkReducePrecision(ElementType::kF64, 8, 23);
}

TEST(DeviceReducePrecision, OtherTypesThroughF32) {
  for (auto [e, m] : {std::pair{5, 10}, {4, 3}, {2, 1}, {3, 0}})
    for (ElementType t : {ElementType::kF8E4M3FN, ElementType::kF8E4M3FNUZ, ElementType::kF8E5M2FNUZ,
                          ElementType::kF8E8M0FNU, ElementType::kF4E2M1FN, ElementType::kF6E3M2FN})
      checkReducePrecision(t, e, m);
}

// stochastic-convert of `from` values with `bits` random bits into `to`.
void checkStochasticConvert(ElementType from, ElementType bits, ElementType to) {
  std::vector<double> xs;
  std::vector<uint64_t> randoms;
  const int randomBits = bitWidth(bits);
  const uint64_t top = randomBits >= 64 ? ~uint64_t{0} : (uint64_t{1} << randomBits) - 1;
  for (double v : {0.0, -0.0, 0.25, -0.25, 0.5, -0.5, 0.75, 1.0, 1.5, -1.5, 2.125, -2.875, 100.3, -100.7, 126.9, 127.0,
                   127.5, -128.0, -128.5, 1e6, -1e6, 2147483647.0, 3e9, -3e9, 1e300,
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN()})
    for (uint64_t r : {uint64_t{0}, uint64_t{1}, top / 4, top / 2, top / 2 + 1, top - 1, top}) {
      xs.push_back(v);
      randoms.push_back(r);
    }
  std::string n = std::to_string(xs.size()), f = std::string(elementTypeName(from)),
              r = std::string(elementTypeName(bits)), t = std::string(elementTypeName(to));
  auto module = parseModule("HloModule sc\nENTRY e (x: " + f + "[" + n + "], r: " + r + "[" + n + "]) -> " + t + "[" +
                            n + "] {\n  x = " + f + "[" + n + "] parameter(0)\n  r = " + r + "[" + n +
                            "] parameter(1)\n  ROOT s = " + t + "[" + n + "] stochastic-convert(x, r)\n}\n");
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto exe = jit::compile(**module, "gpu-host", cpu::withCpuOptions({}, cpu::cpuThreads(1)));
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  Literal x(Shape(from, {static_cast<int64_t>(xs.size())})), rs(Shape(bits, {static_cast<int64_t>(xs.size())}));
  for (size_t i = 0; i < xs.size(); ++i) {
    if (from == ElementType::kF64) x.data<double>()[i] = xs[i];
    else x.data<float>()[i] = static_cast<float>(xs[i]);
    rs.setBitsAt(static_cast<int64_t>(i), randoms[i]);
  }
  std::vector<Literal> args;
  args.push_back(std::move(x));
  args.push_back(std::move(rs));
  auto result = (*exe)->run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const int width = bitWidth(to);
  for (size_t i = 0; i < xs.size(); ++i) {
    double in = from == ElementType::kF64 ? xs[i] : static_cast<double>(static_cast<float>(xs[i]));
    int64_t expected = stochasticRound(in, randoms[i], randomBits, width);
    uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    EXPECT_EQ(result->bitsAt(static_cast<int64_t>(i)) & mask, static_cast<uint64_t>(expected) & mask)
        << f << " " << in << " with random " << randoms[i] << " into " << t;
  }
}

TEST(DeviceStochasticConvert, MatchesTheDefinition) {
  checkStochasticConvert(ElementType::kF32, ElementType::kU32, ElementType::kS32);
  checkStochasticConvert(ElementType::kF32, ElementType::kU32, ElementType::kS8);
  checkStochasticConvert(ElementType::kF64, ElementType::kU64, ElementType::kS64);
  checkStochasticConvert(ElementType::kF64, ElementType::kU64, ElementType::kS16);
}

}  // namespace
}  // namespace hlo::gpu
