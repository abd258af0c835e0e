// Library ops: sort (with its comparator compiled) and topk.
//
// Algorithm (sort):
//   1. Compile the comparator (lhs_0, rhs_0, lhs_1, rhs_1, ... -> pred) into
//      a scalar function (runtime_ops.h: emitScalarFunction).
//   2. Every 1-D slice along the sort dimension is ordered as a list of
//      element positions by a stable bottom-up merge sort that asks the
//      comparator whether the right element goes strictly first. Not
//      std::sort: a comparator need not be a strict weak order (LE, or NaNs
//      under LT), and a merge stays in bounds and gives the same answer as
//      the reference interpreter whatever the comparator says.
//   3. Every operand is permuted by that order. Slices are split across the
//      thread pool.
// A comparator that orders by one operand in a strict weak order (keyOrder:
// compare LT or GT of two parameters of one operand, integers, or floats in
// TOTALORDER, each side as it is or in the form JAX sorts floats in, every
// NaN as one NaN and -0 as +0) skips steps 1-2: each element becomes an
// unsigned key in the comparator's order packed above its position, and
// the packed integers are sorted (a radix sort by bytes of the key from 256
// elements, std::sort below), which gives the stable order the merge sort
// finds without a call per comparison (bf16 [1024, 4096] with JAX's
// comparator: 232 -> 14 ms on two cores).
// topk: per row of the last dimension, a partial sort by (value in total
// order, then index), so equal values keep index order and NaN is largest;
// of packed (key, position) integers for the key types of 32 bits or fewer.
#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/computation.h"
#include "hlo/element_io.h"
#include "hlo/float_formats.h"
#include "interp/scalar_ops.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

template <typename Before>
void mergeSort(std::vector<int64_t>& items, std::vector<int64_t>& merged, Before&& before) {
  size_t n = items.size();
  merged.resize(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, out = lo;
      while (i < mid && j < hi) merged[out++] = before(items[j], items[i]) ? items[j++] : items[i++];
      while (i < mid) merged[out++] = items[i++];
      while (j < hi) merged[out++] = items[j++];
    }
    items.swap(merged);
  }
}

// keyOrder's answer: the comparator puts a first when a's key is less
// (greater, descending) than b's.
struct KeyOrder {
  int operand = 0;
  bool descending = false;
  // JAX's form: a NaN counts as nanBits, a value equal to zeroBits's (both
  // zeros, when it is a zero) as zeroBits.
  bool canonical = false;
  uint64_t nanBits = 0, zeroBits = 0;
};

bool keyType(ElementType t) {
  switch (t) {
    case ElementType::kBF16: case ElementType::kF16: case ElementType::kF32: case ElementType::kF64:
    case ElementType::kS8: case ElementType::kS16: case ElementType::kS32: case ElementType::kS64:
    case ElementType::kU8: case ElementType::kU16: case ElementType::kU32: case ElementType::kU64: return true;
    default: return false;
  }
}

const Instruction* scalarConstant(const Instruction* i) {
  if (i->opcode() != Opcode::kConstant || !i->hasLiteral() || i->literal().elided() || i->shape().rank() != 0)
    return nullptr;
  return i;
}

bool isCompare(const Instruction* i, ComparisonDirection direction) {
  if (i->opcode() != Opcode::kCompare || i->operandCount() != 2) return false;
  StatusOr<ComparisonType> type = comparisonTypeOf(i->attrs(), i->operand(0)->shape().type());
  return parseComparisonDirection(i->attrs().getString(AttrKey::kDirection)) == direction && type.ok() &&
         *type == ComparisonType::kFloat;
}

