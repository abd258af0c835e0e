// Library op: convolution, with full dimension numbers, window (strides,
// padding, lhs and rhs dilation, reversal), feature groups and batch groups.
// Two algorithms:
//
// Direct tiles (f32 compute, that is f32 and narrower float operands, on a
// CPU with AVX-512 or AVX2: convDirect). Output positions go in tiles of R
// rows, output features in blocks of NV vectors; the tile kernel
// (conv_tiles.h) holds the R x NV sums in registers while it runs over the
// window taps and input features, one broadcast input value per row against
// NV weight vectors. It reads the input in place through a pointer per row
// and tap (padding and dilation holes point at zeros), so no patch matrix
// is built: the window's taps are where the pointers point, and one kernel
// serves every layout and window. On the 3x3, 64 -> 64 feature benchmark
// (bench/jit_bench.cc) it beats both alternatives: im2col with a GEMM per
// 256-row block (patches staying in L2) spends longer in OpenBLAS alone,
// before the 9x patch copy; nine shifted 1x1 GEMMs over the input in place
// ([N*H*W, 64] x [64, 64], beta = 1) each re-read and re-write the whole
// output. Parts:
//   - Operands: the input and the result are used in place when they hold
//     f32 with their features consecutive (or one feature per group); else
//     the input is packed to [batch][spatial...][feature] f32 and the result
//     computed into such a buffer and written back (a pass each, across the
//     pool). Weights are packed once per call to [group][block][tap]
//     [input feature][NV * lanes], zero past the last output feature.
//   - Work items: a run of up to 96 output positions (counted across the
//     output batch, so a batch of one-position images fills the tiles),
//     one group, one feature block, the block and group innermost; the pool
//     hands them out. Each thread works out, once per run of positions,
//     where each position reads at each tap (per-dimension tables, no
//     division), then turns that into pointers once per group.
//   - Runs: a tile's sum is cut into runs of at most kTermsPerRun terms
//     (whole taps while their features fit), each added to the output, so
//     that no f32 running sum grows long.
//   - Depthwise (one input and one output feature per feature group): one
//     feature per tile row would leave 15 of 16 lanes idle, so the groups
//     become the tile's columns instead, each lane multiplying its own
//     group's input by its own weight (the depthwise tiles). The input's
//     features are then read as vectors: packed, in rows padded to whole
//     vectors, unless already f32 with consecutive features and a whole
//     number of vectors of them.
//
// im2col (every other compute type: f64, complex, integers; or a CPU with
// neither instruction set: convIm2col), per output batch ob and group g
// (feature groups split the input features, batch groups the input batch;
// both split the output features into contiguous chunks of Og, as the
// semantics define them):
//   1. Patches: a matrix A[P, W*Ci] with one row per output spatial position
//      o (P of them) holding, for every kernel spatial position w (W of them,
//      row-major) and input feature f of the group, the input element at the
//      padded, lhs-dilated position o*stride + w*rhs_dilation - pad_low — or
//      0 where that falls in the padding or a dilation hole.
//   2. Weights: B[W*Ci, Og], the kernel's window of the group's output
//      features (read at size-1-w where the window is reversed).
//   3. C[P, Og] = A . B (runtime_blas.h: gemm, or a loop for small or integer
//      products), written to the output elements (ob, o, g*Og + j).
// Rows of A are built in blocks of at most kBlockElements, so a large image
// never needs its whole patch matrix at once.
#include <bit>
#include <complex>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

#include "backends/cpu/conv_tiles.h"
#include "backends/cpu/half_runs.h"
#include "backends/cpu/runtime_blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/attributes.h"
#include "hlo/contraction.h"
#include "hlo/float_formats.h"
#include "hlo/indexing.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kBlockElements = int64_t{1} << 22;

struct ConvShape {
  ConvDims dn;
  std::vector<WindowDim> window;
  int64_t groups = 1;          // feature groups or batch groups (one of them is 1)
  bool batchGrouped = false;   // the groups split the input batch
  int64_t ci = 1;              // input features per group (the kernel's input feature size)
  int64_t og = 1;              // output features per group
  int64_t outBatch = 1;
  Compute compute = Compute::kDouble;
};

StatusOr<ConvShape> classify(const Instruction& instr) {
  auto bad = [&](const std::string& why) { return jit::cannotCompile(instr, why); };
  if (instr.operandCount() != 2) return bad("expected an input and a kernel");
  const Shape& in = instr.operand(0)->shape();
  const Shape& kernel = instr.operand(1)->shape();
  const Shape& out = instr.shape();
  if (!in.isArray() || !kernel.isArray() || !out.isArray()) return bad("operands and result must be arrays");
  if (instr.attrs().has(AttrKey::kSparsity) || instr.attrs().has(AttrKey::kSparsityConfig))
    return bad("sparse kernels are not supported");
  StatusOr<ConvolutionPlan> plan = convolutionPlan(instr.attrs(), in, kernel, out);
  if (!plan.ok()) return bad(plan.status().message());
  if (plan->featureGroups > 1 && plan->batchGroups > 1) return bad("feature and batch groups together are not supported");
  ConvShape s;
  s.dn = plan->dn;
  s.window = plan->window;
  s.batchGrouped = plan->batchGroups > 1;
  s.groups = std::max(plan->featureGroups, plan->batchGroups);
  s.ci = plan->inFeaturesPerGroup;
  s.og = plan->outFeatures / s.groups;
  s.outBatch = plan->outBatch;
  ElementType tl = in.type(), tr = kernel.type(), to = out.type();
  if (!isNumeric(tl) || !isNumeric(tr) || !isNumeric(to))
    return bad("element type " + std::string(elementTypeName(to)) + " is not supported");
  s.compute = computeTypeFor(tl, tr, to);
  return s;
}

