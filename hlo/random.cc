// rng, rng-bit-generator and rng-get-and-update-state, shared by the
// interpreter and the CPU runtime.
//
// rng-bit-generator follows XLA's RngBitGeneratorExpander bit for bit, so a
// module gives the same bits here as on XLA:
//   state[0] is the key. rng_default is rng_philox (XLA's CPU and GPU choice).
//   rng_three_fry (state u64[2], counter state[1]):
//     64-bit values: element e = threefry(key, counter + e), low word | high << 32.
//     32-bit values: the shape is split in half along its first even
//       dimension (else its largest; a scalar counts as [2]); element h of the
//       half shape gives threefry(key, counter + h) = (w0, w1), which land at
//       positions 2j and 2j+1 of the split dimension (j = h's coordinate
//       there; an odd size drops the last w1). The counter advances by the
//       half shape's size.
//   rng_philox (state u64[3]: key, counter low, counter high; or u64[2]: key,
//     counter low, with the key as counter high):
//     32-bit values: block i = philox(counter + i as four words, key) gives
//       elements 4i .. 4i+3; 64-bit values: block i gives elements 2i, 2i+1 as
//       (w0 | w1 << 32), (w2 | w3 << 32). The 128-bit counter advances by the
//       number of blocks.
//   Narrower types take the low bits of the 32-bit values.
//   The result is (new state, bits), or only the bits when it is an array.
//
// rng (distribution=rng_uniform / rng_normal) draws its bits from Philox
// keyed by a hash of the instruction's name, counter 0: deterministic, and
// the same values every time the instruction runs (XLA gives new values per
// execution). Uniform floats take the top mantissa-width bits as u in
// [0, 1) and return a + u (b - a); uniform integers a + bits mod (b - a)
// (a when b <= a); normals are Box-Muller pairs mu + sigma * z.
//
// rng-get-and-update-state returns the u64[2] state (low, high words of a
// 128-bit counter) and adds `delta` to it. The interpreter keeps no state
// across instructions yet, so every execution sees the initial state.
#include <cmath>
#include <numbers>

#include "hlo/random.h"

#include <string>

#include "hlo/element_io.h"
#include "hlo/indexing.h"
#include "hlo/instruction.h"
#include "hlo/random_bits.h"

