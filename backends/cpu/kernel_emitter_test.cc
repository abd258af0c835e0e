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
#include <functional>
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
    if (info.ok()) info_ = *info;
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
  const KernelInfo& info() const { return info_; }

 private:
  std::unique_ptr<Module> module_;
  std::unique_ptr<OrcJit> jit_;
  KernelFn fn_ = nullptr;
  KernelInfo info_;
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
  EXPECT_FALSE(kernel.info().alignedOutputs);  // rows of 4000 bytes: some start mid-line
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

// Rows in a pipeline (kernel_emitter.cc, step 8): 8200 rows of 1024 floats
// (33.6 MB), with a row buffer (the exponentials, read by the row sum and
// the output) and a maximum or minimum folded a row ahead, or with a sum
// folded ahead and no buffer. Any range of
// rows gives each row's values: ranges that start on odd and even rows, one
// row, the last row (whose lookahead is itself); an output that is not
// aligned runs row by row. Expected values are computed here in double from
// the definitions.
constexpr int64_t kPipeRows = 8200, kPipeCols = 1024;
// y = exp(x - max) / sum + (x - max) / 2: the output reads the maximum too.
const char* kSoftmaxPlusText = R"(
HloModule softmax_plus
%max (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] maximum(%a, %b)
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%fused (p: f32[8200,1024]) -> f32[8200,1024] {
  %p = f32[8200,1024] parameter(0)
  %ninf = f32[] constant(-inf)
  %m = f32[8200] reduce(%p, %ninf), dimensions={1}, to_apply=%max
  %mb = f32[8200,1024] broadcast(%m), dimensions={0}
  %d = f32[8200,1024] subtract(%p, %mb)
  %e = f32[8200,1024] exponential(%d)
  %zero = f32[] constant(0)
  %s = f32[8200] reduce(%e, %zero), dimensions={1}, to_apply=%add
  %sb = f32[8200,1024] broadcast(%s), dimensions={0}
  %q = f32[8200,1024] divide(%e, %sb)
  %half = f32[] constant(0.5)
  %halves = f32[8200,1024] broadcast(%half), dimensions={}
  %h = f32[8200,1024] multiply(%d, %halves)
  ROOT %y = f32[8200,1024] add(%q, %h)
}
ENTRY %main (x: f32[8200,1024]) -> f32[8200,1024] {
  %x = f32[8200,1024] parameter(0)
  ROOT %f = f32[8200,1024] fusion(%x), kind=kLoop, calls=%fused
})";
// y = exp(min - x) / sum * total: a minimum and a sum of x from 1.5, both
// folded ahead.
const char* kMinTotalText = R"(
HloModule min_total
%min (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %m = f32[] minimum(%a, %b)
}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%fused (p: f32[8200,1024]) -> f32[8200,1024] {
  %p = f32[8200,1024] parameter(0)
  %inf = f32[] constant(inf)
  %lo = f32[8200] reduce(%p, %inf), dimensions={1}, to_apply=%min
  %lob = f32[8200,1024] broadcast(%lo), dimensions={0}
  %zero = f32[] constant(0)
  %start = f32[] constant(1.5)
  %t = f32[8200] reduce(%p, %start), dimensions={1}, to_apply=%add
  %tb = f32[8200,1024] broadcast(%t), dimensions={0}
  %d = f32[8200,1024] subtract(%lob, %p)
  %e = f32[8200,1024] exponential(%d)
  %s = f32[8200] reduce(%e, %zero), dimensions={1}, to_apply=%add
  %sb = f32[8200,1024] broadcast(%s), dimensions={0}
  %q = f32[8200,1024] divide(%e, %sb)
  ROOT %y = f32[8200,1024] multiply(%q, %tb)
}
ENTRY %main (x: f32[8200,1024]) -> f32[8200,1024] {
  %x = f32[8200,1024] parameter(0)
  ROOT %f = f32[8200,1024] fusion(%x), kind=kLoop, calls=%fused
})";

// Layer norm, (x - mean) * rsqrt(variance + 1e-5): no row buffer; the sum
// of x is folded a row ahead and each row's output is written in the same
// loop.
const char* kLayerNormText = R"(
HloModule layer_norm
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
%fused (p: f32[8200,1024]) -> f32[8200,1024] {
  %p = f32[8200,1024] parameter(0)
  %zero = f32[] constant(0)
  %n = f32[] constant(1024)
  %nb = f32[8200] broadcast(%n), dimensions={}
  %sum = f32[8200] reduce(%p, %zero), dimensions={1}, to_apply=%add
  %mean = f32[8200] divide(%sum, %nb)
  %meanb = f32[8200,1024] broadcast(%mean), dimensions={0}
  %c = f32[8200,1024] subtract(%p, %meanb)
  %sq = f32[8200,1024] multiply(%c, %c)
  %sumsq = f32[8200] reduce(%sq, %zero), dimensions={1}, to_apply=%add
  %var = f32[8200] divide(%sumsq, %nb)
  %eps = f32[] constant(1e-5)
  %epsb = f32[8200] broadcast(%eps), dimensions={}
  %ve = f32[8200] add(%var, %epsb)
  %inv = f32[8200] rsqrt(%ve)
  %invb = f32[8200,1024] broadcast(%inv), dimensions={0}
  ROOT %y = f32[8200,1024] multiply(%c, %invb)
}
ENTRY %main (x: f32[8200,1024]) -> f32[8200,1024] {
  %x = f32[8200,1024] parameter(0)
  ROOT %f = f32[8200,1024] fusion(%x), kind=kLoop, calls=%fused
})";