// ---- direct f32 convolution --------------------------------------------------

// Output positions per work item (a multiple of every tile's row count).
constexpr int64_t kPositionsPerItem = 96;

// Terms a tile sums in registers before adding them to the output, so that
// no f32 running sum grows long: on a 3x3 window over 128 features (1152
// terms) one sum per output strays about 4e-5 from the exact result, sums of
// at most 256 terms about 1.5e-5, less than OpenBLAS's blocked products
// (2.5e-5) and within the harness's f32 tolerance. It costs about 2% here.
constexpr int64_t kTermsPerRun = 256;

// How a tile's sum over taps x input features is cut into runs: `taps`
// window taps by `channels` input features at a time, each run summed in
// registers and then added to the output.
struct RunSplit {
  int64_t taps, channels;
};

RunSplit splitRuns(int64_t taps, int64_t features) {
  const int64_t limit = kTermsPerRun;
  auto balanced = [](int64_t total, int64_t most) {  // near-equal parts of at most `most`
    int64_t parts = (total + most - 1) / most;
    return (total + parts - 1) / parts;
  };
  if (taps * features <= limit) return {std::max<int64_t>(taps, 1), std::max<int64_t>(features, 1)};
  // Whole taps while their features fit: the inner loop over features stays long.
  if (features <= limit) return {balanced(taps, limit / features), features};
  return {1, balanced(features, limit)};
}

// Element i of a float literal as f32 (exact: every narrower float type
// widens exactly): f32 read, bf16 shifted, the other types through a table
// of all their bit patterns.
class F32Reader {
 public:
  explicit F32Reader(const Literal& lit) : lit_(lit) {
    if (lit.type() == ElementType::kF32) f32_ = lit.data<float>();
    else if (lit.type() == ElementType::kBF16) bf16_ = lit.data<uint16_t>();
    else table_ = decodeTable(lit.type()), mask_ = (uint64_t{1} << bitWidth(lit.type())) - 1;
  }
  float operator()(int64_t i) const {
    if (f32_) return f32_[i];
    if (bf16_) return std::bit_cast<float>(uint32_t{bf16_[i]} << 16);
    return table_[lit_.bitsAt(i) & mask_];
  }

 private:
  // Every bit pattern of a float type of at most 16 bits, decoded; built once.
  static const float* decodeTable(ElementType t) {
    static std::mutex mutex;
    static std::map<ElementType, std::vector<float>> tables;
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<float>& table = tables[t];
    if (table.empty()) {
      table.resize(size_t{1} << bitWidth(t));
      for (size_t bits = 0; bits < table.size(); ++bits)
        table[bits] = static_cast<float>(decodeSmallFloat(t, static_cast<uint32_t>(bits)));
    }
    return table.data();
  }

  const Literal& lit_;
  const float* f32_ = nullptr;
  const uint16_t* bf16_ = nullptr;
  const float* table_ = nullptr;
  uint64_t mask_ = 0;
};

// Stores f32 values into a float literal rounded once to its type, as
// writeFloat does: bf16 and f16 by bit arithmetic, the rest through
// encodeSmallFloat.
class F32Writer {
 public:
  explicit F32Writer(Literal& lit) : lit_(lit), type_(lit.type()) {}
  void operator()(int64_t i, float v) const {
    switch (type_) {
      case ElementType::kF32: lit_.data<float>()[i] = v; return;
      case ElementType::kBF16: lit_.data<uint16_t>()[i] = encodeBf16FromF32(v); return;
      case ElementType::kF16: lit_.data<uint16_t>()[i] = encodeF16FromF32(v); return;
      default: lit_.setBitsAt(i, encodeSmallFloat(type_, v));
    }
  }

 private:
  Literal& lit_;
  ElementType type_;
};

// Where the elements of an operand or the result lie, and where they go
// when packed as [batch][spatial...][feature].
struct Placement {
  std::vector<int64_t> dims;           // the literal's dimensions
  std::vector<int64_t> outer;          // its batch, then its spatial dimensions
  int64_t feature;                     // its feature dimension
  std::vector<int64_t> strides;        // each dimension's stride in the literal
  std::vector<int64_t> packedStrides;  // and in packed order
  int64_t rowLength = 0;               // floats per packed row
  int64_t packedSize = 0;              // floats packed

  // Packed rows hold the features rounded up to a multiple of `roundTo`.
  Placement(const Shape& shape, int64_t batchDim, const std::vector<int64_t>& spatialDims, int64_t featureDim,
            int64_t roundTo)
      : dims(shape.dims()), outer{batchDim}, feature(featureDim), strides(rowMajorStrides(dims)),
        packedStrides(dims.size()) {
    outer.insert(outer.end(), spatialDims.begin(), spatialDims.end());
    rowLength = (dims[feature] + roundTo - 1) / roundTo * roundTo;
    int64_t stride = 1;
    packedStrides[feature] = 1;
    for (size_t i = outer.size(); i-- > 0;) {
      stride *= i + 1 == outer.size() ? rowLength : dims[outer[i + 1]];
      packedStrides[outer[i]] = stride;
    }
    packedSize = stride * dims[outer.front()];
  }

  // The literal goes by in lines along its last dimension.
  int64_t lines() const {
    int64_t elements = 1;
    for (int64_t d : dims) elements *= d;
    return dims.back() == 0 ? 0 : elements / dims.back();
  }

