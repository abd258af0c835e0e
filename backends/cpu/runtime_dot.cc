// Library op: dot, through OpenBLAS for floats and complex (or our own
// kernels for skinny or, where they outrun the library, large f32
// products), and a plain wrapping loop for integers.
//
// Algorithm:
//   1. Classify the operand dimensions (hlo/contraction.h's dotDims, as the
//      interpreter does): the result is a [B, M, N] matrix stack.
//   2. Pick the compute type from the operand and result types
//      (computeTypeFor in runtime_blas.h: float, double, complex or uint64).
//   3. f32/f64 operands already laid out as [B, M, K] or [B, K, M] (resp.
//      [B, K, N] or [B, N, K]) go to gemm in place with the transpose flag;
//      anything else is packed into a contiguous [B, M, K] / [B, K, N] buffer
//      of the compute type. An f32 result is written by gemm directly.
//      Float products skip the packed copy of a large operand: at most
//      kSkinnyRows rows (or columns) by a wide operand go through the skinny
//      kernel (skinny_dot.h), slab by slab when the wide operand has free
//      dimensions on both sides of its contracting ones (wideLayout), and a
//      large operand stored as bf16 or f16 is converted and multiplied a
//      block at a time (kBlockBytes).
//      A product of two f32 matrices with at least kTiledRows rows goes
//      through the direct convolution's tiles instead when OpenBLAS's
//      kernels use narrower vectors than those (tiledProduct).
//   4. Small products run as a plain loop instead (runtime_blas.h): the
//      library's setup costs more than the arithmetic there. The smallest
//      (jit::emitsDot, kElementDotProducts) are not library calls at all: a kernel computes them.
//   5. Results are written into the result type (ResultWriter, which also
//      rounds a float dot with an integer result as XLA reads it).
#include <algorithm>
#include <cctype>
#include <complex>
#include <optional>
#include <vector>

#include "backends/cpu/conv_tiles.h"
#include "backends/cpu/runtime_blas.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/skinny_dot.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/contraction.h"
#include "hlo/indexing.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

struct DotShape {
  DotDims dims;  // hlo/contraction.h
  Compute compute = Compute::kDouble;
};

StatusOr<DotShape> classify(const Instruction& instr) {
  if (instr.operandCount() != 2) return jit::cannotCompile(instr, "expected two operands");
  const Shape& lhs = instr.operand(0)->shape();
  const Shape& rhs = instr.operand(1)->shape();
  const Shape& out = instr.shape();
  if (!lhs.isArray() || !rhs.isArray() || !out.isArray())
    return jit::cannotCompile(instr, "operands and result must be arrays");
  if (instr.attrs().has(AttrKey::kSparsity)) return jit::cannotCompile(instr, "sparse operands are not supported");
  StatusOr<DotDims> dims = dotDims(instr.attrs(), lhs, rhs);
  if (!dims.ok()) return jit::cannotCompile(instr, dims.status().message());
  DotShape s{std::move(dims).value()};
  if (out.elementCount() != s.dims.batch * s.dims.m * s.dims.n)
    return jit::cannotCompile(instr, "the result shape does not match the operands");
  if (!isNumeric(lhs.type()) || !isNumeric(rhs.type()) || !isNumeric(out.type()))
    return jit::cannotCompile(instr, "element type " + std::string(elementTypeName(out.type())) + " is not supported");
  s.compute = computeTypeFor(lhs.type(), rhs.type(), out.type());
  return s;
}

// perm with its `first` entries after the `batch` leading ones moved to the
// end: batch+free+contracting -> batch+contracting+free, and back.
std::vector<int64_t> swapGroups(const std::vector<int64_t>& perm, size_t batch, size_t first) {
  std::vector<int64_t> out(perm.begin(), perm.begin() + batch);
  out.insert(out.end(), perm.begin() + batch + first, perm.end());
  out.insert(out.end(), perm.begin() + batch, perm.begin() + batch + first);
  return out;
}

// One operand as gemm wants it: a pointer to [B, rows, cols] data, or to
// the transposed [B, cols, rows], and whether it was transposed. Its rows
// are `ld` elements apart (0: contiguous, rows of cols or of rows
// elements), and its matrices `batchStride` elements apart (0: one after
// the other).
template <typename T>
struct GemmOperand {
  std::vector<T> packed;
  const T* data = nullptr;
  bool transposed = false;
  int64_t ld = 0, batchStride = 0;
};

