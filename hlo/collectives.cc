#include "hlo/collectives.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <numeric>
#include <type_traits>

#include "hlo/computation.h"
#include "hlo/element_io.h"
#include "hlo/float_formats.h"
#include "hlo/instruction.h"
#include "hlo/module.h"
#include "hlo/transport.h"

namespace hlo::collectives {

std::string Topology::toString() const {
  return std::to_string(replicas) + (replicas == 1 ? " replica" : " replicas") + " x " + std::to_string(partitions) +
         (partitions == 1 ? " partition" : " partitions");
}

namespace {

Status errorAt(const Instruction& instr, const std::string& why) {
  return errorStatus(std::string(opcodeName(instr.opcode())) + " '" + instr.name() + "': " + why, instr.loc());
}

// The collectives with a use_global_device_ids attribute; the others (all-to-all, permutes, broadcast) group
// by partition under a channel_id.
bool hasGlobalIdsAttribute(Opcode op) {
  return op == Opcode::kAllReduce || op == Opcode::kAllReduceStart || op == Opcode::kReduceScatter ||
         op == Opcode::kAllGather || op == Opcode::kAllGatherStart;
}

bool isPermute(Opcode op) { return op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart; }

// Reads `[a,b,...]` at `pos`, advancing it.
bool readIntList(const std::string& text, size_t& pos, char open, char close, std::vector<int64_t>& out) {
  if (pos >= text.size() || text[pos] != open) return false;
  ++pos;
  while (pos < text.size() && text[pos] != close) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), v);
    if (ec != std::errc()) return false;
    out.push_back(v);
    pos = end - text.data();
    if (pos < text.size() && text[pos] == ',') ++pos;
  }
  if (pos >= text.size()) return false;
  ++pos;
  return true;
}

int64_t product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<int64_t>());
}

// Bytes of one element and the byte extent below dimension d (inclusive) of a row-major array.
int64_t elementBytes(const Shape& s) { return storageBytes(s.type()); }
int64_t rowsAbove(const Shape& s, int d) {
  int64_t n = 1;
  for (int i = 0; i < d; ++i) n *= s.dim(i);
  return n;
}
int64_t bytesBelow(const Shape& s, int d) {
  int64_t n = elementBytes(s);
  for (int i = d + 1; i < s.rank(); ++i) n *= s.dim(i);
  return n;
}

// Copies `rows` runs of `run` bytes from `src` (rows `srcStride` bytes apart) to `dst` (`dstStride` apart).
void copyRuns(uint8_t* dst, int64_t dstStride, const uint8_t* src, int64_t srcStride, int64_t run, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) std::memcpy(dst + r * dstStride, src + r * srcStride, static_cast<size_t>(run));
}

// ---- one device's part in a collective ----

// Operand k of a device's contribution (its operands as one value).
const Literal& operandOf(const Literal& contribution, size_t k, size_t count) {
  return count == 1 ? contribution : contribution.tupleElements()[k];
}

Literal tupleOf(const std::vector<const Literal*>& values) {
  std::vector<Shape> shapes;
  for (const Literal* v : values) shapes.push_back(v->shape());
  Literal tuple(Shape::tuple(std::move(shapes)));
  for (size_t i = 0; i < values.size(); ++i) tuple.tupleElements()[i] = *values[i];
  return tuple;
}

struct Exchanged {
  SharedValues values;  // each device's operands, in group order
  size_t self = 0;      // this device's place in the group
  size_t operands = 0;
  const Literal& operand(size_t device, size_t k) const { return operandOf(*values[device], k, operands); }
};

// One meeting of the group at `instr`, where this device brings `mine`
// (see ExchangeKey for `completes`).
StatusOr<SharedValues> meet(const Instruction& instr, Participant& me, const std::vector<int64_t>& group,
                            std::shared_ptr<const Literal> mine, bool completes = false) {
  ExchangeKey key;
  key.completes = completes;
  key.channel = instr.attrs().has(AttrKey::kChannelId) ? instr.attrs().getInt(AttrKey::kChannelId) : -1;
  key.site = key.channel >= 0 ? nullptr : &instr;
  key.occurrence = me.occurrences[{key.channel, key.site}]++;
  key.firstDevice = group[0];
  key.shownAs = &instr;
  return me.transport->exchange(key, group, me.device, std::move(mine));
}

// Sends this device's operands to the group and receives everyone's; every
// device checks they agree in shape, so all report the same error. With
// `lent`, a single operand is lent rather than copied: the caller meets the
// group once more before it returns, after which no device reads it.
StatusOr<Exchanged> exchange(const Instruction& instr, Participant& me, const std::vector<int64_t>& group, Values ops,
                             bool lent = false) {
  for (const Literal* op : ops)
    if (!op->shape().isArray() || op->hasDynamicSizes() || op->elided())
      return errorAt(instr, "operands must be static arrays with values, got " + op->shape().toString(false));
  std::shared_ptr<const Literal> mine;
  if (ops.size() == 1 && lent) mine = std::shared_ptr<const Literal>(std::shared_ptr<const Literal>(), ops[0]);
  else if (ops.size() == 1) mine = std::make_shared<const Literal>(*ops[0]);
  else mine = std::make_shared<const Literal>(tupleOf(std::vector<const Literal*>(ops.begin(), ops.end())));
  Exchanged result;
  result.operands = ops.size();
  result.self = static_cast<size_t>(std::find(group.begin(), group.end(), me.device) - group.begin());
  HLO_ASSIGN_OR_RETURN(result.values, meet(instr, me, group, mine));
  for (size_t j = 0; j < group.size(); ++j)
    if (!result.values[j]->shape().compatible(result.values[0]->shape()))
      return errorAt(instr, "device " + std::to_string(group[j]) + " contributes " +
                                result.values[j]->shape().toString(false) + " but device " + std::to_string(group[0]) +
                                " " + result.values[0]->shape().toString(false));
  return result;
}