// The parameter `e` reads as it is, or as JAX's
// select(x != x, nan, select(x == zero, zero, x)); null when neither.
const Instruction* keyParameter(const Instruction* e, KeyOrder& order, bool& canonicalSeen) {
  if (e->opcode() == Opcode::kParameter) return e;
  if (e->opcode() != Opcode::kSelect || !isFloat(e->shape().type())) return nullptr;
  const Instruction* inner = e->operand(2);
  const Instruction* nan = scalarConstant(e->operand(1));
  if (!nan || inner->opcode() != Opcode::kSelect) return nullptr;
  const Instruction* x = inner->operand(2);
  const Instruction* zero = scalarConstant(inner->operand(1));
  const Instruction* isNan = e->operand(0), *isZero = inner->operand(0);
  if (!zero || x->opcode() != Opcode::kParameter || !isCompare(isNan, ComparisonDirection::kNe) ||
      isNan->operand(0) != x || isNan->operand(1) != x || !isCompare(isZero, ComparisonDirection::kEq))
    return nullptr;
  const Instruction* a = isZero->operand(0), *b = isZero->operand(1);
  const Instruction* other = a == x ? b : b == x ? a : nullptr;
  if (!other || !scalarConstant(other) || other->literal().bitsAt(0) != zero->literal().bitsAt(0)) return nullptr;
  uint64_t nanBits = nan->literal().bitsAt(0), zeroBits = zero->literal().bitsAt(0);
  if (canonicalSeen && (nanBits != order.nanBits || zeroBits != order.zeroBits)) return nullptr;
  canonicalSeen = true;
  order.canonical = true;
  order.nanBits = nanBits;
  order.zeroBits = zeroBits;
  return x;
}

// Whether `instr`'s comparator orders by one operand's keys, and how.
std::optional<KeyOrder> keyOrder(const Instruction& instr) {
  const Computation* comparator = instr.attrs().getComputation(AttrKey::kToApply);
  const Instruction* root = comparator->root();
  if (root->opcode() != Opcode::kCompare) return std::nullopt;
  auto direction = parseComparisonDirection(root->attrs().getString(AttrKey::kDirection));
  if (direction != ComparisonDirection::kLt && direction != ComparisonDirection::kGt) return std::nullopt;
  KeyOrder order;
  bool canonicalSeen = false;
  const Instruction* lhs = keyParameter(root->operand(0), order, canonicalSeen);
  const Instruction* rhs = keyParameter(root->operand(1), order, canonicalSeen);
  if (!lhs || !rhs) return std::nullopt;
  // Both sides in the same form: plain, or both JAX's.
  if (canonicalSeen && (root->operand(0)->opcode() == Opcode::kParameter ||
                        root->operand(1)->opcode() == Opcode::kParameter))
    return std::nullopt;
  int64_t l = lhs->parameterNumber(), r = rhs->parameterNumber();
  if (l / 2 != r / 2 || l == r) return std::nullopt;
  order.operand = static_cast<int>(l / 2);
  // Parameters (2k, 2k + 1) are (the element asked about, the other).
  order.descending = (direction == ComparisonDirection::kGt) == (l % 2 == 0);
  ElementType t = lhs->shape().type();
  if (!keyType(t)) return std::nullopt;
  StatusOr<ComparisonType> type = comparisonTypeOf(root->attrs(), t);
  // Floats only in TOTALORDER: under FLOAT, NaN is neither before nor after
  // anything, which is no strict weak order. Integers as their type is
  // signed or not.
  bool fits = type.ok() && (*type == ComparisonType::kTotalOrder || !isFloat(t));
  if (!fits || (order.canonical && !isFloat(t))) return std::nullopt;
  return order;
}

// Element bits as an unsigned key whose order is `order`'s: floats in
// TOTALORDER (scalar::totalOrderKey, moved up to start at 0), integers by
// value. In JAX's form a NaN (a magnitude above infinity's), or a value
// equal to the zero constant's (both zeros when it is one), first becomes
// that constant.
struct KeyOf {
  bool isFloat, isSigned;
  int width;
  uint64_t signBit, all, infinity = 0;
  KeyOrder order;
  bool zeroIsZero;

