// Library op: fft (FFT, IFFT, RFFT, IRFFT over the last 1 to 3 dimensions;
// c64/c128, and f32/f64 for RFFT's operand and IRFFT's result).
//
// Semantics: the interpreter's (interp/fft.cc), step for step, so both
// engines agree. The transform runs one axis at a time, n = that axis's
// fft_length, in double precision:
//   FFT, IFFT, RFFT  the last axis first, then the outer ones in order;
//   IRFFT            the outer axes first, then the last axis, extended to
//                    n entries by X[n-k] = conj(X[k]) and inverted; only
//                    the real part is kept (so the imaginary parts of X[0]
//                    and, for even n, X[n/2] are ignored).
// An axis shorter than n reads as zero-padded, output entries past n are
// zero, and n = 0 gives zeros.
//
// Algorithm: each axis pass runs one 1-D plan (fft.h: radix-2 Cooley-Tukey,
// or Bluestein for other lengths; O(n log n)) over every line along that
// axis: the line is gathered into a buffer of length n, transformed in
// place, and scattered. The first pass reads the operand and the last one
// writes the result, so a one-axis transform needs no copy of either;
// between passes values live in complex<double> buffers. Lines are
// independent, so each pass splits them across the thread pool.
#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "backends/cpu/fft.h"
#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

using fft::Complex;

// Splits [0, n) items of `cost` operations each across the pool, when that
// pays; one chunk otherwise.
template <typename Fn>
void splitWork(ThreadPool& pool, int64_t n, int64_t cost, Fn&& fn) {
  if (n <= 0) return;
  bool large = n * std::max<int64_t>(cost, 1) >= (int64_t{1} << 15);
  int chunks = static_cast<int>(std::min<int64_t>(n, large ? 4 * (pool.workers() + 1) : 1));
  pool.parallelFor(n, chunks, [&](int64_t begin, int64_t end) { fn(begin, end); });
}

// Row-major values an axis pass reads: the operand (f32, f64, c64 or c128)
// or the complex<double> buffer of the previous pass.
struct Source {
  std::vector<int64_t> dims;
  const Literal* literal = nullptr;
  const Complex* buffer = nullptr;

  Complex at(int64_t i) const {
    if (buffer) return buffer[i];
    switch (literal->type()) {
      case ElementType::kF32: return literal->data<float>()[i];
      case ElementType::kF64: return literal->data<double>()[i];
      case ElementType::kC64: return Complex(literal->data<std::complex<float>>()[i]);
      default: return literal->data<Complex>()[i];  // c128 (planFft checked)
    }
  }
};

// Where an axis pass writes: a complex<double> buffer, or the result (c64,
// c128, or the real parts as f32 or f64 for IRFFT).
struct Sink {
  Literal* literal = nullptr;
  Complex* buffer = nullptr;

  void set(int64_t i, Complex v) const {
    if (buffer) {
      buffer[i] = v;
      return;
    }
    switch (literal->type()) {
      case ElementType::kF32: literal->data<float>()[i] = static_cast<float>(v.real()); break;
      case ElementType::kF64: literal->data<double>()[i] = v.real(); break;
      case ElementType::kC64: literal->data<std::complex<float>>()[i] = std::complex<float>(v); break;
      default: literal->data<Complex>()[i] = v; break;  // c128
    }
  }
};

// Operations of one length-n transform, for deciding how to split.
int64_t transformCost(int64_t n) {
  int64_t log = 1;
  while ((int64_t{1} << log) < n) ++log;
  return n * log;
}

// One axis pass: the length-n transform along `axis` of `in`, giving
// `outLen` entries there, into `out`. Entries past the input's length read
// as zero; with `hermitian` (IRFFT's last axis) they read as
// X[k] = conj(X[n-k]) where that is held. Outputs past n are zero.
void transformAxis(const Source& in, size_t axis, int64_t n, int64_t outLen, bool inverse, bool hermitian,
                   const Sink& out, ThreadPool& pool) {
  int64_t inLen = in.dims[axis], outer = 1, inner = 1;
  for (size_t d = 0; d < in.dims.size(); ++d) {
    if (d < axis) outer *= in.dims[d];
    if (d > axis) inner *= in.dims[d];
  }
  if (outer * outLen * inner == 0) return;
  fft::Plan plan(n, inverse);
  int64_t reads = std::min(inLen, n), writes = std::min(outLen, n);
  // Line (o, i) starts at o * length * inner + i and steps by inner.
  splitWork(pool, outer * inner, transformCost(n), [&](int64_t begin, int64_t end) {
    std::vector<Complex> line(n), scratch(plan.scratchSize());
    for (int64_t l = begin; l < end; ++l) {
      int64_t o = l / inner, i = l % inner;
      int64_t from = o * inLen * inner + i, to = o * outLen * inner + i;
      for (int64_t t = 0; t < reads; ++t) line[t] = in.at(from + t * inner);
      for (int64_t t = reads; t < n; ++t)
        line[t] = hermitian && n - t < inLen ? std::conj(in.at(from + (n - t) * inner)) : Complex(0);
      plan.run(line.data(), scratch.data());
      for (int64_t k = 0; k < writes; ++k) out.set(to + k * inner, line[k]);
      for (int64_t k = writes; k < outLen; ++k) out.set(to + k * inner, 0);
    }
  });
}

