// The run conversions against hlo/float_formats.h's decode and encode
// functions, which float_formats_test checks against the formats' rules:
// every bf16 and f16 pattern widened, and f32 patterns narrowed across
// every exponent with mantissas at and around bf16's rounding ties (and
// f16's, whose ties fall 13 bits down), NaNs of both signs and payloads,
// infinities and the overflow to inf. Runs have lengths that leave a
// ragged tail past the vector lanes.
#include "backends/cpu/half_runs.h"

#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "hlo/float_formats.h"

namespace hlo::cpu {
namespace {

TEST(HalfRuns, WidenToTheSameBits) {
  std::vector<uint16_t> in(65536 + 7);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint16_t>(i);
  std::vector<float> got(in.size());
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    halfRunToF32(t, in.data(), got.data(), static_cast<int64_t>(in.size()));
    for (size_t i = 0; i < in.size(); ++i) {
      float want = t == ElementType::kBF16 ? decodeBf16ToF32(in[i]) : decodeF16ToF32(in[i]);
      ASSERT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want)) << "bits " << in[i];
    }
  }
}

TEST(HalfRuns, NarrowToTheSameBits) {
  std::vector<uint32_t> bits;
  for (uint32_t sign : {0u, 0x80000000u})
    for (uint32_t exponent = 0; exponent < 256; ++exponent)
      for (uint32_t low : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu})
        for (uint32_t high : {0x00u, 0x01u, 0x40u, 0x7eu, 0x7fu})
          bits.push_back(sign | exponent << 23 | high << 16 | low);
  bits.push_back(0x7f7fffff);  // the largest finite: rounds to inf
  bits.push_back(0x7fc00001);  // a NaN whose payload is lost
  std::vector<float> in;
  for (uint32_t b : bits) in.push_back(std::bit_cast<float>(b));
  in.resize(in.size() + 3, 1.5f);
  std::vector<uint16_t> got(in.size());
  for (ElementType t : {ElementType::kBF16, ElementType::kF16}) {
    f32RunToHalf(t, in.data(), got.data(), static_cast<int64_t>(in.size()));
    for (size_t i = 0; i < in.size(); ++i) {
      uint16_t want = t == ElementType::kBF16 ? encodeBf16FromF32(in[i]) : encodeF16FromF32(in[i]);
      ASSERT_EQ(got[i], want) << "f32 bits " << std::hex << std::bit_cast<uint32_t>(in[i]);
    }
  }
}

}  // namespace
}  // namespace hlo::cpu
