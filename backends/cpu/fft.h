// A one-dimensional fast Fourier transform of any length, in double
// precision, for the fft library op (runtime_fft.cc).
//
//   forward  X[k] = sum_t x[t] e^(-2 pi i t k / n)
//   inverse  x[t] = 1/n sum_k X[k] e^(+2 pi i t k / n)
//
// Algorithm: a power-of-two length runs an iterative radix-2 Cooley-Tukey
// transform (bit-reversal permutation, then log2(n) stages of butterflies
// over a precomputed twiddle table): O(n log n). Any other length is
// rewritten by Bluestein's chirp-z identity t k = (t^2 + k^2 - (k-t)^2) / 2
// as a circular convolution, computed with power-of-two transforms of a
// length m >= 2n - 1: still O(n log n), with no special case per prime.
// The plan is built once per length and direction, then reused for every
// line of a batch; running it is read-only, so threads may share one plan.
#pragma once
#include <complex>
#include <cstdint>
#include <vector>

namespace hlo::cpu::fft {

using Complex = std::complex<double>;

// A radix-2 transform of a power-of-two length, in place, unscaled.
class Radix2 {
 public:
  Radix2(int64_t n, bool inverse);
  void run(Complex* data) const;

 private:
  int64_t n_ = 0;
  std::vector<int64_t> reversed_;  // i -> i with its log2(n) bits reversed
  // The twiddles of the stage with half-width h at [h, 2h): e^(-+2 pi i j / 2h).
  std::vector<Complex> twiddles_;
};

// A transform of length n and direction fixed at construction.
class Plan {
 public:
  Plan(int64_t n, bool inverse);
  int64_t length() const { return n_; }
  // Complex values of scratch space run() needs.
  int64_t scratchSize() const { return m_; }
  // Transforms data[0, n) in place; `scratch` holds scratchSize() values.
  void run(Complex* data, Complex* scratch) const;

 private:
  void bluestein(Complex* data, Complex* scratch) const;

  int64_t n_ = 0;
  bool inverse_ = false;
  bool powerOfTwo_ = true;
  Radix2 radix2_;  // length n, or Bluestein's length m (forward)
  // Bluestein: m, the chirp e^(-+pi i t^2 / n) for t < n, and the spectrum
  // of the convolution kernel (the conjugate chirp, wrapped around) over m.
  int64_t m_ = 0;
  std::vector<Complex> chirp_, kernelSpectrum_;
};

}  // namespace hlo::cpu::fft
