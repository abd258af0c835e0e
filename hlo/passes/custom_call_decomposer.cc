// custom-call-decomposer: XLA's custom calls that stand for ordinary HLO
// become that HLO, which the rest of the pipeline and the CPU JIT handle
// like any other ops.
//
// TopK (hlo/topk_call.h), as XLA's TopK decomposer does: the operand and an
// s32 iota along its last dimension sorted together, stably, by the
// comparator, then the first k of each sorted along that dimension
// (slices), in a tuple when the call returns the indices too. Sorts of one
// key operand then take the CPU runtime's fast key sort. The sort's
// comparator takes (x, x, s32, s32):
//   - the call's own comparator when it takes those four;
//   - with two parameters (x, x), a new computation that calls it on its
//     first two (the inline pass, run next, puts its body in place);
//   - without one, a new computation comparing its first two by GT, in total
//     order for floats (the call's default: larger first).
//
// cuDNN's forward convolution (hlo/cudnn_conv_call.h): a convolution with
// the call's window, dim_labels and group counts, times its
// conv_result_scale when that is not 1, in a tuple with a workspace of
// zeros.
//
// The block-scaled dot (hlo/block_scaled_dot_call.h): the scaled-dot it
// stands for.
//
// The builder math library's calls (hlo/builder_math_call.h): the
// elementwise op each stands for.
//
// topk-decomposer (the gpu pipeline's; the CPU runtime has a partial sort
// of its own): the topk op becomes the same sort of its operand and an iota
// and slices, ordered by GT (largest=true) or LT in total order.
//
// Left alone: the calls every engine runs itself (runByEngines: LAPACK's);
// calls that do not fit their form (knownCustomCall's `valid`;
// both engines then refuse them with the reason), dynamic shapes and
// instructions with control edges.
#include <string>
#include <vector>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"
#include "hlo/block_scaled_dot_call.h"
#include "hlo/builder_math_call.h"
#include "hlo/cudnn_conv_call.h"
#include "hlo/custom_call_forms.h"
#include "hlo/element_io.h"
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
  const char* direction = call.largest ? "GT" : "LT";
  return newComparator(module, comp, call.largest ? "topk_compare_gt" : "topk_compare_lt", t,
                       [&](Computation& c, std::vector<Instruction*>& p) {
    Instruction* r = c.add(Opcode::kCompare, call.largest ? "greater" : "less", pred, {p[0], p[1]});
    r->attrs().setString(AttrKey::kDirection, direction);
    if (isFloat(t)) r->attrs().setString(AttrKey::kOrder, "TOTAL");
    return r;
  });
}

bool decomposable(const Instruction& i) {
  if (i.opcode() != Opcode::kCustomCall || i.hasControlEdges() || i.shape().isDynamic()) return false;
  for (const Instruction* o : i.operands())
    if (o->shape().isDynamic()) return false;
  std::optional<KnownCustomCall> known = knownCustomCall(i);
  return known && known->valid.ok() && !known->runByEngines;
}

// Adds instructions named after the call being rewritten, at its location.
class Builder {
 public:
  Builder(Computation& comp, NameUniquer& names, const Instruction& call) : comp_(comp), names_(names), call_(call) {}
  Instruction* add(Opcode op, Shape shape, std::vector<Instruction*> operands, const std::string& what) {
    Instruction* i = comp_.add(op, names_.make(call_.name() + "." + what), std::move(shape), std::move(operands));
    i->setLoc(call_.loc());
    return i;
  }
  // `value` in `shape`'s element type, broadcast to `shape`.
  Instruction* splat(double value, const Shape& shape, const std::string& what) {
    Literal lit(Shape::scalar(shape.type()));
    writeReal(lit, 0, value);
    Instruction* c = add(Opcode::kConstant, lit.shape(), {}, what);
    c->setLiteral(std::move(lit));
    Instruction* b = add(Opcode::kBroadcast, shape, {c}, what + ".b");
    b->attrs().setInts(AttrKey::kDimensions, {});
    return b;
  }

 private:
  Computation& comp_;
  NameUniquer& names_;
  const Instruction& call_;
};