  // Calls f(offset, packed) for the elements of lines [begin, end) in the
  // literal's own order (offset counting up), packed being the element's
  // place in packed order: the literal is read or written in sequence and
  // the packed copy scattered (over one batch's worth of it, for NCHW).
  template <typename F>
  void forEachElement(int64_t begin, int64_t end, F&& f) const {
    const size_t last = dims.size() - 1;
    const int64_t length = dims[last], step = packedStrides[last];
    std::vector<int64_t> index(last);
    int64_t packed = 0;
    for (int64_t d = static_cast<int64_t>(last) - 1, q = begin; d >= 0; --d) {
      index[d] = q % dims[d];
      q /= dims[d];
      packed += index[d] * packedStrides[d];
    }
    for (int64_t line = begin; line < end; ++line) {
      for (int64_t i = 0, offset = line * length; i < length; ++i) f(offset + i, packed + i * step);
      for (int64_t d = static_cast<int64_t>(last) - 1; d >= 0; --d) {
        packed += packedStrides[d];
        if (++index[d] < dims[d]) break;
        packed -= dims[d] * packedStrides[d];
        index[d] = 0;
      }
    }
  }

  // Packed rows: one per batch and spatial position.
  int64_t packedRows() const { return rowLength == 0 ? 0 : packedSize / rowLength; }

  // Calls f(offset, packed) for the elements of packed rows [begin, end),
  // each row's features in order: the packed copy goes by in sequence, and
  // the literal is read (or written) a feature apart, its features' cache
  // lines held by the cache from one spatial position to the next. When
  // the feature is not the literal's last dimension (NCHW), this is the
  // order to take: forEachElement's writes (or reads) of the packed copy
  // land a row apart, one cache line each (bf16 [1, 256, 56, 56], 3x3
  // depthwise, before channelsFirst took that layout: 2.3 -> 1.2 ms).
  template <typename F>
  void forEachPackedRow(int64_t begin, int64_t end, F&& f) const {
    const size_t m = outer.size();
    std::vector<int64_t> index(m);
    int64_t offset = 0;
    for (size_t i = m, q = static_cast<size_t>(begin); i-- > 0;) {
      index[i] = static_cast<int64_t>(q) % dims[outer[i]];
      q /= static_cast<size_t>(dims[outer[i]]);
      offset += index[i] * strides[outer[i]];
    }
    const int64_t features = dims[feature], featureStride = strides[feature];
    for (int64_t row = begin; row < end; ++row) {
      for (int64_t c = 0, packed = row * rowLength; c < features; ++c) f(offset + c * featureStride, packed + c);
      for (size_t i = m; i-- > 0;) {
        offset += strides[outer[i]];
        if (++index[i] < dims[outer[i]]) break;
        offset -= dims[outer[i]] * strides[outer[i]];
        index[i] = 0;
      }
    }
  }
};

// Splits [0, n) across the pool when `elements` make it worth it.
void splitAcrossPool(ThreadPool& pool, int64_t n, int64_t elements, const std::function<void(int64_t, int64_t)>& fn) {
  pool.parallelFor(n, elements >= (int64_t{1} << 16) ? pool.workers() + 1 : 1, fn);
}

// Calls f(offset, packed) for every element of `at`'s literal, across the
// pool, in the order that goes through memory in sequence on at least one
// side: the literal's when its features are its last dimension, else the
// packed copy's.
template <typename F>
void forEachAcrossPool(const Placement& at, ThreadPool& pool, int64_t elements, F&& f) {
  if (at.feature + 1 == static_cast<int64_t>(at.dims.size()))
    splitAcrossPool(pool, at.lines(), elements, [&](int64_t begin, int64_t end) { at.forEachElement(begin, end, f); });
  else
    splitAcrossPool(pool, at.packedRows(), elements,
                    [&](int64_t begin, int64_t end) { at.forEachPackedRow(begin, end, f); });
}

// Channels first ([batch][feature][spatial...], NCHW) f32, bf16 or f16:
// each batch's [features, positions] matrix is transposed into packed
// [positions, row] (or back) in vector blocks (transposeTile), a strip of
// positions at a time through a buffer of the element type, converted to
// or from f32 in one loop. Element by element, even in packed order, the
// copies took 70% of a depthwise convolution (bf16 [1, 256, 56, 56], 3x3:
// 1.2 -> 0.42 ms, and 2.3 ms element by element in the literal's order).
// False (nothing done) for other layouts and types.
bool channelsFirst(const Placement& at, ElementType t) {
  if (t != ElementType::kF32 && t != ElementType::kBF16 && t != ElementType::kF16) return false;
  if (at.outer.front() != 0 || at.feature != 1) return false;
  for (size_t i = 1; i < at.outer.size(); ++i)
    if (at.outer[i] != static_cast<int64_t>(i) + 1) return false;
  return true;
}

// The positions of a strip: the buffer of one strip of a half-width type
// stays in the L2 cache.
constexpr int64_t kChannelsFirstStrip = 256;

// Calls f(batch, first position, positions, buffer) for each strip of
// kChannelsFirstStrip positions of each batch of `at` (channels first),
// across the pool; `buffer` is the calling thread's scratch for 2-byte
// elements.
template <typename F>
void forEachStrip(const Placement& at, int64_t elements, ThreadPool& pool, F&& f) {
  const int64_t batch = at.dims[0], positions = at.packedRows() / std::max<int64_t>(batch, 1);
  const int64_t strips = (positions + kChannelsFirstStrip - 1) / kChannelsFirstStrip;
  splitAcrossPool(pool, batch * strips, elements, [&](int64_t begin, int64_t end) {
    std::vector<uint16_t> half;
    for (int64_t w = begin; w < end; ++w) {
      const int64_t n = w / strips, p0 = w % strips * kChannelsFirstStrip;
      f(n, p0, std::min(kChannelsFirstStrip, positions - p0), half);
    }
  });
}