// A group of dimensions (batch, rows or cols) of an operand stored so that
// one stride walks it: its dimensions of more than one element lie in its
// order, each `size` of the next's apart. nullopt when they do not.
struct GroupStride {
  int64_t size = 1, stride = 0;
};
std::optional<GroupStride> groupStride(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                                       const std::vector<int64_t>& group) {
  GroupStride g;
  int64_t previous = -1;
  for (int64_t d : group) {
    if (dims[d] == 1) continue;
    if (previous >= 0 && strides[previous] != strides[d] * dims[d]) return std::nullopt;
    previous = d;
    g.size *= dims[d];
    g.stride = strides[d];
  }
  return g;
}

// `lit` read where it is, as [B, R, C] matrices with rows ld apart (or the
// transposed [B, C, R]), when its dimensions allow it: each group walked by
// one stride, and the rows or the columns contiguous. An attention's keys
// [batch, length, heads, head] multiplied per (batch, head) are such
// matrices, their rows heads * head apart.
template <typename T>
std::optional<GemmOperand<T>> stridedOperand(const Literal& lit, const std::vector<int64_t>& perm, size_t batch,
                                             size_t rows) {
  const std::vector<int64_t>& dims = lit.shape().dims();
  const std::vector<int64_t> strides = rowMajorStrides(dims);
  auto part = [&](size_t from, size_t to) { return std::vector<int64_t>(perm.begin() + from, perm.begin() + to); };
  std::optional<GroupStride> b = groupStride(dims, strides, part(0, batch));
  std::optional<GroupStride> r = groupStride(dims, strides, part(batch, batch + rows));
  std::optional<GroupStride> c = groupStride(dims, strides, part(batch + rows, perm.size()));
  if (!b || !r || !c) return std::nullopt;
  GemmOperand<T> op;
  op.data = lit.data<T>();
  op.batchStride = b->size > 1 ? b->stride : 0;
  if (c->size <= 1 || c->stride == 1) {
    op.ld = r->size > 1 ? r->stride : std::max<int64_t>(c->size, 1);
    if (op.ld < c->size) return std::nullopt;
  } else if (r->size <= 1 || r->stride == 1) {
    op.transposed = true;
    op.ld = c->stride;
    if (op.ld < r->size) return std::nullopt;
  } else {
    return std::nullopt;
  }
  return op;
}

// `lit`'s dims in `perm` order form [B, R, C] where the first `batch` perm
// entries are B and the next `rows` are R. When its own order is [B, R, C]
// or [B, C, R], gemm reads it in that order: in place, or converted to T in
// storage order (one plain loop, where a permuted copy would walk the
// indices); with `strided`, also in place when stridedOperand reads it;
// otherwise it is packed into [B, R, C].
template <typename T>
GemmOperand<T> gemmOperand(const Literal& lit, const std::vector<int64_t>& perm, size_t batch, size_t rows,
                           ElementType native, bool strided = false) {
  GemmOperand<T> op;
  bool inOrder = isIota(perm);
  op.transposed = !inOrder && isIota(swapGroups(perm, batch, rows));
  if (lit.type() == native && (inOrder || op.transposed)) {
    op.data = lit.data<T>();
    return op;
  }
  if (strided && lit.type() == native)
    if (std::optional<GemmOperand<T>> view = stridedOperand<T>(lit, perm, batch, rows)) return std::move(*view);
  op.packed.resize(static_cast<size_t>(lit.elementCount()));
  if (op.transposed) convertAll(lit, op.packed.data());
  else pack(lit, perm, op.packed.data());
  op.data = op.packed.data();
  return op;
}