StatusOr<std::vector<int64_t>> groupOf(const Instruction& instr, const Participant& me) {
  HLO_ASSIGN_OR_RETURN(auto groups, deviceGroups(instr, me.topology));
  for (auto& group : groups)
    if (std::find(group.begin(), group.end(), me.device) != group.end()) return group;
  return errorAt(instr, "device " + std::to_string(me.device) + " is in none of its groups (running on " +
                            me.topology.toString() + ")");
}

// Each of these folds acc[i] ⊕= x[offset + i] for every element i of acc.
template <typename T>
bool foldFloats(Opcode op, Literal& acc, const Literal& x, int64_t offset) {
  T* a = acc.data<T>();
  const T* b = x.data<T>() + offset;
  int64_t n = acc.elementCount();
  if (op == Opcode::kAdd) for (int64_t i = 0; i < n; ++i) a[i] += b[i];
  else if (op == Opcode::kMultiply) for (int64_t i = 0; i < n; ++i) a[i] *= b[i];
  else return false;
  return true;
}

template <typename T>
bool foldInts(Opcode op, Literal& acc, const Literal& x, int64_t offset) {
  using U = std::make_unsigned_t<T>;
  T* a = acc.data<T>();
  const T* b = x.data<T>() + offset;
  int64_t n = acc.elementCount();
  if (op == Opcode::kAdd) {
    for (int64_t i = 0; i < n; ++i) a[i] = static_cast<T>(static_cast<U>(a[i]) + static_cast<U>(b[i]));
  } else if (op == Opcode::kMultiply) {
    for (int64_t i = 0; i < n; ++i) a[i] = static_cast<T>(static_cast<U>(a[i]) * static_cast<U>(b[i]));
  } else if (op == Opcode::kMaximum) {
    for (int64_t i = 0; i < n; ++i) a[i] = std::max(a[i], b[i]);
  } else if (op == Opcode::kMinimum) {
    for (int64_t i = 0; i < n; ++i) a[i] = std::min(a[i], b[i]);
  } else {
    return false;
  }
  return true;
}

// bf16 and f16 add and multiply: in f32, rounded once into the type, as
// the engines compute them (interp/scalar_ops.h).
bool foldHalves(Opcode op, Literal& acc, const Literal& x, int64_t offset) {
  if (op != Opcode::kAdd && op != Opcode::kMultiply) return false;
  ElementType t = acc.type();
  uint16_t* a = acc.data<uint16_t>();
  const uint16_t* b = x.data<uint16_t>() + offset;
  auto widen = [t](uint16_t bits) { return t == ElementType::kBF16 ? decodeBf16ToF32(bits) : decodeF16ToF32(bits); };
  for (int64_t i = 0; i < acc.elementCount(); ++i) {
    float r = op == Opcode::kAdd ? widen(a[i]) + widen(b[i]) : widen(a[i]) * widen(b[i]);
    a[i] = t == ElementType::kBF16 ? encodeBf16FromF32(r) : encodeF16FromF32(r);
  }
  return true;
}

// acc ⊕= x directly, when `fn` is `parameter(0) op parameter(1)` (or the
// other way round: these ops commute) in the values' own type and the op
// is one whose every rounding is the type's own: IEEE add and multiply of
// f32 and f64 (and of bf16 and f16 through f32), wrapping add and multiply
// and max and min of 32- and 64-bit integers. The same bits as calling `fn`
// per element, far faster.
bool foldDirectly(const Computation& fn, Literal& acc, const Literal& x, int64_t offset) {
  const Instruction* root = fn.root();
  ElementType t = acc.type();
  if (!root || fn.parameterCount() != 2 || root->operandCount() != 2 || root->shape() != Shape::scalar(t))
    return false;
  const Instruction* a = root->operand(0);
  const Instruction* b = root->operand(1);
  if (a == b || a->opcode() != Opcode::kParameter || b->opcode() != Opcode::kParameter) return false;
  for (const Instruction* p : {a, b})
    if (p->shape() != Shape::scalar(t)) return false;
  Opcode op = root->opcode();
  if (t == ElementType::kF32) return foldFloats<float>(op, acc, x, offset);
  if (t == ElementType::kF64) return foldFloats<double>(op, acc, x, offset);
  if (t == ElementType::kBF16 || t == ElementType::kF16) return foldHalves(op, acc, x, offset);
  if (t == ElementType::kS32) return foldInts<int32_t>(op, acc, x, offset);
  if (t == ElementType::kS64) return foldInts<int64_t>(op, acc, x, offset);
  if (t == ElementType::kU32) return foldInts<uint32_t>(op, acc, x, offset);
  if (t == ElementType::kU64) return foldInts<uint64_t>(op, acc, x, offset);
  return false;
}

// acc ⊕= x element by element, through the scalar computation `fn`: in
// its parameters' types, which may differ from the values' (bf16 values
// through an f32 computation), as map's computation may.
Status combineInto(const Instruction& instr, const Computation& fn, Literal& acc, const Literal& x, int64_t offset,
                   const EngineHooks& hooks) {
  if (foldDirectly(fn, acc, x, offset)) return okStatus();
  if (fn.parameterCount() != 2) return errorAt(instr, "to_apply must take two parameters");
  Literal a(Shape::scalar(fn.parameter(0)->shape().type())), b(Shape::scalar(fn.parameter(1)->shape().type()));
  const Literal* args[] = {&a, &b};
  for (int64_t i = 0; i < acc.elementCount(); ++i) {
    convertElement(acc, i, a, 0);
    convertElement(x, offset + i, b, 0);
    HLO_ASSIGN_OR_RETURN(Literal r, hooks.call(fn, Values(args, 2)));
    if (!r.shape().isArray() || r.elementCount() != 1)
      return errorAt(instr, "to_apply returned " + r.shape().toString(false) + ", expected a scalar");
    convertElement(r, 0, acc, i);
  }
  return okStatus();
}

