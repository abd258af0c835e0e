// Library op: a transpose on its own (one inside a fusion is emitted element
// by element with the rest of the fusion).
//
// Algorithm: the input's innermost dimension a is contiguous in the input,
// the output's innermost dimension (input dimension b) contiguous in the
// output. When a == b whole rows move with memcpy. Otherwise each (b, a)
// plane is cut into strips of input rows (a range of b), split across the
// thread pool with the planes; a strip is walked along a, kTile columns at
// a time, each step writing a run of every one of kTile output rows.
//
// 4- and 8-byte elements move as square blocks transposed in vector
// registers (16 x 16 floats or 8 x 8 doubles with AVX-512, 8 x 8 and 4 x 4
// with AVX2), 2-byte ones as 16 x 16 blocks with AVX2: a block loads a
// whole run of each of its input rows and stores a whole run of each
// output row. Element by element, the reads down a column of a plane whose
// rows are a power of two apart (4096 floats: 16 KiB) all fall in one set
// of the L1 cache, which holds 8 lines of a set, so each line is evicted
// before its neighbour is read and every element costs a trip to L2.
// Outputs of 32 MiB or more (beyond the cache: kStreamingBytes,
// kernel_emitter.h) are written with non-temporal stores when their rows
// are aligned to the vector: the output lines are then written whole
// without being read first, in any order, so a strip of kVectorStrip input
// rows writes runs of kVectorStrip elements along each output row.
// Measured on [4096, 4096] f32 (bench/jit_bench.cc), 2 cores: element by
// element in 32 x 32 tiles 22 ms; AVX2 blocks 7 ms; AVX-512 blocks 10 ms in
// tiles, 3.8 ms in strips with streaming (of 256 rows on one machine, of 32
// on another, where 256 take 6.2 ms: kVectorStrip).
// [4096, 4096] bf16: element by element 17 ms, blocks 6 ms. The edges of
// a strip that do not fill a block, other element sizes, and CPUs without
// AVX2 go element by element, in strips of kScalarStrip.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/indexing.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kTile = 32, kScalarStrip = 16;

// Input rows per strip for vector blocks of 4- and 8-byte elements, and of
// 2-byte ones. Each row of a strip is a read stream: on a 2-core AVX-512
// machine with 48 KiB L1 and 1 MiB L2 per core, [4096, 4096] f32 takes
// 3.8 ms in strips of 32 rows against 6.2 in strips of 256 (whose rows,
// 16 KiB apart, fall in a few cache sets and outnumber the streams the
// prefetchers follow); [4096, 2048] f64 4.2 against 6.3; but [4096, 4096]
// bf16, whose 16 x 16 blocks store half a cache line per output row, 2.1
// ms in strips of 256 against 3.1 in strips of 32, as a longer strip
// writes both halves of each line one after the other.
constexpr int64_t kVectorStrip = 32, kHalfLineStrip = 256;

// Element by element: out[j][i] = in[i][j] for j < rowsA, i < colsB (strides
// in elements).
template <int Bytes>
void copyTile(const char* in, char* out, int64_t inStrideB, int64_t outStrideA, int64_t rowsA, int64_t colsB) {
  for (int64_t j = 0; j < rowsA; ++j)
    for (int64_t i = 0; i < colsB; ++i)
      std::memcpy(out + (j * outStrideA + i) * Bytes, in + (i * inStrideB + j) * Bytes, Bytes);
}

// The vector blocks: Lanes x Lanes elements of 32 / Lanes bytes, out[k][m] =
// in[m][k]. The shuffles move bits and never interpret them as floats, so
// integers and NaN payloads pass unchanged.
template <bool Stream>
[[gnu::target("avx2")]] void block8x8(const float* in, int64_t inStride, float* out, int64_t outStride) {
  __m256 r[8], t[8], u[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(in + k * inStride);
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);  // r[k][0] r[k+1][0] r[k][1] r[k+1][1] | lanes 4, 5
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));  // column 0 | 4 of rows k..k+3
    u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    __m256 low = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20), high = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
    if constexpr (Stream) {
      _mm256_stream_ps(out + k * outStride, low);
      _mm256_stream_ps(out + (k + 4) * outStride, high);
    } else {
      _mm256_storeu_ps(out + k * outStride, low);
      _mm256_storeu_ps(out + (k + 4) * outStride, high);
    }
  }
}

