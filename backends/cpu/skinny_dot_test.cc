// The skinny dot kernels (skinny_dot.h) called directly, with each
// instruction set this CPU runs: every row count from 1 to kSkinnyRows (each
// mix of the 8, 4, 2 and 1 row chunks), both storage orders of the wide
// operand in f32, bf16 and f16, k and column counts that are not multiples
// of the vector width or the tiles, a column range that starts and ends
// inside a tile, an output written transposed, and a k of several blocks. Elements are small
// integers, so f32 sums are exact: the expected values are integer sums.
#include "backends/cpu/skinny_dot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hlo/element_type.h"
#include "hlo/float_formats.h"

namespace hlo::cpu {
namespace {

int valueAt(int64_t i, int salt) { return static_cast<int>((i * 5 + salt + i / 7) % 15) - 7; }

struct Wide {
  std::vector<uint32_t> f32;
  std::vector<uint16_t> half;
  const void* data(WideType t) const { return t == WideType::kF32 ? static_cast<const void*>(f32.data()) : half.data(); }
};

Wide wideOperand(WideType type, int64_t count) {
  Wide w;
  ElementType t = type == WideType::kF32 ? ElementType::kF32 : type == WideType::kBF16 ? ElementType::kBF16 : ElementType::kF16;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits = encodeSmallFloat(t, valueAt(i, 3));
    if (type == WideType::kF32) w.f32.push_back(bits);
    else w.half.push_back(static_cast<uint16_t>(bits));
  }
  return w;
}

void expectKernel(SkinnyDotFn fn, const std::string& isa, WideType type, bool freeMajor, int64_t rows, int64_t k,
                  int64_t cols, int64_t col0, int64_t col1, bool transposedOut) {
  std::vector<float> a(static_cast<size_t>(rows * k));
  for (int64_t i = 0; i < rows * k; ++i) a[i] = static_cast<float>(valueAt(i, 1));
  Wide w = wideOperand(type, cols * k);
  std::vector<float> c(static_cast<size_t>(rows * cols), -1000.0f);
  SkinnyDotArgs args{a.data(), rows, w.data(type), type, freeMajor, k, cols, c.data(),
                     transposedOut ? 1 : cols, transposedOut ? rows : 1};
  fn(args, col0, col1);
  int64_t wrong = 0;
  std::string first;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      float want = -1000.0f;
      if (j >= col0 && j < col1) {
        int64_t sum = 0;
        for (int64_t kk = 0; kk < k; ++kk) sum += int64_t{valueAt(r * k + kk, 1)} * valueAt(freeMajor ? j * k + kk : kk * cols + j, 3);
        want = static_cast<float>(sum);
      }
      float got = c[r * args.cRow + j * args.cCol];
      if (got != want && wrong++ == 0)
        first = "(" + std::to_string(r) + ", " + std::to_string(j) + "): " + std::to_string(got) + " vs " +
                std::to_string(want);
    }
  EXPECT_EQ(wrong, 0) << isa << " type " << static_cast<int>(type) << (freeMajor ? " free-major" : " contracting-major")
                      << " rows " << rows << " k " << k << " cols " << cols << " [" << col0 << ", " << col1
                      << "): first wrong " << first;
}

TEST(SkinnyDot, EveryRowCountTypeAndOrder) {
  int ran = 0;
  for (const char* isa : {"avx512", "avx2"}) {
    SkinnyDotFn fn = skinnyDotNamed(isa);
    if (!fn) continue;
    ++ran;
    for (WideType type : {WideType::kF32, WideType::kBF16, WideType::kF16})
      for (bool freeMajor : {true, false})
        for (int64_t rows = 1; rows <= kSkinnyRows; ++rows) {
          expectKernel(fn, isa, type, freeMajor, rows, 37, 141, 0, 141, false);
          expectKernel(fn, isa, type, freeMajor, rows, 64, 200, 3, 197, rows % 2 == 1);
        }
  }
  if (ran == 0) GTEST_SKIP() << "this CPU runs neither the AVX-512 nor the AVX2 kernel";
}

// k long enough for several of the free-major kernel's blocks of k (1024
// terms for 8 rows and more) and f32 runs, then a part of a block, then
// elements past the last whole chunk: each block's sums must join the same
// totals.
TEST(SkinnyDot, LongContractionAcrossBlocks) {
  for (const char* isa : {"avx512", "avx2"}) {
    SkinnyDotFn fn = skinnyDotNamed(isa);
    if (!fn) continue;
    for (WideType type : {WideType::kF32, WideType::kBF16})
      for (int64_t rows : {1, 3, 8, 11, 16}) expectKernel(fn, isa, type, true, rows, 3 * 1024 + 69, 9, 1, 8, false);
  }
}

// f16's special patterns in the wide operand: subnormals (as their exact
// values), infinity times zero (NaN) and an infinite sum.
TEST(SkinnyDot, HalfSubnormalsAndInfinities) {
  for (const char* isa : {"avx512", "avx2"}) {
    SkinnyDotFn fn = skinnyDotNamed(isa);
    if (!fn) continue;
    const int64_t k = 40, cols = 3;
    std::vector<uint16_t> b(cols * k, 0);
    b[0] = 0x0001;           // column 0: 2^-24 ...
    b[1] = 0x03ff;           // ... + 1023 * 2^-24
    b[k + 5] = 0x7c00;       // column 1: inf, times a[5] = 0
    b[2 * k + 39] = 0xfc00;  // column 2: -inf, times a[39] = 2
    std::vector<float> a(k, 2.0f);
    a[5] = 0.0f;
    std::vector<float> c(cols, 0.0f);
    SkinnyDotArgs args{a.data(), 1, b.data(), WideType::kF16, true, k, cols, c.data(), cols, 1};
    fn(args, 0, cols);
    EXPECT_EQ(c[0], 2.0f * 1024 * 0x1p-24f) << isa;
    EXPECT_TRUE(std::isnan(c[1])) << isa;
    EXPECT_EQ(c[2], -std::numeric_limits<float>::infinity()) << isa;
  }
}

}  // namespace
}  // namespace hlo::cpu