// c[B, M, N] = a[B, M, K] . b[B, K, N], either operand transposed per its flag.
template <typename T>
void batchedProduct(const DotDims& s, const GemmOperand<T>& a, const GemmOperand<T>& b, T* c, ThreadPool& pool) {
  const int threads = pool.workers() + 1;
  const int64_t aStride = a.batchStride ? a.batchStride : s.m * s.k, bStride = b.batchStride ? b.batchStride : s.k * s.n;
  auto product = [&](int64_t bi, int productThreads) {
    matmul<T>(a.transposed, b.transposed, s.m, s.n, s.k, a.data + bi * aStride, b.data + bi * bStride,
              c + bi * s.m * s.n, productThreads, a.ld, b.ld);
  };
  // Products of at most kSmallBatchedProduct multiply-adds run side by side,
  // one thread each: OpenBLAS's own threads cost more than such a product
  // (starting, waiting, yielding). An attention block's 12 bf16 products
  // of [128, 64] x [64, 128], with the conversions and writing the bf16
  // result in one loop (ResultWriter::writeAll): 467 -> 285 us on two cores.
  constexpr int64_t kSmallBatchedProduct = int64_t{1} << 24;
  // Fewer than kThreadedProducts multiply-adds in all run on this thread:
  // waking the pool's threads costs more.
  constexpr int64_t kThreadedProducts = int64_t{1} << 18;
  if (s.batch * s.m * s.n * s.k < kThreadedProducts) {
    for (int64_t bi = 0; bi < s.batch; ++bi) product(bi, 1);
    return;
  }
  if (s.batch >= 2 && threads > 1 && s.m * s.n * s.k <= kSmallBatchedProduct) {
    if (const Blas* lib = blas()) lib->setThreads(1);
    pool.parallelFor(s.batch, static_cast<int>(std::min<int64_t>(s.batch, threads)), [&](int64_t begin, int64_t end) {
      for (int64_t bi = begin; bi < end; ++bi) product(bi, 0);
    });
    return;
  }
  for (int64_t bi = 0; bi < s.batch; ++bi) product(bi, threads);
}

// An operand stored in another type than the float gemm multiplies (bf16,
// f16: a model's weights) and larger than kBlockBytes once converted is not
// converted whole: gemm runs on blocks of its free dimension (columns of b,
// or rows of a), each converted, by every thread, into a buffer that stays
// in the cache. A language model's step multiplies a few rows by each of its
// weights this way, with no converted copy of the weight in memory.
constexpr int64_t kBlockBytes = int64_t{4} << 20;

// c[B, M, N] = a . b with `blocked` (0: a, 1: b) converted block by block,
// the other operand as gemmOperand gives it. `blocked` is stored as
// [B, F, K] (free-major) or [B, K, F] (F its free extent, K the contracted).
void productByBlocks(const RuntimeCall& call, const DotDims& d, const Literal& blocked, int side, bool freeMajor,
                     const GemmOperand<float>& other, float* c) {
  const int64_t f = side == 0 ? d.m : d.n, k = d.k;
  const int64_t step = std::max<int64_t>(1, kBlockBytes / (4 * std::max<int64_t>(k, 1)));
  const int threads = call.pool.workers() + 1;
  std::vector<float> buffer(static_cast<size_t>(std::min(f, step) * k));
  std::vector<float> product(side == 1 ? static_cast<size_t>(d.m * std::min(f, step)) : 0);
  withReader<float>(blocked, [&](auto read) {
    for (int64_t bi = 0; bi < d.batch; ++bi) {
      const int64_t base = bi * f * k;
      const float* o = other.data + bi * (side == 0 ? k * d.n : d.m * k);
      for (int64_t f0 = 0; f0 < f; f0 += step) {
        const int64_t fb = std::min(step, f - f0);
        // The block: [fb, K] rows of a free-major operand, else [K, fb].
        int64_t lines = freeMajor ? fb : k, width = freeMajor ? k : fb;
        int chunks = static_cast<int>(std::min<int64_t>(lines, fb * k >= (int64_t{1} << 16) ? threads : 1));
        call.pool.parallelFor(lines, chunks, [&](int64_t begin, int64_t end) {
          for (int64_t l = begin; l < end; ++l) {
            int64_t from = freeMajor ? base + (f0 + l) * k : base + l * f + f0;
            float* to = buffer.data() + l * width;
            for (int64_t j = 0; j < width; ++j) to[j] = read(from + j);
          }
        });
        if (side == 0) {
          // Rows f0.. of the result: contiguous in c.
          matmul<float>(!freeMajor, other.transposed, fb, d.n, k, buffer.data(), o, c + bi * d.m * d.n + f0 * d.n,
                        threads);
        } else {
          matmul<float>(other.transposed, freeMajor, d.m, fb, k, o, buffer.data(), product.data(), threads);
          for (int64_t i = 0; i < d.m; ++i)
            std::copy(product.data() + i * fb, product.data() + (i + 1) * fb, c + bi * d.m * d.n + i * d.n + f0);
        }
      }
    }
  });
}