namespace hlo {
namespace {

constexpr uint64_t kInitialRngState = 0x7012395;

struct U128 {
  uint64_t low = 0, high = 0;
  U128 plus(uint64_t v) const { return {low + v, high + (low + v < low ? 1 : 0)}; }
};

// `count` values of `bits` (32 or 64) width from Philox, XLA's layout.
std::vector<uint64_t> philoxValues(uint64_t key, U128& counter, int64_t count, int bits) {
  std::vector<uint64_t> values(static_cast<size_t>(count));
  int perBlock = bits == 64 ? 2 : 4;
  int64_t blocks = (count + perBlock - 1) / perBlock;
  for (int64_t i = 0; i < blocks; ++i) {
    U128 c = counter.plus(static_cast<uint64_t>(i));
    auto lo = splitU64(c.low), hi = splitU64(c.high);
    std::array<uint32_t, 4> w = philox4x32({lo[0], lo[1], hi[0], hi[1]}, splitU64(key));
    for (int j = 0; j < perBlock; ++j) {
      int64_t e = i * perBlock + j;
      if (e >= count) break;
      values[e] = bits == 64 ? joinU32(w[2 * j], w[2 * j + 1]) : w[j];
    }
  }
  counter = counter.plus(static_cast<uint64_t>(blocks));
  return values;
}

// ThreeFry values for `dims`, XLA's layout (see the top of the file).
std::vector<uint64_t> threeFryValues(uint64_t key, uint64_t& counter, const std::vector<int64_t>& dims, int bits) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<uint64_t> values(static_cast<size_t>(count));
  auto k = splitU64(key);
  if (bits == 64) {
    for (int64_t e = 0; e < count; ++e) {
      auto w = threeFry2x32(k, splitU64(counter + static_cast<uint64_t>(e)));
      values[e] = joinU32(w[0], w[1]);
    }
    counter += static_cast<uint64_t>(count);
    return values;
  }
  if (dims.empty()) {  // a scalar is the first half of a [2]
    values[0] = threeFry2x32(k, splitU64(counter))[0];
    counter += 1;
    return values;
  }
  int split = -1;
  for (size_t d = 0; d < dims.size() && split < 0; ++d)
    if (dims[d] % 2 == 0) split = static_cast<int>(d);
  if (split < 0)
    for (size_t d = 0; d < dims.size(); ++d)
      if (split < 0 || dims[d] > dims[split]) split = static_cast<int>(d);
  std::vector<int64_t> half = dims;
  half[split] = (dims[split] + 1) / 2;
  std::vector<int64_t> halfStrides = rowMajorStrides(half);
  int64_t halfCount = 1;
  for (int64_t d : half) halfCount *= d;
  forEachIndex(dims, [&](const std::vector<int64_t>& index, int64_t linear) {
    int64_t h = 0;
    for (size_t d = 0; d < dims.size(); ++d)
      h += (static_cast<int>(d) == split ? index[d] / 2 : index[d]) * halfStrides[d];
    values[linear] = threeFry2x32(k, splitU64(counter + static_cast<uint64_t>(h)))[index[split] % 2];
  });
  counter += static_cast<uint64_t>(halfCount);
  return values;
}

// The generator's value width for an element type: 64 for 64-bit types, 32
// for narrower ones (which keep the low bits), 0 when unsupported.
int valueBits(ElementType t) {
  if (isComplex(t) || isPred(t) || bitWidth(t) < 8) return 0;
  return bitWidth(t) == 64 ? 64 : 32;
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// u in [0, 1) from the top `mantissa` bits of a `bits`-wide value.
double unitFromBits(uint64_t v, int bits, int mantissa) {
  return std::ldexp(static_cast<double>(v >> (bits - mantissa)), -mantissa);
}

// The stored mantissa bits of a float type; the f8 and f4 types draw 23 bits
// and round, which may land on b.
int mantissaBits(ElementType t) {
  if (t == ElementType::kF64) return 52;
  if (t == ElementType::kF16) return 10;
  if (t == ElementType::kBF16) return 7;
  return 23;
}

}  // namespace

StatusOr<Literal> evaluateRngBitGenerator(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  if (ops.size() != 1) return hooks.refuse(instr, "expected one state operand");
  const Literal& state = *ops[0];
  const Shape& shape = instr.shape();
  // The result is (new state, bits), or just the bits (XLA accepts that too).
  bool bitsOnly = shape.isArray();
  if (!bitsOnly && (!shape.isTuple() || shape.tupleSize() != 2 || !shape.tupleElement(1).isArray() ||
                    !shape.tupleElement(0).compatible(state.shape())))
    return hooks.refuse(instr, "result must be (state, bits) or bits");
  const Shape& data = bitsOnly ? shape : shape.tupleElement(1);
  int bits = valueBits(data.type());
  if (bits == 0) return hooks.refuse(instr, "bits of type " + std::string(elementTypeName(data.type())));
  std::string_view algorithm = instr.attrs().getString(AttrKey::kAlgorithm);
  bool threeFry = algorithm == "rng_three_fry";
  if (!threeFry && !algorithm.empty() && algorithm != "rng_philox" && algorithm != "rng_default")
    return hooks.refuse(instr, "algorithm " + std::string(algorithm));
  int64_t words = state.shape().isArray() && state.shape().rank() == 1 && state.type() == ElementType::kU64
                      ? state.elementCount() : 0;
  if (threeFry ? words != 2 : words != 2 && words != 3)
    return hooks.refuse(instr, std::string("state must be u64[") + (threeFry ? "2" : "2 or 3") + "]");
  if (hooks.checkMemory) HLO_RETURN_IF_ERROR(hooks.checkMemory(instr, shape));
  Literal result(shape);
  Literal newState(state.shape());
  uint64_t key = state.bitsAt(0);
  std::vector<uint64_t> values;
  newState.setBitsAt(0, key);
  if (threeFry) {
    uint64_t counter = state.bitsAt(1);
    values = threeFryValues(key, counter, data.dims(), bits);
    newState.setBitsAt(1, counter);
  } else {
    U128 counter = words == 3 ? U128{state.bitsAt(1), state.bitsAt(2)} : U128{state.bitsAt(1), key};
    values = philoxValues(key, counter, data.elementCount(), bits);
    newState.setBitsAt(1, counter.low);
    if (words == 3) newState.setBitsAt(2, counter.high);
  }
  Literal& out = bitsOnly ? result : result.tupleElements()[1];
  for (size_t i = 0; i < values.size(); ++i) out.setBitsAt(static_cast<int64_t>(i), values[i]);
  if (!bitsOnly) result.tupleElements()[0] = std::move(newState);
  return result;
}

StatusOr<Literal> evaluateRng(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  if (ops.size() < 2 || !ops[0]->shape().isScalar() || !ops[1]->shape().isScalar() || !instr.shape().isArray())
    return hooks.refuse(instr, "expected two scalar bounds and an array result");
  ElementType t = instr.shape().type();
  std::string_view distribution = instr.attrs().getString(AttrKey::kDistribution);
  bool normal = distribution == "rng_normal";
  if (!normal && distribution != "rng_uniform")
    return hooks.refuse(instr, "distribution " + std::string(distribution));
  if (isComplex(t) || (normal && !isFloat(t)))
    return hooks.refuse(instr, std::string(distribution) + " of " + std::string(elementTypeName(t)));
  int bits = bitWidth(t) == 64 ? 64 : 32;
  int64_t count = instr.shape().elementCount();
  U128 counter;
  std::vector<uint64_t> values = philoxValues(fnv1a(instr.name()), counter, count + (normal ? 1 : 0), bits);
  if (hooks.checkMemory) HLO_RETURN_IF_ERROR(hooks.checkMemory(instr, instr.shape()));
  Literal out(instr.shape());
  const Literal& a = *ops[0];
  const Literal& b = *ops[1];
  if (normal) {
    double mu = a.toDouble(0), sigma = b.toDouble(0);
    for (int64_t i = 0; i < count; i += 2) {
      double u1 = std::max(unitFromBits(values[i], bits, mantissaBits(t)), 1e-7);
      double u2 = unitFromBits(values[i + 1], bits, mantissaBits(t));
      double r = std::sqrt(-2.0 * std::log(u1));
      writeFloat(out, i, mu + sigma * r * std::sin(2.0 * std::numbers::pi * u2));
      if (i + 1 < count) writeFloat(out, i + 1, mu + sigma * r * std::cos(2.0 * std::numbers::pi * u2));
    }
  } else if (isFloat(t)) {
    double lo = a.toDouble(0), hi = b.toDouble(0);
    for (int64_t i = 0; i < count; ++i) writeFloat(out, i, lo + unitFromBits(values[i], bits, mantissaBits(t)) * (hi - lo));
  } else {
    int64_t lo = readInt(a, 0), hi = readInt(b, 0);
    bool empty = isSigned(t) ? hi <= lo : static_cast<uint64_t>(hi) <= static_cast<uint64_t>(lo);
    uint64_t range = empty ? 0 : static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    for (int64_t i = 0; i < count; ++i)
      writeInt(out, i, static_cast<int64_t>(static_cast<uint64_t>(lo) + (range == 0 ? 0 : values[i] % range)));
  }
  return out;
}

StatusOr<Literal> evaluateRngGetAndUpdateState(const Instruction& instr, Values, const EngineHooks& hooks) {
  if (!instr.shape().isArray() || instr.shape().type() != ElementType::kU64 || instr.shape().elementCount() != 2)
    return hooks.refuse(instr, "result must be u64[2]");
  if (hooks.checkMemory) HLO_RETURN_IF_ERROR(hooks.checkMemory(instr, instr.shape()));
  Literal out(instr.shape());
  out.setBitsAt(0, kInitialRngState);
  out.setBitsAt(1, 0);
  return out;
}

}  // namespace hlo