  KeyOf(ElementType t, const KeyOrder& o)
      : isFloat(hlo::isFloat(t)), isSigned(hlo::isSigned(t)), width(bitWidth(t)),
        signBit(uint64_t{1} << (width - 1)), all(width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1), order(o),
        zeroIsZero((o.zeroBits & ~signBit) == 0) {
    if (isFloat) infinity = parseFloatBits(t, "inf").value_or(all);
  }

  uint64_t operator()(uint64_t bits) const {
    if (order.canonical) {
      const uint64_t magnitude = bits & ~signBit;
      if (magnitude > infinity) bits = order.nanBits;
      else if (zeroIsZero ? magnitude == 0 : bits == order.zeroBits) bits = order.zeroBits;
    }
    uint64_t key = isFloat ? static_cast<uint64_t>(interp::scalar::totalOrderKey(bits, width)) + signBit
                   : isSigned ? bits ^ signBit
                              : bits;
    return (order.descending ? ~key : key) & all;
  }
};

// Element i's bits, as Literal::bitsAt reads them but inlined (a switch on
// the element size that goes the same way every time): through bitsAt, an
// out-of-line call per element, the bf16 sort benchmark takes 29 ms
// instead of 13.5 and a top-10 of 50,000 370 us instead of 60.
template <typename T>
uint64_t bitsOf(const char* data, int64_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  return v;
}

uint64_t elementBits(const char* data, int bytes, int64_t i) {
  switch (bytes) {
    case 1: return bitsOf<uint8_t>(data, i);
    case 2: return bitsOf<uint16_t>(data, i);
    case 4: return bitsOf<uint32_t>(data, i);
    default: return bitsOf<uint64_t>(data, i);
  }
}

// Sorts `items` (a key of `keyBytes` bytes above a 32-bit position, which
// already ascends) by key: least significant byte first, each pass a stable
// counting sort, a pass skipped when every item has the same byte there.
void radixSort(std::vector<uint64_t>& items, std::vector<uint64_t>& scratch, int keyBytes) {
  scratch.resize(items.size());
  for (int byte = 0; byte < keyBytes; ++byte) {
    const int shift = 32 + 8 * byte;
    size_t start[257] = {};
    for (uint64_t v : items) ++start[((v >> shift) & 0xff) + 1];
    if (*std::max_element(start + 1, start + 257) == items.size()) continue;
    for (int d = 0; d < 256; ++d) start[d + 1] += start[d];
    for (uint64_t v : items) scratch[start[(v >> shift) & 0xff]++] = v;
    items.swap(scratch);
  }
}

// Positions [0, length) of the slice at `base` (elements `step` apart) in
// key order, ties by position.
void sortByKey(const char* data, int bytes, const KeyOf& keyOf, int64_t base, int64_t step, int64_t length,
               std::vector<int64_t>& order, std::vector<uint64_t>& packed, std::vector<uint64_t>& scratch,
               std::vector<std::pair<uint64_t, int64_t>>& pairs) {
  if (keyOf.width <= 32 && length <= (int64_t{1} << 32)) {
    packed.resize(length);
    for (int64_t i = 0; i < length; ++i)
      packed[i] = keyOf(elementBits(data, bytes, base + i * step)) << 32 | static_cast<uint64_t>(i);
    // Short slices sort faster than the radix sort counts its digits.
    if (length < 256) std::sort(packed.begin(), packed.end());
    else radixSort(packed, scratch, keyOf.width / 8);
    for (int64_t i = 0; i < length; ++i) order[i] = base + static_cast<int64_t>(packed[i] & 0xffffffffu) * step;
    return;
  }
  pairs.resize(length);
  for (int64_t i = 0; i < length; ++i) pairs[i] = {keyOf(elementBits(data, bytes, base + i * step)), i};
  std::sort(pairs.begin(), pairs.end());
  for (int64_t i = 0; i < length; ++i) order[i] = base + pairs[i].second * step;
}

