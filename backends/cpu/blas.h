// OpenBLAS, loaded when a dot, convolution, triangular-solve, cholesky or
// LAPACK call first needs it (OpenBLAS carries LAPACK too).
//
// Loading it ourselves (dlopen) rather than linking it lets us pick its
// kernels: OpenBLAS chooses them from the CPU's model name when it loads,
// and on a CPU it does not know (a virtual machine reporting a generic
// "Intel Xeon Processor") it falls back to its oldest SSE3 kernels, five
// times slower than the AVX-512 ones the CPU runs. Unless OPENBLAS_CORETYPE
// is already set, we set it from the instruction sets the CPU reports
// (SkylakeX for AVX-512, Haswell for AVX2 with FMA) before loading.
#pragma once
#include <cblas.h>

#include <string>

namespace hlo::cpu {

struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
  decltype(&cblas_zgemm) zgemm = nullptr;
  // For triangular-solve and cholesky; null when the library lacks them
  // (those ops then run their own loops).
  decltype(&cblas_dtrsm) dtrsm = nullptr;
  decltype(&cblas_ztrsm) ztrsm = nullptr;
  decltype(&cblas_dsyrk) dsyrk = nullptr;
  decltype(&cblas_zherk) zherk = nullptr;
  decltype(&openblas_set_num_threads) setThreads = nullptr;
  std::string coreName;  // the kernels OpenBLAS chose ("SkylakeX")
  void* library = nullptr;  // the dlopen handle: LAPACK's routines are looked up there
};

// The loaded library, or nullptr with `error` set when it cannot be loaded.
const Blas* blas(std::string* error = nullptr);

}  // namespace hlo::cpu
