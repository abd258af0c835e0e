// topk-decomposer: XLA's TopK custom call (hlo/topk_call.h) becomes the sort
// it stands for, as XLA's TopK decomposer does: the operand and an s32 iota
// along its last dimension sorted together, stably, by the comparator, then
// the first k of each sorted along that dimension (slices), in a tuple when
// the call returns the indices too. Sorts of one key operand then take the
// CPU runtime's fast key sort.
//
// The sort's comparator takes (x, x, s32, s32):
//   - the call's own comparator when it takes those four;
//   - with two parameters (x, x), a new computation that calls it on its
//     first two (the inline pass, run next, puts its body in place);
//   - without one, a new computation comparing its first two by GT, in total
//     order for floats (the call's default: larger first).
//
// Left alone: calls whose form topKCallOf rejects, complex values without a
// comparator, dynamic shapes and instructions with control edges.
#include <string>
#include <vector>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"
#include "hlo/topk_call.h"

namespace hlo {
namespace {

// A new comparator computation of (x, x, s32, s32) before `user`, whose root
// is made by `root` from its four parameters.
template <typename Root>
Computation* newComparator(Module& module, const Computation& user, const std::string& base, ElementType t,
                           Root&& root) {
  std::string name = base;
  for (int n = 1; module.find(name); ++n) name = base + "." + std::to_string(n);
  Computation* c = module.addComputationBefore(name, &user);
  std::vector<Instruction*> params;
  for (int k = 0; k < 4; ++k) {
    auto p = std::make_unique<Instruction>(Opcode::kParameter, "p" + std::to_string(k),
                                           Shape::scalar(k < 2 ? t : ElementType::kS32));
    p->setParameterNumber(k);
    params.push_back(c->add(std::move(p)));
  }
  c->setRoot(root(*c, params));
  return c;
}

// The sort's comparator for `call` (see the top of the file).
Computation* sortComparator(Module& module, const Computation& comp, const TopKCall& call, ElementType t) {
  if (call.comparator && call.comparator->parameterCount() == 4) return const_cast<Computation*>(call.comparator);
  const Shape pred = Shape::scalar(ElementType::kPred);
  if (call.comparator)
    return newComparator(module, comp, "topk_compare", t, [&](Computation& c, std::vector<Instruction*>& p) {
      Instruction* r = c.add(Opcode::kCall, "before", pred, {p[0], p[1]});
      r->attrs().setComputation(AttrKey::kToApply, const_cast<Computation*>(call.comparator));
      return r;
    });
  return newComparator(module, comp, "topk_compare_gt", t, [&](Computation& c, std::vector<Instruction*>& p) {
    Instruction* r = c.add(Opcode::kCompare, "greater", pred, {p[0], p[1]});
    r->attrs().setString(AttrKey::kDirection, "GT");
    if (isFloat(t)) r->attrs().setString(AttrKey::kType, "TOTALORDER");
    return r;
  });
}

bool decomposable(const Instruction& i) {
  if (!isTopKCall(i) || i.hasControlEdges() || i.shape().isDynamic() || i.operand(0)->shape().isDynamic())
    return false;
  StatusOr<TopKCall> call = topKCallOf(i);
  return call.ok() && (call->comparator || !isComplex(i.operand(0)->shape().type()));
}

bool decomposeIn(Module& module, Computation& comp) {
  std::vector<Instruction*> found;
  for (const auto& i : comp.instructions())
    if (decomposable(*i)) found.push_back(i.get());
  if (found.empty()) return false;
  NameUniquer names(comp);
  for (Instruction* topk : found) {
    TopKCall call = *topKCallOf(*topk);
    Instruction* x = topk->operand(0);
    const Shape& xs = x->shape();
    int64_t last = xs.rank() - 1;
    auto add = [&](Opcode op, Shape shape, std::vector<Instruction*> operands, const std::string& what) {
      Instruction* i = comp.add(op, names.make(topk->name() + "." + what), std::move(shape), std::move(operands));
      i->setLoc(topk->loc());
      return i;
    };
    Shape indexShape = xs;
    indexShape.setType(ElementType::kS32);
    Instruction* iota = add(Opcode::kIota, indexShape, {}, "iota");
    iota->attrs().setInt(AttrKey::kIotaDimension, last);
    Instruction* sort = add(Opcode::kSort, Shape::tuple({xs, indexShape}), {x, iota}, "sort");
    sort->attrs().setInts(AttrKey::kDimensions, {last});
    sort->attrs().setBool(AttrKey::kIsStable, true);
    sort->attrs().setComputation(AttrKey::kToApply, sortComparator(module, comp, call, xs.type()));
    // The first k along the last dimension of sorted element `e`.
    auto firstK = [&](int e, const std::string& what) {
      const Shape& sorted = sort->shape().tupleElement(e);
      Instruction* part = add(Opcode::kGetTupleElement, sorted, {sort}, what + ".sorted");
      part->attrs().setInt(AttrKey::kIndex, e);
      Shape shape = sorted;
      std::vector<int64_t> dims = shape.dims();
      dims.back() = call.k;
      Shape out(sorted.type(), dims);
      AttrValue slices;
      for (int64_t d = 0; d < sorted.rank(); ++d) slices.slices.push_back({0, dims[d], 1});
      Instruction* s = add(Opcode::kSlice, out, {part}, what);
      s->attrs().set(AttrKey::kSlice, std::move(slices));
      return s;
    };
    Instruction* values = firstK(0, "values");
    Instruction* with = values;
    if (call.withIndices) with = add(Opcode::kTuple, topk->shape(), {values, firstK(1, "indices")}, "tuple");
    comp.replaceAllUses(topk, with);
    comp.remove(topk);
  }
  (void)comp.sortTopologically();
  return true;
}

}  // namespace

bool runTopKDecomposer(Module& module) {
  std::vector<Computation*> comps;
  for (const auto& c : module.computations()) comps.push_back(c.get());
  bool changed = false;
  for (Computation* c : comps) changed = decomposeIn(module, *c) || changed;
  return changed;
}

}  // namespace hlo
