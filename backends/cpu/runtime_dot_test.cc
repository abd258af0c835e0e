// The dot library op with a large bf16 or f16 operand, which it converts
// and multiplies a block at a time (runtime_dot.cc, kBlockBytes): each
// side blocked, stored free-major or contracting-major, with a batch
// dimension, a partial last block, and an f32 or a bf16 result; and a few
// rows (or columns) by a wide operand of f32, bf16 or f16 through the
// skinny kernel, on either side. The
// elements are small integers, so every product and partial sum is exact in
// f32 and the expected values are the exact sums, computed here in
// integers (rounded once to bf16 for a bf16 result).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/float_formats.h"
#include "hlo/literal.h"
#include "jit/executable.h"
#include "backends/cpu/runtime_ops.h"
#include "parser/parse_or_fail.h"

namespace hlo::cpu {
namespace {

struct DotCase {
  const char* name;
  std::string lhs, rhs, out;  // shapes, e.g. "bf16[3,512]"
  std::string dims;           // the dot's attributes
  std::vector<int64_t> lhsDims, rhsDims;
  // The part each lhs dimension plays: 'b' (batch), 'm' (free) or 'k'
  // (contracting); 'b', 'k' or 'n' for the rhs. A capital letter is a second
  // dimension of that part, the minor one of its index: i = i_lower *
  // size_upper + i_upper (free dimensions must be written in storage order,
  // as the result numbers them; a capital 'K' pairs with the other
  // operand's 'K'). '1' is a dimension of size 1 of any part.
  std::string lhsRoles, rhsRoles;
};

// Element value at a row-major index: an integer in [-8, 8].
int valueAt(int64_t linear, int salt) { return static_cast<int>((linear * 7 + salt * 3 + linear / 13) % 17) - 8; }

Literal filled(const Shape& shape, int salt) {
  Literal x(shape);
  for (int64_t i = 0; i < x.elementCount(); ++i)
    x.setBitsAt(i, encodeSmallFloat(shape.type(), static_cast<double>(valueAt(i, salt))));
  return x;
}

// The size of the dimension playing `role`, 1 if none does.
int64_t sizeOf(const std::vector<int64_t>& dims, const std::string& roles, char role) {
  for (size_t d = 0; d < dims.size(); ++d)
    if (roles[d] == role) return dims[d];
  return 1;
}

// The extent of a part: the product of its (lower and capital) dimensions.
int64_t extent(const std::vector<int64_t>& dims, const std::string& roles, char role) {
  return sizeOf(dims, roles, role) * sizeOf(dims, roles, static_cast<char>(role - 'a' + 'A'));
}

// The row-major position of the element at batch b, free index r and
// contracting index k of an operand with `dims` and `roles`.
int64_t linearOf(const std::vector<int64_t>& dims, const std::string& roles, int64_t b, int64_t r, int64_t k) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    const char role = roles[d];
    const char part = role == '1' ? '1' : static_cast<char>(role | 0x20);  // lower case
    const int64_t index = part == 'b' ? b : part == 'k' ? k : part == '1' ? 0 : r;
    const int64_t minor = sizeOf(dims, roles, static_cast<char>(part - 'a' + 'A'));
    const int64_t at = part == '1' ? 0 : role == part ? index / minor : index % minor;
    linear = linear * dims[d] + at;
  }
  return linear;
}

void expectDot(const DotCase& c) {
  std::string text = "HloModule m\nENTRY e {\n  a = " + c.lhs + " parameter(0)\n  b = " + c.rhs +
                     " parameter(1)\n  ROOT d = " + c.out + " dot(a, b), " + c.dims + "\n}\n";
  auto module = parseOrFail(text);
  auto exe = jit::compile(*module);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.push_back(filled(module->entry()->parameter(0)->shape(), 1));
  args.push_back(filled(module->entry()->parameter(1)->shape(), 2));
  auto result = (*exe)->run(args);
  ASSERT_TRUE(result.ok()) << result.status().message();
  const int64_t batch = extent(c.lhsDims, c.lhsRoles, 'b'), m = extent(c.lhsDims, c.lhsRoles, 'm');
  const int64_t k = extent(c.lhsDims, c.lhsRoles, 'k'), n = extent(c.rhsDims, c.rhsRoles, 'n');
  ASSERT_EQ(result->elementCount(), batch * m * n) << c.name;
  int64_t wrong = 0;
  std::string first;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t sum = 0;
        for (int64_t kk = 0; kk < k; ++kk)
          sum += int64_t{valueAt(linearOf(c.lhsDims, c.lhsRoles, b, i, kk), 1)} *
                 valueAt(linearOf(c.rhsDims, c.rhsRoles, b, j, kk), 2);
        int64_t at = (b * m + i) * n + j;
        uint64_t want = encodeSmallFloat(result->type(), static_cast<double>(sum));
        if (result->bitsAt(at) != want && wrong++ == 0)
          first = "[" + std::to_string(b) + "," + std::to_string(i) + "," + std::to_string(j) + "]: " +
                  std::to_string(result->toDouble(at)) + " vs " + std::to_string(sum);
      }
  EXPECT_EQ(wrong, 0) << c.name << ": first wrong element " << first;
}

