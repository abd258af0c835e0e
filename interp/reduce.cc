// Interpreter ops: reduce, reduce-window and select-and-scatter (scan lives
// in hlo/scan.cc).
//
// Algorithm (reduce and reduce-window share it):
//   1. For each output element, in row-major order, list the input elements
//      that fold into it (hlo/fold_order.h: row-major over the reduced
//      dimensions or the window, padding and base-dilation holes skipped).
//   2. Fold them left to right: acc = to_apply(acc..., x...), starting from
//      the init values. Variadic forms carry N accumulators at once.
//   3. When to_apply is one add / multiply / max / min / and / or of its two
//      parameters (interp/fast_reducer.h), step 2 applies it directly: same
//      order, same per-step rounding, no computation call per element.
//   4. Except for float sums: when to_apply is one add of floats, each
//      output is the exact sum rounded once (hlo/exact_sum.h says why).
#include <algorithm>
#include <numeric>

#include "hlo/exact_sum.h"
#include "hlo/fold_order.h"
#include "hlo/indexing.h"
#include "interp/data_checks.h"
#include "interp/fast_reducer.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// The result shapes of an N-input reduce or reduce-window: one per input.
std::vector<Shape> resultShapes(const Shape& shape) {
  if (shape.isTuple()) return shape.tupleElements();
  return {shape};
}

// Everything a fold needs: the inputs, inits and the outputs being filled.
// The accumulators and the values passed to to_apply have the types of its
// parameters; when those differ from the operand or result types (a
// mixed-precision reduce such as f32 inputs into a bf16 result), values are
// converted on the way in and out.
struct Fold {
  Operands inputs, inits;
  std::vector<Literal> outputs;
  const Computation* reducer = nullptr;
  std::vector<ElementType> accTypes, valueTypes;
};

StatusOr<Fold> startFold(EvalContext& ctx, const Instruction& instr, Operands ops) {
  Fold f;
  size_t n = ops.size() / 2;
  std::vector<Shape> shapes = resultShapes(instr.shape());
  if (ops.size() < 2 || ops.size() % 2 != 0 || shapes.size() != n)
    return EvalContext::unsupported(instr, "expected N inputs, N init values and N results");
  f.inputs = ops.subspan(0, n);
  f.inits = ops.subspan(n, n);
  f.reducer = instr.attrs().getComputation(AttrKey::kToApply);
  if (!f.reducer || f.reducer->parameterCount() != static_cast<int>(2 * n))
    return EvalContext::unsupported(instr, "to_apply must take 2N parameters");
  HLO_RETURN_IF_ERROR(ctx.checkMemory(shapeBytes(instr.shape()), instr));
  for (size_t i = 0; i < n; ++i) {
    const Instruction* acc = f.reducer->parameter(static_cast<int>(i));
    const Instruction* value = f.reducer->parameter(static_cast<int>(n + i));
    if (!f.inputs[i]->shape().isArray() || f.inputs[i]->shape().dims() != f.inputs[0]->shape().dims() ||
        !f.inits[i]->shape().isScalar() || !shapes[i].isArray() || !acc || !value ||
        !acc->shape().isScalar() || !value->shape().isScalar())
      return EvalContext::unsupported(instr, "inputs must be arrays of one shape, inits and reducer parameters scalars");
    f.accTypes.push_back(acc->shape().type());
    f.valueTypes.push_back(value->shape().type());
    f.outputs.emplace_back(shapes[i]);
  }
  return f;
}

// True when no value changes type on its way through the fold.
bool sameTypes(const Fold& f) {
  for (size_t i = 0; i < f.inputs.size(); ++i) {
    ElementType t = f.outputs[i].type();
    if (f.inputs[i]->type() != t || f.inits[i]->type() != t || f.accTypes[i] != t || f.valueTypes[i] != t)
      return false;
  }
  return true;
}

Literal finishFold(const Instruction& instr, Fold& f) {
  if (!instr.shape().isTuple()) return std::move(f.outputs[0]);
  Literal result(instr.shape());
  for (size_t i = 0; i < f.outputs.size(); ++i) result.tupleElements()[i] = std::move(f.outputs[i]);
  return result;
}

