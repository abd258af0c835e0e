// What the contraction library ops (dot, convolution) share: the type they
// compute in, reading operands into it, matrix products through OpenBLAS
// (or a loop where the library does not pay), and writing results back.
#pragma once
#include <algorithm>
#include <complex>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "backends/cpu/blas.h"
#include "backends/cpu/half_runs.h"
#include "backends/cpu/small_product.h"
#include "hlo/element_io.h"
#include "hlo/float_formats.h"
#include "hlo/indexing.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo::cpu {

// Below this many multiply-adds a loop beats the library call.
inline constexpr int64_t kSmallProduct = 32 * 32 * 32;

// The type a contraction computes in, from its operand and result types:
// complex<double> when any is complex; float when all are floats of at most
// 32 bits (f32, and bf16/f16/f8 widened); double for the other real mixes
// (f64, integers into floats, floats into integers); uint64 for integers and
// pred, wrapping modulo 2^64 and then to the result width.
enum class Compute : uint8_t { kFloat, kDouble, kComplex, kInt };

inline Compute computeTypeFor(ElementType lhs, ElementType rhs, ElementType out) {
  auto narrowFloat = [](ElementType t) { return isFloat(t) && t != ElementType::kF64; };
  if (isComplex(lhs) || isComplex(rhs) || isComplex(out)) return Compute::kComplex;
  if (narrowFloat(lhs) && narrowFloat(rhs) && narrowFloat(out)) return Compute::kFloat;
  if (isFloat(lhs) || isFloat(rhs) || isFloat(out)) return Compute::kDouble;
  return Compute::kInt;
}

// Calls f(T{}) with T the C++ type of `compute`: float, double,
// std::complex<double> or uint64_t.
template <typename F>
Status withComputeType(Compute compute, F&& f) {
  switch (compute) {
    case Compute::kFloat: return f(float{});
    case Compute::kDouble: return f(double{});
    case Compute::kComplex: return f(std::complex<double>{});
    case Compute::kInt: return f(uint64_t{});
  }
  return errorStatus("cpu: internal error: unknown compute type");
}

// The element type whose storage is T (so gemm can use a literal in place).
template <typename T>
constexpr ElementType nativeType() {
  if constexpr (std::is_same_v<T, float>) return ElementType::kF32;
  else if constexpr (std::is_same_v<T, double>) return ElementType::kF64;
  else if constexpr (std::is_same_v<T, uint64_t>) return ElementType::kU64;
  else return ElementType::kC128;
}

inline bool isNumeric(ElementType t) {
  return isPred(t) || isSigned(t) || isUnsigned(t) || isFloat(t) || isComplex(t);
}

// Element i of `lit` in the compute type T.
template <typename T>
T readAs(const Literal& lit, int64_t i) {
  if constexpr (std::is_same_v<T, float>) {
    if (lit.type() == ElementType::kF32) return lit.data<float>()[i];
    return static_cast<float>(lit.toDouble(i));
  } else if constexpr (std::is_same_v<T, double>) {
    if (lit.type() == ElementType::kF64) return lit.data<double>()[i];
    if (lit.type() == ElementType::kF32) return lit.data<float>()[i];
    if (isFloat(lit.type())) return lit.toDouble(i);
    return static_cast<double>(readInt(lit, i));
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    return static_cast<uint64_t>(readInt(lit, i));
  } else {
    return lit.toComplex(i);
  }
}

// Calls f(read) with read(i) = element i of `lit` as T, the conversion
// picked once for the whole array: f32, bf16 and f16 into float are plain
// loads and bit arithmetic (hlo/float_formats.h), which a loop vectorizes;
// the rest go through readAs.
template <typename T, typename F>
void withReader(const Literal& lit, F&& f) {
  if constexpr (std::is_same_v<T, float>) {
    switch (lit.type()) {
      case ElementType::kF32: {
        const float* p = lit.data<float>();
        return f([p](int64_t i) { return p[i]; });
      }
      case ElementType::kBF16: {
        const auto* p = reinterpret_cast<const uint16_t*>(lit.untypedData());
        return f([p](int64_t i) { return decodeBf16ToF32(p[i]); });
      }
      case ElementType::kF16: {
        const auto* p = reinterpret_cast<const uint16_t*>(lit.untypedData());
        return f([p](int64_t i) { return decodeF16ToF32(p[i]); });
      }
      default:
        break;
    }
  }
  f([&lit](int64_t i) { return readAs<T>(lit, i); });
}

// The elements of `lit` converted to T, in storage order: one plain loop.
template <typename T>
void convertAll(const Literal& lit, T* out) {
  withReader<T>(lit, [&](auto read) {
    for (int64_t i = 0, n = lit.elementCount(); i < n; ++i) out[i] = read(i);
  });
}

