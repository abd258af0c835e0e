// f32 products too small for OpenBLAS (runtime_blas.h, kSmallProduct),
// vectorized: c[m, n] = a[m, k] . b[k, n], either operand stored
// transposed, rows lda and ldb elements apart. Written once with GCC
// vector types and compiled per instruction set (vector_of.h), as the
// skinny dot is. Sums are in f32 (small_product.cc says in which order).
#pragma once
#include <cstdint>

namespace hlo::cpu {

struct SmallProductArgs {
  bool ta, tb;  // a stored [k, m], b stored [n, k]
  int64_t m, n, k;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float* c;  // [m, n], row-major
};

using SmallProductFn = void (*)(const SmallProductArgs&);

// The kernel for this CPU: AVX-512F, else AVX2 with FMA; null without either.
SmallProductFn smallProductForThisCpu();

// Tests: the kernel for an instruction set by name ("avx512", "avx2"), or
// null when this CPU cannot run it.
SmallProductFn smallProductNamed(const char* name);

}  // namespace hlo::cpu