// Elements [begin, begin + count) of operand k folded over the group from
// the left, as a one-dimensional array.
StatusOr<Literal> reducedSlice(const Instruction& instr, const Exchanged& ex, size_t k, int64_t begin, int64_t count,
                               const EngineHooks& hooks) {
  const Computation* fn = instr.attrs().getComputation(AttrKey::kToApply);
  if (!fn) return errorAt(instr, "has no to_apply");
  const Literal& first = ex.operand(0, k);
  Literal acc = Literal::uninitialized(Shape(first.type(), {count}));
  size_t width = static_cast<size_t>(storageBytes(first.type()));
  std::memcpy(acc.untypedData(), first.untypedData() + begin * width, count * width);
  for (size_t j = 1; j < ex.values.size(); ++j)
    HLO_RETURN_IF_ERROR(combineInto(instr, *fn, acc, ex.operand(j, k), begin, hooks));
  return acc;
}

// Operand k folded over the group from the left.
StatusOr<Literal> reduced(const Instruction& instr, const Exchanged& ex, size_t k, const EngineHooks& hooks) {
  const Literal& first = ex.operand(0, k);
  HLO_ASSIGN_OR_RETURN(Literal acc, reducedSlice(instr, ex, k, 0, first.elementCount(), hooks));
  acc.mutableShape() = first.shape();
  return acc;
}

// The gather/scatter dimension, checked against the result: `result` is
// `grown` (all-gather) or shrunk (reduce-scatter) `n` times along it.
StatusOr<int> splitDimension(const Instruction& instr, const Shape& operand, const Shape& result, int64_t n,
                             bool grows) {
  const std::vector<int64_t>& dims = instr.attrs().getInts(AttrKey::kDimensions);
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= operand.rank())
    return errorAt(instr, "needs one dimension of the operand in dimensions={...}");
  int d = static_cast<int>(dims[0]);
  const Shape& big = grows ? result : operand;
  const Shape& small = grows ? operand : result;
  bool fits = big.rank() == small.rank() && big.type() == small.type();
  for (int i = 0; fits && i < big.rank(); ++i) fits = big.dim(i) == (i == d ? n * small.dim(i) : small.dim(i));
  if (!fits)
    return errorAt(instr, "result " + result.toString(false) + " is not operand " + operand.toString(false) + " " +
                              (grows ? "gathered from " : "scattered over ") + std::to_string(n) +
                              " devices along dimension " + std::to_string(d));
  return d;
}

// The array shapes of the results, one per operand: the instruction's
// shape, or for an async start shaped (operands, results, ...) its second element.
StatusOr<std::vector<Shape>> resultShapes(const Instruction& instr, Values ops, bool* asState) {
  const Shape* s = &instr.shape();
  *asState = false;
  Opcode op = instr.opcode();
  bool start = op == Opcode::kAllGatherStart || op == Opcode::kAllReduceStart || op == Opcode::kCollectivePermuteStart;
  if (start && s->isTuple() && s->tupleSize() >= 2) {
    const Shape& first = s->tupleElement(0);
    bool holdsOperands = ops.size() == 1 ? first.compatible(ops[0]->shape())
                                         : first.isTuple() && first.tupleSize() == static_cast<int>(ops.size());
    if (holdsOperands) {
      *asState = true;
      s = &s->tupleElement(1);
    }
  }
  if (ops.size() == 1 && s->isArray()) return std::vector<Shape>{*s};
  if (!s->isTuple() || s->tupleSize() != static_cast<int>(ops.size()))
    return errorAt(instr, "result " + instr.shape().toString(false) + " does not hold one array per operand");
  return s->tupleElements();
}

// The instruction's value from its results (and operands, for an async state).
Literal packResults(const Instruction& instr, Values ops, std::vector<Literal> results, bool asState) {
  Literal value;
  if (results.size() == 1 && !(asState ? instr.shape().tupleElement(1) : instr.shape()).isTuple()) {
    value = std::move(results[0]);
  } else {
    std::vector<const Literal*> pointers;
    for (const Literal& r : results) pointers.push_back(&r);
    value = tupleOf(pointers);
  }
  if (!asState) return value;
  Literal state(instr.shape());
  state.tupleElements()[0] = ops.size() == 1 ? *ops[0] : tupleOf(std::vector<const Literal*>(ops.begin(), ops.end()));
  state.tupleElements()[1] = std::move(value);
  return state;
}

// Where device j's share of n elements begins, of a group of g: the shares
// are as equal as can be.
int64_t shareBegin(int64_t n, int64_t g, int64_t j) { return n * j / g; }