// Step 4: the sums of a float add-reduce, each rounded once.
template <typename Enumerate>
void sumExactly(ElementType t, const Literal& init, const Literal& in, Literal& out, const std::vector<int64_t>& outDims,
                Enumerate&& forEachInput) {
  withFastDomain(t, [&](auto domain) {
    using T = typename decltype(domain)::T;
    forEachIndex(outDims, [&](const std::vector<int64_t>& o, int64_t linear) {
      ExactSum sum(static_cast<double>(domain.load(init, 0)));
      forEachInput(o, [&](int64_t offset) { sum.add(static_cast<double>(domain.load(in, offset))); });
      domain.store(out, linear, static_cast<T>(sum.value()));
    });
    return 0;
  });
}

// Runs the fold: `forEachInput(outIndex, visit)` calls visit(offset) for the
// input elements of one output element, in folding order.
template <typename Enumerate>
Status runFold(EvalContext& ctx, const Instruction& instr, Fold& f, Enumerate&& forEachInput) {
  const std::vector<int64_t>& outDims = f.outputs[0].shape().dims();
  std::optional<FastOp> fast = f.inputs.size() == 1 && sameTypes(f) ? fastReducer(f.reducer) : std::nullopt;
  if (sumsExactly(instr)) {
    sumExactly(f.inputs[0]->type(), *f.inits[0], *f.inputs[0], f.outputs[0], outDims, forEachInput);
    return okStatus();
  }
  if (fast) {
    withFastDomain(f.inputs[0]->type(), [&](auto domain) {
      const Literal& in = *f.inputs[0];
      Literal& out = f.outputs[0];
      forEachIndex(outDims, [&](const std::vector<int64_t>& o, int64_t linear) {
        auto acc = domain.load(*f.inits[0], 0);
        forEachInput(o, [&](int64_t offset) { acc = domain.round(applyFast(*fast, acc, domain.load(in, offset))); });
        domain.store(out, linear, acc);
      });
      return 0;
    });
    return okStatus();
  }
  size_t n = f.inputs.size();
  // A reducer compiled to a scalar program folds in its own registers: the
  // accumulators are its first n parameters.
  std::vector<ElementType> accTypes(f.accTypes.begin(), f.accTypes.end());
  std::vector<ElementType> argTypes = accTypes;
  argTypes.insert(argTypes.end(), accTypes.begin(), accTypes.end());
  const ScalarProgram* program = sameTypes(f) ? ctx.scalarProgram(*f.reducer) : nullptr;
  if (program && program->takes(argTypes, accTypes)) {
    forEachIndex(outDims, [&](const std::vector<int64_t>& o, int64_t linear) {
      for (size_t i = 0; i < n; ++i) program->setArgument(static_cast<int>(i), *f.inits[i], 0);
      forEachInput(o, [&](int64_t offset) {
        for (size_t i = 0; i < n; ++i) program->setArgument(static_cast<int>(n + i), *f.inputs[i], offset);
        program->runInPlace();
        program->resultsToArguments(static_cast<int>(n));
      });
      for (size_t i = 0; i < n; ++i) program->getArgument(static_cast<int>(i), f.outputs[i], linear);
    });
    return okStatus();
  }
  std::vector<Literal> acc(n), x(n);
  std::vector<const Literal*> args(2 * n);
  for (size_t i = 0; i < n; ++i) {
    x[i] = Literal(Shape::scalar(f.valueTypes[i]));
    args[i] = &acc[i];
    args[n + i] = &x[i];
  }
  Status failure;
  forEachIndex(outDims, [&](const std::vector<int64_t>& o, int64_t linear) {
    if (!failure.ok()) return;
    for (size_t i = 0; i < n; ++i) {
      acc[i] = Literal(Shape::scalar(f.accTypes[i]));
      convertElement(*f.inits[i], 0, acc[i], 0);
    }
    forEachInput(o, [&](int64_t offset) {
      if (!failure.ok()) return;
      for (size_t i = 0; i < n; ++i) convertElement(*f.inputs[i], offset, x[i], 0);
      StatusOr<Literal> r = ctx.call(*f.reducer, args);
      if (!r.ok()) {
        failure = r.status();
        return;
      }
      if (n == 1 && r->shape().isArray()) {
        acc[0] = std::move(r).value();
      } else if (r->shape().isTuple() && r->tupleElements().size() == n) {
        for (size_t i = 0; i < n; ++i) acc[i] = std::move(r->tupleElements()[i]);
      } else {
        failure = EvalContext::unsupported(instr, "to_apply returned " + r->shape().toString(false));
      }
    });
    if (!failure.ok()) return;
    for (size_t i = 0; i < n; ++i) {
      if (!acc[i].shape().isScalar()) {
        failure = EvalContext::unsupported(instr, "to_apply must return scalars");
        return;
      }
      convertElement(acc[i], 0, f.outputs[i], linear);
    }
  });
  return failure;
}