// Packs `lit` (channels first) into `copy` ([batch][positions][row]).
void packChannelsFirst(const Literal& lit, const Placement& at, float* copy, ThreadPool& pool) {
  const int64_t features = at.dims[1], positions = at.packedRows() / std::max<int64_t>(at.dims[0], 1);
  const int bytes = storageBytes(lit.type());
  forEachStrip(at, lit.elementCount(), pool, [&](int64_t n, int64_t p0, int64_t count, std::vector<uint16_t>& half) {
    const uint8_t* from = lit.untypedData() + (n * features * positions + p0) * bytes;
    float* to = copy + (n * positions + p0) * at.rowLength;
    if (lit.type() == ElementType::kF32) return transposeTile(from, to, positions, at.rowLength, count, features, 4);
    half.resize(static_cast<size_t>(count * features));
    transposeTile(from, half.data(), positions, features, count, features, 2);
    for (int64_t p = 0; p < count; ++p) halfRunToF32(lit.type(), &half[p * features], to + p * at.rowLength, features);
  });
}

// Writes `copy` ([batch][positions][row] f32) into `lit` (channels first),
// rounding to its type.
void unpackChannelsFirst(const float* copy, const Placement& at, Literal& lit, ThreadPool& pool) {
  const int64_t features = at.dims[1], positions = at.packedRows() / std::max<int64_t>(at.dims[0], 1);
  const int bytes = storageBytes(lit.type());
  forEachStrip(at, lit.elementCount(), pool, [&](int64_t n, int64_t p0, int64_t count, std::vector<uint16_t>& half) {
    const float* from = copy + (n * positions + p0) * at.rowLength;
    uint8_t* to = lit.untypedData() + (n * features * positions + p0) * bytes;
    if (lit.type() == ElementType::kF32) return transposeTile(from, to, at.rowLength, positions, features, count, 4);
    half.resize(static_cast<size_t>(count * features));
    for (int64_t p = 0; p < count; ++p) f32RunToHalf(lit.type(), from + p * at.rowLength, &half[p * features], features);
    transposeTile(half.data(), to, features, positions, features, count, 2);
  });
}

// An operand or the result as f32 addressed [batch][spatial...][feature].
struct FloatView {
  float* data = nullptr;
  int64_t batchStride = 0, featureStride = 1;
  std::vector<int64_t> spatialStrides;
};

// `lit` in place when it holds f32 whose features are consecutive (or one
// per group, so that none is read after another) with no row padding asked
// for; else `copy`, sized to hold it packed and, when `fill`, filled with
// its elements as f32 (padding zero).
FloatView floatView(const Literal& lit, const Placement& at, bool oneFeature, bool fill, std::vector<float>& copy,
                    ThreadPool& pool) {
  bool inPlace = lit.type() == ElementType::kF32 && (at.strides[at.feature] == 1 || oneFeature) &&
                 at.rowLength == at.dims[at.feature];
  if (!inPlace) {
    copy.resize(static_cast<size_t>(at.packedSize));
    if (fill) {
      if (channelsFirst(at, lit.type())) {
        packChannelsFirst(lit, at, copy.data(), pool);
      } else {
        F32Reader read(lit);
        forEachAcrossPool(at, pool, lit.elementCount(),
                          [&](int64_t offset, int64_t packed) { copy[packed] = read(offset); });
      }
    }
  }
  const std::vector<int64_t>& strides = inPlace ? at.strides : at.packedStrides;
  FloatView v;
  v.data = inPlace ? const_cast<float*>(lit.data<float>()) : copy.data();  // written only when `lit` is the result
  v.batchStride = strides[at.outer.front()];
  v.featureStride = strides[at.feature];
  for (size_t i = 1; i < at.outer.size(); ++i) v.spatialStrides.push_back(strides[at.outer[i]]);
  return v;
}

// Where a direct convolution's output positions read: the window's taps in
// row-major order, and per spatial dimension where each output coordinate
// reads at each window coordinate.
struct WindowReach {
  // Marks a read in the padding or a dilation hole.
  static constexpr int64_t kOutside = -1;

  size_t n = 0;  // spatial dimensions
  std::vector<int64_t> outSizes, windowDims;
  int64_t positions = 1, taps = 1;  // per output image; per window
  std::vector<int64_t> tapIndex;    // tapIndex[t * n + d]: tap t's coordinate in dimension d
  // reach[d][o * windowDims[d] + w]: floats into the input from output
  // coordinate o at window coordinate w, or kOutside.
  std::vector<std::vector<int64_t>> reach;

  WindowReach(const Literal& in, const Literal& out, const ConvShape& s, const FloatView& x) : n(s.dn.inputSpatial.size()) {
    std::vector<int64_t> inSizes(n);
    outSizes.resize(n);
    windowDims.resize(n);
    for (size_t d = 0; d < n; ++d) {
      inSizes[d] = in.shape().dim(static_cast<int>(s.dn.inputSpatial[d]));
      outSizes[d] = out.shape().dim(static_cast<int>(s.dn.outputSpatial[d]));
      windowDims[d] = s.window[d].size;
      positions *= outSizes[d];
      taps *= windowDims[d];
    }
    forEachIndex(windowDims, [&](const std::vector<int64_t>& w, int64_t) { tapIndex.insert(tapIndex.end(), w.begin(), w.end()); });
    reach.resize(n);
    for (size_t d = 0; d < n; ++d) {
      const WindowDim& wd = s.window[d];
      for (int64_t o = 0; o < outSizes[d]; ++o)
        for (int64_t w = 0; w < windowDims[d]; ++w) {
          int64_t pos = o * wd.stride + w * wd.windowDilation - wd.padLow;
          bool inside = pos >= 0 && pos % wd.baseDilation == 0 && pos / wd.baseDilation < inSizes[d] &&
                        in.elementCount() > 0;  // (no input features: every read is of zeros)
          reach[d].push_back(inside ? pos / wd.baseDilation * x.spatialStrides[d] : kOutside);
        }
    }
  }
};

