// The fast path of reduce, reduce-window and select-and-scatter: when a
// reducer computation is one add / multiply / maximum / minimum / and / or of
// its two parameters, it is applied directly instead of being evaluated as a
// computation per element.
//
// The values are those the computation would produce: each step is rounded
// to the element type (f32 arithmetic for f32, double rounded back for the
// small floats, integers wrapped to their width), and callers fold in the
// same order as the generic path, so both paths agree bit for bit.
//   maximum / minimum of floats: NaN if either side is NaN, else a >= b ? a : b
//   (a <= b for minimum), so max(+0, -0) keeps the accumulator.
//   and / or: integers and pred only.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "hlo/computation.h"
#include "hlo/float_formats.h"
#include "interp/element_io.h"

namespace hlo::interp {

enum class FastOp : uint8_t { kAdd, kMultiply, kMaximum, kMinimum, kAnd, kOr };

// The op of `comp` if it is `ROOT r = T[] op(p0, p1)` (either operand order)
// on a type the fast path handles, else nullopt.
inline std::optional<FastOp> fastReducer(const Computation* comp) {
  if (!comp || comp->parameterCount() != 2 || !comp->root()) return std::nullopt;
  const Instruction* root = comp->root();
  if (root->operandCount() != 2 || !root->shape().isScalar()) return std::nullopt;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter || a == b) return std::nullopt;
  for (const Instruction* p : {a, b})
    if (!p->shape().isScalar() || p->shape().type() != root->shape().type()) return std::nullopt;
  ElementType t = root->shape().type();
  bool logical = isInteger(t) || isPred(t);
  bool arithmetic = isInteger(t) || isFloat(t);
  // Opcode has too many values for a switch here: the reducers are a short list.
  Opcode op = root->opcode();
  if (op == Opcode::kAdd && arithmetic) return FastOp::kAdd;
  if (op == Opcode::kMultiply && arithmetic) return FastOp::kMultiply;
  if (op == Opcode::kMaximum && (arithmetic || isPred(t))) return FastOp::kMaximum;
  if (op == Opcode::kMinimum && (arithmetic || isPred(t))) return FastOp::kMinimum;
  if (op == Opcode::kAnd && logical) return FastOp::kAnd;
  if (op == Opcode::kOr && logical) return FastOp::kOr;
  return std::nullopt;
}

template <typename T>
T applyFast(FastOp op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case FastOp::kAdd: return a + b;
      case FastOp::kMultiply: return a * b;
      case FastOp::kMaximum: return std::isnan(a) ? a : std::isnan(b) ? b : (a >= b ? a : b);
      case FastOp::kMinimum: return std::isnan(a) ? a : std::isnan(b) ? b : (a <= b ? a : b);
      case FastOp::kAnd:
      case FastOp::kOr: break;  // not chosen for floats
    }
    return a;
  } else {
    using U = std::make_unsigned_t<T>;  // wrapping arithmetic without overflow
    switch (op) {
      case FastOp::kAdd: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case FastOp::kMultiply: return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
      case FastOp::kMaximum: return a >= b ? a : b;
      case FastOp::kMinimum: return a <= b ? a : b;
      case FastOp::kAnd: return a & b;
      case FastOp::kOr: return a | b;
    }
    return a;
  }
}

// How values of one element type are loaded, rounded after each step and
// stored. Each domain is a small value type; foldFast below is generic.
struct F32Domain {
  using T = float;
  T load(const Literal& l, int64_t i) const { return l.data<float>()[i]; }
  T round(T v) const { return v; }
  void store(Literal& l, int64_t i, T v) const { l.data<float>()[i] = v; }
};
struct F64Domain {
  using T = double;
  T load(const Literal& l, int64_t i) const { return l.data<double>()[i]; }
  T round(T v) const { return v; }
  void store(Literal& l, int64_t i, T v) const { l.data<double>()[i] = v; }
};
// f16, bf16, f8, f4: exact double arithmetic, rounded to the type each step.
struct SmallFloatDomain {
  using T = double;
  ElementType type;
  T load(const Literal& l, int64_t i) const { return decodeSmallFloat(type, l.bitsAt(i)); }
  T round(T v) const { return decodeSmallFloat(type, encodeSmallFloat(type, v)); }
  void store(Literal& l, int64_t i, T v) const { l.setBitsAt(i, encodeSmallFloat(type, v)); }
};
// bf16, the common case, on its bits: a bf16 is the top half of an f32, and
// a value that f32 holds exactly rounds to bf16 by the bit rule of
// SmallFloatElem (elementwise_kernels.h), which equals encodeSmallFloat's
// rounding there; other values (NaN, or sums f32 cannot hold) take the
// general rounding.
struct BF16Domain {
  using T = double;
  static double fromBits(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
  static uint16_t toBits(double v) {
    auto f = static_cast<float>(v);
    if (static_cast<double>(f) != v) return static_cast<uint16_t>(encodeSmallFloat(ElementType::kBF16, v));
    uint32_t bits = std::bit_cast<uint32_t>(f);
    return static_cast<uint16_t>((bits + 0x7fff + (bits >> 16 & 1)) >> 16);
  }
  T load(const Literal& l, int64_t i) const { return fromBits(l.data<uint16_t>()[i]); }
  T round(T v) const { return fromBits(toBits(v)); }
  void store(Literal& l, int64_t i, T v) const { l.data<uint16_t>()[i] = toBits(v); }
};
// Signed integers sign-extended to int64, wrapped to the type each step.
struct SignedDomain {
  using T = int64_t;
  int bits;
  T load(const Literal& l, int64_t i) const { return readInt(l, i); }
  T round(T v) const {
    if (bits >= 64) return v;
    uint64_t u = static_cast<uint64_t>(v) << (64 - bits);
    return static_cast<int64_t>(u) >> (64 - bits);
  }
  void store(Literal& l, int64_t i, T v) const { writeInt(l, i, v); }
};
// Unsigned integers and pred, zero-extended to uint64.
struct UnsignedDomain {
  using T = uint64_t;
  int bits;
  T load(const Literal& l, int64_t i) const { return l.bitsAt(i); }
  T round(T v) const { return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1); }
  void store(Literal& l, int64_t i, T v) const { l.setBitsAt(i, v); }
};

// Calls f(domain) with the domain of element type t.
template <typename F>
auto withFastDomain(ElementType t, F&& f) {
  if (t == ElementType::kF32) return f(F32Domain{});
  if (t == ElementType::kF64) return f(F64Domain{});
  if (t == ElementType::kBF16) return f(BF16Domain{});
  if (isFloat(t)) return f(SmallFloatDomain{t});
  if (isSigned(t)) return f(SignedDomain{bitWidth(t)});
  return f(UnsignedDomain{bitWidth(t)});
}

}  // namespace hlo::interp