// Blocked (both sides wider than kSkinnyRows): 5000 x 512 elements convert
// to 10 MB of f32, blocks of 2048 (4 MiB / 512 floats), the last partial.
TEST(RuntimeDot, BlockedRhsFreeMajor) {
  expectDot({"rhs [N, K]", "bf16[40,512]", "bf16[5000,512]", "f32[40,5000]", "lhs_contracting_dims={1}, rhs_contracting_dims={1}",
             {40, 512}, {5000, 512}, "mk", "nk"});
}
TEST(RuntimeDot, BlockedRhsContractingMajor) {
  expectDot({"rhs [K, N]", "bf16[40,512]", "bf16[512,5000]", "f32[40,5000]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
             {40, 512}, {512, 5000}, "mk", "kn"});
}
TEST(RuntimeDot, BlockedLhsFreeMajor) {
  expectDot({"lhs [M, K]", "f16[5000,512]", "f16[512,40]", "f32[5000,40]", "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
             {5000, 512}, {512, 40}, "mk", "kn"});
}
TEST(RuntimeDot, BlockedLhsContractingMajor) {
  expectDot({"lhs [K, M]", "bf16[512,5000]", "bf16[40,512]", "f32[5000,40]", "lhs_contracting_dims={0}, rhs_contracting_dims={1}",
             {512, 5000}, {40, 512}, "km", "nk"});
}
TEST(RuntimeDot, BlockedRhsWithBatchAndNarrowResult) {
  expectDot({"batched, bf16 result", "bf16[2,20,512]", "bf16[2,5000,512]", "bf16[2,20,5000]",
             "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}",
             {2, 20, 512}, {2, 5000, 512}, "bmk", "bnk"});
}

// Skinny (skinny_dot.h): a few rows by a wide operand on either side, k not
// a multiple of the vector width.
TEST(RuntimeDot, SkinnyRowsByWideRhs) {
  expectDot({"3 rows by rhs [N, K]", "bf16[3,509]", "bf16[2000,509]", "f32[3,2000]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}", {3, 509}, {2000, 509}, "mk", "nk"});
  expectDot({"11 rows by rhs [K, N]", "f32[11,300]", "f16[300,2001]", "bf16[11,2001]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}", {11, 300}, {300, 2001}, "mk", "kn"});
}
TEST(RuntimeDot, SkinnyColumnsByWideLhs) {
  expectDot({"lhs [M, K] by 5 columns", "bf16[3000,256]", "bf16[256,5]", "f32[3000,5]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}", {3000, 256}, {256, 5}, "mk", "kn"});
  expectDot({"lhs [K, M] by 16 columns, batched", "f32[2,256,700]", "f32[2,16,256]", "f32[2,700,16]",
             "lhs_batch_dims={0}, lhs_contracting_dims={1}, rhs_batch_dims={0}, rhs_contracting_dims={2}",
             {2, 256, 700}, {2, 16, 256}, "bkm", "bnk"});
}

// Skinny with the wide operand in slabs (runtime_dot.cc, wideLayout): free
// dimensions on both sides of the contracting ones, as attention projections
// store their weights, contracting dimensions listed out of storage order,
// and dimensions of size 1 between the others.
TEST(RuntimeDot, SkinnyRowsBySlabs) {
  expectDot({"rows by [heads, K, head]", "bf16[3,300]", "bf16[4,300,70]", "f32[3,4,70]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}", {3, 300}, {4, 300, 70}, "mk", "nkN"});
  expectDot({"rows by [K1, K2, N], contracting listed in the other order", "f32[5,70,4]", "bf16[4,70,600]",
             "f32[5,600]", "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}", {5, 70, 4}, {4, 70, 600}, "mKk",
             "kKn"});
  expectDot({"batched rows by [B, N1, K, N2]", "f32[2,5,600]", "f16[2,3,600,40]", "f32[2,5,3,40]",
             "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}",
             {2, 5, 600}, {2, 3, 600, 40}, "bmk", "bnkN"});
}
TEST(RuntimeDot, SkinnyColumnsBySlabs) {
  expectDot({"lhs [2, 1, K, 256] by 11 columns [1, 11, K]", "bf16[2,1,300,256]", "bf16[1,11,300]",
             "f32[2,1,256,1,11]", "lhs_contracting_dims={2}, rhs_contracting_dims={2}", {2, 1, 300, 256},
             {1, 11, 300}, "m1kM", "1nk"});
}

