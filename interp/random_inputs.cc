// Seeded argument values: splitmix64 bits mapped into small, finite ranges.
#include "interp/random_inputs.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "hlo/float_formats.h"

namespace hlo::interp {
namespace {

// A splitmix64 stream and the draws the generator makes from it.
class Rng {
 public:
  explicit Rng(uint64_t state) : state_(state) {}
  uint64_t next() { return splitMix64(state_); }
  // Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }
  // Uniform integer in [lo, hi] (a range of at most 2^32 values).
  int64_t between(int64_t lo, int64_t hi) {
    uint64_t range = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(((next() >> 32) * range) >> 32);
  }

 private:
  uint64_t state_;
};

// The bits of a random value of float type `t`.
uint64_t randomFloatBits(ElementType t, Rng& rng) {
  double u = rng.unit();
  if (t == ElementType::kF8E8M0FNU) return encodeSmallFloat(t, 0.5 + 1.5 * u);
  double v = 2 * u - 1;  // exact: [-1, 1) on a grid of 2^-52
  if (t == ElementType::kF64) return std::bit_cast<uint64_t>(v);
  if (t == ElementType::kF32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  return encodeSmallFloat(t, v);
}

void fill(Literal& value, Rng& rng) {
  const Shape& shape = value.shape();
  if (shape.isTuple()) {
    for (Literal& element : value.tupleElements()) fill(element, rng);
    return;
  }
  if (!shape.isArray()) return;  // token
  ElementType t = shape.type();
  int64_t n = value.elementCount();
  int width = bitWidth(t);
  for (int64_t i = 0; i < n; ++i) {
    switch (typeKind(t)) {
      case TypeKind::kPred:
        value.setBitsAt(i, rng.next() >> 63);
        break;
      case TypeKind::kSigned:  // [-8, 8], or the whole range of s2 and s4
        value.setBitsAt(i, static_cast<uint64_t>(width >= 8 ? rng.between(-8, 8)
                                                            : rng.between(-(1 << (width - 1)), (1 << (width - 1)) - 1)));
        break;
      case TypeKind::kUnsigned:  // [0, 8], or the whole range of u2
        value.setBitsAt(i, static_cast<uint64_t>(rng.between(0, width >= 4 ? 8 : (1 << width) - 1)));
        break;
      case TypeKind::kFloat:
        value.setBitsAt(i, randomFloatBits(t, rng));
        break;
      case TypeKind::kComplex: {
        ElementType part = complexComponentType(t);
        uint64_t re = randomFloatBits(part, rng), im = randomFloatBits(part, rng);
        int bytes = storageBytes(part);
        std::memcpy(value.untypedData() + (2 * i) * bytes, &re, bytes);
        std::memcpy(value.untypedData() + (2 * i + 1) * bytes, &im, bytes);
        break;
      }
      case TypeKind::kToken:
      case TypeKind::kTuple:
      case TypeKind::kOpaque:
      case TypeKind::kBuffer:
        return;
    }
  }
}

}  // namespace

// A 64-bit counter run through a fixed mixing function.
uint64_t splitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}

Literal randomLiteral(const Shape& shape, uint64_t seed, uint64_t stream) {
  // Two rounds of mixing so nearby (seed, stream) pairs start far apart.
  uint64_t state = seed;
  state = splitMix64(state) ^ stream;
  Rng rng(splitMix64(state));
  Literal value(shape);
  fill(value, rng);
  return value;
}

std::vector<Literal> randomArguments(const Computation& computation, uint64_t seed) {
  std::vector<Literal> args;
  for (int p = 0; p < computation.parameterCount(); ++p)
    args.push_back(randomLiteral(computation.parameter(p)->shape(), seed, static_cast<uint64_t>(p)));
  return args;
}

}  // namespace hlo::interp