// In two meetings, so each device folds only its share of the elements:
// every device folds share j = self of every operand over the group (all
// the values of the first meeting), the second meeting hands each its
// shares, and each puts them together. The operands are lent to the first
// meeting: no device reads them after it comes to the second, which every
// device of the group reaches (a fold that fails comes with no share) and
// which completes even when a device elsewhere fails meanwhile.
StatusOr<std::vector<Literal>> allReduce(const Instruction& instr, Participant& me, const std::vector<int64_t>& group,
                                         const Exchanged& ex, const std::vector<Shape>& shapes,
                                         const EngineHooks& hooks) {
  int64_t g = static_cast<int64_t>(group.size());
  int64_t self = static_cast<int64_t>(ex.self);
  std::vector<Literal> shares;
  Status folded = okStatus();
  for (size_t k = 0; k < ex.operands && folded.ok(); ++k) {
    const Literal& operand = ex.operand(ex.self, k);
    if (!shapes[k].compatible(operand.shape())) {
      folded = errorAt(instr, "result " + shapes[k].toString(false) + " differs from operand " +
                                  operand.shape().toString(false));
      break;
    }
    int64_t n = operand.elementCount();
    int64_t begin = shareBegin(n, g, self);
    StatusOr<Literal> share = reducedSlice(instr, ex, k, begin, shareBegin(n, g, self + 1) - begin, hooks);
    if (share.ok()) shares.push_back(std::move(share).value());
    else folded = share.status();
  }
  std::shared_ptr<const Literal> mine;
  if (!folded.ok()) {
    mine = std::make_shared<const Literal>();  // no share: the others fail with this device
  } else if (shares.size() == 1) {
    mine = std::make_shared<const Literal>(std::move(shares[0]));
  } else {
    std::vector<const Literal*> pointers;
    for (const Literal& s : shares) pointers.push_back(&s);
    mine = std::make_shared<const Literal>(tupleOf(pointers));
  }
  HLO_ASSIGN_OR_RETURN(SharedValues all, meet(instr, me, group, mine, /*completes=*/true));
  if (!folded.ok()) return folded;
  std::vector<Literal> results;
  for (size_t k = 0; k < ex.operands; ++k) {
    Literal whole = Literal::uninitialized(shapes[k]);
    size_t width = static_cast<size_t>(storageBytes(whole.type()));
    int64_t n = whole.elementCount();
    for (int64_t j = 0; j < g; ++j) {
      bool shared = all[j]->shape().isArray() || all[j]->tupleElements().size() == ex.operands;
      if (!shared) return errorStatus("device " + std::to_string(group[j]) + " failed: its share of '" +
                                      instr.name() + "' could not be folded");
      const Literal& share = operandOf(*all[j], k, ex.operands);
      int64_t begin = shareBegin(n, g, j);
      std::memcpy(whole.untypedData() + begin * width, share.untypedData(), share.elementCount() * width);
    }
    results.push_back(std::move(whole));
  }
  return results;
}

StatusOr<std::vector<Literal>> allGather(const Instruction& instr, const Exchanged& ex,
                                         const std::vector<Shape>& shapes) {
  std::vector<Literal> results;
  int64_t n = static_cast<int64_t>(ex.values.size());
  for (size_t k = 0; k < ex.operands; ++k) {
    const Shape& operand = ex.operand(0, k).shape();
    HLO_ASSIGN_OR_RETURN(int d, splitDimension(instr, operand, shapes[k], n, /*grows=*/true));
    Literal out(shapes[k]);
    int64_t run = operand.dim(d) * bytesBelow(operand, d);
    for (int64_t j = 0; j < n; ++j)
      copyRuns(out.untypedData() + j * run, n * run, ex.operand(j, k).untypedData(), run, run, rowsAbove(operand, d));
    results.push_back(std::move(out));
  }
  return results;
}

StatusOr<std::vector<Literal>> reduceScatter(const Instruction& instr, const Exchanged& ex,
                                             const std::vector<Shape>& shapes, const EngineHooks& hooks) {
  std::vector<Literal> results;
  int64_t n = static_cast<int64_t>(ex.values.size());
  for (size_t k = 0; k < ex.operands; ++k) {
    const Shape& operand = ex.operand(0, k).shape();
    HLO_ASSIGN_OR_RETURN(int d, splitDimension(instr, operand, shapes[k], n, /*grows=*/false));
    HLO_ASSIGN_OR_RETURN(Literal sum, reduced(instr, ex, k, hooks));
    Literal out(shapes[k]);
    int64_t run = shapes[k].dim(d) * bytesBelow(operand, d);
    copyRuns(out.untypedData(), run, sum.untypedData() + static_cast<int64_t>(ex.self) * run, n * run, run,
             rowsAbove(operand, d));
    results.push_back(std::move(out));
  }
  return results;
}

// With dimensions={d}: each operand split into one piece per device along d;
// piece j goes to device j, and the pieces received are concatenated along
// d in group order. Without: operand j goes to device j, and result j is
// what device j sent.
StatusOr<std::vector<Literal>> allToAll(const Instruction& instr, const Exchanged& ex,
                                        const std::vector<Shape>& shapes) {
  int64_t n = static_cast<int64_t>(ex.values.size());
  std::vector<Literal> results;
  const std::vector<int64_t>& dims = instr.attrs().getInts(AttrKey::kDimensions);
  if (dims.empty()) {
    if (static_cast<int64_t>(ex.operands) != n)
      return errorAt(instr, "has " + std::to_string(ex.operands) + " operands for a group of " + std::to_string(n) +
                                " devices; without dimensions={...} it sends operand j to device j");
    for (int64_t j = 0; j < n; ++j) {
      const Literal& piece = ex.operand(j, ex.self);
      if (!piece.shape().compatible(shapes[j]))
        return errorAt(instr, "result " + std::to_string(j) + " is " + shapes[j].toString(false) + " but device " +
                                  std::to_string(j) + " sends " + piece.shape().toString(false));
      results.push_back(piece);
    }
    return results;
  }
  for (size_t k = 0; k < ex.operands; ++k) {
    const Shape& operand = ex.operand(0, k).shape();
    int d = static_cast<int>(dims[0]);
    if (dims.size() != 1 || d < 0 || d >= operand.rank() || operand.dim(d) % n != 0 ||
        !shapes[k].compatible(operand))
      return errorAt(instr, "operand " + operand.toString(false) + " does not split into " + std::to_string(n) +
                                " pieces along dimensions={" + std::to_string(dims[0]) + "} into result " +
                                shapes[k].toString(false));
    Literal out(shapes[k]);
    int64_t row = operand.dim(d) * bytesBelow(operand, d);
    int64_t piece = row / n;
    for (int64_t j = 0; j < n; ++j)
      copyRuns(out.untypedData() + j * piece, row, ex.operand(j, k).untypedData() + ex.self * piece, row, piece,
               rowsAbove(operand, d));
    results.push_back(std::move(out));
  }
  return results;
}

