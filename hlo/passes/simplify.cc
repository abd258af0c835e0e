// simplify: algebraic simplification by a table of small rewrite rules.
//
// Each rule looks at one instruction of one opcode and either declines
// (nullptr), rewrites the instruction in place (returns it), or names the
// value that replaces it (an existing instruction or one it just built).
//
// Algorithm:
//   1. Put every instruction of a computation on a worklist, in order.
//   2. Pop one; try the rules for its opcode in table order; the first that
//      fires wins.
//   3. On a replacement, point every use at the new value; put the new value
//      and its users back on the worklist (an in-place rewrite re-queues the
//      instruction and its users), so rules cascade to a fixpoint.
//   4. When the worklist is empty, remove the replaced instructions and the
//      operands only they used, and re-sort if new instructions were added.
//
// Left alone on purpose: float identities that are not exact in IEEE
// arithmetic (x*0 is not 0 for NaN or inf, x+(+0) is not x for x = -0, so
// only integer x*0 and float x+(-0) fold), complex numbers, broadcasts of
// scalar constants (folding would write out a large literal), constant
// folding in general, dynamic shapes, and instructions with control edges.
// A rule never replaces a value by one whose shape differs, layout included.
// One deliberate liberty: reduce-trivial accepts an add init of either sign of
// zero, as XLA lets a reduction apply its init any number of times.
#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_set>

#include "hlo/indexing.h"
#include "hlo/passes/explain.h"
#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

// What a rule may use to build new instructions.
class Rewriter {
 public:
  explicit Rewriter(Computation& comp) : comp_(comp), names_(comp) {}

  Instruction* add(Opcode op, const Shape& shape, std::vector<Instruction*> operands) {
    Instruction* i = comp_.add(op, names_.make(opcodeName(op)), shape, std::move(operands));
    added_ = true;
    return i;
  }
  Instruction* broadcast(Instruction* operand, const Shape& shape, std::vector<int64_t> dims) {
    Instruction* b = add(Opcode::kBroadcast, shape, {operand});
    b->attrs().setInts(AttrKey::kDimensions, std::move(dims));
    return b;
  }
  // A pred value of `shape` with every element `value`.
  Instruction* predSplat(bool value, const Shape& shape) {
    Literal lit(Shape::scalar(ElementType::kPred));
    lit.setBitsAt(0, value ? 1 : 0);
    Instruction* c = add(Opcode::kConstant, lit.shape(), {});
    c->setLiteral(std::move(lit));
    return shape.rank() == 0 ? c : broadcast(c, shape, {});
  }
  void setOperand(Instruction& user, int index, Instruction* operand) {
    maybeDead_.push_back(user.operand(index));
    comp_.setOperand(&user, index, operand);
  }
  void replaced(Instruction* old) { maybeDead_.push_back(old); }

  bool addedAny() const { return added_; }
  std::vector<Instruction*>& maybeDead() { return maybeDead_; }

 private:
  Computation& comp_;
  NameUniquer names_;
  std::vector<Instruction*> maybeDead_;
  bool added_ = false;
};

// ---- reading constants ------------------------------------------------------

using ElementTest = bool (*)(const Literal&, int64_t);

// True when every element of `i` passes `test`: `i` is a constant with known
// values, or a broadcast of one.
bool allElements(const Instruction* i, ElementTest test) {
  if (i->opcode() == Opcode::kBroadcast) return allElements(i->operand(0), test);
  const Literal* lit = knownLiteral(*i);
  if (!lit || !lit->shape().isArray()) return false;
  for (int64_t k = 0; k < lit->elementCount(); ++k)
    if (!test(*lit, k)) return false;
  return true;
}

bool isIntOrPred(ElementType t) { return isInteger(t) || isPred(t); }

