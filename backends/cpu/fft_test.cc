// The fast transforms of fft.h against the DFT written out as its sum, on
// every length 1..70 (powers of two through radix-2, the rest through
// Bluestein) and a few larger ones, forward and inverse.
#include "backends/cpu/fft.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace hlo::cpu::fft {
namespace {

// X[k] = scale * sum_t x[t] e^(sign 2 pi i t k / n), the exponent reduced
// mod n before it becomes an angle.
std::vector<Complex> directDft(const std::vector<Complex>& x, bool inverse) {
  int64_t n = static_cast<int64_t>(x.size());
  double sign = inverse ? 1.0 : -1.0;
  std::vector<Complex> out(n);
  for (int64_t k = 0; k < n; ++k) {
    Complex sum = 0;
    for (int64_t t = 0; t < n; ++t) {
      double angle = sign * 2.0 * std::numbers::pi * static_cast<double>((t * k) % n) / static_cast<double>(n);
      sum += x[t] * Complex(std::cos(angle), std::sin(angle));
    }
    out[k] = inverse ? sum / static_cast<double>(n) : sum;
  }
  return out;
}

std::vector<Complex> randomSignal(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Complex> x(n);
  for (Complex& v : x) v = Complex(value(gen), value(gen));
  return x;
}

// The plan's result equals the direct sum within 1e-9 of the largest
// output magnitude (double rounding leaves ~1e-15 * log n).
void expectMatchesDft(int64_t n, bool inverse) {
  std::vector<Complex> x = randomSignal(n, static_cast<unsigned>(n * 2 + inverse));
  std::vector<Complex> want = directDft(x, inverse);
  Plan plan(n, inverse);
  ASSERT_EQ(plan.length(), n);
  std::vector<Complex> got = x, scratch(plan.scratchSize());
  plan.run(got.data(), scratch.data());
  double scale = 0;
  for (const Complex& v : want) scale = std::max(scale, std::abs(v));
  for (int64_t k = 0; k < n; ++k)
    ASSERT_LE(std::abs(got[k] - want[k]), 1e-9 * scale)
        << (inverse ? "inverse" : "forward") << " n=" << n << " k=" << k << ": got " << got[k] << ", want " << want[k];
}

TEST(Fft, MatchesTheDftForLengthsUpTo70) {
  for (int64_t n = 1; n <= 70; ++n) {
    expectMatchesDft(n, false);
    expectMatchesDft(n, true);
  }
}

TEST(Fft, MatchesTheDftForLargerLengths) {
  for (int64_t n : {97, 128, 243, 1000, 1024, 1031}) {
    expectMatchesDft(n, false);
    expectMatchesDft(n, true);
  }
}

TEST(Fft, InverseUndoesForward) {
  for (int64_t n : {1, 6, 64, 1000}) {
    std::vector<Complex> x = randomSignal(n, 7), y = x;
    Plan forward(n, false), inverse(n, true);
    std::vector<Complex> scratch(std::max(forward.scratchSize(), inverse.scratchSize()));
    forward.run(y.data(), scratch.data());
    inverse.run(y.data(), scratch.data());
    for (int64_t t = 0; t < n; ++t) ASSERT_LE(std::abs(y[t] - x[t]), 1e-12) << "n=" << n << " t=" << t;
  }
}

// Known values: a unit impulse at t=1 transforms to e^(-2 pi i k / n).
TEST(Fft, ImpulseGivesTheRootsOfUnity) {
  for (int64_t n : {3, 5, 8}) {
    std::vector<Complex> x(n, 0.0), scratch;
    x[1] = 1;
    Plan plan(n, false);
    scratch.resize(plan.scratchSize());
    plan.run(x.data(), scratch.data());
    for (int64_t k = 0; k < n; ++k) {
      double angle = -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
      EXPECT_NEAR(x[k].real(), std::cos(angle), 1e-14) << "n=" << n << " k=" << k;
      EXPECT_NEAR(x[k].imag(), std::sin(angle), 1e-14) << "n=" << n << " k=" << k;
    }
  }
}

TEST(Fft, ZeroLengthDoesNothing) {
  Plan plan(0, false);
  EXPECT_EQ(plan.scratchSize(), 0);
  plan.run(nullptr, nullptr);
}

}  // namespace
}  // namespace hlo::cpu::fft
