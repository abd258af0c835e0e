// The convolution library op against a direct convolution written here
// from XLA's operation semantics (convolutionBySemantics), on both of its
// algorithms (the direct tiles with each instruction set this CPU runs, and
// im2col) and with one and several threads. Inputs are small integers, so
// every sum is exact whatever its order and the results must agree bit for
// bit. The cases reach the paths the direct algorithm has: in-place and
// packed operands, output features in several blocks with a partial last
// one, tiles past the last position, runs of positions across images,
// feature and batch groups, the
// depthwise tiles (in place, packed with padded rows, a partial last
// vector), every window attribute, reductions cut into runs, and narrow
// float types.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/cpu/cpu_options.h"
#include "backends/cpu/conv_tiles.h"
#include "conformance/compare.h"
#include "hlo/element_io.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

struct Case {
  const char* name;
  const char* text;
};

const Case kCases[] = {
    {"nhwc_3x3_two_blocks", R"(
HloModule m
ENTRY e {
  x = f32[2,9,11,5] parameter(0)
  k = f32[3,3,5,70] parameter(1)
  ROOT c = f32[2,9,11,70] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"},
    {"nchw_stride_pad", R"(
HloModule m
ENTRY e {
  x = f32[3,6,13,10] parameter(0)
  k = f32[20,6,3,2] parameter(1)
  ROOT c = f32[3,20,6,5] convolution(x, k), window={size=3x2 stride=2x2 pad=0_1x0_0}, dim_labels=bf01_oi01->bf01
})"},
    {"feature_groups", R"(
HloModule m
ENTRY e {
  x = f32[2,7,7,12] parameter(0)
  k = f32[3,3,4,15] parameter(1)
  ROOT c = f32[2,7,7,15] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=3
})"},
    {"depthwise_nchw", R"(
HloModule m
ENTRY e {
  x = f32[2,8,9,9] parameter(0)
  k = f32[8,1,3,3] parameter(1)
  ROOT c = f32[2,8,9,9] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=8
})"},
    {"depthwise_nhwc_in_place", R"(
HloModule m
ENTRY e {
  x = f32[2,9,10,32] parameter(0)
  k = f32[3,3,1,32] parameter(1)
  ROOT c = f32[2,9,10,32] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32
})"},
    {"depthwise_partial_vector_strided", R"(
HloModule m
ENTRY e {
  x = f32[3,11,7,20] parameter(0)
  k = f32[5,3,1,20] parameter(1)
  ROOT c = f32[3,4,2,20] convolution(x, k), window={size=5x3 stride=2x2 pad=1_0x0_1 rhs_dilate=1x2}, dim_labels=b01f_01io->b01f, feature_group_count=20
})"},
    {"depthwise_multiplier_two", R"(
HloModule m
ENTRY e {
  x = f32[2,7,7,6] parameter(0)
  k = f32[3,3,1,12] parameter(1)
  ROOT c = f32[2,7,7,12] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=6
})"},
    {"depthwise_long_window", R"(
HloModule m
ENTRY e {
  x = f32[2,400,24] parameter(0)
  k = f32[300,1,24] parameter(1)
  ROOT c = f32[2,101,24] convolution(x, k), window={size=300}, dim_labels=b0f_0io->b0f, feature_group_count=24
})"},
    {"depthwise_bf16", R"(
HloModule m
ENTRY e {
  x = bf16[2,6,6,48] parameter(0)
  k = bf16[3,3,1,48] parameter(1)
  ROOT c = bf16[2,6,6,48] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=48
})"},
    {"batch_groups", R"(
HloModule m
ENTRY e {
  x = f32[6,5,5,3] parameter(0)
  k = f32[2,2,3,4] parameter(1)
  ROOT c = f32[3,4,4,4] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f, batch_group_count=2
})"},
    {"dilations_reversal_negative_pad", R"(
HloModule m
ENTRY e {
  x = f32[2,6,7,3] parameter(0)
  k = f32[3,2,3,18] parameter(1)
  ROOT c = f32[2,8,14,18] convolution(x, k), window={size=3x2 pad=-1_2x1_1 lhs_dilate=2x2 rhs_dilate=2x1 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f
})"},
    {"long_window_split_by_taps", R"(
HloModule m
ENTRY e {
  x = f32[2,400,1] parameter(0)
  k = f32[300,1,3] parameter(1)
  ROOT c = f32[2,101,3] convolution(x, k), window={size=300}, dim_labels=b0f_0io->b0f
})"},
    {"many_features_split_by_features", R"(
HloModule m
ENTRY e {
  x = f32[3,5,600] parameter(0)
  k = f32[1,600,33] parameter(1)
  ROOT c = f32[3,5,33] convolution(x, k), window={size=1}, dim_labels=b0f_0io->b0f
})"},
    {"weight_gradient_layout", R"(
HloModule m
ENTRY e {
  x = f32[4,10,10,6] parameter(0)
  dy = f32[4,10,10,7] parameter(1)
  ROOT c = f32[3,3,6,7] convolution(x, dy), window={size=10x10 pad=1_1x1_1}, dim_labels=f01b_i01o->01bf
})"},
    {"three_spatial_dimensions", R"(
HloModule m
ENTRY e {
  x = f32[2,5,4,6,3] parameter(0)
  k = f32[2,3,2,3,9] parameter(1)
  ROOT c = f32[2,4,2,3,9] convolution(x, k), window={size=2x3x2 stride=1x1x2 pad=0_0x0_0x0_1}, dim_labels=b012f_012io->b012f
})"},
    {"no_spatial_dimensions", R"(
HloModule m
ENTRY e {
  x = f32[5,40] parameter(0)
  k = f32[40,20] parameter(1)
  ROOT c = f32[5,20] convolution(x, k), dim_labels=bf_io->bf
})"},
    {"no_input_features", R"(
HloModule m
ENTRY e {
  x = f32[2,4,4,0] parameter(0)
  k = f32[3,3,0,5] parameter(1)
  ROOT c = f32[2,4,4,5] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"},
    {"empty_input_all_padding", R"(
HloModule m
ENTRY e {
  x = bf16[2,0,4,3] parameter(0)
  k = bf16[1,3,3,5] parameter(1)
  ROOT c = bf16[2,2,4,5] convolution(x, k), window={size=1x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"},
    {"many_positions", R"(
HloModule m
ENTRY e {
  x = f32[2,37,41,8] parameter(0)
  k = f32[3,3,8,16] parameter(1)
  ROOT c = f32[2,37,41,16] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"},
    {"runs_across_images", R"(
HloModule m
ENTRY e {
  x = f32[37,1,3,20] parameter(0)
  k = f32[1,2,20,33] parameter(1)
  ROOT c = f32[37,1,3,33] convolution(x, k), window={size=1x2 pad=0_0x0_1}, dim_labels=b01f_01io->b01f
})"},
    {"runs_across_images_batch_groups_nchw", R"(
HloModule m
ENTRY e {
  x = f32[40,3,2,2] parameter(0)
  k = f32[2,2,3,20] parameter(1)
  ROOT c = f32[10,20,1,1] convolution(x, k), window={size=2x2}, dim_labels=bf01_01io->bf01, batch_group_count=4
})"},
    {"bf16", R"(
HloModule m
ENTRY e {
  x = bf16[2,6,6,4] parameter(0)
  k = bf16[3,3,4,5] parameter(1)
  ROOT c = bf16[2,6,6,5] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
})"},
    {"f16_into_f32_nchw", R"(
HloModule m
ENTRY e {
  x = f16[2,3,5,5] parameter(0)
  k = f16[3,3,2,2] parameter(1)
  ROOT c = f32[2,3,4,2] convolution(x, k), window={size=3x2}, dim_labels=bf01_i0o1->b01f
})"},
};

// Small integers, different per argument.
Literal integerArgument(const Shape& shape, int which) {
  Literal lit(shape);
  for (int64_t i = 0; i < lit.elementCount(); ++i) writeFloat(lit, i, static_cast<double>((i * 37 + which * 11) % 7 - 3));
  return lit;
}

// Row-major linear index of `index` in an array of `dims`.
int64_t linearIndex(const std::vector<int64_t>& dims, const std::vector<int64_t>& index) {
  int64_t linear = 0;
  for (size_t d = 0; d < dims.size(); ++d) linear = linear * dims[d] + index[d];
  return linear;
}

// Calls fn(index) for every index of an array of `dims`, row-major.
template <typename Fn>
void forEachIndex(const std::vector<int64_t>& dims, Fn&& fn) {
  for (int64_t d : dims)
    if (d == 0) return;
  std::vector<int64_t> index(dims.size(), 0);
  while (true) {
    fn(index);
    size_t d = dims.size();
    while (d > 0 && ++index[d - 1] == dims[d - 1]) index[--d] = 0;
    if (d == 0) return;
  }
}

// The convolution as XLA's operation semantics define it, one output
// element at a time, summed exactly in double and rounded once into the
// result type. Output feature o belongs to feature group o / (O / G), which
// reads input features [group * I_k, (group + 1) * I_k) with I_k the
// kernel's input features; it also belongs to batch group o / (O / BG),
// which reads input batch bg * B_out + b. Kernel tap k (reversed where
// rhs_reversal says) reads input position s * stride + k * rhs_dilate -
// pad_low of the lhs-dilated input, which holds an element only at
// multiples of lhs_dilate.
Literal convolutionBySemantics(const Instruction& conv, const Literal& x, const Literal& w) {
  const ConvDims& d = conv.attrs().find(AttrKey::kDimLabels)->conv;
  const AttrValue* windowAttr = conv.attrs().find(AttrKey::kWindow);
  std::vector<WindowDim> window = windowAttr ? windowAttr->window : std::vector<WindowDim>(d.inputSpatial.size());
  int64_t groups = conv.attrs().getInt(AttrKey::kFeatureGroupCount, 1);
  int64_t batchGroups = conv.attrs().getInt(AttrKey::kBatchGroupCount, 1);
  const Shape& out = conv.shape();
  int64_t outFeatures = out.dim(static_cast<int>(d.outputFeature));
  int64_t outBatch = out.dim(static_cast<int>(d.outputBatch));
  int64_t kernelIn = w.shape().dim(static_cast<int>(d.kernelInputFeature));
  std::vector<int64_t> taps;
  for (int64_t k : d.kernelSpatial) taps.push_back(w.shape().dim(static_cast<int>(k)));
  Literal result(Shape(out.type(), out.dims()));
  forEachIndex(out.dims(), [&](const std::vector<int64_t>& o) {
    int64_t feature = o[d.outputFeature];
    int64_t group = feature / (outFeatures / groups);
    int64_t batchGroup = feature / (outFeatures / batchGroups);
    double sum = 0;
    forEachIndex(taps, [&](const std::vector<int64_t>& k) {
      std::vector<int64_t> xi(x.shape().rank()), wi(w.shape().rank());
      for (size_t s = 0; s < taps.size(); ++s) {
        const WindowDim& win = window[s];
        int64_t dilated = o[d.outputSpatial[s]] * win.stride + k[s] * win.windowDilation - win.padLow;
        if (dilated < 0 || dilated % win.baseDilation != 0) return;
        int64_t position = dilated / win.baseDilation;
        if (position >= x.shape().dim(static_cast<int>(d.inputSpatial[s]))) return;
        xi[d.inputSpatial[s]] = position;
        wi[d.kernelSpatial[s]] = win.reversal ? taps[s] - 1 - k[s] : k[s];
      }
      xi[d.inputBatch] = batchGroup * outBatch + o[d.outputBatch];
      wi[d.kernelOutputFeature] = feature;
      for (int64_t i = 0; i < kernelIn; ++i) {
        xi[d.inputFeature] = group * kernelIn + i;
        wi[d.kernelInputFeature] = i;
        sum += x.toDouble(linearIndex(x.shape().dims(), xi)) * w.toDouble(linearIndex(w.shape().dims(), wi));
      }
    });
    writeFloat(result, linearIndex(out.dims(), o), sum);
  });
  return result;
}

TEST(ConvolutionBySemantics, HandWorked) {
  // 1-D, one feature, window 2, pad 1 on both sides: x = {1, 2, 3},
  // w = {10, 1}; outputs over the padded {0, 1, 2, 3, 0}: 0*10 + 1*1 = 1,
  // 1*10 + 2 = 12, 2*10 + 3 = 23, 3*10 + 0 = 30.
  auto module = parseModule(R"(
HloModule m
ENTRY e {
  x = f32[1,3,1] parameter(0)
  k = f32[2,1,1] parameter(1)
  ROOT c = f32[1,4,1] convolution(x, k), window={size=2 pad=1_1}, dim_labels=b0f_0io->b0f
})");
  ASSERT_TRUE(module.ok()) << module.status().message();
  Literal x(Shape(ElementType::kF32, {1, 3, 1})), w(Shape(ElementType::kF32, {2, 1, 1}));
  for (int i = 0; i < 3; ++i) writeFloat(x, i, i + 1);
  writeFloat(w, 0, 10);
  writeFloat(w, 1, 1);
  EXPECT_EQ(convolutionBySemantics(*(*module)->entry()->root(), x, w).toString(), "f32[1,4,1] {{{1}, {12}, {23}, {30}}}");
}

struct Variant {
  const char* tiles;  // "avx512", "avx2", or "im2col"
  int threads;
};

class ConvAgainstSemantics : public ::testing::TestWithParam<Variant> {
 protected:
  void TearDown() override { clearConvTilesOverride(); }
};

TEST_P(ConvAgainstSemantics, EveryCaseAgreesExactly) {
  Variant v = GetParam();
  if (std::string(v.tiles) == "im2col") {
    overrideConvTiles(nullptr);
  } else {
    const ConvTileSet* set = convTilesNamed(v.tiles);
    if (!set) GTEST_SKIP() << "this CPU cannot run " << v.tiles;
    overrideConvTiles(set);
  }
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    auto module = parseModule(c.text);
    ASSERT_TRUE(module.ok()) << module.status().message();
    std::vector<Literal> args;
    for (const Instruction* p : (*module)->entry()->parameters())
      args.push_back(integerArgument(p->shape(), static_cast<int>(args.size())));
    Literal expected = convolutionBySemantics(*(*module)->entry()->root(), args[0], args[1]);
    jit::CompileOptions options;
    options.useCache = false;
    auto exe = jit::compile(**module, "cpu", cpu::withCpuOptions(options, cpu::cpuThreads(v.threads)));
    ASSERT_TRUE(exe.ok()) << exe.status().message();
    auto actual = (*exe)->run(args);
    ASSERT_TRUE(actual.ok()) << actual.status().message();
    Comparison cmp = compareLiterals(*actual, expected, Tolerance{});
    EXPECT_TRUE(cmp.equal) << cmp.firstMismatch;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, ConvAgainstSemantics,
                         ::testing::Values(Variant{"avx512", 1}, Variant{"avx512", 3}, Variant{"avx2", 1},
                                           Variant{"avx2", 3}, Variant{"im2col", 1}, Variant{"im2col", 3}),
                         [](const ::testing::TestParamInfo<Variant>& info) {
                           return std::string(info.param.tiles) + "_threads" + std::to_string(info.param.threads);
                         });

}  // namespace
}  // namespace hlo::cpu