// The elements of `lit` in the order of `perm` (a permutation of its
// dimensions), converted to T.
// The last permuted dimension is walked by a plain strided loop, the others
// by forEachPermuted over the array with that dimension left out (size 1),
// at the array's own strides: the offset of each run of the last.
template <typename T>
void pack(const Literal& lit, const std::vector<int64_t>& perm, T* out) {
  if (isIota(perm)) return convertAll(lit, out);
  const std::vector<int64_t>& dims = lit.shape().dims();
  const int64_t last = perm.back(), run = dims[last];
  const std::vector<int64_t> strides = rowMajorStrides(dims);
  const int64_t step = strides[last];
  std::vector<int64_t> outer = dims;
  outer[last] = 1;
  withReader<T>(lit, [&](auto read) {
    forEachPermuted(outer, strides, perm, [&](const std::vector<int64_t>&, int64_t offset) {
      for (int64_t i = 0; i < run; ++i) *out++ = read(offset + i * step);
    });
  });
}

// c[m, n] = a[m, k] . b[k, n], either operand given transposed ([k, m],
// [n, k]); c is overwritten. `threads` is what OpenBLAS may use (0: as it
// was last told, for calls from several threads at once after it was told
// 1); without OpenBLAS (blas.h) every product runs as the loop. lda and ldb
// are the operands' row strides as stored (0: their rows are contiguous).
template <typename T>
void matmul(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c, int threads,
            int64_t lda = 0, int64_t ldb = 0) {
  if (lda == 0) lda = ta ? m : k;
  if (ldb == 0) ldb = tb ? k : n;
  if constexpr (!std::is_same_v<T, uint64_t>) {
    const Blas* lib = m * n * k >= kSmallProduct ? blas() : nullptr;
    if (lib) {
      const CBLAS_TRANSPOSE ta_ = ta ? CblasTrans : CblasNoTrans, tb_ = tb ? CblasTrans : CblasNoTrans;
      if (threads > 0) lib->setThreads(threads);
      if constexpr (std::is_same_v<T, float>) {
        lib->sgemm(CblasRowMajor, ta_, tb_, m, n, k, 1.0f, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb),
                   0.0f, c, n);
      } else if constexpr (std::is_same_v<T, double>) {
        lib->dgemm(CblasRowMajor, ta_, tb_, m, n, k, 1.0, a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb),
                   0.0, c, n);
      } else {
        const T one(1), zero(0);
        lib->zgemm(CblasRowMajor, ta_, tb_, m, n, k, &one, a, static_cast<blasint>(lda), b,
                   static_cast<blasint>(ldb), &zero, c, n);
      }
      return;
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    if (SmallProductFn fn = smallProductForThisCpu()) {
      fn(SmallProductArgs{ta, tb, m, n, k, a, lda, b, ldb, c});
      return;
    }
  }
  if (tb) {
    // b's rows run along k: each element of c is a sum along two rows.
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const T* brow = b + j * ldb;
        T sum{};
        for (int64_t kk = 0; kk < k; ++kk) sum += (ta ? a[kk * lda + i] : a[i * lda + kk]) * brow[kk];
        c[i * n + j] = sum;
      }
    return;
  }
  std::fill(c, c + m * n, T{});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      T av = ta ? a[kk * lda + i] : a[i * lda + kk];
      T* __restrict row = c + i * n;
      const T* __restrict brow = b + kk * ldb;
      for (int64_t j = 0; j < n; ++j) row[j] += av * brow[j];
    }
}

// Writes compute-type values into a result literal of any numeric type,
// rounding a float contraction with an integer result as XLA reads it
// (RoundThrough, hlo/element_io.h).
class ResultWriter {
 public:
  ResultWriter(Literal& out, const Literal& lhs, const Literal& rhs)
      : out_(out), round_(out.type(), lhs.type(), rhs.type()) {}
  void write(int64_t i, uint64_t v) { writeInt(out_, i, static_cast<int64_t>(v)); }
  void write(int64_t i, std::complex<double> v) {
    if (isComplex(out_.type())) writeComplex(out_, i, v);
    else write(i, v.real());
  }
  void write(int64_t i, double v) { writeReal(out_, i, round_(v)); }
  // f32 into bf16 or f16 by bit arithmetic (hlo/float_formats.h: the same
  // bits as the general encoder, which costs a model's bf16 dots more than
  // their multiplications).
  void write(int64_t i, float v) {
    switch (out_.type()) {
      case ElementType::kF32: out_.data<float>()[i] = v; return;
      case ElementType::kBF16: reinterpret_cast<uint16_t*>(out_.untypedData())[i] = encodeBf16FromF32(v); return;
      case ElementType::kF16: reinterpret_cast<uint16_t*>(out_.untypedData())[i] = encodeF16FromF32(v); return;
      default: write(i, static_cast<double>(v));
    }
  }
  // Elements [0, n) from `values`: f32 into bf16 or f16 as one run
  // (half_runs.h; the per-element dispatch cost an attention block's bf16
  // dots a fifth of their time).
  template <typename T>
  void writeAll(const T* values, int64_t n) {
    if constexpr (std::is_same_v<T, float>) {
      if (out_.type() == ElementType::kBF16 || out_.type() == ElementType::kF16)
        return f32RunToHalf(out_.type(), values, reinterpret_cast<uint16_t*>(out_.untypedData()), n);
    }
    for (int64_t i = 0; i < n; ++i) write(i, values[i]);
  }

 private:
  Literal& out_;
  RoundThrough round_;
};

}  // namespace hlo::cpu