template <bool Stream>
[[gnu::target("avx2")]] void block4x4(const double* in, int64_t inStride, double* out, int64_t outStride) {
  __m256d r[4], t[4];
  for (int k = 0; k < 4; ++k) r[k] = _mm256_loadu_pd(in + k * inStride);
  t[0] = _mm256_unpacklo_pd(r[0], r[1]);  // r0[0] r1[0] | r0[2] r1[2]
  t[1] = _mm256_unpackhi_pd(r[0], r[1]);
  t[2] = _mm256_unpacklo_pd(r[2], r[3]);
  t[3] = _mm256_unpackhi_pd(r[2], r[3]);
  __m256d o[4] = {_mm256_permute2f128_pd(t[0], t[2], 0x20), _mm256_permute2f128_pd(t[1], t[3], 0x20),
                  _mm256_permute2f128_pd(t[0], t[2], 0x31), _mm256_permute2f128_pd(t[1], t[3], 0x31)};
  for (int k = 0; k < 4; ++k) {
    if constexpr (Stream) _mm256_stream_pd(out + k * outStride, o[k]);
    else _mm256_storeu_pd(out + k * outStride, o[k]);
  }
}

// 16 x 16 two-byte elements (bf16, f16, 16-bit integers), every load and
// store a 32-byte row of the block, with AVX2 on any CPU that has it. The
// 256-bit unpacks work within each 128-bit lane, so three rounds transpose
// the two 8 x 8 halves of the lanes side by side (columns c and c + 8), and
// the last round swaps 128-bit lanes between rows 0-7 and 8-15.
template <bool Stream>
[[gnu::target("avx2")]] void block16x16(const uint16_t* in, int64_t inStride, uint16_t* out, int64_t outStride) {
  __m256i r[16], t[16], u[16];
  for (int k = 0; k < 16; ++k) r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + k * inStride));
  for (int k = 0; k < 16; k += 2) {  // t[k]: columns 0-3 of rows k, k+1 interleaved; t[k+1]: columns 4-7
    t[k] = _mm256_unpacklo_epi16(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_epi16(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) {  // u[k + c/2]: columns c, c+1 of rows k..k+3 (c even)
    u[k] = _mm256_unpacklo_epi32(t[k], t[k + 2]);
    u[k + 1] = _mm256_unpackhi_epi32(t[k], t[k + 2]);
    u[k + 2] = _mm256_unpacklo_epi32(t[k + 1], t[k + 3]);
    u[k + 3] = _mm256_unpackhi_epi32(t[k + 1], t[k + 3]);
  }
  for (int half = 0; half < 16; half += 8)  // rows 0-7, then 8-15
    for (int k = 0; k < 4; ++k) {           // column 2k (lo) and 2k+1 (hi) of the half's eight rows
      t[half + 2 * k] = _mm256_unpacklo_epi64(u[half + k], u[half + 4 + k]);
      t[half + 2 * k + 1] = _mm256_unpackhi_epi64(u[half + k], u[half + 4 + k]);
    }
  for (int c = 0; c < 8; ++c) {  // output rows c and c + 8: the low and high lanes of both halves
    __m256i low = _mm256_permute2x128_si256(t[c], t[8 + c], 0x20), high = _mm256_permute2x128_si256(t[c], t[8 + c], 0x31);
    auto* row = reinterpret_cast<__m256i*>(out + c * outStride);
    auto* rowHigh = reinterpret_cast<__m256i*>(out + (c + 8) * outStride);
    if constexpr (Stream) {
      _mm256_stream_si256(row, low);
      _mm256_stream_si256(rowHigh, high);
    } else {
      _mm256_storeu_si256(row, low);
      _mm256_storeu_si256(rowHigh, high);
    }
  }
}

// GCC 12 warns of an uninitialized variable inside its own AVX-512 shuffle
// intrinsics (the undefined upper part it passes along, which these do not
// read).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// With AVX-512: 16 x 16 floats and 8 x 8 doubles, every load and store a
// whole 64-byte line. In four (three) rounds of shuffles, each round pairs
// registers a power of two apart; the comments say what lane l (128 bits)
// of a register holds after the round.
//
// The last two rounds, shared: they move whole 128-bit lanes, whatever the
// elements. Registers a, b, c, d hold in lane l the piece of output row
// rows[0] + (l's column) of four consecutive row groups; out of them come
// output rows rows[0..3], each stored at out + rows[k] * rowBytes.
template <bool Stream>
[[gnu::target("avx512f")]] inline void storeLaneTranspose(__m512 a, __m512 b, __m512 c, __m512 d, char* out,
                                                          int64_t rowBytes, const int (&rows)[4]) {
  // Lanes 0 and 2 (x), 1 and 3 (y) of the row groups 0, 1 and 2, 3.
  __m512 x01 = _mm512_shuffle_f32x4(a, b, 0x88), y01 = _mm512_shuffle_f32x4(a, b, 0xDD);
  __m512 x23 = _mm512_shuffle_f32x4(c, d, 0x88), y23 = _mm512_shuffle_f32x4(c, d, 0xDD);
  const __m512 values[4] = {_mm512_shuffle_f32x4(x01, x23, 0x88), _mm512_shuffle_f32x4(x01, x23, 0xDD),
                            _mm512_shuffle_f32x4(y01, y23, 0x88), _mm512_shuffle_f32x4(y01, y23, 0xDD)};
  for (int k = 0; k < 4; ++k) {
    auto* to = reinterpret_cast<float*>(out + rows[k] * rowBytes);
    if constexpr (Stream) _mm512_stream_ps(to, values[k]);
    else _mm512_storeu_ps(to, values[k]);
  }
}

template <bool Stream>
[[gnu::target("avx512f")]] void block16x16(const float* in, int64_t inStride, float* out, int64_t outStride) {
  __m512 r[16], t[16], u[16];
  for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(in + k * inStride);
  for (int k = 0; k < 16; k += 2) {  // t[k]: columns 4l, 4l+1 of rows k, k+1; t[k+1]: 4l+2, 4l+3
    t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) {  // u[k+c]: column 4l+c of rows k..k+3
    u[k] = _mm512_shuffle_ps(t[k], t[k + 2], 0x44);
    u[k + 1] = _mm512_shuffle_ps(t[k], t[k + 2], 0xEE);
    u[k + 2] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0x44);
    u[k + 3] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
  }
  for (int c = 0; c < 4; ++c)
    storeLaneTranspose<Stream>(u[c], u[4 + c], u[8 + c], u[12 + c], reinterpret_cast<char*>(out),
                               outStride * 4, {c, 8 + c, 4 + c, 12 + c});
}

