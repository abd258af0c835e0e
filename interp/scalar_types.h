// The compute kinds of the scalar semantics (interp/scalar_ops.h): how a
// value of each element type family is held while an operation computes it.
//   PredKind            bool
//   IntKind<S, Bits>    an integer of Bits bits held sign- or zero-extended in
//                       S (s4 in int8_t, u2 in uint8_t); results wrap at Bits
//   FloatKind<F>        float or double (the small float types compute in float)
//   ComplexKind<F>      std::complex<float> (c64) or std::complex<double> (c128)
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

namespace hlo::interp::scalar {

enum class Family : uint8_t { kNone, kPred, kInt, kFloat, kComplex };

struct PredKind {
  static constexpr Family kFamily = Family::kPred;
  using Value = bool;
};

template <typename S, int Bits>
struct IntKind {
  static constexpr Family kFamily = Family::kInt;
  using Value = S;
  static constexpr int kBits = Bits;
  static constexpr bool kSigned = std::is_signed_v<S>;
  static constexpr uint64_t kMask = Bits == 64 ? ~uint64_t{0} : (uint64_t{1} << Bits) - 1;

  // The low Bits of `v`, sign- or zero-extended into S.
  static constexpr S wrap(uint64_t v) {
    if constexpr (kSigned)
      return static_cast<S>(static_cast<int64_t>(v << (64 - Bits)) >> (64 - Bits));
    else
      return static_cast<S>(v & kMask);
  }
  // Two's complement bits of `v`, widened (sign-extended for signed types).
  static constexpr uint64_t wide(S v) { return static_cast<uint64_t>(v); }
  // The Bits-bit pattern of `v`, zero-extended (s4 -1 is 0xf).
  static constexpr uint64_t bits(S v) { return wide(v) & kMask; }
  // `v` read as a signed Bits-bit number (u8 0x80 is -128).
  static constexpr int64_t asSigned(S v) {
    return static_cast<int64_t>(bits(v) << (64 - Bits)) >> (64 - Bits);
  }
  static constexpr bool negative(S v) {
    if constexpr (kSigned) return v < 0;
    else return false;
  }
  static constexpr S min() { return kSigned ? wrap(uint64_t{1} << (Bits - 1)) : S{0}; }
  static constexpr S max() { return kSigned ? wrap((uint64_t{1} << (Bits - 1)) - 1) : wrap(kMask); }
};

template <typename F>
struct FloatKind {
  static constexpr Family kFamily = Family::kFloat;
  using Value = F;
};

template <typename F>
struct ComplexKind {
  static constexpr Family kFamily = Family::kComplex;
  using Value = std::complex<F>;
  using Real = F;
};

template <class K> inline constexpr bool isPred = K::kFamily == Family::kPred;
template <class K> inline constexpr bool isInt = K::kFamily == Family::kInt;
template <class K> inline constexpr bool isFloat = K::kFamily == Family::kFloat;
template <class K> inline constexpr bool isComplex = K::kFamily == Family::kComplex;
template <class K> inline constexpr bool isNumber = isInt<K> || isFloat<K> || isComplex<K>;
template <class K> inline constexpr bool isInexact = isFloat<K> || isComplex<K>;
template <class K> inline constexpr bool isReal = isPred<K> || isInt<K> || isFloat<K>;

template <class K> using V = typename K::Value;

}  // namespace hlo::interp::scalar