Status runSort(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  auto comparator = reinterpret_cast<ScalarFn>(call.helpers[0]);
  std::vector<Literal*> outs = resultArrays(call.result);
  size_t n = call.operands.size();
  if (outs.size() != n) return errorStatus("cpu: %" + instr.name() + ": one result per operand expected", instr.loc());
  const std::vector<int64_t>& dims = call.operands[0]->shape().dims();
  int64_t dim = instr.attrs().getInts(AttrKey::kDimensions)[0];
  int64_t length = dims[dim];
  int64_t step = 1;
  for (size_t d = dim + 1; d < dims.size(); ++d) step *= dims[d];
  int64_t total = call.operands[0]->elementCount();
  if (total == 0) return okStatus();
  int64_t slices = total / length;
  std::vector<int> bytes;
  for (const Literal* op : call.operands) bytes.push_back(storageBytes(op->type()));

  int chunks = static_cast<int>(std::min<int64_t>(slices, total >= (int64_t{1} << 15) ? 4 * (call.pool.workers() + 1) : 1));
  const std::optional<KeyOrder> byKey = keyOrder(instr);
  call.pool.parallelFor(slices, std::max(chunks, 1), [&](int64_t begin, int64_t end) {
    std::vector<uint64_t> packed, scratch;
    std::vector<std::pair<uint64_t, int64_t>> pairs;
    std::vector<const char*> args(2 * n);
    char answer = 0;
    char* results[] = {&answer};
    std::vector<int64_t> order(length), merged;
    auto before = [&](int64_t lhs, int64_t rhs) {
      for (size_t k = 0; k < n; ++k) {
        const char* data = reinterpret_cast<const char*>(call.operands[k]->untypedData());
        args[2 * k] = data + lhs * bytes[k];
        args[2 * k + 1] = data + rhs * bytes[k];
      }
      comparator(args.data(), results);
      return answer != 0;
    };
    for (int64_t s = begin; s < end; ++s) {
      // Slice s starts at (s / step) * length * step + s % step.
      int64_t base = (s / step) * length * step + s % step;
      if (byKey) {
        const Literal& keys = *call.operands[byKey->operand];
        sortByKey(reinterpret_cast<const char*>(keys.untypedData()), bytes[byKey->operand],
                  KeyOf(keys.type(), *byKey), base, step, length, order, packed, scratch, pairs);
      } else {
        for (int64_t i = 0; i < length; ++i) order[i] = base + i * step;
        mergeSort(order, merged, before);
      }
      for (size_t k = 0; k < n; ++k) {
        const char* from = reinterpret_cast<const char*>(call.operands[k]->untypedData());
        char* to = reinterpret_cast<char*>(outs[k]->untypedData());
        for (int64_t i = 0; i < length; ++i)
          std::memcpy(to + (base + i * step) * bytes[k], from + order[i] * bytes[k], bytes[k]);
      }
    }
  });
  return okStatus();
}

