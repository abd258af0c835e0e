// reduction-split: a large reduction to a scalar becomes two, so that the
// first has many outputs to compute in parallel — what XLA's tree reduction
// rewriter does for the same reason.
//
//   r = f32[] reduce(x: f32[N...], init), dimensions={all}
// becomes
//   p = f32[P] reduce(reshape(x) : f32[P, N/P], init), dimensions={1}
//   r = f32[] reduce(p, init), dimensions={0}
// where N is the element count and P the largest of 256, 128, ..., 16 that
// divides it. After fusion the first reduce, with x's producers, is a kernel
// of P independent rows; the second adds up P partial results.
//
// column-reduction-split (the gpu pipeline's): a large reduction of leading
// dimensions to few results (a bias's gradient, batch norm's statistics:
// [R, C] to [C] with R large) becomes
//   p = f32[P, C] reduce(reshape(x) : f32[P, R/P, C], init), dimensions={1}
//   r = f32[C]   reduce(p, init), dimensions={0}
// so the first has P times the results to spread over a GPU's blocks (a
// column kernel per P: backends/gpu/column_kernel.h). A CPU has threads
// enough with C results.
//
// Only where the result cannot change except by f32/f64 rounding: the reducer
// is one associative, commutative binary op of its two parameters (add,
// multiply, maximum, minimum, and, or) on one operand, and the init is a
// constant holding that op's identity (applied once per partial, an identity
// changes nothing). Reductions of fewer than kMinElements elements are left
// alone: they are fast on one thread (or one block).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_set>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

constexpr int64_t kMinElements = int64_t{1} << 20;

// The reducer's op when it is `op(param 0, param 1)` of an associative,
// commutative kind.
std::optional<Opcode> simpleReducer(const Computation* c) {
  std::optional<Opcode> op = binaryOfParameters(c);
  if (!op) return std::nullopt;
  switch (*op) {
    case Opcode::kAdd: case Opcode::kMultiply: case Opcode::kMaximum: case Opcode::kMinimum:
    case Opcode::kAnd: case Opcode::kOr:
      return op;
    default:
      return std::nullopt;
  }
}

// Whether the constant `init` is the identity of `op` for its type.
bool isIdentity(const Instruction* init, Opcode op) {
  const Literal* lit = knownLiteral(*init);
  if (!lit || !lit->shape().isScalar()) return false;
  ElementType t = lit->type();
  double v = lit->toDouble(0);
  switch (op) {
    case Opcode::kAdd: return v == 0;  // -0 or +0: partials of +0 sum as one init would
    case Opcode::kMultiply: return v == 1;
    case Opcode::kMaximum: return isFloat(t) ? std::isinf(v) && v < 0 : false;
    case Opcode::kMinimum: return isFloat(t) ? std::isinf(v) && v > 0 : false;
    case Opcode::kOr: return isPred(t) && v == 0;
    case Opcode::kAnd: return isPred(t) && v == 1;
    default: return false;
  }
}

// Whether reduce `i` may be split: one operand of at least kMinElements,
// not of a type that rounds after every step, a simple reducer whose
// identity is the init.
bool splittable(const Instruction& i) {
  if (i.opcode() != Opcode::kReduce || i.operandCount() != 2 || !i.shape().isArray() || i.hasControlEdges())
    return false;
  const Shape& x = i.operand(0)->shape();
  if (!x.isArray() || x.isDynamic() || x.elementCount() < kMinElements) return false;
  // Floats narrower than f32 round at every step: their sums depend on the
  // order far more, and are folded in order (as the emitters do too).
  if (isFloat(x.type()) && x.type() != ElementType::kF32 && x.type() != ElementType::kF64) return false;
  std::optional<Opcode> op = simpleReducer(i.attrs().getComputation(AttrKey::kToApply));
  return op && isIdentity(i.operand(1), *op);
}

// The largest of 256, 128, ..., 16 that divides n, or 0.
int64_t partsOf(int64_t n) {
  for (int64_t p : {256, 128, 64, 32, 16})
    if (n % p == 0) return p;
  return 0;
}

// A reduce like `r` (its reducer and init) of `operand` along `dimension`,
// of `shape`, named after `r` with `suffix`.
Instruction* reduceLike(Computation& comp, NameUniquer& names, const Instruction& r, const std::string& suffix,
                        const Shape& shape, Instruction* operand, int64_t dimension) {
  Instruction* reduce =
      comp.add(Opcode::kReduce, names.make(r.name() + suffix), shape, {operand, r.operand(1)});
  reduce->attrs() = r.attrs();
  reduce->attrs().setInts(AttrKey::kDimensions, {dimension});
  return reduce;
}