// How `x` (operand `side`: 0 lhs, 1 rhs) is stored: [B, free, K]
// (free-major), [B, K, free], or neither (nullopt).
std::optional<bool> freeMajorOrder(const DotDims& d, int side, size_t batch, size_t contracting) {
  const std::vector<int64_t>& perm = side == 0 ? d.lhsPerm : d.rhsPerm;
  size_t free = side == 0 ? d.lhsFree.size() : perm.size() - batch - contracting;
  std::vector<int64_t> freeFirst = side == 0 ? perm : swapGroups(perm, batch, contracting);
  if (isIota(freeFirst)) return true;
  if (isIota(swapGroups(freeFirst, batch, free))) return false;
  return std::nullopt;
}

// How the wide operand of a skinny product is laid out. Leaving out
// dimensions of size 1, it must be stored [B, F_outer, K, F_inner]: its
// batch dimensions first in their listed order, then free dimensions, all of
// its contracting dimensions side by side (in any order), then free
// dimensions again. Its free dimensions are then in increasing order, as the
// result numbers its columns, and the operand is `outer` contracting-major
// [K, inner] slabs one after the other: with inner == 1, one free-major
// [outer, K] matrix. An attention projection's weight [heads, model, head]
// contracted along `model` is 'heads' slabs. `contractingOrder` lists the
// positions in the attribute's list of the contracting dimensions in storage
// order, which the other operand's contracting dimensions are packed in.
struct WideLayout {
  int64_t outer = 1, inner = 1;
  std::vector<size_t> contractingOrder;
};

