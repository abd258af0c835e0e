// Interpreter op: fft (FFT, IFFT, RFFT, IRFFT over the last len(fft_length)
// dimensions, at most three).
//
// Algorithm: copy the operand into a complex<double> buffer, then run a
// direct O(n^2) DFT along each transformed axis in turn (a multidimensional
// DFT is the cascade of one-dimensional ones), n = that axis's fft_length:
//   FFT    X[k] = sum_t x[t] e^(-2 pi i t k / n)          on every axis
//   IFFT   x[t] = 1/n sum_k X[k] e^(+2 pi i t k / n)      on every axis
//   RFFT   FFT of the real input, keeping n/2+1 entries of the last axis
//   IRFFT  IFFT of the outer axes; the last axis is first extended to n
//          entries by Hermitian symmetry X[n-k] = conj(X[k]), inverted, and
//          only the real part kept (so the imaginary parts of X[0] and, for
//          even n, X[n/2] are ignored, as numpy and XLA do).
// As in XLA's evaluator, an axis shorter than n reads as zero-padded, longer
// output axes are zero-filled, and n = 0 gives zeros.
// Twiddles use (t*k mod n) so large indices lose no accuracy.
#include <cmath>
#include <complex>
#include <numbers>

#include "interp/data_checks.h"
#include "interp/element_io.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

using C = std::complex<double>;

// How a row-major array splits around one axis: outer * length * inner.
struct Axis {
  int64_t outer = 1, inner = 1;
};

Axis axisOf(const std::vector<int64_t>& dims, size_t axis) {
  Axis a;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i < axis) a.outer *= dims[i];
    if (i > axis) a.inner *= dims[i];
  }
  return a;
}

// The length-n DFT along `axis` of `data` (row-major over `dims`), giving
// `outLen` entries along that axis; dims[axis] becomes outLen. Entries past
// dims[axis] read as zero, outputs past n are zero. inverse: the +i exponent
// and the 1/n factor.
void dftAxis(std::vector<C>& data, std::vector<int64_t>& dims, size_t axis, int64_t n, int64_t outLen,
             bool inverse) {
  int64_t inLen = dims[axis];
  Axis a = axisOf(dims, axis);
  std::vector<C> out(static_cast<size_t>(a.outer * outLen * a.inner));
  std::vector<C> twiddle(n);
  double sign = inverse ? 1.0 : -1.0;
  for (int64_t j = 0; j < n; ++j) {
    double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    twiddle[j] = C(std::cos(angle), std::sin(angle));
  }
  int64_t terms = std::min(inLen, n);
  for (int64_t o = 0; o < a.outer; ++o)
    for (int64_t i = 0; i < a.inner; ++i) {
      const C* line = data.data() + o * inLen * a.inner + i;
      C* result = out.data() + o * outLen * a.inner + i;
      for (int64_t k = 0; k < std::min(outLen, n); ++k) {
        C sum = 0;
        for (int64_t t = 0; t < terms; ++t) sum += line[t * a.inner] * twiddle[(t * k) % n];
        result[k * a.inner] = inverse ? sum / static_cast<double>(n) : sum;
      }
    }
  data = std::move(out);
  dims[axis] = outLen;
}

// Extends the last axis to n entries by Hermitian symmetry (IRFFT's input
// holds entries 0 .. n/2 of a spectrum whose entry n-k is conj(entry k)).
void hermitianExtend(std::vector<C>& data, std::vector<int64_t>& dims, int64_t n) {
  int64_t inLen = dims.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < dims.size(); ++i) rows *= dims[i];
  std::vector<C> out(static_cast<size_t>(rows * n));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < n; ++k) {
      if (k < inLen) out[r * n + k] = data[r * inLen + k];
      else if (n - k < inLen) out[r * n + k] = std::conj(data[r * inLen + (n - k)]);
    }
  data = std::move(out);
  dims.back() = n;
}

}  // namespace

StatusOr<Literal> evalFft(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops.size() != 1) return EvalContext::unsupported(instr, "expected one operand");
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  std::string_view type = instr.attrs().getString(AttrKey::kFftType);
  const std::vector<int64_t>& lengths = instr.attrs().getInts(AttrKey::kFftLength);
  const Shape& outShape = instr.shape();
  int rank = x.shape().rank();
  size_t axes = lengths.size();
  if (!x.shape().isArray() || !outShape.isArray() || outShape.rank() != rank || axes < 1 || axes > 3 ||
      static_cast<int>(axes) > rank)
    return EvalContext::unsupported(instr, "fft_length must have 1 to 3 entries, at most the operand rank");
  bool real = type == "RFFT", inverseReal = type == "IRFFT";
  if (type != "FFT" && type != "IFFT" && !real && !inverseReal)
    return EvalContext::unsupported(instr, "unknown fft_type '" + std::string(type) + "'");
  if (isComplex(outShape.type()) == inverseReal || isComplex(x.type()) == real)
    return EvalContext::unsupported(instr, "operand and result types do not fit fft_type");
  size_t first = static_cast<size_t>(rank) - axes;
  for (size_t d = 0; d < first; ++d)
    if (x.shape().dim(static_cast<int>(d)) != outShape.dim(static_cast<int>(d)))
      return EvalContext::unsupported(instr, "the untransformed dimensions of the result must match the operand");
  for (int64_t n : lengths)
    if (n < 0) return EvalContext::unsupported(instr, "fft_length must not be negative");
  bool inverse = type == "IFFT" || inverseReal;

  HLO_RETURN_IF_ERROR(ctx.checkMemory(2 * (x.elementCount() + outShape.elementCount()) * int64_t(sizeof(C)), instr));
  std::vector<C> data(static_cast<size_t>(x.elementCount()));
  for (int64_t i = 0; i < x.elementCount(); ++i) data[i] = x.toComplex(i);
  std::vector<int64_t> dims = x.shape().dims();
  size_t last = static_cast<size_t>(rank) - 1;
  if (inverseReal) {  // outer axes first, then the Hermitian last axis
    for (size_t a = first; a < last; ++a) dftAxis(data, dims, a, lengths[a - first], outShape.dim(static_cast<int>(a)), true);
    hermitianExtend(data, dims, lengths.back());
    dftAxis(data, dims, last, lengths.back(), outShape.dim(static_cast<int>(last)), true);
  } else {  // the last axis first (RFFT's real one), then the outer axes
    dftAxis(data, dims, last, lengths.back(), outShape.dim(static_cast<int>(last)), inverse);
    for (size_t a = first; a < last; ++a) dftAxis(data, dims, a, lengths[a - first], outShape.dim(static_cast<int>(a)), inverse);
  }
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(outShape, instr));
  for (int64_t i = 0; i < out.elementCount(); ++i) {
    if (inverseReal) writeFloat(out, i, data[i].real());
    else writeComplex(out, i, data[i]);
  }
  return out;
}

}  // namespace hlo::interp