bool isZero(const Literal& l, int64_t k) {
  if (isIntOrPred(l.type())) return l.bitsAt(k) == 0;
  return isFloat(l.type()) && l.toDouble(k) == 0;
}
bool isPositiveZero(const Literal& l, int64_t k) { return isZero(l, k) && !std::signbit(l.toDouble(k)); }
bool isNegativeZero(const Literal& l, int64_t k) {
  return isFloat(l.type()) && l.toDouble(k) == 0 && std::signbit(l.toDouble(k));
}
bool isOne(const Literal& l, int64_t k) {
  return (isIntOrPred(l.type()) || isFloat(l.type())) && l.toDouble(k) == 1;
}
bool isTrue(const Literal& l, int64_t k) { return isPred(l.type()) && l.bitsAt(k) == 1; }
bool isFalse(const Literal& l, int64_t k) { return isPred(l.type()) && l.bitsAt(k) == 0; }

// Element k as an integer: sign-extended for signed types, zero-extended else.
int64_t signedAt(const Literal& l, int64_t k) {
  int width = storageBytes(l.type()) * 8;
  uint64_t bits = l.bitsAt(k);
  return width == 64 ? static_cast<int64_t>(bits)
                     : static_cast<int64_t>(bits << (64 - width)) >> (64 - width);
}
int64_t signedMax(ElementType t) {
  return static_cast<int64_t>((uint64_t{1} << (bitWidth(t) - 1)) - 1);
}
uint64_t unsignedMax(ElementType t) {
  return bitWidth(t) == 64 ? ~uint64_t{0} : (uint64_t{1} << bitWidth(t)) - 1;
}
// All value bits set: true, -1, or the unsigned maximum (the identity of and).
bool isAllOnes(const Literal& l, int64_t k) {
  ElementType t = l.type();
  if (isPred(t)) return l.bitsAt(k) == 1;
  if (isSigned(t)) return signedAt(l, k) == -1;
  return isUnsigned(t) && l.bitsAt(k) == unsignedMax(t);
}
// The least value of the type (the identity of maximum).
bool isLowest(const Literal& l, int64_t k) {
  ElementType t = l.type();
  if (isFloat(t)) return l.toDouble(k) == -INFINITY;
  if (isSigned(t)) return signedAt(l, k) == -signedMax(t) - 1;
  return isIntOrPred(t) && l.bitsAt(k) == 0;
}
// The greatest value of the type (the identity of minimum).
bool isHighest(const Literal& l, int64_t k) {
  ElementType t = l.type();
  if (isFloat(t)) return l.toDouble(k) == INFINITY;
  if (isSigned(t)) return signedAt(l, k) == signedMax(t);
  return isAllOnes(l, k);
}

// `x` when it may stand in for `i` (same shape, layout included), else nullptr.
Instruction* useIfSameShape(const Instruction& i, Instruction* x) {
  return interchangeable(i.shape(), x->shape()) ? x : nullptr;
}

// ---- the rules --------------------------------------------------------------

// x + 0 -> x for integers; for floats only x + (-0), since -0 + (+0) is +0.
Instruction* addZero(Instruction& i, Rewriter&) {
  ElementType t = i.shape().type();
  ElementTest zero = isInteger(t) ? isZero : isFloat(t) ? isNegativeZero : nullptr;
  if (!zero) return nullptr;
  for (int k = 0; k < 2; ++k)
    if (allElements(i.operand(k), zero)) return useIfSameShape(i, i.operand(1 - k));
  return nullptr;
}