std::optional<WideLayout> wideLayout(const Shape& shape, const std::vector<int64_t>& batchDims,
                                     const std::vector<int64_t>& contractingDims) {
  auto among = [](const std::vector<int64_t>& dims, int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  std::vector<int64_t> batch;  // the batch dimensions of more than 1 element, in listed order
  for (int64_t d : batchDims)
    if (shape.dim(static_cast<int>(d)) > 1) batch.push_back(d);
  WideLayout w;
  size_t batchSeen = 0;
  enum { kBatch, kOuter, kContracting, kInner } part = kBatch;
  for (int d = 0; d < shape.rank(); ++d) {
    const int64_t size = shape.dim(d);
    if (size == 1) continue;
    if (among(batchDims, d)) {
      if (part != kBatch || batch[batchSeen++] != d) return std::nullopt;
    } else if (among(contractingDims, d)) {
      if (part == kInner) return std::nullopt;
      part = kContracting;
    } else if (part == kContracting || part == kInner) {
      part = kInner;
      w.inner *= size;
    } else {
      part = kOuter;
      w.outer *= size;
    }
  }
  for (size_t i = 0; i < contractingDims.size(); ++i) w.contractingOrder.push_back(i);
  std::sort(w.contractingOrder.begin(), w.contractingOrder.end(),
            [&](size_t x, size_t y) { return contractingDims[x] < contractingDims[y]; });
  return w;
}

// A product of at most kSkinnyRows rows (or columns) by a wide operand of
// f32, bf16 or f16 laid out as wideLayout says, through the skinny kernel
// (skinny_dot.h): slab by slab, their columns split across the threads;
// false when the dot is not of that form.
bool skinnyProduct(const RuntimeCall& call, const DotDims& d, float* c) {
  SkinnyDotFn fn = skinnyDotForThisCpu();
  if (!fn || d.k == 0) return false;
  const Attributes& attrs = call.instr.attrs();
  for (int wide = 1; wide >= 0; --wide) {
    int64_t rows = wide == 1 ? d.m : d.n, extent = wide == 1 ? d.n : d.m;
    if (rows > kSkinnyRows || extent * d.k < (int64_t{1} << 16)) continue;
    const Literal& w = *call.operands[wide];
    std::optional<WideType> type = w.type() == ElementType::kF32    ? std::optional(WideType::kF32)
                                   : w.type() == ElementType::kBF16 ? std::optional(WideType::kBF16)
                                   : w.type() == ElementType::kF16  ? std::optional(WideType::kF16)
                                                                    : std::nullopt;
    const AttrKey wideBatch = wide == 1 ? AttrKey::kRhsBatchDims : AttrKey::kLhsBatchDims;
    const AttrKey wideContracting = wide == 1 ? AttrKey::kRhsContractingDims : AttrKey::kLhsContractingDims;
    std::optional<WideLayout> layout = wideLayout(w.shape(), attrs.getInts(wideBatch), attrs.getInts(wideContracting));
    if (!type || !layout) continue;
    // The other operand as f32 [B, rows, K], its contracting dimensions in
    // the wide one's storage order.
    const std::vector<int64_t>& otherContracting =
        attrs.getInts(wide == 1 ? AttrKey::kLhsContractingDims : AttrKey::kRhsContractingDims);
    std::vector<int64_t> perm = attrs.getInts(wide == 1 ? AttrKey::kLhsBatchDims : AttrKey::kRhsBatchDims);
    const std::vector<int64_t>& otherFree = wide == 1 ? d.lhsFree : d.rhsFree;
    perm.insert(perm.end(), otherFree.begin(), otherFree.end());
    for (size_t i : layout->contractingOrder) perm.push_back(otherContracting[i]);
    std::vector<float> a(static_cast<size_t>(d.batch * rows * d.k));
    pack(*call.operands[1 - wide], perm, a.data());
    // Slabs of `columns` columns of c, each cut into units of work.
    const bool freeMajor = layout->inner == 1;
    const int64_t slabs = freeMajor ? 1 : layout->outer, columns = freeMajor ? extent : layout->inner;
    const int64_t bytes = storageBytes(w.type());
    const int64_t cRow = wide == 1 ? d.n : 1, cCol = wide == 1 ? 1 : d.n;
    constexpr int64_t kColumns = 64;  // columns per unit of work
    const int64_t unitsPerSlab = (columns + kColumns - 1) / kColumns, units = slabs * unitsPerSlab;
    const int threads = call.pool.workers() + 1;
    for (int64_t bi = 0; bi < d.batch; ++bi) {
      int chunks = static_cast<int>(std::min<int64_t>(units, extent * d.k >= (int64_t{1} << 18) ? 4 * threads : 1));
      call.pool.parallelFor(units, chunks, [&](int64_t begin, int64_t end) {
        // One call for the units of each slab in [begin, end).
        for (int64_t u = begin; u < end;) {
          const int64_t slab = u / unitsPerSlab, last = std::min(end, (slab + 1) * unitsPerSlab);
          SkinnyDotArgs args{a.data() + bi * rows * d.k, rows,
                             w.untypedData() + (bi * extent + slab * columns) * d.k * bytes, *type, freeMajor, d.k,
                             columns, c + bi * d.m * d.n + slab * columns * cCol, cRow, cCol};
          fn(args, (u - slab * unitsPerSlab) * kColumns, std::min((last - slab * unitsPerSlab) * kColumns, columns));
          u = last;
        }
      });
    }
    return true;
  }
  return false;
}

// The product by blocks when one operand is stored in another type than
// f32 and is larger than kBlockBytes as f32 (the rhs first); false when
// neither is.
bool blockedProduct(const RuntimeCall& call, const DotDims& d, size_t batch, size_t contracting, float* c) {
  for (int side = 1; side >= 0; --side) {
    const Literal& x = *call.operands[side];
    int64_t extent = side == 0 ? d.m : d.n;
    if (x.type() == ElementType::kF32 || extent * d.k * 4 <= kBlockBytes) continue;
    std::optional<bool> freeMajor = freeMajorOrder(d, side, batch, contracting);
    if (!freeMajor) continue;
    const Literal& lhs = *call.operands[0];
    const Literal& rhs = *call.operands[1];
    GemmOperand<float> other = side == 0 ? gemmOperand<float>(rhs, d.rhsPerm, batch, contracting, ElementType::kF32)
                                         : gemmOperand<float>(lhs, d.lhsPerm, batch, d.lhsFree.size(), ElementType::kF32);
    productByBlocks(call, d, x, side, *freeMajor, other, c);
    return true;
  }
  return false;
}

// Large f32 products go through the convolution tiles (conv_tiles.h, as
// M one-position images by a 1x1 kernel) instead of OpenBLAS when
// OpenBLAS's kernels use narrower vectors than the tiles: it picks its
// kernels by CPU model or OPENBLAS_CORETYPE, and its 256-bit ones (Haswell,
// Zen) on a CPU with AVX-512 do half the multiply-adds per instruction. On
// [1024, 1024] x [1024, 1024], 2 cores with AVX-512: the tiles 4.9 ms,
// OpenBLAS's Haswell kernels 9.0 ms, its SkylakeX kernels 4.9 ms. The tiles
// pack the rhs on every call, which fewer than kTiledRows rows do not pay
// back (64 x 4096 x 4096: 14.3 ms against Haswell's 10.5).
constexpr int64_t kTiledRows = 256;

// The vector width of OpenBLAS's kernels, from their name.
int blasVectorBits(std::string core) {
  for (char& ch : core) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* name : {"skylakex", "cooperlake", "sapphirerapids"})
    if (core == name) return 512;
  for (const char* name : {"haswell", "zen", "sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"})
    if (core == name) return 256;
  return 128;
}