// ---- ragged-all-to-all ----

// Operands: input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes, the last four with one entry per device of the group. Device
// i sends rows [input_offsets[j], input_offsets[j] + send_sizes[j]) of its
// input to device j, which writes them at row output_offsets[j] (device i's
// entry: an offset into j's output) of its output; rows no device writes
// keep the output operand's values.
StatusOr<Literal> raggedAllToAll(const Instruction& instr, Values ops, Participant& me) {
  if (ops.size() != 6) return errorAt(instr, "takes input, output, and four offset and size arrays");
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> group, groupOf(instr, me));
  int64_t g = static_cast<int64_t>(group.size());
  const Shape& in = ops[0]->shape();
  const Shape& out = ops[1]->shape();
  bool rowsAlike = in.isArray() && out.isArray() && in.rank() >= 1 && in.rank() == out.rank() && in.type() == out.type();
  for (int d = 1; rowsAlike && d < in.rank(); ++d) rowsAlike = in.dim(d) == out.dim(d);
  if (!rowsAlike)
    return errorAt(instr, "input " + in.toString(false) + " and output " + out.toString(false) +
                              " must hold rows of one shape");
  for (int k = 2; k < 6; ++k)
    if (!isInteger(ops[k]->type()) || ops[k]->elementCount() != g)
      return errorAt(instr, "operand " + std::to_string(k) + " is " + ops[k]->shape().toString(false) + "; " +
                                "one offset or size per device of the group (" + std::to_string(g) +
                                ") is what runs (several updates per device do not yet)");
  HLO_ASSIGN_OR_RETURN(Exchanged ex, exchange(instr, me, group, ops));
  Literal result = *ops[1];
  int64_t rowBytes = bytesBelow(in, 0);
  int64_t self = static_cast<int64_t>(ex.self);
  for (int64_t i = 0; i < g; ++i) {
    const Literal& input = ex.operand(i, 0);
    int64_t from = integerAt(ex.operand(i, 2), self), rows = integerAt(ex.operand(i, 3), self);
    int64_t at = integerAt(ex.operand(i, 4), self);
    if (from < 0 || rows < 0 || at < 0 || from + rows > in.dim(0) || at + rows > out.dim(0))
      return errorAt(instr, "device " + std::to_string(group[i]) + " sends rows [" + std::to_string(from) + ", " +
                                std::to_string(from + rows) + ") of " + std::to_string(in.dim(0)) + " to rows [" +
                                std::to_string(at) + ", " + std::to_string(at + rows) + ") of " +
                                std::to_string(out.dim(0)));
    std::memcpy(result.untypedData() + at * rowBytes, input.untypedData() + from * rowBytes,
                static_cast<size_t>(rows * rowBytes));
  }
  return result;
}

// ---- collective-permute: pairs of ids within the device's replica or partition ----

StatusOr<Literal> permute(const Instruction& instr, Values ops, Participant& me) {
  if (ops.size() != 1) return errorAt(instr, "the in-place form (with output and index operands) is not run yet");
  bool crossPartition = instr.attrs().has(AttrKey::kChannelId);
  const Topology& t = me.topology;
  int64_t scopeSize = crossPartition ? t.partitions : t.replicas;
  int64_t myId = crossPartition ? me.partition() : me.replica();
  std::vector<int64_t> scope;
  for (int64_t id = 0; id < scopeSize; ++id)
    scope.push_back(crossPartition ? t.device(me.replica(), id) : t.device(id, me.partition()));
  std::optional<int64_t> source;
  const AttrValue* pairs = instr.attrs().find(AttrKey::kSourceTargetPairs);
  std::vector<bool> targeted(static_cast<size_t>(scopeSize), false);
  if (pairs)
    for (const auto& p : pairs->intLists) {
      const char* ids = crossPartition ? " partitions" : " replicas";
      if (p.size() != 2 || p[0] < 0 || p[1] < 0 || p[0] >= scopeSize || p[1] >= scopeSize)
        return errorAt(instr, "source_target_pairs name ids outside the " + std::to_string(scopeSize) + ids);
      if (targeted[p[1]]) return errorAt(instr, "id " + std::to_string(p[1]) + " is the target of two pairs");
      targeted[p[1]] = true;
      if (p[1] == myId) source = p[0];
    }
  HLO_ASSIGN_OR_RETURN(Exchanged ex, exchange(instr, me, scope, ops));
  Literal value = source ? ex.operand(static_cast<size_t>(*source), 0) : Literal(ops[0]->shape());
  bool asState = instr.opcode() == Opcode::kCollectivePermuteStart && instr.shape().isTuple();
  if (!asState) return value;
  Literal state(instr.shape());
  if (state.tupleElements().size() < 2) return errorAt(instr, "unexpected state shape");
  state.tupleElements()[0] = *ops[0];
  state.tupleElements()[1] = std::move(value);
  return state;
}

// ---- send and recv ----