// A direct convolution's weights, per group and block of output features
// (at most maxVectors vectors): [tap][input feature][block width], zero past
// the last feature.
struct BlockedWeights {
  int64_t og = 0;  // output features per group
  int lanes = 0, maxVectors = 0;
  int64_t blockWidth = 0, blocks = 0;
  std::vector<int64_t> blockStart;  // of group g, block b at [g * blocks + b]
  std::vector<float> data;

  // The vectors of block b (the last may be narrower).
  int vectors(int64_t b) const {
    return static_cast<int>(std::min<int64_t>(maxVectors, (og - b * blockWidth + lanes - 1) / lanes));
  }
  const float* block(int64_t g, int64_t b) const { return data.data() + blockStart[g * blocks + b]; }

  BlockedWeights(const Literal& kernel, const ConvShape& s, int64_t groups, int64_t og, const WindowReach& window,
                 const ConvTileSet& tiles, ThreadPool& pool)
      : og(og), lanes(tiles.lanes), maxVectors(tiles.maxVectors) {
    const ConvDims& dn = s.dn;
    const int64_t taps = window.taps;
    blockWidth = int64_t{maxVectors} * lanes;
    blocks = (og + blockWidth - 1) / blockWidth;
    int64_t packed = 0;
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t b = 0; b < blocks; ++b) {
        blockStart.push_back(packed);
        packed += taps * s.ci * vectors(b) * lanes;
      }
    data.assign(static_cast<size_t>(packed), 0.0f);
    std::vector<float> kernelCopy;
    const float* k = kernel.type() == ElementType::kF32 ? kernel.data<float>() : nullptr;
    if (!k) {
      kernelCopy.resize(static_cast<size_t>(kernel.elementCount()));
      F32Reader read(kernel);
      splitAcrossPool(pool, kernel.elementCount(), kernel.elementCount(), [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) kernelCopy[i] = read(i);
      });
      k = kernelCopy.data();
    }
    std::vector<int64_t> kStrides = rowMajorStrides(kernel.shape().dims());
    const int64_t inStride = kStrides[dn.kernelInputFeature], outStride = kStrides[dn.kernelOutputFeature];
    const size_t n = window.n;
    splitAcrossPool(pool, groups * blocks * taps, kernel.elementCount(), [&](int64_t begin, int64_t end) {
      for (int64_t unit = begin; unit < end; ++unit) {
        int64_t t = unit % taps, b = unit / taps % blocks, g = unit / taps / blocks;
        int64_t width = vectors(b) * lanes, used = std::min(width, og - b * blockWidth);
        const float* src = k + (g * og + b * blockWidth) * outStride;
        for (size_t d = 0; d < n; ++d) {
          int64_t w = window.tapIndex[t * n + d];
          src += (s.window[d].reversal ? s.window[d].size - 1 - w : w) * kStrides[dn.kernelSpatial[d]];
        }
        float* dst = data.data() + blockStart[g * blocks + b] + t * s.ci * width;
        for (int64_t c = 0; c < s.ci; ++c, dst += width)
          for (int64_t j = 0; j < used; ++j) dst[j] = src[c * inStride + j * outStride];
      }
    });
  }
};

// What one thread of a direct convolution holds for its current run of
// output positions: per position, its output's offset from the group's
// first output feature and what it reads at each tap, as an offset from the
// group's first input feature (in batch 0 when batch groups split the input
// batch); then the same as pointers, for the current group. Rows past the
// run's last position read zeros and write scratch.
class PositionRun {
 public:
  PositionRun(const WindowReach& window, int64_t rowSlots, int64_t scratchFloats, const float* zeros)
      : window_(window),
        rowSlots_(rowSlots),
        zeros_(zeros),
        outOffsets_(static_cast<size_t>(rowSlots)),
        inOffsets_(static_cast<size_t>(window.taps * rowSlots)),
        scratch_(static_cast<size_t>(scratchFloats)),
        outRows_(static_cast<size_t>(rowSlots), scratch_.data()),
        inRows_(static_cast<size_t>(window.taps * rowSlots), zeros),
        o_(window.n),
        reachOf_(window.n) {}

  // Works out the offsets of positions [first, first + count), counted
  // across the output batch.
  void locate(int64_t first, int64_t count, const FloatView& x, const FloatView& y) {
    const WindowReach& w = window_;
    const size_t n = w.n;
    int64_t ob = first / w.positions;
    for (int64_t p = first % w.positions, d = static_cast<int64_t>(n) - 1; d >= 0; --d) {
      o_[d] = p % w.outSizes[d];
      p /= w.outSizes[d];
    }
    for (int64_t r = 0; r < count; ++r) {
      const int64_t inBatchOffset = ob * x.batchStride;
      int64_t outOffset = ob * y.batchStride;
      for (size_t d = 0; d < n; ++d) {
        outOffset += o_[d] * y.spatialStrides[d];
        reachOf_[d] = w.reach[d].data() + o_[d] * w.windowDims[d];
      }
      outOffsets_[r] = outOffset;
      locateTaps(r, inBatchOffset);
      int64_t d = static_cast<int64_t>(n) - 1;
      for (; d >= 0 && ++o_[d] == w.outSizes[d]; --d) o_[d] = 0;
      if (d < 0) ++ob;  // past the last position of this image: the next one's first
    }
    count_ = count;
  }

