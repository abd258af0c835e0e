// The dot of a few rows by a wide matrix: c[r, j] = sum over k of
// a[r, k] * b(j, k), for up to kSkinnyRows rows of a (a language model's
// step: a few tokens times each weight matrix). A general gemm packs the
// wide operand into tiles before it multiplies, which for a few rows costs
// more than the multiplication; here every element of the wide operand is
// read once, converted from its storage type (f32, bf16, f16) in registers,
// and multiplied into every row's accumulators, so the product runs at about
// the speed its memory streams.
//
// The wide operand is stored either free-major, [cols, k] (each column of
// the product a contiguous row of b: a dot of rows by rows), or
// contracting-major, [k, cols]. Each output element is a sum in f32 along
// k, in vector lanes then across them, as a gemm sums.
#pragma once
#include <cstdint>

namespace hlo::cpu {

inline constexpr int64_t kSkinnyRows = 16;

enum class WideType { kF32, kBF16, kF16 };

struct SkinnyDotArgs {
  const float* a;  // [rows, k], row-major
  int64_t rows;    // 1 .. kSkinnyRows
  const void* b;   // [cols, k] when freeMajor, else [k, cols]; elements of `type`
  WideType type;
  bool freeMajor;
  int64_t k, cols;
  float* c;  // element (r, j) at c[r * cRow + j * cCol]
  int64_t cRow, cCol;
};

// Computes columns [col0, col1) of c.
using SkinnyDotFn = void (*)(const SkinnyDotArgs&, int64_t col0, int64_t col1);

// The kernel for this CPU: AVX-512F, else AVX2 with FMA and F16C; null
// without either.
SkinnyDotFn skinnyDotForThisCpu();

// Tests: the kernel for an instruction set by name ("avx512", "avx2"), or
// null when this CPU cannot run it.
SkinnyDotFn skinnyDotNamed(const char* name);

}  // namespace hlo::cpu
