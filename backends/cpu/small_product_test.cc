// The small f32 products (small_product.h) of each instruction set this CPU
// runs, on every storage order of the operands, rows and columns that are
// not multiples of a tile's, and rows further apart than the matrices are
// wide. The elements are small integers, so every product and partial sum
// is exact in f32 and the expected values are the exact sums, computed
// here in integers.
#include "backends/cpu/small_product.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hlo::cpu {
namespace {

int valueAt(int64_t i, int salt) { return static_cast<int>((i * 5 + salt * 7 + i / 11) % 13) - 6; }

void expectProduct(SmallProductFn fn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t pad) {
  // a[i, kk] at a[i * lda + kk], or at a[kk * lda + i] transposed; likewise b[kk, j].
  const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad;
  std::vector<float> a(static_cast<size_t>((ta ? k : m) * lda)), b(static_cast<size_t>((tb ? n : k) * ldb));
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(valueAt(static_cast<int64_t>(i), 1));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(valueAt(static_cast<int64_t>(i), 2));
  std::vector<float> c(static_cast<size_t>(m * n), -1000.0f);
  fn(SmallProductArgs{ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data()});
  int64_t wrong = 0;
  std::string first;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t sum = 0;
      for (int64_t kk = 0; kk < k; ++kk)
        sum += static_cast<int64_t>(a[ta ? kk * lda + i : i * lda + kk]) * static_cast<int64_t>(b[tb ? j * ldb + kk : kk * ldb + j]);
      if (c[i * n + j] != static_cast<float>(sum) && wrong++ == 0)
        first = "[" + std::to_string(i) + "," + std::to_string(j) + "]: " + std::to_string(c[i * n + j]) + " vs " +
                std::to_string(sum);
    }
  EXPECT_EQ(wrong, 0) << "ta " << ta << " tb " << tb << " [" << m << "," << k << "] x [" << k << "," << n << "] pad "
                      << pad << ": first wrong " << first;
}

TEST(SmallProduct, EveryOrderAndRaggedSizes) {
  int kernels = 0;
  for (const char* isa : {"avx512", "avx2"}) {
    SmallProductFn fn = smallProductNamed(isa);
    if (!fn) continue;
    ++kernels;
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (int64_t pad : {0, 3})
          for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{1, 1, 1}, {4, 64, 32}, {7, 133, 19},
                                 {1, 256, 32}, {9, 5, 40}, {5, 70, 1}})
            expectProduct(fn, ta, tb, m, n, k, pad);
  }
  if (kernels == 0) GTEST_SKIP() << "this CPU has neither AVX-512F nor AVX2 with FMA";
}

}  // namespace
}  // namespace hlo::cpu
