// bitcast-convert: the same bits read as another element type. Between
// widths, one wide element is several narrow ones along a new minor
// dimension, the least significant first (XLA's order on a little-endian
// host); pred counts as a byte. Shared by the interpreter and the CPU
// runtime.
#include "hlo/bitcast_convert.h"

#include <cstring>

namespace hlo {
namespace {

int64_t lowBits(int width) { return width >= 64 ? -1 : (int64_t{1} << width) - 1; }

// Bits of element i of an array of `t`, zero-extended from its bit width.
uint64_t elementBits(const Literal& lit, int64_t i, int width) {
  return lit.bitsAt(i) & static_cast<uint64_t>(lowBits(width));
}

// Stores `bits` (the low `width` bits) as element i: signed sub-byte types
// are kept sign-extended in their byte, pred as 0/1.
void setElementBits(Literal& lit, int64_t i, uint64_t bits, int width) {
  ElementType t = lit.type();
  if (isPred(t)) bits = bits != 0;
  else if (isSigned(t) && width < 8 && (bits >> (width - 1) & 1)) bits |= ~uint64_t{0} << width;
  lit.setBitsAt(i, bits);
}

// Bit width for bitcast-convert: pred occupies a byte, as in XLA.
int bitcastWidth(ElementType t) { return isPred(t) ? 8 : bitWidth(t); }

}  // namespace

Status bitcastConvert(const Literal& in, Literal& out) {
  int from = bitcastWidth(in.type()), to = bitcastWidth(out.type());
  if (!in.shape().isArray() || !out.shape().isArray() || in.elided() || from == 0 || to == 0 ||
      in.elementCount() * from != out.elementCount() * to)
    return errorStatus("cannot bitcast " + in.shape().toString(false) + " to " + out.shape().toString(false));
  bool bytewise = from % 8 == 0 && to % 8 == 0 && !isPred(out.type());
  if (bytewise) {
    std::memcpy(out.untypedData(), in.untypedData(), out.byteSize());
    return okStatus();
  }
  if (from >= to) {  // also equal widths of sub-byte types and pred
    int64_t ratio = from / to;
    for (int64_t i = 0; i < in.elementCount(); ++i) {
      uint64_t bits = elementBits(in, i, from);
      for (int64_t k = 0; k < ratio; ++k) setElementBits(out, i * ratio + k, bits >> (k * to) & lowBits(to), to);
    }
  } else {
    int64_t ratio = to / from;
    for (int64_t i = 0; i < out.elementCount(); ++i) {
      uint64_t bits = 0;
      for (int64_t k = 0; k < ratio; ++k) bits |= elementBits(in, i * ratio + k, from) << (k * from);
      setElementBits(out, i, bits, to);
    }
  }
  return okStatus();
}

}  // namespace hlo
