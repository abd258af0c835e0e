// The inner kernel of the direct f32 convolution (runtime_conv.cc): a tile of
// R output positions by up to NV vectors of output features, summed over the
// kernel's window taps and a run of input features, in vector registers.
//
// For tap t, input feature c and output feature j of the tile's columns:
//   out[r][j] (+)= sum over t, c of in[t][r][c] * weights[t][c][j]
// where in[t][r] points at the input features of the element that row r
// reads at tap t (or at zeros, for padding and lhs-dilation holes). Reading
// the input through these pointers (an indirection buffer) rather than from
// copied patches lets one kernel serve every layout, stride, dilation and
// padding: the caller resolves those when it fills the pointers.
//
// Per input feature the kernel loads NV weight vectors and broadcasts one
// input value per row: R*NV multiply-adds for NV + R loads, with the R*NV
// accumulators in registers for the whole reduction.
#pragma once
#include <cstdint>

namespace hlo::cpu {

struct ConvTileArgs {
  const float* const* in;  // in[t * tapStride + r]: row r's input features at tap t
  int64_t tapStride;
  int64_t taps;
  int64_t channel;   // first input feature of this run (added to every in pointer)
  int64_t channels;  // input features in this run
  const float* weights;     // weights[t * weightTapStride + c * NV * lanes + j], c counted from `channel`
  int64_t weightTapStride;
  float* const* out;  // out[r] + column: row r's first output feature of the tile
  int64_t column;
  int width;        // output features stored (the last block may be narrower than NV * lanes)
  bool accumulate;  // add to what `out` holds instead of overwriting it
};

using ConvTileFn = void (*)(const ConvTileArgs&);

// The depthwise form (one input and one output feature per group, the
// groups' features consecutive): the tile's columns are groups, not output
// features, and each input value meets only its own group's weight:
//   out[r][j] (+)= sum over t of in[t][r][channel + j] * weights[t][j]
// (weights[t * weightTapStride + j]; `channels` is unused). Loads NV input
// vectors per row instead of broadcasting.

// The kernels for one instruction set: rows[nv] and tile[nv] for tiles of
// nv vectors (1 <= nv <= maxVectors); depthwiseRows and depthwise[nv] the
// same for the depthwise form.
struct ConvTileSet {
  const char* name;
  int lanes;
  int maxVectors;
  int rows[5];
  ConvTileFn tile[5];
  int depthwiseRows;
  ConvTileFn depthwise[5];
};

// The set convolutions use: the widest this CPU runs (AVX-512F, else AVX2
// with FMA), or null (then they take the im2col path).
const ConvTileSet* convTilesForThisCpu();

// Tests: the set by name ("avx512", "avx2"), or null when this CPU cannot
// run it; and what convTilesForThisCpu() answers until the override is
// cleared (a null set forces the im2col path).
const ConvTileSet* convTilesNamed(const char* name);
void overrideConvTiles(const ConvTileSet* set);
void clearConvTilesOverride();

}  // namespace hlo::cpu