std::optional<bool> tilesOverride;  // for tests (forceDotTiles)

bool tilesOutrunBlas() {
  if (tilesOverride) return *tilesOverride && convTilesForThisCpu();
  static const bool outrun = [] {
    const ConvTileSet* tiles = convTilesForThisCpu();
    const Blas* library = blas();
    return tiles && library && tiles->lanes * 32 > blasVectorBits(library->coreName);
  }();
  return outrun;
}

// The product through the tiles, its outcome in `status`, when it is an f32
// product of two matrices with enough rows and the tiles outrun OpenBLAS
// here; false when not.
bool tiledProduct(const RuntimeCall& call, const DotDims& d, Status& status) {
  const Shape& lhs = call.operands[0]->shape();
  const Shape& rhs = call.operands[1]->shape();
  // (A few columns, n <= kSkinnyRows, are the skinny kernel's; a large rhs
  // stored narrower than f32 is blockedProduct's, which never holds all of
  // it as f32, where the tiles would convert it whole and pack it again.)
  const bool wideNarrowRhs = call.operands[1]->type() != ElementType::kF32 && d.k * d.n * 4 > kBlockBytes;
  if (lhs.rank() != 2 || rhs.rank() != 2 || d.m < kTiledRows || d.n <= kSkinnyRows || wideNarrowRhs ||
      !tilesOutrunBlas())
    return false;
  // 2-D with no batch dimension: lhs is [M, K] when its contracting
  // dimension is its last, rhs [K, N] when its contracting dimension is its
  // first.
  status = productByConvTiles(call, d.lhsPerm[0] != 0, d.rhsPerm[0] != 0);
  return true;
}

template <typename T>
Status runAs(const RuntimeCall& call, const DotShape& s, ElementType native) {
  const DotDims& d = s.dims;
  size_t batch = call.instr.attrs().getInts(AttrKey::kLhsBatchDims).size();
  size_t contracting = call.instr.attrs().getInts(AttrKey::kLhsContractingDims).size();
  const Literal& lhs = *call.operands[0];
  const Literal& rhs = *call.operands[1];
  Literal& out = call.result;
  if constexpr (std::is_same_v<T, float>) {
    Status status = okStatus();
    if (tiledProduct(call, s.dims, status)) return status;
  }
  std::vector<T> c;
  T* result = nullptr;
  if (out.type() == native && !std::is_same_v<T, uint64_t>) {
    result = out.template data<T>();
  } else {
    c.resize(static_cast<size_t>(d.batch * d.m * d.n));
    result = c.data();
  }
  // f32 products that need no packed copy of a large operand first.
  bool done = false;
  if constexpr (std::is_same_v<T, float>)
    done = skinnyProduct(call, d, result) || blockedProduct(call, d, batch, contracting, result);
  if (!done) {
    GemmOperand<T> a = gemmOperand<T>(lhs, d.lhsPerm, batch, d.lhsFree.size(), native, /*strided=*/true);
    GemmOperand<T> b = gemmOperand<T>(rhs, d.rhsPerm, batch, contracting, native, /*strided=*/true);
    batchedProduct(d, a, b, result, call.pool);
  }
  if (c.empty()) return okStatus();
  ResultWriter(out, lhs, rhs).writeAll(c.data(), static_cast<int64_t>(c.size()));
  return okStatus();
}

Status runDot(const RuntimeCall& call) {
  // Classified when planned: for a small dot in a loop, classifying it per
  // call costs as much as the product.
  std::optional<DotShape> classified;
  if (!call.state) {
    HLO_ASSIGN_OR_RETURN(classified, classify(call.instr));
  }
  const DotShape& s = call.state ? *static_cast<const DotShape*>(call.state) : *classified;
  return withComputeType(s.compute, [&](auto t) {
    using T = decltype(t);
    return runAs<T>(call, s, nativeType<T>());
  });
}

}  // namespace

void forceDotTiles(std::optional<bool> use) { tilesOverride = use; }

StatusOr<RuntimePlan> planDot(HelperModule&, const Instruction& instr, const std::string&) {
  HLO_ASSIGN_OR_RETURN(DotShape s, classify(instr));
  return RuntimePlan{runDot, {}, std::make_shared<const DotShape>(std::move(s))};
}

}  // namespace hlo::cpu