bool splitIn(Computation& comp) {
  std::vector<Instruction*> candidates;
  for (const auto& i : comp.instructions())
    if (splittable(*i) && i->shape().rank() == 0 &&
        static_cast<int64_t>(i->attrs().getInts(AttrKey::kDimensions).size()) == i->operand(0)->shape().rank())
      candidates.push_back(i.get());
  NameUniquer names(comp);
  bool changed = false;
  for (Instruction* r : candidates) {
    Instruction* x = r->operand(0);
    int64_t n = x->shape().elementCount(), parts = partsOf(n);
    if (parts == 0) continue;
    ElementType t = x->shape().type();
    Instruction* rows = comp.add(Opcode::kReshape, names.make(r->name() + ".rows"), Shape(t, {parts, n / parts}), {x});
    Instruction* partial = reduceLike(comp, names, *r, ".partial", Shape(r->shape().type(), {parts}), rows, 1);
    Instruction* total = reduceLike(comp, names, *r, ".total", r->shape(), partial, 0);
    comp.replaceAllUses(r, total);
    comp.remove(r);
    changed = true;
  }
  if (changed) (void)comp.sortTopologically();
  return changed;
}

// Results of a column reduction at most this many: more keep a GPU busy
// without a split.
constexpr int64_t kMaxColumns = 4096;

bool splitColumnsIn(Computation& comp) {
  std::vector<Instruction*> candidates;
  for (const auto& i : comp.instructions()) {
    if (!splittable(*i) || i->shape().rank() == 0 || i->shape().elementCount() > kMaxColumns) continue;
    // Dimensions 0 .. r-1 reduced, the rest kept.
    std::vector<int64_t> reduced = i->attrs().getInts(AttrKey::kDimensions);
    std::sort(reduced.begin(), reduced.end());
    bool leading = true;
    for (size_t d = 0; d < reduced.size(); ++d) leading &= reduced[d] == static_cast<int64_t>(d);
    if (leading) candidates.push_back(i.get());
  }
  NameUniquer names(comp);
  bool changed = false;
  for (Instruction* r : candidates) {
    Instruction* x = r->operand(0);
    const int64_t columns = r->shape().elementCount();
    const int64_t rows = x->shape().elementCount() / columns;
    // The most slices (of 256, 128, ..., 16) of at least 16 rows each.
    int64_t parts = 0;
    for (int64_t p : {256, 128, 64, 32, 16})
      if (rows % p == 0 && rows / p >= 16) {
        parts = p;
        break;
      }
    if (parts == 0) continue;
    ElementType t = x->shape().type();
    ElementType out = r->shape().type();
    Instruction* tiles = comp.add(Opcode::kReshape, names.make(r->name() + ".tiles"),
                                  Shape(t, {parts, rows / parts, columns}), {x});
    Instruction* partial = reduceLike(comp, names, *r, ".partial", Shape(out, {parts, columns}), tiles, 1);
    Instruction* total = reduceLike(comp, names, *r, ".total", Shape(out, {columns}), partial, 0);
    Instruction* result = total;
    if (r->shape().rank() != 1)
      result = comp.add(Opcode::kReshape, names.make(r->name() + ".columns"), r->shape(), {total});
    comp.replaceAllUses(r, result);
    comp.remove(r);
    changed = true;
  }
  if (changed) (void)comp.sortTopologically();
  return changed;
}

// `split` on every computation but the fused ones: those are one kernel
// already, and a split there would only make a reduce feed another inside.
bool splitOutsideFusions(Module& module, bool (*split)(Computation&)) {
  std::unordered_set<const Computation*> fused;
  for (const auto& comp : module.computations())
    for (const auto& i : comp->instructions())
      if (i->opcode() == Opcode::kFusion)
        for (const Computation* c : i->calledComputations()) fused.insert(c);
  bool changed = false;
  for (const auto& comp : module.computations())
    if (!fused.count(comp.get())) changed = split(*comp) || changed;
  return changed;
}

}  // namespace

bool runReductionSplit(Module& module) { return splitOutsideFusions(module, splitIn); }

bool runColumnReductionSplit(Module& module) { return splitOutsideFusions(module, splitColumnsIn); }

}  // namespace hlo
