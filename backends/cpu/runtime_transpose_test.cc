// The transpose library op against the definition: output element o is
// input element i with i[perm[k]] = o[k]. Each input element holds a value
// made from its own position, so a misplaced element cannot go unnoticed.
// The cases reach the paths runtime_transpose.cc has: vector blocks of 2-,
// 4- and 8-byte elements with ragged edges on both sides, element by element
// for other sizes, several planes, the innermost dimension kept (whole
// rows), strips shrunk for small planes, and outputs of 32 MiB or more
// written with streaming stores (aligned rows) or without (unaligned);
// each with every vector width this CPU has and element by element.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/runtime_ops.h"
#include "hlo/indexing.h"
#include "jit/executable.h"
#include "parser/parse_or_fail.h"

namespace hlo::cpu {
namespace {

struct Case {
  const char* type;
  std::vector<int64_t> dims;
  std::vector<int64_t> perm;
};

std::string joined(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

// The value of input element `linear` for an element of `bytes` bytes: the
// low bytes of a number unlikely to repeat nearby (and never a float NaN
// pattern that could be quietened, since no float arithmetic touches it).
void fill(Literal& x) {
  int bytes = storageBytes(x.type());
  auto* data = reinterpret_cast<unsigned char*>(x.untypedData());
  for (int64_t i = 0; i < x.elementCount(); ++i) {
    uint64_t v = static_cast<uint64_t>(i) * 2654435761u + 12345;
    for (int k = 0; k < bytes; ++k) data[i * bytes + k] = static_cast<unsigned char>(v >> (8 * (k % 8)));
  }
}

void expectTransposedWith(const Case& c, int vectorBytes) {
  std::vector<int64_t> outDims;
  for (int64_t p : c.perm) outDims.push_back(c.dims[p]);
  std::string in = std::string(c.type) + "[" + joined(c.dims) + "]";
  std::string out = std::string(c.type) + "[" + joined(outDims) + "]";
  std::string text = "HloModule m\nENTRY e {\n  x = " + in + " parameter(0)\n  ROOT t = " + out +
                     " transpose(x), dimensions={" + joined(c.perm) + "}\n}\n";
  auto module = parseOrFail(text);
  auto exe = jit::compile(*module);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  std::vector<Literal> args;
  args.emplace_back(module->entry()->parameter(0)->shape());
  fill(args[0]);
  limitTransposeVectorBytes(vectorBytes);
  auto result = (*exe)->run(args);
  limitTransposeVectorBytes(64);
  ASSERT_TRUE(result.ok()) << result.status().message();
  int bytes = storageBytes(args[0].type());
  const auto* x = reinterpret_cast<const unsigned char*>(args[0].untypedData());
  const auto* y = reinterpret_cast<const unsigned char*>(result->untypedData());
  std::vector<int64_t> inStrides = rowMajorStrides(c.dims);
  std::vector<int64_t> o(outDims.size(), 0);
  int64_t wrong = 0, first = -1;
  for (int64_t linear = 0; linear < result->elementCount(); ++linear) {
    int64_t from = 0;
    for (size_t k = 0; k < o.size(); ++k) from += o[k] * inStrides[c.perm[k]];
    if (std::memcmp(y + linear * bytes, x + from * bytes, bytes) != 0 && wrong++ == 0) first = linear;
    for (int k = static_cast<int>(o.size()) - 1; k >= 0 && ++o[k] == outDims[k]; --k) o[k] = 0;
  }
  EXPECT_EQ(wrong, 0) << text << "vectors of at most " << vectorBytes << " bytes; first wrong output element: "
                      << first;
}

void expectTransposed(const Case& c) {
  bool avx512 = __builtin_cpu_supports("avx512f"), avx2 = __builtin_cpu_supports("avx2");
  for (int bytes : {64, 32, 0})
    if ((bytes == 64 && avx512) || (bytes == 32 && avx2) || bytes == 0) expectTransposedWith(c, bytes);
}

TEST(RuntimeTranspose, FloatBlocksWithRaggedEdges) { expectTransposed({"f32", {37, 45}, {1, 0}}); }
TEST(RuntimeTranspose, DoubleBlocksWithRaggedEdges) { expectTransposed({"f64", {19, 42}, {1, 0}}); }
TEST(RuntimeTranspose, SmallerThanOneBlock) { expectTransposed({"s32", {3, 5}, {1, 0}}); }
TEST(RuntimeTranspose, SeveralPlanes) { expectTransposed({"f32", {3, 20, 33}, {2, 0, 1}}); }
TEST(RuntimeTranspose, PlanesOutermostMoved) { expectTransposed({"c64", {17, 4, 18}, {1, 2, 0}}); }
TEST(RuntimeTranspose, InnermostKept) { expectTransposed({"u16", {5, 6, 7}, {1, 0, 2}}); }
TEST(RuntimeTranspose, ElementByElementSizes) {
  expectTransposed({"s8", {33, 70}, {1, 0}});
  expectTransposed({"c128", {9, 11}, {1, 0}});
}
// 2-byte elements in 16 x 16 blocks (AVX2), ragged on both sides, several
// planes; and 4096 x 4100 x 2 bytes (32 MiB, output rows of 8192 bytes):
// streamed.
TEST(RuntimeTranspose, TwoByteBlocksWithRaggedEdges) {
  expectTransposed({"bf16", {40, 300}, {1, 0}});
  expectTransposed({"f16", {3, 37, 50}, {2, 0, 1}});
  expectTransposed({"s16", {17, 16}, {1, 0}});
}
TEST(RuntimeTranspose, TwoByteStreamedOutput) { expectTransposed({"u16", {4100, 4096}, {1, 0}}); }
// Long planes: strips of several hundred rows along b, and several of them.
TEST(RuntimeTranspose, LongStrips) { expectTransposed({"f32", {1000, 300}, {1, 0}}); }
// 4096 x 2064 x 4 bytes = 33 MiB, output rows of 8256 bytes (a multiple of
// 64): streamed.
TEST(RuntimeTranspose, StreamedOutput) { expectTransposed({"f32", {2064, 4096}, {1, 0}}); }
// Two planes of 1040 x 4096 floats, streamed: every plane's base aligned.
TEST(RuntimeTranspose, StreamedPlanes) { expectTransposed({"f32", {2, 1040, 4096}, {0, 2, 1}}); }
// 33 MiB with output rows of 4100 bytes: too ragged to stream.
TEST(RuntimeTranspose, LargeUnalignedOutput) { expectTransposed({"f32", {1025, 8200}, {1, 0}}); }

}  // namespace
}  // namespace hlo::cpu