  // Turns the offsets into pointers from the group's first input and output.
  void point(const float* inBase, float* outBase) {
    for (int64_t r = 0; r < rowSlots_; ++r) outRows_[r] = r < count_ ? outBase + outOffsets_[r] : scratch_.data();
    for (int64_t t = 0; t < window_.taps; ++t) {
      const int64_t* offsets = inOffsets_.data() + t * rowSlots_;
      const float** rows = inRows_.data() + t * rowSlots_;
      for (int64_t r = 0; r < count_; ++r)
        rows[r] = offsets[r] == WindowReach::kOutside ? zeros_ : inBase + offsets[r];
      for (int64_t r = count_; r < rowSlots_; ++r) rows[r] = zeros_;
    }
  }

  const float** inRows(int64_t tap, int64_t row) { return inRows_.data() + tap * rowSlots_ + row; }
  float** outRows(int64_t row) { return outRows_.data() + row; }

 private:
  // What position r reads at each tap. Taps go by in lines along the last
  // window dimension: the other dimensions' part of the offset once a line.
  void locateTaps(int64_t r, int64_t inBatchOffset) {
    const WindowReach& w = window_;
    const size_t n = w.n;
    constexpr int64_t kOutside = WindowReach::kOutside;
    const int64_t lineTaps = n ? w.windowDims[n - 1] : 1;
    for (int64_t t0 = 0; t0 < w.taps; t0 += lineTaps) {
      int64_t lineOffset = 0;
      for (size_t d = 0; d + 1 < n && lineOffset != kOutside; ++d) {
        int64_t step = reachOf_[d][w.tapIndex[t0 * n + d]];
        lineOffset = step == kOutside ? kOutside : lineOffset + step;
      }
      int64_t* dst = inOffsets_.data() + t0 * rowSlots_ + r;
      if (n == 0 || lineOffset == kOutside) {
        for (int64_t k = 0; k < lineTaps; ++k) dst[k * rowSlots_] = n == 0 ? inBatchOffset : kOutside;
        continue;
      }
      const int64_t* last = reachOf_[n - 1];
      for (int64_t k = 0; k < lineTaps; ++k)
        dst[k * rowSlots_] = last[k] == kOutside ? kOutside : inBatchOffset + lineOffset + last[k];
    }
  }

  const WindowReach& window_;
  const int64_t rowSlots_;
  const float* zeros_;
  int64_t count_ = 0;
  std::vector<int64_t> outOffsets_, inOffsets_;
  std::vector<float> scratch_;
  std::vector<float*> outRows_;
  std::vector<const float*> inRows_;
  std::vector<int64_t> o_;                 // the current position's output coordinates
  std::vector<const int64_t*> reachOf_;    // reach of each of its coordinates
};

// Runs the tiles of one work item: its positions (already pointed at), one
// block of output features, run by run of taps and input features.
void runTiles(PositionRun& run, int64_t count, int64_t g, int64_t b, const BlockedWeights& weights,
              const ConvTileSet& tiles, bool depthwise, int64_t ci, int64_t taps, RunSplit split, int64_t rowSlots) {
  const int nv = weights.vectors(b);
  const int rows = depthwise ? tiles.depthwiseRows : tiles.rows[nv];
  const ConvTileFn tile = depthwise ? tiles.depthwise[nv] : tiles.tile[nv];
  const int64_t width = nv * int64_t{weights.lanes};
  const float* blockWeights = weights.block(g, b);
  ConvTileArgs a;
  a.tapStride = rowSlots;
  a.weightTapStride = ci * width;
  a.column = b * weights.blockWidth;
  a.width = static_cast<int>(std::min(width, weights.og - b * weights.blockWidth));
  for (int64_t t0 = 0; t0 == 0 || t0 < taps; t0 += split.taps)
    for (int64_t c0 = 0; c0 == 0 || c0 < ci; c0 += split.channels) {
      a.taps = std::min(split.taps, taps - t0);
      a.channel = depthwise ? a.column : c0;
      a.channels = std::min(split.channels, ci - c0);
      a.weights = blockWeights + t0 * a.weightTapStride + c0 * width;
      a.accumulate = t0 > 0 || c0 > 0;
      for (int64_t r = 0; r < count; r += rows) {
        a.in = run.inRows(t0, r);
        a.out = run.outRows(r);
        tile(a);
      }
    }
}