Instruction* decomposeTopK(Module& module, Computation& comp, Builder& b, Instruction* topk, const TopKCall& call) {
  Instruction* x = topk->operand(0);
  const Shape& xs = x->shape();
  int64_t last = xs.rank() - 1;
  Shape indexShape = xs;
  indexShape.setType(ElementType::kS32);
  Instruction* iota = b.add(Opcode::kIota, indexShape, {}, "iota");
  iota->attrs().setInt(AttrKey::kIotaDimension, last);
  Instruction* sort = b.add(Opcode::kSort, Shape::tuple({xs, indexShape}), {x, iota}, "sort");
  sort->attrs().setInts(AttrKey::kDimensions, {last});
  sort->attrs().setBool(AttrKey::kIsStable, true);
  sort->attrs().setComputation(AttrKey::kToApply, sortComparator(module, comp, call, xs.type()));
  // The first k along the last dimension of sorted element `e`.
  auto firstK = [&](int e, const std::string& what) {
    const Shape& sorted = sort->shape().tupleElement(e);
    Instruction* part = b.add(Opcode::kGetTupleElement, sorted, {sort}, what + ".sorted");
    part->attrs().setInt(AttrKey::kIndex, e);
    std::vector<int64_t> dims = sorted.dims();
    dims.back() = call.k;
    AttrValue slices;
    for (int64_t d = 0; d < sorted.rank(); ++d) slices.slices.push_back({0, dims[d], 1});
    Instruction* s = b.add(Opcode::kSlice, Shape(sorted.type(), dims), {part}, what);
    s->attrs().set(AttrKey::kSlice, std::move(slices));
    return s;
  };
  Instruction* values = firstK(0, "values");
  if (!call.withIndices) return values;
  return b.add(Opcode::kTuple, topk->shape(), {values, firstK(1, "indices")}, "tuple");
}

Instruction* decomposeCudnnConv(Builder& b, Instruction* call) {
  CudnnConv form = *cudnnConvOf(*call);
  Instruction* conv = b.add(Opcode::kConvolution, form.convolution, {call->operand(0), call->operand(1)}, "conv");
  copyConvolutionAttributes(*call, *conv);
  Instruction* y = conv;
  if (form.scale != 1)
    y = b.add(Opcode::kMultiply, form.convolution, {conv, b.splat(form.scale, form.convolution, "scale")}, "scaled");
  Instruction* workspace = b.splat(0, call->shape().tupleElement(1), "workspace");
  return b.add(Opcode::kTuple, call->shape(), {y, workspace}, "tuple");
}

bool decomposeIn(Module& module, Computation& comp) {
  std::vector<Instruction*> found;
  for (const auto& i : comp.instructions())
    if (decomposable(*i)) found.push_back(i.get());
  if (found.empty()) return false;
  NameUniquer names(comp);
  for (Instruction* call : found) {
    Builder b(comp, names, *call);
    Instruction* with = nullptr;
    switch (knownCustomCall(*call)->form) {
      case CustomCallForm::kTopK: with = decomposeTopK(module, comp, b, call, *topKCallOf(*call)); break;
      case CustomCallForm::kCudnnConvForward: with = decomposeCudnnConv(b, call); break;
      case CustomCallForm::kBlockScaledDot:
        with = b.add(Opcode::kScaledDot, call->shape(), call->operands(), "dot");
        setBlockScaledDotDims(*call, *with);
        break;
      case CustomCallForm::kBuilderMath: {
        Opcode function = *builderMathOpcode(*call);
        with = b.add(function, call->shape(), {call->operand(0)}, std::string(opcodeName(function)));
        break;
      }
      case CustomCallForm::kLapack: continue;  // not decomposable
    }
    comp.replaceAllUses(call, with);
    comp.remove(call);
  }
  (void)comp.sortTopologically();
  return true;
}

// The topk op as the TopK call's sort: larger (or smaller) first in total
// order, equal values by lower index; complex values have no order, and are
// left to the engines to refuse.
bool decomposeTopKOpsIn(Module& module, Computation& comp) {
  std::vector<Instruction*> found;
  for (const auto& i : comp.instructions())
    if (i->opcode() == Opcode::kTopK && !i->hasControlEdges() && i->operandCount() == 1 &&
        i->operand(0)->shape().isArray() && !i->operand(0)->shape().isDynamic() &&
        i->operand(0)->shape().rank() >= 1 && !isComplex(i->operand(0)->shape().type()) && i->shape().isTuple())
      found.push_back(i.get());
  if (found.empty()) return false;
  NameUniquer names(comp);
  for (Instruction* topk : found) {
    Builder b(comp, names, *topk);
    TopKCall call;
    call.k = topk->attrs().getInt(AttrKey::kK);
    call.largest = topk->attrs().getBool(AttrKey::kLargest, true);
    Instruction* with = decomposeTopK(module, comp, b, topk, call);
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
  for (Computation* c : comps) changed = decomposeTopKOpsIn(module, *c) || changed;
  return changed;
}

bool runCustomCallDecomposer(Module& module) {
  std::vector<Computation*> comps;
  for (const auto& c : module.computations()) comps.push_back(c.get());
  bool changed = false;
  for (Computation* c : comps) changed = decomposeIn(module, *c) || changed;
  return changed;
}

}  // namespace hlo