// x - 0 -> x for integers; for floats only x - (+0), since -0 - (-0) is +0.
Instruction* subtractZero(Instruction& i, Rewriter&) {
  ElementType t = i.shape().type();
  ElementTest zero = isInteger(t) ? isZero : isFloat(t) ? isPositiveZero : nullptr;
  if (!zero || !allElements(i.operand(1), zero)) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// x * 1 -> x and 1 * x -> x, integers and floats (exact in IEEE arithmetic).
Instruction* multiplyOne(Instruction& i, Rewriter&) {
  ElementType t = i.shape().type();
  if (!isInteger(t) && !isFloat(t)) return nullptr;
  for (int k = 0; k < 2; ++k)
    if (allElements(i.operand(k), isOne)) return useIfSameShape(i, i.operand(1 - k));
  return nullptr;
}

// x * 0 -> 0 for integers only: for floats, NaN * 0 and inf * 0 are NaN.
Instruction* multiplyZero(Instruction& i, Rewriter&) {
  if (!isInteger(i.shape().type())) return nullptr;
  for (int k = 0; k < 2; ++k)
    if (allElements(i.operand(k), isZero)) return useIfSameShape(i, i.operand(k));
  return nullptr;
}

// x / 1 -> x, integers and floats.
Instruction* divideOne(Instruction& i, Rewriter&) {
  ElementType t = i.shape().type();
  if ((!isInteger(t) && !isFloat(t)) || !allElements(i.operand(1), isOne)) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// -(-x) -> x.
Instruction* negateNegate(Instruction& i, Rewriter&) {
  if (i.operand(0)->opcode() != Opcode::kNegate) return nullptr;
  return useIfSameShape(i, i.operand(0)->operand(0));
}

// reshape(x) -> x when the shape does not change.
Instruction* reshapeNoop(Instruction& i, Rewriter&) {
  if (i.shape().isDynamic()) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// reshape(reshape(x)) -> reshape(x): both are row-major reinterpretations.
Instruction* reshapeReshape(Instruction& i, Rewriter& rw) {
  Instruction* inner = i.operand(0);
  if (inner->opcode() != Opcode::kReshape || i.shape().isDynamic() || inner->shape().isDynamic())
    return nullptr;
  rw.setOperand(i, 0, inner->operand(0));
  return &i;
}

// transpose(x, {0,1,...}) -> x.
Instruction* transposeIdentity(Instruction& i, Rewriter&) {
  if (!isIota(i.attrs().getInts(AttrKey::kDimensions))) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// transpose(transpose(x, p1), p2) -> transpose(x, c) with c[k] = p1[p2[k]].
Instruction* transposeTranspose(Instruction& i, Rewriter& rw) {
  Instruction* inner = i.operand(0);
  if (inner->opcode() != Opcode::kTranspose) return nullptr;
  const std::vector<int64_t>& p1 = inner->attrs().getInts(AttrKey::kDimensions);
  const std::vector<int64_t>& p2 = i.attrs().getInts(AttrKey::kDimensions);
  std::vector<int64_t> composed;
  for (int64_t d : p2) {
    if (d < 0 || d >= static_cast<int64_t>(p1.size())) return nullptr;
    composed.push_back(p1[d]);
  }
  i.attrs().setInts(AttrKey::kDimensions, std::move(composed));
  rw.setOperand(i, 0, inner->operand(0));
  return &i;
}

// broadcast(x) -> x when no dimension is added or moved.
Instruction* broadcastNoop(Instruction& i, Rewriter&) {
  const std::vector<int64_t>& dims = i.attrs().getInts(AttrKey::kDimensions);
  if (!isIota(dims) || static_cast<int>(dims.size()) != i.shape().rank()) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// slice(x) -> x when it keeps every element: with in-bounds starts and
// limits, equal sizes force start 0 and stride 1 on every longer dimension.
Instruction* sliceFull(Instruction& i, Rewriter&) {
  if (i.shape().isDynamic()) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// concatenate(x) -> x.
Instruction* concatenateSingle(Instruction& i, Rewriter&) {
  if (i.operandCount() != 1) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// pad(x, v) -> x when every low, high and interior padding is zero.
Instruction* padZero(Instruction& i, Rewriter&) {
  const AttrValue* padding = i.attrs().find(AttrKey::kPadding);
  if (!padding) return nullptr;
  for (const PadDim& p : padding->padding)
    if (p.low != 0 || p.high != 0 || p.interior != 0) return nullptr;
  return useIfSameShape(i, i.operand(0));
}

// convert(x) -> x when the element type does not change.
Instruction* convertNoop(Instruction& i, Rewriter&) { return useIfSameShape(i, i.operand(0)); }

// select(true, a, b) -> a; select(false, a, b) -> b (all elements alike).
Instruction* selectConstant(Instruction& i, Rewriter&) {
  if (allElements(i.operand(0), isTrue)) return useIfSameShape(i, i.operand(1));
  if (allElements(i.operand(0), isFalse)) return useIfSameShape(i, i.operand(2));
  return nullptr;
}

// select(p, a, a) -> a.
Instruction* selectSame(Instruction& i, Rewriter&) {
  if (i.operand(1) != i.operand(2)) return nullptr;
  return useIfSameShape(i, i.operand(1));
}

// compare(x, x) for integers and pred: EQ, GE, LE -> true; NE, GT, LT -> false.
// (Never for floats: NaN is not equal to itself.)
Instruction* compareSelf(Instruction& i, Rewriter& rw) {
  if (i.operand(0) != i.operand(1) || !isIntOrPred(i.operand(0)->shape().type())) return nullptr;
  auto dir = parseComparisonDirection(i.attrs().getString(AttrKey::kDirection));
  if (!dir || i.shape().isDynamic()) return nullptr;
  bool value = *dir == ComparisonDirection::kEq || *dir == ComparisonDirection::kGe ||
               *dir == ComparisonDirection::kLe;
  return rw.predSplat(value, i.shape());
}

// dot(a, b) with no contracting and no batch dimensions is an outer product:
// multiply(broadcast(a), broadcast(b)), when operand and result types agree.
Instruction* dotOuter(Instruction& i, Rewriter& rw) {
  for (const auto& [key, value] : i.attrs().all()) {
    bool dims = key == AttrKey::kLhsContractingDims || key == AttrKey::kRhsContractingDims ||
                key == AttrKey::kLhsBatchDims || key == AttrKey::kRhsBatchDims;
    if (dims && value.ints.empty()) continue;
    if (key != AttrKey::kOperandPrecision && key != AttrKey::kMetadata) return nullptr;
  }
  Instruction* a = i.operand(0);
  Instruction* b = i.operand(1);
  const Shape& out = i.shape();
  ElementType t = out.type();
  if ((!isInteger(t) && !isFloat(t)) || a->shape().type() != t || b->shape().type() != t ||
      out.isDynamic() || a->shape().isDynamic() || b->shape().isDynamic())
    return nullptr;
  int ra = a->shape().rank(), rb = b->shape().rank();
  std::vector<int64_t> dims = a->shape().dims();
  dims.insert(dims.end(), b->shape().dims().begin(), b->shape().dims().end());
  if (dims != out.dims()) return nullptr;
  std::vector<int64_t> aDims, bDims;
  for (int k = 0; k < ra; ++k) aDims.push_back(k);
  for (int k = 0; k < rb; ++k) bDims.push_back(ra + k);
  Instruction* wideA = rb == 0 && interchangeable(a->shape(), out) ? a : rw.broadcast(a, out, aDims);
  Instruction* wideB = ra == 0 && interchangeable(b->shape(), out) ? b : rw.broadcast(b, out, bDims);
  return rw.add(Opcode::kMultiply, out, {wideA, wideB});
}

// The opcode of a reducer `(p0, p1) -> op(p0, p1)`, or nullopt.
std::optional<Opcode> simpleReducer(const Computation* c) {
  if (!c || c->instructionCount() != 3 || c->parameterCount() != 2 || !c->root()) return std::nullopt;
  const Instruction* r = c->root();
  if (r->operandCount() != 2 || r->operand(0) == r->operand(1) ||
      r->operand(0)->opcode() != Opcode::kParameter || r->operand(1)->opcode() != Opcode::kParameter)
    return std::nullopt;
  return r->opcode();
}

// reduce(x, init) over dimensions of size 1 -> reshape(x), when init is the
// identity of the reducer: each result is f(init, x) = x. Identities: add 0
// (either sign: XLA lets the init be applied any number of times), multiply 1,
// maximum lowest (-inf), minimum highest (+inf), and all ones, or zero.
Instruction* reduceTrivial(Instruction& i, Rewriter& rw) {
  if (i.operandCount() != 2 || !i.shape().isArray()) return nullptr;
  Instruction* x = i.operand(0);
  const Shape& xs = x->shape();
  if (xs.isDynamic() || xs.type() != i.shape().type()) return nullptr;
  for (int64_t d : i.attrs().getInts(AttrKey::kDimensions))
    if (d < 0 || d >= xs.rank() || xs.dim(static_cast<int>(d)) != 1) return nullptr;
  std::optional<Opcode> op = simpleReducer(i.attrs().getComputation(AttrKey::kToApply));
  if (!op) return nullptr;
  static constexpr std::pair<Opcode, ElementTest> kIdentities[] = {
      {Opcode::kAdd, isZero},        {Opcode::kMultiply, isOne}, {Opcode::kMaximum, isLowest},
      {Opcode::kMinimum, isHighest}, {Opcode::kAnd, isAllOnes},  {Opcode::kOr, isZero},
  };
  ElementTest identity = nullptr;
  for (const auto& [reducer, test] : kIdentities)
    if (reducer == *op) identity = test;
  if (!identity || isComplex(xs.type()) || !allElements(i.operand(1), identity)) return nullptr;
  if (interchangeable(i.shape(), xs)) return x;
  return rw.add(Opcode::kReshape, i.shape(), {x});
}

// copy(copy(x)) -> copy(x).
Instruction* copyCopy(Instruction& i, Rewriter& rw) {
  if (i.operand(0)->opcode() != Opcode::kCopy) return nullptr;
  rw.setOperand(i, 0, i.operand(0)->operand(0));
  return &i;
}

// dot(transpose(x), y) -> dot(x, y), and the same on the right: the dot
// names x's dimensions for the batch and contracting ones instead (dimension
// d of the transpose is dimension p[d] of x). The result lists each operand's
// free dimensions (neither batch nor contracting) in increasing order, so the
// rule fires only when the transpose keeps their order. Saves writing the
// transposed copy: a dot library reads either operand in either order.
Instruction* dotTranspose(Instruction& i, Rewriter& rw) {
  if (i.operandCount() != 2 || i.attrs().has(AttrKey::kSparsity)) return nullptr;
  for (int side = 0; side < 2; ++side) {
    Instruction* t = i.operand(side);
    if (t->opcode() != Opcode::kTranspose || t->shape().isDynamic()) continue;
    const std::vector<int64_t>& p = t->attrs().getInts(AttrKey::kDimensions);
    const int rank = t->shape().rank();
    if (static_cast<int>(p.size()) != rank) continue;
    AttrKey batchKey = side == 0 ? AttrKey::kLhsBatchDims : AttrKey::kRhsBatchDims;
    AttrKey contractingKey = side == 0 ? AttrKey::kLhsContractingDims : AttrKey::kRhsContractingDims;
    std::vector<int64_t> batch = i.attrs().getInts(batchKey), contracting = i.attrs().getInts(contractingKey);
    std::vector<bool> named(rank, false);
    bool valid = true;
    for (const std::vector<int64_t>* list : {&batch, &contracting})
      for (int64_t d : *list) {
        valid = valid && d >= 0 && d < rank && !named[d];
        if (valid) named[d] = true;
      }
    if (!valid) continue;
    std::vector<int64_t> freeInX;
    for (int d = 0; d < rank; ++d)
      if (!named[d]) freeInX.push_back(p[d]);
    if (!std::is_sorted(freeInX.begin(), freeInX.end())) continue;
    for (int64_t& d : batch) d = p[d];
    for (int64_t& d : contracting) d = p[d];
    if (i.attrs().has(batchKey)) i.attrs().setInts(batchKey, std::move(batch));
    if (i.attrs().has(contractingKey)) i.attrs().setInts(contractingKey, std::move(contracting));
    rw.setOperand(i, side, t->operand(0));
    return &i;
  }
  return nullptr;
}

using Rule = Instruction* (*)(Instruction&, Rewriter&);
struct RuleInfo {
  const char* name;
  Opcode opcode;
  Rule rule;
};

// The rules, tried in this order for an instruction of their opcode.
const RuleInfo kRules[] = {
    {"add-zero", Opcode::kAdd, addZero},
    {"subtract-zero", Opcode::kSubtract, subtractZero},
    {"multiply-one", Opcode::kMultiply, multiplyOne},
    {"multiply-zero", Opcode::kMultiply, multiplyZero},
    {"divide-one", Opcode::kDivide, divideOne},
    {"negate-negate", Opcode::kNegate, negateNegate},
    {"reshape-noop", Opcode::kReshape, reshapeNoop},
    {"reshape-reshape", Opcode::kReshape, reshapeReshape},
    {"transpose-identity", Opcode::kTranspose, transposeIdentity},
    {"transpose-transpose", Opcode::kTranspose, transposeTranspose},
    {"broadcast-noop", Opcode::kBroadcast, broadcastNoop},
    {"slice-full", Opcode::kSlice, sliceFull},
    {"concatenate-single", Opcode::kConcatenate, concatenateSingle},
    {"pad-zero", Opcode::kPad, padZero},
    {"convert-noop", Opcode::kConvert, convertNoop},
    {"select-constant", Opcode::kSelect, selectConstant},
    {"select-same", Opcode::kSelect, selectSame},
    {"compare-self", Opcode::kCompare, compareSelf},
    {"dot-outer", Opcode::kDot, dotOuter},
    {"dot-transpose", Opcode::kDot, dotTranspose},
    {"reduce-trivial", Opcode::kReduce, reduceTrivial},
    {"copy-copy", Opcode::kCopy, copyCopy},
};

bool simplifyComputation(Computation& comp, SideEffects& effects) {
  Rewriter rw(comp);
  std::deque<Instruction*> work;
  std::unordered_set<Instruction*> queued, replaced;
  auto push = [&](Instruction* i) {
    if (queued.insert(i).second) work.push_back(i);
  };
  for (const auto& instr : comp.instructions()) push(instr.get());
  // Every rule shrinks the graph or moves towards x, so this bound only
  // guards against a rule that undoes another.
  int64_t budget = 64 * (static_cast<int64_t>(work.size()) + 16);
  bool changed = false;
  const bool explained = explaining("simplify");
  while (!work.empty() && budget-- > 0) {
    Instruction* i = work.front();
    work.pop_front();
    queued.erase(i);
    if (replaced.count(i) || i->hasControlEdges())
      continue;
    for (const RuleInfo& r : kRules) {
      if (r.opcode != i->opcode()) continue;
      // Named before the rule runs: an in-place rewrite may rename nothing,
      // but a replacement leaves `i` to be removed.
      std::string name = explained ? i->name() : "";
      Instruction* result = r.rule(*i, rw);
      if (!result) continue;
      changed = true;
      if (explained)
        explain("simplify", "%" + name + " " + r.name + ": " +
                                (result == i ? "rewritten in place" : "replaced by %" + result->name()));
      if (result != i) {
        comp.replaceAllUses(i, result);
        replaced.insert(i);
        rw.replaced(i);
      }
      push(result);
      for (Instruction* user : result->users()) push(user);
      break;
    }
  }
  removeDeadChains(comp, std::move(rw.maybeDead()), effects);
  if (rw.addedAny()) {
    Status sorted = comp.sortTopologically();
    assert(sorted.ok() && "a rewrite made a cycle");
    (void)sorted;
  }
  return changed;
}

}  // namespace

bool runSimplify(Module& module) {
  SideEffects effects;
  bool changed = false;
  for (const auto& comp : module.computations()) changed |= simplifyComputation(*comp, effects);
  return changed;
}

}  // namespace hlo
