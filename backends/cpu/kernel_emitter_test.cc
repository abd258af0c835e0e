// Kernels whose outputs are streamed (32 MiB or more), called directly with
// the work ranges and output pointers the runtime never hands them together:
// a range starting and ending inside a 64-byte line (the plain loop before
// the first line, the vector remainder after the last), an output that is
// not 64-byte aligned (every store plain: a streaming store there would
// fault), and rows whose length is not whole lines (rows alternate between
// the streamed and the plain loop). Each output element is one IEEE
// operation of its inputs, computed here the same way; elements outside the
// range must keep the sentinel they were given.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/orc.h"
#include "hlo/computation.h"
#include "parser/parse_or_fail.h"

namespace hlo::cpu {
namespace {

constexpr float kSentinel = -12345.0f;

// Floats at a 64-byte boundary, freed on destruction.
struct AlignedFloats {
  explicit AlignedFloats(size_t n) : data(static_cast<float*>(std::aligned_alloc(64, (n * 4 + 63) / 64 * 64))) {}
  ~AlignedFloats() { std::free(data); }
  float* data;
};

// The kernel of the entry root of `text` (a fusion), compiled by itself.
class StreamedKernel {
 public:
  explicit StreamedKernel(const char* text) : module_(parseOrFail(text)) {
    auto jit = OrcJit::create();
    EXPECT_TRUE(jit.ok()) << jit.status().message();
    jit_ = std::move(jit).value();
    OrcJit::Part part;
    part.context = std::make_unique<llvm::LLVMContext>();
    part.module = std::make_unique<llvm::Module>("kernels", *part.context);
    jit_->configure(*part.module);
    auto info = emitKernel(*part.module, *module_->entry()->root(), "kernel");
    EXPECT_TRUE(info.ok()) << info.status().message();
    std::vector<OrcJit::Part> parts;
    parts.push_back(std::move(part));
    OrcJit::AddOptions options;
    options.useCache = false;
    auto added = jit_->add(std::move(parts), options);
    EXPECT_TRUE(added.ok()) << added.status().message();
    auto address = jit_->lookup("kernel");
    EXPECT_TRUE(address.ok()) << address.status().message();
    fn_ = reinterpret_cast<KernelFn>(*address);
  }
  void run(std::vector<const float*> inputs, float* output, int64_t begin, int64_t end) const {
    std::vector<const char*> in;
    for (const float* p : inputs) in.push_back(reinterpret_cast<const char*>(p));
    char* out[] = {reinterpret_cast<char*>(output)};
    fn_(in.data(), out, begin, end);
  }

 private:
  std::unique_ptr<Module> module_;
  std::unique_ptr<OrcJit> jit_;
  KernelFn fn_ = nullptr;
};

// y = x * 3 over 8M + 3 floats (32 MiB and a bit): a flat loop of elements.
constexpr int64_t kFlat = (int64_t{8} << 20) + 3;
const char* kFlatText = R"(
HloModule flat
%triple (p: f32[8388611]) -> f32[8388611] {
  %p = f32[8388611] parameter(0)
  %three = f32[] constant(3)
  %threes = f32[8388611] broadcast(%three), dimensions={}
  ROOT %y = f32[8388611] multiply(%p, %threes)
}
ENTRY %main (x: f32[8388611]) -> f32[8388611] {
  %x = f32[8388611] parameter(0)
  ROOT %f = f32[8388611] fusion(%x), kind=kLoop, calls=%triple
})";

// Runs elements [begin, end) into out + shift (floats) and checks them.
void expectFlat(const StreamedKernel& kernel, const float* x, int64_t shift, int64_t begin, int64_t end) {
  AlignedFloats out(kFlat + 16);
  float* y = out.data + shift;
  for (int64_t i = 0; i < kFlat; ++i) y[i] = kSentinel;
  kernel.run({x}, y, begin, end);
  int64_t wrong = 0, first = -1;
  for (int64_t i = 0; i < kFlat; ++i) {
    float want = i >= begin && i < end ? x[i] * 3.0f : kSentinel;
    if (y[i] != want && wrong++ == 0) first = i;
  }
  EXPECT_EQ(wrong, 0) << "output shifted by " << shift << " floats, elements [" << begin << ", " << end
                      << "): first wrong element " << first;
}

TEST(StreamedKernel, FlatRangesAndAlignments) {
  StreamedKernel kernel(kFlatText);
  AlignedFloats x(kFlat);
  for (int64_t i = 0; i < kFlat; ++i) x.data[i] = static_cast<float>(i % 1000) * 0.25f - 7.0f;
  for (int64_t shift : {0, 1, 4})
    for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, kFlat}, {5, kFlat - 2}, {17, 33}, {3, 9}, {0, 0}})
      expectFlat(kernel, x.data, shift, begin, end);
}