// The axes in the interpreter's order: FFT, IFFT and RFFT transform the
// last axis first, then the outer ones; IRFFT the outer ones first, then
// the Hermitian last axis.
std::vector<size_t> axisOrder(bool irfft, size_t first, size_t last) {
  std::vector<size_t> order;
  if (!irfft) order.push_back(last);
  for (size_t a = first; a < last; ++a) order.push_back(a);
  if (irfft) order.push_back(last);
  return order;
}

// The passes read the operand and write the result directly; between them
// values live in complex<double> buffers.
Status runFft(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  std::string_view type = instr.attrs().getString(AttrKey::kFftType);
  const std::vector<int64_t>& lengths = instr.attrs().getInts(AttrKey::kFftLength);
  const std::vector<int64_t>& outDims = call.result.shape().dims();
  bool irfft = type == "IRFFT", inverse = irfft || type == "IFFT";
  size_t last = outDims.size() - 1, first = last + 1 - lengths.size();

  Source in{call.operands[0]->shape().dims(), call.operands[0], nullptr};
  std::vector<Complex> buffers[2];
  std::vector<size_t> order = axisOrder(irfft, first, last);
  for (size_t p = 0; p < order.size(); ++p) {
    size_t axis = order[p];
    std::vector<int64_t> dims = in.dims;
    dims[axis] = outDims[axis];
    Sink out{&call.result, nullptr};
    if (p + 1 < order.size()) {
      std::vector<Complex>& buffer = buffers[p % 2];
      int64_t count = 1;
      for (int64_t d : dims) count *= d;
      buffer.assign(static_cast<size_t>(count), Complex(0));
      out = Sink{nullptr, buffer.data()};
    }
    transformAxis(in, axis, lengths[axis - first], outDims[axis], inverse, irfft && axis == last, out, call.pool);
    in = Source{dims, nullptr, out.buffer};
  }
  return okStatus();
}

bool realType(ElementType t) { return t == ElementType::kF32 || t == ElementType::kF64; }
bool complexType(ElementType t) { return t == ElementType::kC64 || t == ElementType::kC128; }

}  // namespace

StatusOr<RuntimePlan> planFft(HelperModule&, const Instruction& instr, const std::string&) {
  if (instr.operandCount() != 1) return jit::cannotCompile(instr, "expected one operand");
  const Shape& x = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  if (!x.isArray() || !out.isArray())
    return jit::cannotCompile(instr, "expected an array operand and result");
  std::string_view type = instr.attrs().getString(AttrKey::kFftType);
  const std::vector<int64_t>& lengths = instr.attrs().getInts(AttrKey::kFftLength);
  int rank = x.rank();
  if (out.rank() != rank || lengths.empty() || lengths.size() > 3 || static_cast<int>(lengths.size()) > rank)
    return jit::cannotCompile(instr, "fft_length must have 1 to 3 entries, at most the operand rank");
  bool realIn = type == "RFFT", realOut = type == "IRFFT";
  if (type != "FFT" && type != "IFFT" && !realIn && !realOut)
    return jit::cannotCompile(instr, "unknown fft_type '" + std::string(type) + "'");
  if (!(realIn ? realType(x.type()) : complexType(x.type())) || !(realOut ? realType(out.type()) : complexType(out.type())))
    return jit::cannotCompile(instr, "element types " + std::string(elementTypeName(x.type())) + " -> " +
                                         std::string(elementTypeName(out.type())) + " do not fit fft_type " +
                                         std::string(type));
  for (int d = 0; d < rank - static_cast<int>(lengths.size()); ++d)
    if (x.dim(d) != out.dim(d))
      return jit::cannotCompile(instr, "the untransformed dimensions of the result must match the operand");
  for (int64_t n : lengths)
    if (n < 0) return jit::cannotCompile(instr, "fft_length must not be negative");
  return RuntimePlan{runFft, {}};
}

}  // namespace hlo::cpu
