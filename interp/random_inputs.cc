// Seeded argument values: splitmix64 bits mapped into small, finite ranges.
#include "interp/random_inputs.h"

#include <algorithm>
#include <bit>
#include <cmath>
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

}  // namespace

// bf16 nearest-even of a double in (-1, 1) that is zero or at least 2^-52 in
// magnitude (the values drawn here): what encodeSmallFloat gives, without its
// general path, which dominated the time to fill large bf16 arguments. The
// rounding is done on the double's bits: keep the top 7 of its 52 mantissa
// bits, round the rest to nearest even (a carry moves into the exponent),
// then rebias the exponent from 1023 to 127. No subnormals or overflows can
// arise in that range.
uint16_t bf16FromUnitDouble(double v) {
  if (v == 0) return std::signbit(v) ? 0x8000 : 0;
  uint64_t bits = std::bit_cast<uint64_t>(v);
  uint64_t sign = bits >> 63;
  uint64_t magnitude = bits & ~(uint64_t{1} << 63);  // exponent and mantissa
  uint64_t rounded = (magnitude + ((uint64_t{1} << 44) - 1) + ((magnitude >> 45) & 1)) >> 45;
  uint64_t exponent = (rounded >> 7) - 1023 + 127;
  return static_cast<uint16_t>(sign << 15 | exponent << 7 | (rounded & 0x7f));
}

namespace {

// The bits of a random value of float type `t`.
uint64_t randomFloatBits(ElementType t, Rng& rng) {
  double u = rng.unit();
  if (t == ElementType::kF8E8M0FNU) return encodeSmallFloat(t, 0.5 + 1.5 * u);
  double v = 2 * u - 1;  // exact: [-1, 1) on a grid of 2^-52
  if (t == ElementType::kF64) return std::bit_cast<uint64_t>(v);
  if (t == ElementType::kF32) return std::bit_cast<uint32_t>(static_cast<float>(v));
  if (t == ElementType::kBF16) return bf16FromUnitDouble(v);
  return encodeSmallFloat(t, v);
}

// Typed stores for the common float types, the generic per-element path for
// the rest; the values are the same either way.
template <typename Bits>
void fillFloats(Literal& value, ElementType t, Rng& rng) {
  Bits* out = value.data<Bits>();
  for (int64_t i = 0, n = value.elementCount(); i < n; ++i) out[i] = static_cast<Bits>(randomFloatBits(t, rng));
}

void fill(Literal& value, Rng& rng) {
  const Shape& shape = value.shape();
  if (shape.isTuple()) {
    for (Literal& element : value.tupleElements()) fill(element, rng);
    return;
  }
  if (!shape.isArray()) return;  // token
  ElementType t = shape.type();
  if (t == ElementType::kF32) return fillFloats<uint32_t>(value, t, rng);
  if (t == ElementType::kF64) return fillFloats<uint64_t>(value, t, rng);
  if (t == ElementType::kBF16 || t == ElementType::kF16) return fillFloats<uint16_t>(value, t, rng);
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

namespace {

// The generator of the stream (seed, stream): two rounds of mixing so nearby
// pairs start far apart.
Rng streamRng(uint64_t seed, uint64_t stream) {
  uint64_t state = seed;
  state = splitMix64(state) ^ stream;
  return Rng(splitMix64(state));
}

// The bounds of the dimensions whose runtime size `user` takes from `param`:
// set-dimension-size's size operand, or a dynamic-reshape's result size.
std::vector<int64_t> boundsSizedBy(const Instruction& param, const Instruction& user) {
  std::vector<int64_t> bounds;
  if (user.opcode() == Opcode::kSetDimensionSize && user.operandCount() == 2 && user.operand(1) == &param) {
    const std::vector<int64_t>& dims = user.attrs().getInts(AttrKey::kDimensions);
    const Shape& x = user.operand(0)->shape();
    if (dims.size() == 1 && x.isArray() && dims[0] >= 0 && dims[0] < x.rank())
      bounds.push_back(x.dim(static_cast<int>(dims[0])));
  } else if (user.opcode() == Opcode::kDynamicReshape && user.shape().isArray()) {
    for (int i = 1; i < user.operandCount() && i - 1 < user.shape().rank(); ++i)
      if (user.operand(i) == &param) bounds.push_back(user.shape().dim(i - 1));
  }
  return bounds;
}

// The smallest bound `param` directly sizes through users of `opcode`, or
// -1 when it sizes none.
int64_t smallestBound(const Instruction& param, Opcode opcode) {
  int64_t bound = -1;
  for (const Instruction* user : param.users())
    if (user->opcode() == opcode)
      for (int64_t b : boundsSizedBy(param, *user))
        if (b >= 0) bound = bound < 0 ? b : std::min(bound, b);
  return bound;
}

}  // namespace

Literal randomLiteral(const Shape& shape, uint64_t seed, uint64_t stream) {
  Rng rng = streamRng(seed, stream);
  Literal value(shape);
  fill(value, rng);
  return value;
}

Literal randomArgument(const Instruction& param, uint64_t seed) {
  const Shape& shape = param.shape();
  auto stream = static_cast<uint64_t>(param.parameterNumber());
  bool integer = typeKind(shape.type()) == TypeKind::kSigned || typeKind(shape.type()) == TypeKind::kUnsigned;
  if (shape.isScalar() && integer) {
    if (int64_t bound = smallestBound(param, Opcode::kSetDimensionSize); bound >= 0) {
      Rng rng = streamRng(seed, stream);
      Literal value(shape);
      value.setBitsAt(0, static_cast<uint64_t>(rng.between(0, bound)));
      return value;
    }
    if (int64_t bound = smallestBound(param, Opcode::kDynamicReshape); bound >= 0) {
      Literal value(shape);
      value.setBitsAt(0, static_cast<uint64_t>(bound));
      return value;
    }
  }
  return randomLiteral(shape, seed, stream);
}

std::vector<Literal> randomArguments(const Computation& computation, uint64_t seed) {
  std::vector<Literal> args;
  for (int p = 0; p < computation.parameterCount(); ++p) args.push_back(randomArgument(*computation.parameter(p), seed));
  return args;
}

}  // namespace hlo::interp
