// dot through cuBLAS, opened at run time like the driver (never linked).
//
// A dot whose operands are laid out as a batched matrix product needs no
// copy: lhs [batch..., m..., k...] or [batch..., k..., m...], rhs
// [batch..., k..., n...] or [batch..., n..., k...], the result [batch...,
// m..., n...] (row-major, the batch dimensions leading in both, contracting
// dimensions in the same order). Row-major C = A B is column-major C^T =
// B^T A^T, so one cublasGemmStridedBatchedEx computes it with the operands
// swapped. f32 computes in f32 (never TF32), f16 and bf16 accumulate in
// f32 (their result f16/bf16 or f32), f64 in f64, c64 and c128 likewise.
#pragma once
#include <cstdint>
#include <optional>

#include "backends/gpu/cuda_driver.h"
#include "hlo/instruction.h"
#include "hlo/status.h"

namespace hlo::gpu {

struct GemmPlan {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool lhsTransposed = false;  // lhs stored [batch, k, m]
  bool rhsTransposed = false;  // rhs stored [batch, n, k]
  ElementType lhsType = ElementType::kF32, rhsType = ElementType::kF32, resultType = ElementType::kF32;
};

// The GEMM through which the GPU computes `instr`: a dot of more
// multiply-adds than a kernel computes quickly (a thread per output
// element), whose gemmPlanOf holds; else nullopt (a kernel computes it).
std::optional<GemmPlan> cublasDotOf(const Instruction& instr);

// The GEMM that computes the dot `dot`, or an error saying why none does
// (a layout that needs a transpose first, element types cuBLAS does not
// multiply, a size beyond its 32-bit arguments).
StatusOr<GemmPlan> gemmPlanOf(const Instruction& dot);

// cuBLAS on the driver's primary context, computing on the legacy default
// stream (the one the runtime launches kernels on).
class Cublas {
 public:
  // Opens cuBLAS the first time: $HLO_CUBLAS (a file), else libcublas.so.13
  // or .12 on the loader's path, else the CUDA toolkit's ($CUDA_HOME, else
  // /usr/local/cuda). An error says which were tried.
  static StatusOr<Cublas*> get(const CudaDriver& driver);

  // out = lhs . rhs as `plan` says.
  Status gemm(const GemmPlan& plan, CUdeviceptr lhs, CUdeviceptr rhs, CUdeviceptr out) const;

 private:
  Cublas() = default;
  struct Api;
  const CudaDriver* driver_ = nullptr;
  const Api* api_ = nullptr;
  void* handle_ = nullptr;  // cublasHandle_t
};

}  // namespace hlo::gpu