// reduce and reduce-window differ only in which inputs each output element
// folds, in which order: `orderFor` (hlo/fold_order.h) says.
using FoldOrderFor = StatusOr<FoldOrder> (*)(const Instruction& instr, const std::vector<int64_t>& inDims,
                                             const std::vector<int64_t>& outDims);

StatusOr<Literal> evalFold(EvalContext& ctx, const Instruction& instr, Operands ops, FoldOrderFor orderFor) {
  HLO_ASSIGN_OR_RETURN(Fold f, startFold(ctx, instr, ops));
  StatusOr<FoldOrder> order = orderFor(instr, f.inputs[0]->shape().dims(), f.outputs[0].shape().dims());
  if (!order.ok()) return EvalContext::unsupported(instr, order.status().message());
  FoldOrder::Scratch scratch;
  HLO_RETURN_IF_ERROR(runFold(ctx, instr, f, [&](const std::vector<int64_t>& o, auto&& visit) {
    order->forEachInput(o, scratch, visit);
  }));
  return finishFold(instr, f);
}

}  // namespace

StatusOr<Literal> evalReduce(EvalContext& ctx, const Instruction& instr, Operands ops) {
  return evalFold(ctx, instr, ops, FoldOrder::forReduce);
}

StatusOr<Literal> evalReduceWindow(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  return evalFold(ctx, instr, ops, FoldOrder::forReduceWindow);
}

namespace {

// Where window position w of output element o lands in the input: false for
// padding and for holes between base-dilated elements.
bool windowSource(const std::vector<WindowDim>& window, const std::vector<int64_t>& inDims,
                  const std::vector<int64_t>& inStrides, const std::vector<int64_t>& o,
                  const std::vector<int64_t>& w, int64_t& offset) {
  offset = 0;
  for (size_t d = 0; d < window.size(); ++d) {
    const WindowDim& wd = window[d];
    int64_t pos = o[d] * wd.stride + w[d] * wd.windowDilation - wd.padLow;
    if (pos < 0 || pos % wd.baseDilation != 0 || pos / wd.baseDilation >= inDims[d]) return false;
    offset += pos / wd.baseDilation * inStrides[d];
  }
  return true;
}

StatusOr<std::vector<WindowDim>> windowOf(const Instruction& instr, size_t rank) {
  StatusOr<std::vector<WindowDim>> window = FoldOrder::windowOf(instr, rank);
  if (!window.ok()) return EvalContext::unsupported(instr, window.status().message());
  return window;
}

std::vector<int64_t> windowSizes(const std::vector<WindowDim>& window) {
  std::vector<int64_t> sizes;
  for (const WindowDim& wd : window) sizes.push_back(wd.size);
  return sizes;
}

}  // namespace

// ---- select-and-scatter ----------------------------------------------------
//
// select-and-scatter(operand, source, init_value), select=, scatter=:
//   1. The output starts as init_value everywhere.
//   2. For each source element (row-major), walk its window over the operand
//      (row-major, padding skipped): the first element is the selection, and
//      each later element e replaces it when select(selected, e) is false.
//   3. output[selected] = scatter(output[selected], source element). A window
//      lying wholly in padding selects nothing and its source value is dropped.
// select = compare(p0, p1) and scatter = a fast reducer (the max-pool
// gradient) run without calling the computations.