Status runTopK(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  const Literal& x = *call.operands[0];
  int64_t k = instr.attrs().getInt(AttrKey::kK);
  bool largest = instr.attrs().getBool(AttrKey::kLargest, true);
  Literal& values = call.result.tupleElements()[0];
  Literal& indices = call.result.tupleElements()[1];
  int64_t n = x.shape().dims().back();
  int64_t rows = n == 0 ? 0 : x.elementCount() / n;
  int bytes = storageBytes(x.type());
  if (keyType(x.type()) && bitWidth(x.type()) <= 32 && n <= (int64_t{1} << 32)) {
    // Keys in the order asked for above 32-bit positions: the k smallest
    // packed values are the answer, ties by position.
    KeyOrder order;
    order.descending = largest;
    const KeyOf keyOf(x.type(), order);
    const char* data = reinterpret_cast<const char*>(x.untypedData());
    std::vector<uint64_t> packed(n);
    for (int64_t row = 0; row < rows; ++row) {
      int64_t base = row * n;
      for (int64_t i = 0; i < n; ++i) packed[i] = keyOf(elementBits(data, bytes, base + i)) << 32 | static_cast<uint64_t>(i);
      std::partial_sort(packed.begin(), packed.begin() + k, packed.end());
      for (int64_t i = 0; i < k; ++i) {
        int64_t at = static_cast<int64_t>(packed[i] & 0xffffffffu);
        std::memcpy(values.untypedData() + (row * k + i) * bytes, x.untypedData() + (base + at) * bytes, bytes);
        indices.setBitsAt(row * k + i, static_cast<uint32_t>(at));
      }
    }
    return okStatus();
  }
  std::vector<int64_t> order(n), keys(n);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t base = row * n;
    for (int64_t i = 0; i < n; ++i) {
      order[i] = i;
      keys[i] = totalOrderKey(x, base + i);
    }
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
      if (keys[a] != keys[b]) return largest ? keys[a] > keys[b] : keys[a] < keys[b];
      return a < b;
    });
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(values.untypedData() + (row * k + i) * bytes, x.untypedData() + (base + order[i]) * bytes, bytes);
      indices.setBitsAt(row * k + i, static_cast<uint32_t>(order[i]));
    }
  }
  return okStatus();
}

}  // namespace

StatusOr<RuntimePlan> planSort(HelperModule& helpers, const Instruction& instr, const std::string& prefix) {
  const Computation* comparator = instr.attrs().getComputation(AttrKey::kToApply);
  if (!comparator) return jit::cannotCompile(instr, "no comparator");
  if (instr.operandCount() == 0) return jit::cannotCompile(instr, "nothing to sort");
  const Shape& first = instr.operand(0)->shape();
  const std::vector<int64_t>& dimensions = instr.attrs().getInts(AttrKey::kDimensions);
  if (dimensions.size() != 1 || dimensions[0] < 0 || dimensions[0] >= first.rank())
    return jit::cannotCompile(instr, "needs one sort dimension");
  if (comparator->parameterCount() != 2 * instr.operandCount())
    return jit::cannotCompile(instr, "the comparator needs two parameters per operand");
  for (int i = 0; i < instr.operandCount(); ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.isArray() || s.dims() != first.dims())
      return jit::cannotCompile(instr, "operands must be arrays of one shape");
    for (int side = 0; side < 2; ++side) {
      const Shape& p = comparator->parameter(2 * i + side)->shape();
      if (!p.isArray() || p.rank() != 0 || p.type() != s.type())
        return jit::cannotCompile(instr, "comparator parameters must be scalars of the operand types");
    }
  }
  const Shape& root = comparator->root()->shape();
  if (!root.isArray() || root.rank() != 0 || root.type() != ElementType::kPred)
    return jit::cannotCompile(instr, "the comparator must return pred[]");
  std::string name = prefix + ".helper.0";
  HLO_RETURN_IF_ERROR(helpers.scalarFunction(*comparator, name));
  return RuntimePlan{runSort, {name}};
}

StatusOr<RuntimePlan> planTopK(HelperModule&, const Instruction& instr, const std::string&) {
  if (instr.operandCount() != 1 || !instr.operand(0)->shape().isArray() || instr.operand(0)->shape().rank() < 1)
    return jit::cannotCompile(instr, "expected one array operand");
  const Shape& x = instr.operand(0)->shape();
  if (isComplex(x.type())) return jit::cannotCompile(instr, "needs ordered values");
  const Shape& out = instr.shape();
  int64_t k = instr.attrs().getInt(AttrKey::kK);
  if (!out.isTuple() || out.tupleElements().size() != 2 || k < 0 || k > x.dims().back() ||
      out.tupleElements()[1].type() != ElementType::kS32 || out.tupleElements()[0].type() != x.type())
    return jit::cannotCompile(instr, "expected (values, s32 indices) with k at most the last dimension");
  return RuntimePlan{runTopK, {}};
}

}  // namespace hlo::cpu