Status convDirect(const RuntimeCall& call, const ConvShape& s, const ConvTileSet& tiles) {
  const Literal& in = *call.operands[0];
  const Literal& kernel = *call.operands[1];
  Literal& out = call.result;
  const ConvDims& dn = s.dn;
  const int threads = call.pool.workers() + 1;

  // Depthwise (one input and one output feature per feature group): seen
  // as one group whose output features are the groups, with the depthwise
  // tiles, which read each group's input as a vector element. The input's
  // features must then be consecutive, in rows padded to whole vectors.
  const bool depthwise = s.ci == 1 && s.og == 1 && s.groups > 1 && !s.batchGrouped;
  const int64_t groups = depthwise ? 1 : s.groups, og = depthwise ? s.groups : s.og;

  // 1. The operands in place, or packed.
  Placement inAt(in.shape(), dn.inputBatch, dn.inputSpatial, dn.inputFeature, depthwise ? tiles.lanes : 1);
  Placement outAt(out.shape(), dn.outputBatch, dn.outputSpatial, dn.outputFeature, 1);
  std::vector<float> inCopy, outCopy;
  FloatView x = floatView(in, inAt, s.ci == 1 && !depthwise, true, inCopy, call.pool);
  FloatView y = floatView(out, outAt, og == 1, false, outCopy, call.pool);

  // 2. Where the window reads, and the weights in blocks.
  const WindowReach window(in, out, s, x);
  const BlockedWeights weights(kernel, s, groups, og, window, tiles, call.pool);
  const int64_t blocks = weights.blocks;

  // 3. Work items: (run of output positions, group, feature block) in that
  // nesting, so that neighbouring items share their positions (what each
  // reads at each tap is worked out once per thread and run) and input. The
  // positions are counted across the output batch ([batch][spatial...]), so
  // that a batch of images of few positions each (a dot written as a 1x1
  // convolution: many images of one position) still fills the tiles' rows.
  const int64_t allPositions = s.outBatch * window.positions;
  int64_t perItem = std::min(kPositionsPerItem, allPositions);
  auto itemCount = [&] { return (allPositions + perItem - 1) / perItem * groups * blocks; };
  while (perItem > kPositionsPerItem / 4 && itemCount() < 8 * threads) perItem = (perItem + 1) / 2;
  const int64_t items = itemCount();
  int maxRows = tiles.depthwiseRows;
  for (int v = 1; v <= tiles.maxVectors; ++v) maxRows = std::max(maxRows, tiles.rows[v]);
  const int64_t rowSlots = perItem + maxRows;
  std::vector<float> zeros(static_cast<size_t>(std::max(s.ci, depthwise ? blocks * weights.blockWidth : 1)), 0.0f);
  const RunSplit split = splitRuns(window.taps, s.ci);

  call.pool.parallelFor(items, static_cast<int>(std::min<int64_t>(items, 8 * threads)), [&](int64_t begin, int64_t end) {
    PositionRun run(window, rowSlots, blocks * weights.blockWidth, zeros.data());
    int64_t locatedFor = -1, pointedFor = -1;  // the run and (run, group) it holds
    for (int64_t item = begin; item < end; ++item) {
      const int64_t b = item % blocks, g = item / blocks % groups, r = item / blocks / groups;
      const int64_t first = r * perItem, count = std::min(perItem, allPositions - first);
      if (r != locatedFor) {
        run.locate(first, count, x, y);
        locatedFor = r;
        pointedFor = -1;
      }
      if (item / blocks != pointedFor) {
        // Batch groups: group g reads input images g * outBatch onwards.
        run.point(x.data + (s.batchGrouped ? g * s.outBatch * x.batchStride : g * s.ci * x.featureStride),
                  y.data + g * og * y.featureStride);
        pointedFor = item / blocks;
      }
      runTiles(run, count, g, b, weights, tiles, depthwise, s.ci, window.taps, split, rowSlots);
    }
  });

  // 4. From [batch][spatial...][feature] f32 to the result's layout and type.
  if (!outCopy.empty()) {
    if (channelsFirst(outAt, out.type())) {
      unpackChannelsFirst(outCopy.data(), outAt, out, call.pool);
    } else {
      F32Writer write(out);
      forEachAcrossPool(outAt, call.pool, out.elementCount(),
                        [&](int64_t offset, int64_t packed) { write(offset, outCopy[packed]); });
    }
  }
  return okStatus();
}

// ---- im2col through OpenBLAS ---------------------------------------------------