// y[r, c] = x[r, c] + v[c] over 8400 rows of 1000 floats (33.6 MB): a loop
// over rows, each row 4000 bytes, so rows start on a line every 16th row.
constexpr int64_t kRows = 8400, kCols = 1000;
const char* kRowText = R"(
HloModule rows
%add_row (p: f32[8400,1000], q: f32[1000]) -> f32[8400,1000] {
  %p = f32[8400,1000] parameter(0)
  %q = f32[1000] parameter(1)
  %qb = f32[8400,1000] broadcast(%q), dimensions={1}
  ROOT %y = f32[8400,1000] add(%p, %qb)
}
ENTRY %main (x: f32[8400,1000], v: f32[1000]) -> f32[8400,1000] {
  %x = f32[8400,1000] parameter(0)
  %v = f32[1000] parameter(1)
  ROOT %f = f32[8400,1000] fusion(%x, %v), kind=kLoop, calls=%add_row
})";

TEST(StreamedKernel, RowsOfPartialLines) {
  StreamedKernel kernel(kRowText);
  AlignedFloats x(kRows * kCols), v(kCols), out(kRows * kCols + 16);
  for (int64_t i = 0; i < kRows * kCols; ++i) x.data[i] = static_cast<float>(i % 977) * 0.5f;
  for (int64_t c = 0; c < kCols; ++c) v.data[c] = static_cast<float>(c) * -0.125f;
  for (int64_t shift : {0, 3})
    for (auto [begin, end] : {std::pair<int64_t, int64_t>{0, kRows}, {7, 23}}) {
      float* y = out.data + shift;
      for (int64_t i = 0; i < kRows * kCols; ++i) y[i] = kSentinel;
      kernel.run({x.data, v.data}, y, begin, end);
      int64_t wrong = 0, first = -1;
      for (int64_t i = 0; i < kRows * kCols; ++i) {
        int64_t r = i / kCols;
        float want = r >= begin && r < end ? x.data[i] + v.data[i % kCols] : kSentinel;
        if (y[i] != want && wrong++ == 0) first = i;
      }
      EXPECT_EQ(wrong, 0) << "output shifted by " << shift << " floats, rows [" << begin << ", " << end
                          << "): first wrong element " << first;
    }
}

}  // namespace
}  // namespace hlo::cpu

namespace hlo::cpu {
namespace {

// The work units the kernel of the entry root of `text` (a fusion) splits
// across threads.
int64_t unitsOf(const char* text) {
  auto module = parseOrFail(text);
  llvm::LLVMContext context;
  llvm::Module llvmModule("kernels", context);
  auto info = emitKernel(llvmModule, *module->entry()->root(), "kernel");
  EXPECT_TRUE(info.ok()) << info.status().message();
  return info.ok() ? info->units : -1;
}

// One output row: a reduction along it splits its elements across threads
// (a row loop would be one unit); a softmax of one row computes its row's
// maximum and sum once, before the row's elements, as one unit.
TEST(KernelUnits, OneRowSplitsUnlessItHasRowWork) {
  EXPECT_EQ(unitsOf(R"(
HloModule row_sums
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%sums (p: f32[1,64,32]) -> f32[1,64] {
  %p = f32[1,64,32] parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[1,64] reduce(%p, %z), dimensions={2}, to_apply=%add
}
ENTRY %main (x: f32[1,64,32]) -> f32[1,64] {
  %x = f32[1,64,32] parameter(0)
  ROOT %f = f32[1,64] fusion(%x), kind=kInput, calls=%sums
})"),
            64);
  EXPECT_EQ(unitsOf(R"(
HloModule one_row_softmax
%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}
%softmax (p: f32[1,64]) -> f32[1,64] {
  %p = f32[1,64] parameter(0)
  %ninf = f32[] constant(-inf)
  %m = f32[1] reduce(%p, %ninf), dimensions={1}, to_apply=%max
  %mb = f32[1,64] broadcast(%m), dimensions={0}
  ROOT %y = f32[1,64] subtract(%p, %mb)
}
ENTRY %main (x: f32[1,64]) -> f32[1,64] {
  %x = f32[1,64] parameter(0)
  ROOT %f = f32[1,64] fusion(%x), kind=kLoop, calls=%softmax
})"),
            1);
}

}  // namespace
}  // namespace hlo::cpu
