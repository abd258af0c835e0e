// Library op: a transpose on its own (one inside a fusion is emitted element
// by element with the rest of the fusion).
//
// Algorithm: the input's innermost dimension a is contiguous in the input,
// the output's innermost dimension (input dimension b) contiguous in the
// output. When a == b whole rows move with memcpy. Otherwise the (b, a)
// plane is copied in kTile x kTile tiles, writing along b and reading along
// a, so both sides of a tile stay in cache (and in the TLB) instead of every
// element of an output row touching another page of the input. The planes
// (every index of the other dimensions) and the tile rows are split across
// the thread pool.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/indexing.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kTile = 32;

template <int Bytes>
void copyTile(const char* in, char* out, int64_t inStrideB, int64_t outStrideA, int64_t rowsA, int64_t colsB) {
  for (int64_t j = 0; j < rowsA; ++j)
    for (int64_t i = 0; i < colsB; ++i)
      std::memcpy(out + (j * outStrideA + i) * Bytes, in + (i * inStrideB + j) * Bytes, Bytes);
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
  int64_t tilesA = (sizeA + kTile - 1) / kTile;
  // Work units: (plane, tile row along a).
  call.pool.parallelFor(planes * tilesA, chunks, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      int64_t plane = u / tilesA, ta = u % tilesA;
      int64_t inBase, outBase;
      planeBases(plane, inBase, outBase);
      int64_t a0 = ta * kTile, rowsA = std::min(kTile, sizeA - a0);
      for (int64_t b0 = 0; b0 < sizeB; b0 += kTile) {
        int64_t colsB = std::min(kTile, sizeB - b0);
        const char* in = from + (inBase + b0 * inStrides[b] + a0) * bytes;
        char* o = to + (outBase + a0 * outStrideOf[a] + b0) * bytes;
        switch (bytes) {
          case 1: copyTile<1>(in, o, inStrides[b], outStrideOf[a], rowsA, colsB); break;
          case 2: copyTile<2>(in, o, inStrides[b], outStrideOf[a], rowsA, colsB); break;
          case 4: copyTile<4>(in, o, inStrides[b], outStrideOf[a], rowsA, colsB); break;
          case 8: copyTile<8>(in, o, inStrides[b], outStrideOf[a], rowsA, colsB); break;
          default: copyTile<16>(in, o, inStrides[b], outStrideOf[a], rowsA, colsB); break;
        }
      }
    }
  });
  return okStatus();
}

}  // namespace

StatusOr<RuntimePlan> planTranspose(llvm::Module&, const Instruction& instr, const std::string&) {
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