// The pairs of a send or recv (or of the recv a recv-done completes: the one
// of its channel), from _xla_send_recv_source_target_pairs="{{0,1},...}".
StatusOr<std::vector<std::pair<int64_t, int64_t>>> sendRecvPairs(const Instruction& instr) {
  const Instruction* holder = &instr;
  if (instr.opcode() == Opcode::kRecvDone || instr.opcode() == Opcode::kSendDone) {
    holder = nullptr;
    int64_t channel = instr.attrs().getInt(AttrKey::kChannelId, -1);
    Opcode start = instr.opcode() == Opcode::kRecvDone ? Opcode::kRecv : Opcode::kSend;
    for (const auto& computation : instr.parent()->parent()->computations())
      for (const auto& other : computation->instructions())
        if (other->opcode() == start && other->attrs().getInt(AttrKey::kChannelId, -1) == channel) holder = other.get();
    if (!holder) return errorAt(instr, "no " + std::string(opcodeName(start)) + " has its channel_id");
  }
  std::string_view attrs = holder->attrs().getString(AttrKey::kFrontendAttributes);
  const std::string_view name = "_xla_send_recv_source_target_pairs=\"";
  size_t at = attrs.find(name);
  if (at == std::string_view::npos)
    return errorAt(*holder, "has no _xla_send_recv_source_target_pairs to say which devices it connects");
  std::string text(attrs.substr(at + name.size(), attrs.find('"', at + name.size()) - at - name.size()));
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  std::vector<std::pair<int64_t, int64_t>> pairs;
  size_t pos = 1;
  while (pos < text.size() && text[pos] == '{') {
    std::vector<int64_t> pair;
    if (!readIntList(text, pos, '{', '}', pair) || pair.size() != 2)
      return errorAt(*holder, "cannot read _xla_send_recv_source_target_pairs=\"" + text + "\"");
    pairs.emplace_back(pair[0], pair[1]);
    if (pos < text.size() && text[pos] == ',') ++pos;
  }
  return pairs;
}

// The device of pair id `id` for device `me`: ids count partitions within
// its replica when there are several partitions, else replicas.
int64_t pairDevice(const Participant& me, int64_t id) {
  const Topology& t = me.topology;
  return t.partitions > 1 ? t.device(me.replica(), id) : t.device(id, me.partition());
}

StatusOr<Literal> pointToPoint(const Instruction& instr, Values ops, Participant& me) {
  Opcode op = instr.opcode();
  if (op == Opcode::kSendDone) return Literal(instr.shape());  // a token
  if (op == Opcode::kRecv) return Literal(instr.shape());      // the data arrives at recv-done
  HLO_ASSIGN_OR_RETURN(auto pairs, sendRecvPairs(instr));
  const Topology& t = me.topology;
  int64_t ids = t.partitions > 1 ? t.partitions : t.replicas;
  int64_t myId = t.partitions > 1 ? me.partition() : me.replica();
  for (const auto& [from, to] : pairs)
    if (from < 0 || to < 0 || from >= ids || to >= ids)
      return errorAt(instr, "pair {" + std::to_string(from) + "," + std::to_string(to) + "} is outside the " +
                                std::to_string(ids) + " devices of " + t.toString());
  int64_t channel = instr.attrs().getInt(AttrKey::kChannelId, 0);
  if (op == Opcode::kSend) {
    if (ops.empty() || !ops[0]->shape().isArray()) return errorAt(instr, "sends an array");
    int64_t occurrence = me.sends[channel]++;
    auto value = std::make_shared<const Literal>(*ops[0]);
    for (const auto& [from, to] : pairs)
      if (from == myId)
        HLO_RETURN_IF_ERROR(me.transport->send({channel, occurrence, me.device, pairDevice(me, to), &instr}, value));
    Literal state(instr.shape());
    if (!state.shape().isTuple() || state.tupleElements().empty()) return errorAt(instr, "unexpected state shape");
    state.tupleElements()[0] = *ops[0];
    return state;
  }
  // recv-done: (data, token).
  Literal result(instr.shape());
  if (!result.shape().isTuple() || result.tupleElements().empty()) return errorAt(instr, "unexpected result shape");
  int64_t occurrence = me.receives[channel]++;
  for (const auto& [from, to] : pairs) {
    if (to != myId) continue;
    HLO_ASSIGN_OR_RETURN(std::shared_ptr<const Literal> data,
                         me.transport->receive({channel, occurrence, pairDevice(me, from), me.device, &instr}));
    if (!data->shape().compatible(result.tupleElements()[0].shape()))
      return errorAt(instr, "receives " + result.tupleElements()[0].shape().toString(false) + " but device " +
                                std::to_string(pairDevice(me, from)) + " sent " + data->shape().toString(false));
    result.tupleElements()[0] = *data;
    break;
  }
  return result;
}

Literal idValue(const Instruction& instr, int64_t id) {
  Literal value(instr.shape());
  if (value.shape().isArray() && value.elementCount() == 1) writeInt(value, 0, id);
  return value;
}

}  // namespace

StatusOr<StatedTopology> statedTopology(const Module& module) {
  StatedTopology t;
  for (const auto& [key, value] : module.headerAttributes()) {
    if (key != "replica_count" && key != "num_partitions") continue;
    int64_t n = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size() || n < 1)
      return errorStatus("module header: " + key + "=" + value + " is not a positive count");
    (key == "replica_count" ? t.replicas : t.partitions) = n;
  }
  return t;
}



StatusOr<GroupMode> groupModeOf(const Instruction& instr) {
  bool channel = instr.attrs().has(AttrKey::kChannelId);
  bool global = instr.attrs().getBool(AttrKey::kUseGlobalDeviceIds, false);
  if (!channel) {
    if (global) return errorAt(instr, "use_global_device_ids needs a channel_id");
    return GroupMode::kCrossReplica;
  }
  if (!hasGlobalIdsAttribute(instr.opcode())) return GroupMode::kCrossPartition;
  return global ? GroupMode::kFlattenedId : GroupMode::kCrossReplicaAndPartition;
}

