// One-dimensional FFT plans: radix-2 Cooley-Tukey and Bluestein (fft.h).
#include "backends/cpu/fft.h"

#include <cmath>
#include <numbers>
#include <utility>

namespace hlo::cpu::fft {
namespace {

// The plain product: std::complex's operator* also handles infinities and
// NaNs by a slow library call, which a butterfly does not need.
inline Complex mul(Complex a, Complex b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

bool isPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

int64_t powerOfTwoAtLeast(int64_t n) {
  int64_t m = 1;
  while (m < n) m *= 2;
  return m;
}

// e^(i pi p / q) for integers p and q > 0, reduced to an angle of at most
// pi/4 before calling cos and sin, so quarter turns are exact (e^(i pi/2)
// is i, not 6e-17 + i) and symmetric twiddles are exact conjugates.
Complex unitRoot(int64_t p, int64_t q) {
  int64_t r = ((p % (2 * q)) + 2 * q) % (2 * q);  // the angle pi r / q in [0, 2 pi)
  int64_t quadrant = 2 * r / q, rem = 2 * r - quadrant * q;  // pi/2 (quadrant + rem / q)
  auto quarter = [&](int64_t part) { return std::numbers::pi / 2 * static_cast<double>(part) / static_cast<double>(q); };
  double c, s;  // of the angle pi/2 * rem / q, in [0, pi/2)
  if (2 * rem <= q) {
    c = std::cos(quarter(rem));
    s = std::sin(quarter(rem));
  } else {
    c = std::sin(quarter(q - rem));
    s = std::cos(quarter(q - rem));
  }
  switch (quadrant) {
    case 0: return {c, s};
    case 1: return {-s, c};
    case 2: return {-c, -s};
    default: return {s, -c};
  }
}

}  // namespace

Radix2::Radix2(int64_t n, bool inverse) : n_(n), reversed_(n), twiddles_(n) {
  int bits = 0;
  while ((int64_t{1} << bits) < n) ++bits;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = 0;
    for (int b = 0; b < bits; ++b)
      if (i & (int64_t{1} << b)) r |= int64_t{1} << (bits - 1 - b);
    reversed_[i] = r;
  }
  // Stage with half-width h combines transforms of length h into 2h, with
  // the twiddles w^j = e^(-+2 pi i j / 2h), j < h.
  int64_t sign = inverse ? 1 : -1;
  for (int64_t h = 1; h < n; h *= 2)
    for (int64_t j = 0; j < h; ++j) twiddles_[h + j] = unitRoot(sign * j, h);
}

void Radix2::run(Complex* data) const {
  for (int64_t i = 0; i < n_; ++i)
    if (i < reversed_[i]) std::swap(data[i], data[reversed_[i]]);
  for (int64_t h = 1; h < n_; h *= 2) {
    const Complex* w = twiddles_.data() + h;
    for (int64_t start = 0; start < n_; start += 2 * h) {
      Complex* lo = data + start;
      Complex* hi = lo + h;
      for (int64_t j = 0; j < h; ++j) {
        Complex u = lo[j], v = mul(hi[j], w[j]);
        lo[j] = u + v;
        hi[j] = u - v;
      }
    }
  }
}

Plan::Plan(int64_t n, bool inverse)
    : n_(n),
      inverse_(inverse),
      powerOfTwo_(n == 0 || isPowerOfTwo(n)),
      radix2_(powerOfTwo_ ? n : powerOfTwoAtLeast(2 * n - 1), powerOfTwo_ && inverse) {
  if (powerOfTwo_) return;
  // Bluestein. With c[t] = e^(-+pi i t^2 / n) (t^2 taken mod 2n, which the
  // exponent's period allows, so large t lose no accuracy),
  //   X[k] = c[k] sum_t (x[t] c[t]) conj(c[k - t]),
  // a convolution of a[t] = x[t] c[t] with b[j] = conj(c[j]), j in (-n, n),
  // which is circular over m >= 2n - 1 once b[-j] is stored at m - j.
  m_ = powerOfTwoAtLeast(2 * n - 1);
  int64_t sign = inverse ? 1 : -1;
  chirp_.resize(n);
  for (int64_t t = 0, square = 0; t < n; ++t) {
    chirp_[t] = unitRoot(sign * square, n);
    square = (square + 2 * t + 1) % (2 * n);  // (t+1)^2 mod 2n
  }
  kernelSpectrum_.assign(m_, Complex(0));
  kernelSpectrum_[0] = std::conj(chirp_[0]);
  for (int64_t j = 1; j < n; ++j) kernelSpectrum_[j] = kernelSpectrum_[m_ - j] = std::conj(chirp_[j]);
  radix2_.run(kernelSpectrum_.data());
  // The inverse transform of the product is done as a forward one of its
  // conjugate (bluestein()); its 1/m factor is folded in here.
  for (Complex& v : kernelSpectrum_) v /= static_cast<double>(m_);
}

void Plan::bluestein(Complex* data, Complex* scratch) const {
  for (int64_t t = 0; t < n_; ++t) scratch[t] = mul(data[t], chirp_[t]);
  for (int64_t t = n_; t < m_; ++t) scratch[t] = 0;
  radix2_.run(scratch);
  // ifft(y) = conj(fft(conj(y))) / m: the convolution by one more forward transform.
  for (int64_t j = 0; j < m_; ++j) scratch[j] = std::conj(mul(scratch[j], kernelSpectrum_[j]));
  radix2_.run(scratch);
  for (int64_t k = 0; k < n_; ++k) data[k] = mul(std::conj(scratch[k]), chirp_[k]);
}

void Plan::run(Complex* data, Complex* scratch) const {
  if (n_ == 0) return;
  if (powerOfTwo_) radix2_.run(data);
  else bluestein(data, scratch);
  if (inverse_)
    for (int64_t i = 0; i < n_; ++i) data[i] /= static_cast<double>(n_);
}

}  // namespace hlo::cpu::fft
