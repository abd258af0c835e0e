// Interpreter op: fft (FFT, IFFT, RFFT, IRFFT over the last len(fft_length)
// dimensions, at most three).
//
// Algorithm: copy the operand into a complex<double> buffer, then run a
// direct O(n^2) DFT along each transformed axis in turn (a multidimensional
// DFT is the cascade of one-dimensional ones):
//   FFT    X[k] = sum_t x[t] e^(-2 pi i t k / n)          on every axis
//   IFFT   x[t] = 1/n sum_k X[k] e^(+2 pi i t k / n)      on every axis
//   RFFT   FFT of the real input, keeping n/2+1 entries of the last axis
//   IRFFT  IFFT of the outer axes; the last axis is first extended to n
//          entries by Hermitian symmetry X[n-k] = conj(X[k]), inverted, and
//          only the real part kept (so the imaginary parts of X[0] and, for
//          even n, X[n/2] are ignored, as numpy and XLA do).
// Twiddles use (t*k mod n) so large indices lose no accuracy.
#include <cmath>
#include <complex>
#include <numbers>

#include "interp/element_io.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

using C = std::complex<double>;

// How a row-major array splits around one axis.
struct Axis {
  int64_t outer, inner;  // elements before / after the axis, row-major
};

Axis axisOf(const std::vector<int64_t>& dims, size_t axis) {
  Axis a{1, 1};
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i < axis) a.outer *= dims[i];
    if (i > axis) a.inner *= dims[i];
  }
  return a;
}

// Transforms `data` (row-major over `dims`) along `axis` of length n, in
// place. inverse: the +i exponent and the 1/n factor.
void dftAxis(std::vector<C>& data, const std::vector<int64_t>& dims, size_t axis, bool inverse) {
  int64_t n = dims[axis];
  if (n == 0) return;
  Axis a = axisOf(dims, axis);
  std::vector<C> twiddle(n);
  double sign = inverse ? 1.0 : -1.0;
  for (int64_t j = 0; j < n; ++j) {
    double angle = sign * 2.0 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    twiddle[j] = C(std::cos(angle), std::sin(angle));
  }
  std::vector<C> line(n), result(n);
  for (int64_t o = 0; o < a.outer; ++o)
    for (int64_t i = 0; i < a.inner; ++i) {
      int64_t base = o * n * a.inner + i;
      for (int64_t t = 0; t < n; ++t) line[t] = data[base + t * a.inner];
      for (int64_t k = 0; k < n; ++k) {
        C sum = 0;
        for (int64_t t = 0; t < n; ++t) sum += line[t] * twiddle[(t * k) % n];
        result[k] = inverse ? sum / static_cast<double>(n) : sum;
      }
      for (int64_t k = 0; k < n; ++k) data[base + k * a.inner] = result[k];
    }
}

// Copies `from` (dims fromDims) into a buffer of dims toDims, along the last
// axis taking min(from, to) entries, or Hermitian-extending when `hermitian`.
std::vector<C> resizeLastAxis(const std::vector<C>& from, const std::vector<int64_t>& fromDims,
                              const std::vector<int64_t>& toDims, bool hermitian) {
  int64_t fromLen = fromDims.back(), toLen = toDims.back();
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < toDims.size(); ++i) rows *= toDims[i];
  std::vector<C> to(static_cast<size_t>(rows * toLen));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t k = 0; k < toLen; ++k) {
      C v = 0;
      if (k < fromLen) v = from[r * fromLen + k];
      else if (hermitian && toLen - k < fromLen) v = std::conj(from[r * fromLen + (toLen - k)]);
      to[r * toLen + k] = v;
    }
  return to;
}

}  // namespace

StatusOr<Literal> evalFft(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops.size() != 1) return EvalContext::unsupported(instr, "expected one operand");
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
  bool inverse = type == "IFFT" || inverseReal;
  // The transformed axes must have the fft_length sizes (in the time domain).
  const Shape& timeShape = inverseReal ? outShape : x.shape();
  for (size_t i = 0; i < axes; ++i)
    if (timeShape.dim(rank - static_cast<int>(axes) + static_cast<int>(i)) != lengths[i])
      return EvalContext::unsupported(instr, "the transformed dimensions must equal fft_length");
  for (int d = 0; d + 1 < rank; ++d)
    if (x.shape().dim(d) != outShape.dim(d)) return EvalContext::unsupported(instr, "result shape does not fit");
  int64_t half = lengths.back() / 2 + 1;
  if ((real && outShape.dim(rank - 1) != half) || (inverseReal && x.shape().dim(rank - 1) != half) ||
      (!real && !inverseReal && outShape.dim(rank - 1) != x.shape().dim(rank - 1)))
    return EvalContext::unsupported(instr, "the minor dimension does not fit fft_length");
  if (isComplex(outShape.type()) == inverseReal || isComplex(x.type()) == real)
    return EvalContext::unsupported(instr, "operand and result types do not fit fft_type");

  // Complex working copy of the whole time- or frequency-domain array.
  HLO_RETURN_IF_ERROR(ctx.checkMemory(2 * (x.elementCount() + outShape.elementCount()) * int64_t(sizeof(C)), instr));
  std::vector<C> data(static_cast<size_t>(x.elementCount()));
  for (int64_t i = 0; i < x.elementCount(); ++i) data[i] = x.toComplex(i);
  std::vector<int64_t> dims = x.shape().dims();
  size_t first = static_cast<size_t>(rank) - axes;
  if (inverseReal) {
    for (size_t a = first; a + 1 < static_cast<size_t>(rank); ++a) dftAxis(data, dims, a, true);
    std::vector<int64_t> full = outShape.dims();
    data = resizeLastAxis(data, dims, full, /*hermitian=*/true);
    dims = full;
    dftAxis(data, dims, static_cast<size_t>(rank) - 1, true);
  } else {
    for (size_t a = first; a < static_cast<size_t>(rank); ++a) dftAxis(data, dims, a, inverse);
    if (real) data = resizeLastAxis(data, dims, outShape.dims(), /*hermitian=*/false);
  }
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(outShape, instr));
  for (int64_t i = 0; i < out.elementCount(); ++i) {
    if (inverseReal) writeFloat(out, i, data[i].real());
    else writeComplex(out, i, data[i]);
  }
  return out;
}

}  // namespace hlo::interp
