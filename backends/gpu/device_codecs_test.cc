// The f8, f6 and f4 codecs the GPU's kernels carry as IR
// (jit/elemental_codecs.cc), run on the host grid runner and held to
// hlo/float_formats.h's encodeSmallFloat and decodeSmallFloat bit for bit:
// every representable value, its neighbours, every midpoint between two
// values and its neighbours, zeros, infinities, NaNs and values far out of
// range, from f64 and from f32.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "backends/cpu/cpu_options.h"
#include "hlo/float_formats.h"
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

}  // namespace
}  // namespace hlo::gpu