template <typename T>
Status convIm2col(const RuntimeCall& call, const ConvShape& s) {
  const Literal& in = *call.operands[0];
  const Literal& kernel = *call.operands[1];
  Literal& out = call.result;
  const ConvDims& dn = s.dn;
  size_t n = dn.inputSpatial.size();
  std::vector<int64_t> inStrides = rowMajorStrides(in.shape().dims());
  std::vector<int64_t> kStrides = rowMajorStrides(kernel.shape().dims());
  std::vector<int64_t> outStrides = rowMajorStrides(out.shape().dims());

  // The input in the compute type (f32 read in place).
  std::vector<T> inCopy;
  const T* x = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    if (in.type() == ElementType::kF32) x = in.data<float>();
  }
  if (!x) {
    inCopy.resize(static_cast<size_t>(in.elementCount()));
    for (int64_t i = 0; i < in.elementCount(); ++i) inCopy[i] = readAs<T>(in, i);
    x = inCopy.data();
  }

  std::vector<int64_t> windowDims(n), outSpatialDims(n);
  int64_t windowCount = 1, positions = 1;
  for (size_t i = 0; i < n; ++i) {
    windowDims[i] = s.window[i].size;
    outSpatialDims[i] = out.shape().dim(static_cast<int>(dn.outputSpatial[i]));
    windowCount *= windowDims[i];
    positions *= outSpatialDims[i];
  }
  int64_t cols = windowCount * s.ci;
  // Every window position as a multi-index, once.
  std::vector<std::vector<int64_t>> windowIndex;
  forEachIndex(windowDims, [&](const std::vector<int64_t>& w, int64_t) { windowIndex.push_back(w); });
  std::vector<std::vector<int64_t>> outIndex;
  forEachIndex(outSpatialDims, [&](const std::vector<int64_t>& o, int64_t) { outIndex.push_back(o); });

  int threads = call.pool.workers() + 1;
  int64_t blockRows = std::max<int64_t>(1, std::min<int64_t>(positions, kBlockElements / std::max<int64_t>(cols, 1)));
  std::vector<T> b(static_cast<size_t>(cols * s.og));
  std::vector<T> a(static_cast<size_t>(blockRows * cols));
  std::vector<T> c(static_cast<size_t>(blockRows * s.og));
  ResultWriter writer(out, in, kernel);

  for (int64_t g = 0; g < s.groups; ++g) {
    // 2. Weights of this group.
    for (int64_t wi = 0; wi < windowCount; ++wi)
      for (int64_t f = 0; f < s.ci; ++f)
        for (int64_t j = 0; j < s.og; ++j) {
          int64_t offset = f * kStrides[dn.kernelInputFeature] + (g * s.og + j) * kStrides[dn.kernelOutputFeature];
          for (size_t d = 0; d < n; ++d) {
            int64_t w = windowIndex[wi][d];
            offset += (s.window[d].reversal ? s.window[d].size - 1 - w : w) * kStrides[dn.kernelSpatial[d]];
          }
          b[(wi * s.ci + f) * s.og + j] = readAs<T>(kernel, offset);
        }
    int64_t featureBase = s.batchGrouped ? 0 : g * s.ci;
    for (int64_t ob = 0; ob < s.outBatch; ++ob) {
      int64_t ib = (s.batchGrouped ? g * s.outBatch : 0) + ob;
      int64_t inBase = ib * inStrides[dn.inputBatch] + featureBase * inStrides[dn.inputFeature];
      for (int64_t p0 = 0; p0 < positions; p0 += blockRows) {
        int64_t rows = std::min(blockRows, positions - p0);
        // 1. Patches, rows split across the pool.
        call.pool.parallelFor(rows, rows * cols >= (int64_t{1} << 16) ? threads : 1, [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const std::vector<int64_t>& o = outIndex[p0 + r];
            T* row = a.data() + r * cols;
            for (int64_t wi = 0; wi < windowCount; ++wi) {
              T* cell = row + wi * s.ci;
              int64_t offset = inBase;
              bool inside = true;
              for (size_t d = 0; d < n && inside; ++d) {
                const WindowDim& wd = s.window[d];
                int64_t pos = o[d] * wd.stride + windowIndex[wi][d] * wd.windowDilation - wd.padLow;
                int64_t size = in.shape().dim(static_cast<int>(dn.inputSpatial[d]));
                if (pos < 0 || pos % wd.baseDilation != 0 || pos / wd.baseDilation >= size) inside = false;
                else offset += pos / wd.baseDilation * inStrides[dn.inputSpatial[d]];
              }
              if (!inside) {
                std::fill(cell, cell + s.ci, T{});
                continue;
              }
              int64_t fs = inStrides[dn.inputFeature];
              for (int64_t f = 0; f < s.ci; ++f) cell[f] = x[offset + f * fs];
            }
          }
        });
        // 3. The product and its output elements.
        matmul<T>(false, false, rows, s.og, cols, a.data(), b.data(), c.data(), threads);
        for (int64_t r = 0; r < rows; ++r) {
          const std::vector<int64_t>& o = outIndex[p0 + r];
          int64_t offset = ob * outStrides[dn.outputBatch] + g * s.og * outStrides[dn.outputFeature];
          for (size_t d = 0; d < n; ++d) offset += o[d] * outStrides[dn.outputSpatial[d]];
          int64_t fs = outStrides[dn.outputFeature];
          for (int64_t j = 0; j < s.og; ++j) writer.write(offset + j * fs, c[r * s.og + j]);
        }
      }
    }
  }
  return okStatus();
}

Status runConv(const RuntimeCall& call) {
  HLO_ASSIGN_OR_RETURN(ConvShape s, classify(call.instr));
  if (call.result.elementCount() == 0) return okStatus();
  if (s.compute == Compute::kFloat)
    if (const ConvTileSet* tiles = convTilesForThisCpu()) return convDirect(call, s, *tiles);
  return withComputeType(s.compute, [&](auto t) { return convIm2col<decltype(t)>(call, s); });
}

}  // namespace

Status productByConvTiles(const RuntimeCall& call, bool lhsTransposed, bool rhsTransposed) {
  const ConvTileSet* tiles = convTilesForThisCpu();
  if (!tiles) return errorStatus("cpu: internal error: no convolution tiles for this CPU");
  const Shape& lhs = call.operands[0]->shape();
  const Shape& rhs = call.operands[1]->shape();
  // lhs [M, K]: M images of K input features and no spatial dimensions;
  // rhs [K, N]: the kernel, K input by N output features.
  ConvShape s;
  s.dn.inputBatch = lhsTransposed ? 1 : 0;
  s.dn.inputFeature = 1 - s.dn.inputBatch;
  s.dn.kernelInputFeature = rhsTransposed ? 1 : 0;
  s.dn.kernelOutputFeature = 1 - s.dn.kernelInputFeature;
  s.dn.outputBatch = 0;
  s.dn.outputFeature = 1;
  s.ci = lhs.dim(static_cast<int>(s.dn.inputFeature));
  s.og = rhs.dim(static_cast<int>(s.dn.kernelOutputFeature));
  s.outBatch = lhs.dim(static_cast<int>(s.dn.inputBatch));
  s.compute = Compute::kFloat;
  return convDirect(call, s, *tiles);
}

StatusOr<RuntimePlan> planConvolution(HelperModule&, const Instruction& instr, const std::string&) {
  HLO_RETURN_IF_ERROR(classify(instr).status());
  return RuntimePlan{runConv, {}};
}

}  // namespace hlo::cpu