template <bool Stream>
[[gnu::target("avx512f")]] void block8x8(const double* in, int64_t inStride, double* out, int64_t outStride) {
  __m512d r[8], t[8];
  for (int k = 0; k < 8; ++k) r[k] = _mm512_loadu_pd(in + k * inStride);
  for (int k = 0; k < 8; k += 2) {  // t[k]: column 2l of rows k, k+1; t[k+1]: column 2l+1
    t[k] = _mm512_unpacklo_pd(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_pd(r[k], r[k + 1]);
  }
  for (int p = 0; p < 2; ++p)
    storeLaneTranspose<Stream>(_mm512_castpd_ps(t[p]), _mm512_castpd_ps(t[2 + p]), _mm512_castpd_ps(t[4 + p]),
                               _mm512_castpd_ps(t[6 + p]), reinterpret_cast<char*>(out), outStride * 8,
                               {p, 4 + p, 2 + p, 6 + p});
}

#pragma GCC diagnostic pop

int vectorLimit = 64;  // limitTransposeVectorBytes

// The widest vector this CPU has, within the limit (0: element by element).
int vectorBytes() {
  static const int bytes = __builtin_cpu_supports("avx512f") ? 64 : __builtin_cpu_supports("avx2") ? 32 : 0;
  return std::min(bytes, vectorLimit);
}

// The vector blocks elements of `bytes` bytes move in (0: none): 4- and
// 8-byte ones in the widest vectors, 2-byte ones in 32-byte (AVX2) blocks
// on any vector CPU.
int blockVectorBytes(int bytes) {
  return bytes == 4 || bytes == 8 ? vectorBytes() : bytes == 2 ? std::min(vectorBytes(), 32) : 0;
}

// A tile (as copyTile) as blocks of Lanes x Lanes elements of Bytes each
// (Lanes = VectorBytes / Bytes), the ragged edges element by element.
template <int Bytes, int VectorBytes, bool Stream>
void copyTileBlocked(const char* in, char* out, int64_t inStrideB, int64_t outStrideA, int64_t rowsA,
                     int64_t colsB) {
  constexpr int64_t kLanes = VectorBytes / Bytes;
  using T = std::conditional_t<Bytes == 2, uint16_t, std::conditional_t<Bytes == 4, float, double>>;
  int64_t wholeA = rowsA / kLanes * kLanes, wholeB = colsB / kLanes * kLanes;
  for (int64_t j = 0; j < wholeA; j += kLanes)
    for (int64_t i = 0; i < wholeB; i += kLanes) {
      const T* from = reinterpret_cast<const T*>(in + (i * inStrideB + j) * Bytes);
      T* to = reinterpret_cast<T*>(out + (j * outStrideA + i) * Bytes);
      if constexpr (Bytes == 2) block16x16<Stream>(from, inStrideB, to, outStrideA);
      else if constexpr (Bytes == 4 && VectorBytes == 64) block16x16<Stream>(from, inStrideB, to, outStrideA);
      else if constexpr (Bytes == 4) block8x8<Stream>(from, inStrideB, to, outStrideA);
      else if constexpr (VectorBytes == 64) block8x8<Stream>(from, inStrideB, to, outStrideA);
      else block4x4<Stream>(from, inStrideB, to, outStrideA);
    }
  // Right edge (columns of b past the whole blocks), then bottom edge.
  copyTile<Bytes>(in + wholeB * inStrideB * Bytes, out + wholeB * Bytes, inStrideB, outStrideA, wholeA,
                  colsB - wholeB);
  copyTile<Bytes>(in + wholeA * Bytes, out + wholeA * outStrideA * Bytes, inStrideB, outStrideA, rowsA - wholeA,
                  colsB);
}

using TileCopy = void (*)(const char*, char*, int64_t, int64_t, int64_t, int64_t);

// The tile copy for an element size, vector width and store kind.
TileCopy tileCopy(int bytes, int vector, bool stream) {
  if (bytes == 2 && vector == 32) return stream ? copyTileBlocked<2, 32, true> : copyTileBlocked<2, 32, false>;
  if (bytes == 4 || bytes == 8) {
    if (vector == 64 && bytes == 4) return stream ? copyTileBlocked<4, 64, true> : copyTileBlocked<4, 64, false>;
    if (vector == 64) return stream ? copyTileBlocked<8, 64, true> : copyTileBlocked<8, 64, false>;
    if (vector == 32 && bytes == 4) return stream ? copyTileBlocked<4, 32, true> : copyTileBlocked<4, 32, false>;
    if (vector == 32) return stream ? copyTileBlocked<8, 32, true> : copyTileBlocked<8, 32, false>;
  }
  switch (bytes) {
    case 1: return copyTile<1>;
    case 2: return copyTile<2>;
    case 4: return copyTile<4>;
    case 8: return copyTile<8>;
    default: return copyTile<16>;
  }
}

Status runTranspose(const RuntimeCall& call) {
  const Literal& x = *call.operands[0];
  Literal& out = call.result;
  const std::vector<int64_t>& perm = call.instr.attrs().getInts(AttrKey::kDimensions);
  const std::vector<int64_t>& inDims = x.shape().dims();
  const std::vector<int64_t>& outDims = out.shape().dims();
  int rank = static_cast<int>(inDims.size());
  int64_t count = x.elementCount();
  if (count == 0) return okStatus();
  int bytes = storageBytes(x.type());
  const char* from = reinterpret_cast<const char*>(x.untypedData());
  char* to = reinterpret_cast<char*>(out.untypedData());
  if (rank == 0) {
    std::memcpy(to, from, bytes);
    return okStatus();
  }
  std::vector<int64_t> inStrides = rowMajorStrides(inDims), outStrides = rowMajorStrides(outDims);
  // Output stride of each input dimension.
  std::vector<int64_t> outStrideOf(rank);
  for (int i = 0; i < rank; ++i) outStrideOf[perm[i]] = outStrides[i];
  int a = rank - 1;                          // contiguous in the input
  int b = static_cast<int>(perm[rank - 1]);  // contiguous in the output
  // The other input dimensions, walked by an odometer per plane.
  std::vector<int> others;
  for (int d = 0; d < rank; ++d)
    if (d != a && d != b) others.push_back(d);
  int64_t planes = 1;
  for (int d : others) planes *= inDims[d];
  auto planeBases = [&](int64_t plane, int64_t& inBase, int64_t& outBase) {
    inBase = outBase = 0;
    for (int k = static_cast<int>(others.size()) - 1; k >= 0; --k) {
      int d = others[k];
      int64_t i = plane % inDims[d];
      plane /= inDims[d];
      inBase += i * inStrides[d];
      outBase += i * outStrideOf[d];
    }
  };
  int chunks = count >= (int64_t{1} << 16) ? 4 * (call.pool.workers() + 1) : 1;
  if (a == b) {
    // Rows of the innermost dimension stay whole.
    int64_t row = inDims[a];
    call.pool.parallelFor(planes, chunks, [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        int64_t inBase, outBase;
        planeBases(p, inBase, outBase);
        std::memcpy(to + outBase * bytes, from + inBase * bytes, row * bytes);
      }
    });
    return okStatus();
  }
  int64_t sizeA = inDims[a], sizeB = inDims[b];
  int vector = blockVectorBytes(bytes);
  // Streaming stores need every row of every block aligned to the vector:
  // the output, its row stride along a, and every plane's base (blocks
  // start at multiples of the lanes along b, strips at multiples of 16
  // elements, tiles at multiples of kTile along a).
  bool aligned = vector > 0 && reinterpret_cast<uintptr_t>(to) % vector == 0 && outStrideOf[a] * bytes % vector == 0;
  for (int d : others) aligned = aligned && outStrideOf[d] * bytes % vector == 0;
  bool stream = aligned && count * bytes >= kStreamingBytes;
  TileCopy copy = tileCopy(bytes, vector, stream);
  // Work units: (plane, strip of b); strips shrink (to no less than a
  // block) until every thread has several.
  int64_t strip = !vector ? kScalarStrip : bytes == 2 ? kHalfLineStrip : kVectorStrip;
  auto units = [&](int64_t length) { return planes * ((sizeB + length - 1) / length); };
  while (strip > 16 && units(strip) < chunks) strip /= 2;
  int64_t stripsB = (sizeB + strip - 1) / strip;
  call.pool.parallelFor(planes * stripsB, chunks, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      int64_t plane = u / stripsB, b0 = u % stripsB * strip;
      int64_t inBase, outBase;
      planeBases(plane, inBase, outBase);
      int64_t colsB = std::min(strip, sizeB - b0);
      for (int64_t a0 = 0; a0 < sizeA; a0 += kTile) {
        int64_t rowsA = std::min(kTile, sizeA - a0);
        const char* in = from + (inBase + b0 * inStrides[b] + a0) * bytes;
        char* o = to + (outBase + a0 * outStrideOf[a] + b0) * bytes;
        copy(in, o, inStrides[b], outStrideOf[a], rowsA, colsB);
      }
    }
    if (stream) _mm_sfence();  // this worker's streamed lines are visible before the op ends
  });
  return okStatus();
}

}  // namespace