StatusOr<std::vector<std::vector<int64_t>>> expandIotaGroups(const std::string& written) {
  std::string text = written;
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  std::vector<int64_t> shape, reshape, perm;
  size_t pos = 0;
  auto bad = [&] { return errorStatus("replica groups '" + text + "': expected [groups,size]<=[dims] or ...T(perm)"); };
  if (!readIntList(text, pos, '[', ']', shape) || shape.size() != 2 || text.compare(pos, 2, "<=") != 0) return bad();
  pos += 2;
  if (!readIntList(text, pos, '[', ']', reshape) || reshape.empty()) return bad();
  if (pos < text.size()) {
    if (text[pos] != 'T') return bad();
    ++pos;
    if (!readIntList(text, pos, '(', ')', perm) || perm.size() != reshape.size()) return bad();
  } else {
    perm.resize(reshape.size());
    std::iota(perm.begin(), perm.end(), 0);
  }
  int64_t total = product(reshape);
  if (product(shape) != total || total <= 0 || total > (int64_t{1} << 24)) return bad();
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[p]) return bad();
    seen[p] = true;
  }
  // Element i of the transposed array, read in row-major order, is the iota
  // value at the index whose dimension perm[k] is the transposed index's k-th.
  std::vector<int64_t> tdims(perm.size()), strides(reshape.size(), 1), index(perm.size(), 0);
  for (size_t k = 0; k < perm.size(); ++k) tdims[k] = reshape[perm[k]];
  for (int k = static_cast<int>(reshape.size()) - 2; k >= 0; --k) strides[k] = strides[k + 1] * reshape[k + 1];
  std::vector<std::vector<int64_t>> groups(static_cast<size_t>(shape[0]));
  for (int64_t i = 0; i < total; ++i) {
    int64_t value = 0;
    for (size_t k = 0; k < perm.size(); ++k) value += index[k] * strides[perm[k]];
    groups[i / shape[1]].push_back(value);
    for (int k = static_cast<int>(tdims.size()) - 1; k >= 0 && ++index[k] == tdims[k]; --k) index[k] = 0;
  }
  return groups;
}

StatusOr<std::vector<std::vector<int64_t>>> writtenGroups(const Instruction& instr) {
  const AttrValue* v = instr.attrs().find(AttrKey::kReplicaGroups);
  if (!v) return std::vector<std::vector<int64_t>>{};
  if (!v->intLists.empty()) return v->intLists;
  if (v->s.empty()) return std::vector<std::vector<int64_t>>{};
  if (v->s.rfind("mesh", 0) == 0) return errorAt(instr, "replica groups over a named mesh are not run yet");
  StatusOr<std::vector<std::vector<int64_t>>> groups = expandIotaGroups(v->s);
  if (!groups.ok()) return errorAt(instr, groups.status().message());
  return groups;
}

StatusOr<std::vector<std::vector<int64_t>>> deviceGroups(const Instruction& instr, const Topology& t) {
  HLO_ASSIGN_OR_RETURN(GroupMode mode, groupModeOf(instr));
  HLO_ASSIGN_OR_RETURN(auto written, writtenGroups(instr));
  int64_t idCount = mode == GroupMode::kFlattenedId     ? t.devices()
                    : mode == GroupMode::kCrossPartition ? t.partitions
                                                         : t.replicas;
  const char* idName = mode == GroupMode::kFlattenedId     ? "devices"
                       : mode == GroupMode::kCrossPartition ? "partitions"
                                                            : "replicas";
  if (written.empty()) {
    if (mode == GroupMode::kFlattenedId) return errorAt(instr, "use_global_device_ids needs written replica groups");
    written.emplace_back(static_cast<size_t>(idCount));
    std::iota(written[0].begin(), written[0].end(), 0);
  }
  for (const auto& group : written)
    for (int64_t id : group)
      if (id < 0 || id >= idCount)
        return errorAt(instr, "replica group id " + std::to_string(id) + " is out of range: the run has " +
                                  std::to_string(idCount) + " " + idName + " (" + t.toString() + ")");
  std::vector<std::vector<int64_t>> groups;
  for (const auto& group : written) {
    switch (mode) {
      case GroupMode::kCrossReplica:
        for (int64_t p = 0; p < t.partitions; ++p) {
          groups.emplace_back();
          for (int64_t r : group) groups.back().push_back(t.device(r, p));
        }
        break;
      case GroupMode::kCrossPartition:
        for (int64_t r = 0; r < t.replicas; ++r) {
          groups.emplace_back();
          for (int64_t p : group) groups.back().push_back(t.device(r, p));
        }
        break;
      case GroupMode::kCrossReplicaAndPartition:
        groups.emplace_back();
        for (int64_t r : group)
          for (int64_t p = 0; p < t.partitions; ++p) groups.back().push_back(t.device(r, p));
        break;
      case GroupMode::kFlattenedId: groups.push_back(group); break;
    }
  }
  std::vector<bool> seen(static_cast<size_t>(t.devices()), false);
  for (const auto& group : groups)
    for (int64_t d : group) {
      if (seen[d]) return errorAt(instr, "device " + std::to_string(d) + " is in two of its groups");
      seen[d] = true;
    }
  return groups;
}

bool isCollective(const Instruction& instr) {
  Opcode op = instr.opcode();
  // The table's collectives but the -done halves (single_device.h takes the
  // result out of the start's state) and collective-reduce, not run yet.
  bool exchanges = opcodeCategory(op) == OpCategory::kCollective && op != Opcode::kAllGatherDone &&
                   op != Opcode::kAllReduceDone && op != Opcode::kCollectivePermuteDone &&
                   op != Opcode::kCollectiveReduce;
  return exchanges || op == Opcode::kReplicaId || op == Opcode::kPartitionId;
}