namespace {

// select as a direct comparison of its parameters (p0 DIR p1), if it is one.
std::optional<std::string> directSelect(const Computation* select) {
  if (!select || select->parameterCount() != 2 || !select->root()) return std::nullopt;
  const Instruction* root = select->root();
  if (root->opcode() != Opcode::kCompare || root->operandCount() != 2 ||
      root->operand(0) != select->parameter(0) || root->operand(1) != select->parameter(1))
    return std::nullopt;
  StatusOr<ComparisonType> type = comparisonTypeOf(root->attrs(), root->operand(0)->shape().type());
  if (!type.ok() || *type == ComparisonType::kTotalOrder) return std::nullopt;
  std::string dir(root->attrs().getString(AttrKey::kDirection));
  if (dir == "GE" || dir == "GT" || dir == "LE" || dir == "LT") return dir;
  return std::nullopt;
}

bool compareDirect(const std::string& dir, double a, double b) {
  if (dir == "GE") return a >= b;
  if (dir == "GT") return a > b;
  if (dir == "LE") return a <= b;
  return a < b;
}

}  // namespace

StatusOr<Literal> evalSelectAndScatter(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (ops.size() != 3) return EvalContext::unsupported(instr, "expected operand, source and init_value");
  const Literal& x = *ops[0];
  const Literal& source = *ops[1];
  const Literal& init = *ops[2];
  const Computation* select = instr.attrs().getComputation(AttrKey::kSelect);
  const Computation* scatter = instr.attrs().getComputation(AttrKey::kScatter);
  if (!select || !scatter) return EvalContext::unsupported(instr, "missing select or scatter");
  if (!x.shape().isArray() || !source.shape().isArray() || source.shape().rank() != x.shape().rank() ||
      !init.shape().isScalar() || !instr.shape().isArray() || instr.shape().dims() != x.shape().dims() ||
      init.type() != instr.shape().type() || source.type() != init.type())
    return EvalContext::unsupported(instr, "operand, source and init_value do not fit together");
  const std::vector<int64_t>& inDims = x.shape().dims();
  std::vector<int64_t> inStrides = rowMajorStrides(inDims);
  HLO_ASSIGN_OR_RETURN(std::vector<WindowDim> window, windowOf(instr, inDims.size()));
  std::vector<int64_t> sizes = windowSizes(window);
  HLO_ASSIGN_OR_RETURN(Literal out, ctx.allocate(instr.shape(), instr));
  for (int64_t i = 0; i < out.elementCount(); ++i) copyElement(init, 0, out, i);

  std::optional<std::string> direct = directSelect(select);
  std::optional<FastOp> fastScatter = fastReducer(scatter);
  bool realCompare = !isComplex(x.type());
  Literal a(Shape::scalar(x.type())), b(Shape::scalar(x.type()));
  Literal cur(Shape::scalar(out.type())), src(Shape::scalar(source.type()));
  Status failure;
  // select(selected, candidate): keep the selection?
  auto keep = [&](int64_t selected, int64_t candidate) -> bool {
    if (direct && realCompare) return compareDirect(*direct, x.toDouble(selected), x.toDouble(candidate));
    copyElement(x, selected, a, 0);
    copyElement(x, candidate, b, 0);
    StatusOr<Literal> r = ctx.call(*select, {&a, &b});
    if (!r.ok()) failure = r.status();
    else if (!r->shape().isScalar() || !isPred(r->type())) failure = EvalContext::unsupported(instr, "select must return pred[]");
    return !failure.ok() || r->bitsAt(0) != 0;
  };
  forEachIndex(source.shape().dims(), [&](const std::vector<int64_t>& s, int64_t sLinear) {
    if (!failure.ok()) return;
    int64_t selected = -1;
    forEachIndex(sizes, [&](const std::vector<int64_t>& w, int64_t) {
      int64_t offset;
      if (!failure.ok() || !windowSource(window, inDims, inStrides, s, w, offset)) return;
      if (selected < 0 || !keep(selected, offset)) selected = offset;
    });
    if (selected < 0 || !failure.ok()) return;
    if (fastScatter) {
      withFastDomain(out.type(), [&](auto domain) {
        domain.store(out, selected, domain.round(applyFast(*fastScatter, domain.load(out, selected), domain.load(source, sLinear))));
        return 0;
      });
      return;
    }
    copyElement(out, selected, cur, 0);
    copyElement(source, sLinear, src, 0);
    StatusOr<Literal> r = ctx.call(*scatter, {&cur, &src});
    if (!r.ok()) failure = r.status();
    else if (!r->shape().isScalar() || r->type() != out.type()) failure = EvalContext::unsupported(instr, "scatter returned the wrong type");
    else copyElement(*r, 0, out, selected);
  });
  if (!failure.ok()) return failure;
  return out;
}

}  // namespace hlo::interp