// Operands read where they are, their rows or matrices strided
// (runtime_dot.cc, stridedOperand): attention's keys and values
// [batch, length, heads, head] multiplied per (batch, head), whose rows are
// heads * head elements apart, as a decode step does (one query row: the
// product's plain loop), and large enough for OpenBLAS with its leading
// dimensions on the threaded path.
TEST(RuntimeDot, StridedOperandsInPlace) {
  expectDot({"query by keys [1, L, H, D]", "f32[1,4,32]", "f32[1,256,4,32]", "f32[1,4,256]",
             "lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}",
             {1, 4, 32}, {1, 256, 4, 32}, "1bk", "1nbk"});
  expectDot({"weights by values [1, L, H, D]", "f32[1,4,256]", "f32[1,256,4,32]", "f32[1,4,32]",
             "lhs_batch_dims={0,1}, lhs_contracting_dims={2}, rhs_batch_dims={0,2}, rhs_contracting_dims={1}",
             {1, 4, 256}, {1, 256, 4, 32}, "1bk", "1kbn"});
  expectDot({"queries [1, L, H, D] by keys [1, L, H, D]", "f32[1,64,4,32]", "f32[1,128,4,32]", "f32[1,4,64,128]",
             "lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}",
             {1, 64, 4, 32}, {1, 128, 4, 32}, "1mbk", "1nbk"});
  // Two batch dimensions apart in storage: no one stride walks them, so
  // both operands are packed.
  expectDot({"queries [B, L, H, D] by keys [B, L, H, D]", "f32[2,64,4,32]", "f32[2,128,4,32]", "f32[2,4,64,128]",
             "lhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_batch_dims={0,2}, rhs_contracting_dims={3}",
             {2, 64, 4, 32}, {2, 128, 4, 32}, "bmBk", "bnBk"});
}

// Through the convolution tiles (runtime_dot.cc, tiledProduct), forced on
// whatever kernels OpenBLAS runs here: either operand stored transposed, a
// contraction longer than one run of the tiles (256 terms, so runs add to
// the output), rows not a multiple of a tile's, output features not a
// multiple of a block's (64) and fewer than one vector's, narrower operand
// and result types.
class TiledDot : public ::testing::Test {
 protected:
  void SetUp() override { forceDotTiles(true); }
  void TearDown() override { forceDotTiles(std::nullopt); }
};

TEST_F(TiledDot, EachOperandOrder) {
  expectDot({"[M, K] x [K, N]", "f32[301,600]", "f32[600,70]", "f32[301,70]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}", {301, 600}, {600, 70}, "mk", "kn"});
  expectDot({"[K, M] x [K, N]", "f32[300,257]", "f32[300,130]", "f32[257,130]",
             "lhs_contracting_dims={0}, rhs_contracting_dims={0}", {300, 257}, {300, 130}, "km", "kn"});
  expectDot({"[M, K] x [N, K]", "f32[260,33]", "f32[200,33]", "f32[260,200]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}", {260, 33}, {200, 33}, "mk", "nk"});
  expectDot({"[K, M] x [N, K]", "f32[513,256]", "f32[17,513]", "f32[256,17]",
             "lhs_contracting_dims={0}, rhs_contracting_dims={1}", {513, 256}, {17, 513}, "km", "nk"});
}

TEST_F(TiledDot, NarrowTypes) {
  expectDot({"bf16 operands, f32 result", "bf16[280,300]", "bf16[300,90]", "f32[280,90]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={0}", {280, 300}, {300, 90}, "mk", "kn"});
  expectDot({"f16 and f32 operands, bf16 result", "f16[256,64]", "f32[100,64]", "bf16[256,100]",
             "lhs_contracting_dims={1}, rhs_contracting_dims={1}", {256, 64}, {100, 64}, "mk", "nk"});
}

}  // namespace
}  // namespace hlo::cpu