void limitTransposeVectorBytes(int bytes) { vectorLimit = bytes; }

void transposeTile(const void* in, void* out, int64_t inStride, int64_t outStride, int64_t rows, int64_t cols,
                   int bytes) {
  tileCopy(bytes, blockVectorBytes(bytes), false)(static_cast<const char*>(in), static_cast<char*>(out), inStride,
                                                   outStride, rows, cols);
}

StatusOr<RuntimePlan> planTranspose(HelperModule&, const Instruction& instr, const std::string&) {
  if (instr.operandCount() != 1) return jit::cannotCompile(instr, "expected one operand");
  const Shape& x = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!x.isArray() || !out.isArray() || x.type() != out.type())
    return jit::cannotCompile(instr, "expected arrays of one element type");
  int bytes = storageBytes(x.type());
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16)
    return jit::cannotCompile(instr, "unexpected element size");
  const std::vector<int64_t>& perm = instr.attrs().getInts(AttrKey::kDimensions);
  std::vector<bool> seen(x.rank(), false);
  if (static_cast<int>(perm.size()) != x.rank()) return jit::cannotCompile(instr, "dimensions must permute the operand's");
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= x.rank() || seen[perm[i]] || out.dim(static_cast<int>(i)) != x.dim(static_cast<int>(perm[i])))
      return jit::cannotCompile(instr, "dimensions must permute the operand's");
    seen[perm[i]] = true;
  }
  return RuntimePlan{runTranspose, {}};
}

}  // namespace hlo::cpu