// Each row of `x` through `row` (double), then rows [begin, end) checked
// against what the kernel wrote into out (the rest keeps the sentinel); NaN
// must be NaN, an infinity the same infinity. Its rows are whole lines: the
// kernel is only compiled for outputs that start on one, as the runtime's
// do (and checks), and has no code for others.
void expectRows(const StreamedKernel& kernel, const float* x, const std::function<void(const float*, double*)>& row) {
  EXPECT_TRUE(kernel.info().alignedOutputs);
  AlignedFloats out(kPipeRows * kPipeCols);
  std::vector<double> want(kPipeCols);
  for (auto [begin, end] :
       {std::pair<int64_t, int64_t>{0, kPipeRows}, {7, 23}, {8, 9}, {kPipeRows - 1, kPipeRows}, {1024, 1029}, {5, 5}}) {
    float* y = out.data;
    for (int64_t i = 0; i < kPipeRows * kPipeCols; ++i) y[i] = kSentinel;
    kernel.run({x}, y, begin, end);
    int64_t wrong = 0, first = -1;
    for (int64_t r = 0; r < kPipeRows; ++r) {
      bool inside = r >= begin && r < end;
      if (inside) row(x + r * kPipeCols, want.data());
      for (int64_t c = 0; c < kPipeCols; ++c) {
        float got = y[r * kPipeCols + c];
        bool ok = !inside ? got == kSentinel
                  : std::isnan(want[c])
                      ? std::isnan(got)
                      : got == want[c] || std::abs(got - want[c]) <= 1e-6 + 2e-6 * std::abs(want[c]);
        if (!ok && wrong++ == 0) first = r * kPipeCols + c;
      }
    }
    EXPECT_EQ(wrong, 0) << "rows [" << begin << ", " << end << "): first wrong element " << first;
  }
}

// Rows of values in [-5, 5), with a NaN in row 11 and +inf in row 12 (its
// x - max is NaN there and -inf elsewhere).
void fillPipeRows(float* x) {
  for (int64_t r = 0; r < kPipeRows; ++r)
    for (int64_t c = 0; c < kPipeCols; ++c)
      x[r * kPipeCols + c] = static_cast<float>((r * 31 + c * 17) % 1000) * 0.01f - 5;
  x[11 * kPipeCols + 500] = std::nanf("");
  x[12 * kPipeCols + 3] = INFINITY;
}

TEST(PipelinedRows, SoftmaxReadingTheMaximumAgain) {
  StreamedKernel kernel(kSoftmaxPlusText);
  AlignedFloats x(kPipeRows * kPipeCols);
  fillPipeRows(x.data);
  expectRows(kernel, x.data, [](const float* in, double* out) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < kPipeCols; ++c) m = std::isnan(in[c]) || std::isnan(m) ? NAN : std::max<double>(m, in[c]);
    for (int64_t c = 0; c < kPipeCols; ++c) s += std::exp(double(in[c]) - m);
    for (int64_t c = 0; c < kPipeCols; ++c) out[c] = std::exp(double(in[c]) - m) / s + (double(in[c]) - m) / 2;
  });
}

TEST(PipelinedRows, MinimumAndSumAhead) {
  StreamedKernel kernel(kMinTotalText);
  AlignedFloats x(kPipeRows * kPipeCols);
  fillPipeRows(x.data);
  expectRows(kernel, x.data, [](const float* in, double* out) {
    double lo = INFINITY, t = 1.5, s = 0;
    for (int64_t c = 0; c < kPipeCols; ++c) {
      lo = std::isnan(in[c]) || std::isnan(lo) ? NAN : std::min<double>(lo, in[c]);
      t += in[c];
    }
    for (int64_t c = 0; c < kPipeCols; ++c) s += std::exp(lo - in[c]);
    for (int64_t c = 0; c < kPipeCols; ++c) out[c] = std::exp(lo - in[c]) / s * t;
  });
}

TEST(PipelinedRows, LayerNormWithASumAhead) {
  StreamedKernel kernel(kLayerNormText);
  AlignedFloats x(kPipeRows * kPipeCols);
  fillPipeRows(x.data);
  expectRows(kernel, x.data, [](const float* in, double* out) {
    double sum = 0, sumsq = 0;
    for (int64_t c = 0; c < kPipeCols; ++c) sum += in[c];
    double mean = static_cast<float>(sum / kPipeCols);  // the kernel's mean is an f32
    for (int64_t c = 0; c < kPipeCols; ++c) sumsq += (in[c] - mean) * (in[c] - mean);
    double inv = 1 / std::sqrt(sumsq / kPipeCols + 1e-5);
    for (int64_t c = 0; c < kPipeCols; ++c) out[c] = (in[c] - mean) * inv;
  });
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