bool isPointToPoint(const Instruction& instr) {
  Opcode op = instr.opcode();
  bool sendRecv = op == Opcode::kSend || op == Opcode::kSendDone || op == Opcode::kRecv || op == Opcode::kRecvDone;
  return sendRecv && !instr.attrs().getBool(AttrKey::kIsHostTransfer, false);
}

StatusOr<Literal> evaluate(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  Participant& me = *hooks.participant;
  Opcode op = instr.opcode();
  if (isPointToPoint(instr)) return pointToPoint(instr, ops, me);
  if (op == Opcode::kReplicaId) return idValue(instr, me.replica());
  if (op == Opcode::kPartitionId) return idValue(instr, me.partition());
  if (isPermute(op)) return permute(instr, ops, me);
  if (op == Opcode::kRaggedAllToAll) return raggedAllToAll(instr, ops, me);
  if (ops.empty()) return errorAt(instr, "has no operands");
  bool asState = false;
  HLO_ASSIGN_OR_RETURN(std::vector<Shape> shapes, resultShapes(instr, ops, &asState));
  HLO_ASSIGN_OR_RETURN(std::vector<int64_t> group, groupOf(instr, me));
  bool reducesAll = op == Opcode::kAllReduce || op == Opcode::kAllReduceStart;
  HLO_ASSIGN_OR_RETURN(Exchanged ex, exchange(instr, me, group, ops, /*lent=*/reducesAll));
  StatusOr<std::vector<Literal>> results = errorAt(instr, "is not a collective");
  if (reducesAll) {
    results = allReduce(instr, me, group, ex, shapes, hooks);
  } else if (op == Opcode::kAllGather || op == Opcode::kAllGatherStart) {
    results = allGather(instr, ex, shapes);
  } else if (op == Opcode::kReduceScatter) {
    results = reduceScatter(instr, ex, shapes, hooks);
  } else if (op == Opcode::kAllToAll) {
    results = allToAll(instr, ex, shapes);
  } else if (op == Opcode::kCollectiveBroadcast) {
    // The group's first device's operands, everywhere.
    std::vector<Literal> copies;
    for (size_t k = 0; k < ex.operands; ++k) copies.push_back(ex.operand(0, k));
    results = std::move(copies);
  }
  if (!results.ok()) return results.status();
  return packResults(instr, ops, std::move(results).value(), asState);
}

// ---- the topology a module's collectives need ----

namespace {

// How many devices the groups of `instr` span in their own ids, from the
// written groups or, when none are written, from how its shapes grow or shrink.
int64_t idsNeeded(const Instruction& instr) {
  StatusOr<std::vector<std::vector<int64_t>>> written = writtenGroups(instr);
  int64_t needed = 1;
  if (written.ok() && !written->empty()) {
    for (const auto& group : *written)
      for (int64_t id : group) needed = std::max(needed, id + 1);
    return needed;
  }
  if (isPermute(instr.opcode())) {
    if (const AttrValue* pairs = instr.attrs().find(AttrKey::kSourceTargetPairs))
      for (const auto& p : pairs->intLists)
        for (int64_t id : p) needed = std::max(needed, id + 1);
    return needed;
  }
  if (instr.operandCount() == 0) return needed;
  const Shape& operand = instr.operand(0)->shape();
  const Shape* result = &instr.shape();
  if (instr.opcode() == Opcode::kAllGatherStart && result->isTuple() && result->tupleSize() == 2)
    result = &result->tupleElement(1);
  if (result->isTuple() && result->tupleSize() > 0) result = &result->tupleElement(0);
  if (!operand.isArray() || !result->isArray() || operand.rank() != result->rank()) return needed;
  const std::vector<int64_t>& dims = instr.attrs().getInts(AttrKey::kDimensions);
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= operand.rank()) return needed;
  int d = static_cast<int>(dims[0]);
  Opcode op = instr.opcode();
  if ((op == Opcode::kAllGather || op == Opcode::kAllGatherStart) && operand.dim(d) > 0)
    return std::max<int64_t>(1, result->dim(d) / operand.dim(d));
  if (op == Opcode::kReduceScatter && result->dim(d) > 0) return std::max<int64_t>(1, operand.dim(d) / result->dim(d));
  return needed;
}

}  // namespace

Topology inferTopology(const Module& module) {
  Topology t;
  int64_t flattened = 1, pairIds = 1;
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions()) {
      if (isPointToPoint(*instr) && (instr->opcode() == Opcode::kSend || instr->opcode() == Opcode::kRecv)) {
        if (auto pairs = sendRecvPairs(*instr); pairs.ok())
          for (const auto& [from, to] : *pairs) pairIds = std::max({pairIds, from + 1, to + 1});
        continue;
      }
      if (!isCollective(*instr) || instr->opcode() == Opcode::kReplicaId || instr->opcode() == Opcode::kPartitionId)
        continue;
      StatusOr<GroupMode> mode = groupModeOf(*instr);
      if (!mode.ok()) continue;
      bool partitionIds = isPermute(instr->opcode()) ? instr->attrs().has(AttrKey::kChannelId)
                                                     : *mode == GroupMode::kCrossPartition;
      int64_t needed = idsNeeded(*instr);
      if (*mode == GroupMode::kFlattenedId && !isPermute(instr->opcode())) flattened = std::max(flattened, needed);
      else if (partitionIds) t.partitions = std::max(t.partitions, needed);
      else t.replicas = std::max(t.replicas, needed);
    }
  if (flattened > t.devices()) t.partitions = (flattened + t.replicas - 1) / t.replicas;
  (t.partitions > 1 ? t.partitions : t.replicas) = std::max(t.partitions > 1 ? t.partitions : t.replicas, pairIds);
  return t;
}

}  // namespace hlo::collectives
