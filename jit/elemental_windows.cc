// reduce-window and select-and-scatter, one output element at a time.
//
// reduce-window: a loop over the window (its
// dimensions outermost first) that folds the input elements it covers from
// the init value, in the order the interpreter folds them (hlo/fold_order.h:
// row-major over the window, padding and the holes of base dilation
// skipped, never folded in). A sum of f32 or f64 is taken as the
// interpreter takes it (hlo/exact_sum.h): in double, with Neumaier's
// compensation, rounded to the type once. Every other reducer is applied as
// written: one binary op of its parameters directly, anything else through
// callScalar. So a max-pool is a few compares per element, in a kernel that
// fuses with what reads it, on a CPU and on a GPU alike.
//
// select-and-scatter (the max-pool's gradient) turned around: rather than
// each source element scattering into the operand-shaped result (writes
// that collide where windows overlap), each result element gathers. It
// starts at the init value and visits the windows that contain it in
// row-major source order; each window's selection is found as the
// interpreter finds it (the window walked row-major, padding skipped, a
// later element replacing the selection where select(selected, element) is
// false), and where it is this element the window's source value is
// scattered in. The same values combine in the same order as the
// interpreter's scatter loop, with no writes that race.
#include "hlo/computation.h"
#include "hlo/exact_sum.h"
#include "hlo/fold_order.h"
#include "jit/elemental_emitter.h"

namespace hlo::jit {

namespace {

// One step of a two-parameter scalar function (a reducer, a scatter): the
// one binary op of its parameters it is, directly, or else through
// callScalar.
StatusOr<llvm::Value*> applyScalar(ElementalEmitter& e, const Computation& f, ElementType t, llvm::Value* a,
                                   llvm::Value* x) {
  if (std::optional<Opcode> op = binaryOfParameters(&f)) return e.binary(*op, *f.root(), t, a, x);
  HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> v, e.callScalar(f, {a, x}));
  return v[0];
}

}  // namespace

bool emitsReduceWindow(const Instruction& instr) {
  if (instr.opcode() != Opcode::kReduceWindow || instr.operandCount() != 2 || !instr.shape().isArray()) return false;
  const Computation* reducer = instr.attrs().getComputation(AttrKey::kToApply);
  const Shape& input = instr.operand(0)->shape();
  if (!reducer || reducer->parameterCount() != 2 || !input.isArray() || !reducer->root()->shape().isArray())
    return false;
  ElementType t = instr.shape().type();
  if (input.type() != t || instr.operand(1)->shape().type() != t || !instr.operand(1)->shape().isScalar() ||
      reducer->root()->shape().type() != t || !reducer->root()->shape().isScalar())
    return false;
  for (int p = 0; p < 2; ++p)
    if (!reducer->parameter(p)->shape().isScalar() || reducer->parameter(p)->shape().type() != t) return false;
  StatusOr<std::vector<WindowDim>> window = FoldOrder::windowOf(instr, input.dims().size());
  if (!window.ok()) return false;
  for (const WindowDim& w : *window)
    if (w.reversal || w.size < 1 || w.stride < 1 || w.baseDilation < 1 || w.windowDilation < 1) return false;
  return true;
}

StatusOr<llvm::Value*> ElementalEmitter::emitReduceWindow(const Instruction& instr, const IrIndex& index) {
  if (!emitsReduceWindow(instr))
    return cannotCompile(instr, "a reduce-window folded in a kernel has one input, one element type and a scalar "
                                "reducer");
  const Instruction& input = *instr.operand(0);
  const std::vector<int64_t>& inDims = input.shape().dims();
  const size_t rank = inDims.size();
  StatusOr<std::vector<WindowDim>> windowOr = FoldOrder::windowOf(instr, rank);
  if (!windowOr.ok()) return cannotCompile(instr, windowOr.status().message());
  const std::vector<WindowDim>& window = *windowOr;
  const Computation& reducer = *instr.attrs().getComputation(AttrKey::kToApply);
  const ElementType t = instr.shape().type();
  const bool exactSum = sumsExactly(instr);
  const ElementType accType = exactSum ? ElementType::kF64 : t;
  llvm::Type* acc = valueType(accType);

  llvm::AllocaInst* total = entryAlloca(acc, "window.total");
  llvm::AllocaInst* carry = exactSum ? entryAlloca(acc, "window.carry") : nullptr;
  HLO_ASSIGN_OR_RETURN(llvm::Value * init, exactSum ? emitWidened(*instr.operand(1), scalarIndex(), accType)
                                                    : emit(*instr.operand(1), scalarIndex()));
  b_.CreateStore(init, total);
  if (carry) b_.CreateStore(llvm::ConstantFP::get(acc, 0.0), carry);

  // One input element x into the fold.
  auto fold = [&](llvm::Value* x) -> Status {
    llvm::Value* sum = b_.CreateLoad(acc, total);
    if (exactSum) {  // ExactSum::add
      llvm::Value* next = b_.CreateFAdd(sum, x);
      auto fabs = [&](llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v); };
      llvm::Value* lost = b_.CreateSelect(b_.CreateFCmpOGE(fabs(sum), fabs(x)),
                                          b_.CreateFAdd(b_.CreateFSub(sum, next), x),
                                          b_.CreateFAdd(b_.CreateFSub(x, next), sum));
      b_.CreateStore(b_.CreateFAdd(b_.CreateLoad(acc, carry), lost), carry);
      b_.CreateStore(next, total);
      return okStatus();
    }
    HLO_ASSIGN_OR_RETURN(llvm::Value * v, applyScalar(*this, reducer, t, sum, x));
    b_.CreateStore(v, total);
    return okStatus();
  };

  // The window's dimensions from `d` on, at the input position `in` holds
  // for those before; `inside` (null: always) says whether it lies in the
  // input so far.
  IrIndex in{inDims, std::vector<llvm::Value*>(rank), nullptr};
  std::function<Status(size_t, llvm::Value*)> nest = [&](size_t d, llvm::Value* inside) -> Status {
    if (d == rank) {
      auto element = [&]() -> Status {
        HLO_ASSIGN_OR_RETURN(llvm::Value * x, exactSum ? emitWidened(input, in, accType) : emit(input, in));
        return fold(x);
      };
      return inside ? emitWhen(inside, "window.in", element) : element();
    }
    const WindowDim& w = window[d];
    // Padding and base dilation put positions outside the input; without
    // them the output's size keeps every position inside.
    const bool checked = w.padLow != 0 || w.padHigh != 0 || w.baseDilation != 1;
    auto at = [&](llvm::Value* k) -> Status {
      // The position in the padded, base-dilated input.
      llvm::Value* p = b_.CreateSub(
          b_.CreateAdd(b_.CreateMul(index.multi[d], i64(w.stride)), b_.CreateMul(k, i64(w.windowDilation))),
          i64(w.padLow));
      llvm::Value* ok = inside;
      auto both = [&](llvm::Value* c) { ok = ok ? b_.CreateAnd(ok, c) : c; };
      if (w.baseDilation != 1) {
        both(b_.CreateICmpEQ(b_.CreateSRem(p, i64(w.baseDilation)), i64(0)));
        p = b_.CreateSDiv(p, i64(w.baseDilation));
      }
      if (checked) {
        both(b_.CreateICmpSGE(p, i64(0)));
        both(b_.CreateICmpSLT(p, i64(inDims[d])));
      }
      in.multi[d] = p;
      return nest(d + 1, ok);
    };
    if (w.size == 1) return at(i64(0));
    return emitLoop(i64(0), i64(w.size), "window" + std::to_string(d), at);
  };
  HLO_RETURN_IF_ERROR(nest(0, nullptr));

  llvm::Value* result = b_.CreateLoad(acc, total);
  if (!exactSum) return result;
  // ExactSum::value: an infinite or NaN sum has no meaningful carry.
  llvm::Value* finite = b_.CreateFCmpOLT(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, result),
                                         llvm::ConstantFP::getInfinity(acc));
  result = b_.CreateSelect(finite, b_.CreateFAdd(result, b_.CreateLoad(acc, carry)), result);
  return t == ElementType::kF64 ? result : roundedFromDouble(instr, result, t);
}

bool emitsSelectAndScatter(const Instruction& instr) {
  if (instr.opcode() != Opcode::kSelectAndScatter || instr.operandCount() != 3 || !instr.shape().isArray())
    return false;
  const Shape& operand = instr.operand(0)->shape();
  const Shape& source = instr.operand(1)->shape();
  const Shape& init = instr.operand(2)->shape();
  ElementType t = instr.shape().type();
  if (!operand.isArray() || !source.isArray() || !init.isScalar() || source.rank() != operand.rank() ||
      instr.shape().dims() != operand.dims() || source.type() != t || init.type() != t)
    return false;
  auto scalarFunction = [](const Computation* f, ElementType in, ElementType out) {
    if (!f || f->parameterCount() != 2 || !f->root()->shape().isScalar() || f->root()->shape().type() != out)
      return false;
    for (int p = 0; p < 2; ++p)
      if (!f->parameter(p)->shape().isScalar() || f->parameter(p)->shape().type() != in) return false;
    return true;
  };
  if (!scalarFunction(instr.attrs().getComputation(AttrKey::kSelect), operand.type(), ElementType::kPred) ||
      !scalarFunction(instr.attrs().getComputation(AttrKey::kScatter), t, t))
    return false;
  StatusOr<std::vector<WindowDim>> window = FoldOrder::windowOf(instr, operand.dims().size());
  if (!window.ok()) return false;
  for (const WindowDim& w : *window)
    if (w.reversal || w.size < 1 || w.stride < 1 || w.baseDilation != 1 || w.windowDilation < 1 || w.padLow < 0 ||
        w.padHigh < 0)
      return false;
  return true;
}

StatusOr<llvm::Value*> ElementalEmitter::emitSelectAndScatter(const Instruction& instr, const IrIndex& index) {
  if (!emitsSelectAndScatter(instr))
    return cannotCompile(instr, "a select-and-scatter computed in a kernel has scalar select and scatter "
                                "functions of its types and a window without base dilation, reversal or "
                                "negative padding");
  const Instruction& operand = *instr.operand(0);
  const Instruction& source = *instr.operand(1);
  const std::vector<int64_t>& inDims = operand.shape().dims();
  const std::vector<int64_t>& sourceDims = source.shape().dims();
  const size_t rank = inDims.size();
  StatusOr<std::vector<WindowDim>> windowOr = FoldOrder::windowOf(instr, rank);
  if (!windowOr.ok()) return cannotCompile(instr, windowOr.status().message());
  const std::vector<WindowDim>& window = *windowOr;
  const Computation& select = *instr.attrs().getComputation(AttrKey::kSelect);
  const Computation& scatter = *instr.attrs().getComputation(AttrKey::kScatter);
  const ElementType t = instr.shape().type();
  llvm::Type* xType = valueType(operand.shape().type());

  // The result element's row-major position, to compare selections with.
  std::vector<int64_t> strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * inDims[d];
  auto linear = [&](const std::vector<llvm::Value*>& at) {
    llvm::Value* l = i64(0);
    for (size_t d = 0; d < rank; ++d) l = b_.CreateAdd(l, b_.CreateMul(at[d], i64(strides[d])));
    return l;
  };
  llvm::Value* self = linear(index.multi);

  llvm::AllocaInst* acc = entryAlloca(valueType(t), "scatter.acc");
  llvm::AllocaInst* selected = entryAlloca(xType, "select.value");
  llvm::AllocaInst* selectedAt = entryAlloca(b_.getInt64Ty(), "select.at");
  HLO_ASSIGN_OR_RETURN(llvm::Value * init, emit(*instr.operand(2), scalarIndex()));
  b_.CreateStore(init, acc);

  // Window w (one source element) selects an operand element: walk it.
  std::vector<llvm::Value*> w(rank), p(rank);
  auto selectIn = [&]() -> Status {
    b_.CreateStore(i64(-1), selectedAt);  // nothing selected: a window wholly in padding
    std::function<Status(size_t, llvm::Value*)> walk = [&](size_t d, llvm::Value* inside) -> Status {
      if (d == rank) {
        auto candidate = [&]() -> Status {
          HLO_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, IrIndex{inDims, p, nullptr}));
          llvm::Value* at = b_.CreateLoad(b_.getInt64Ty(), selectedAt);
          llvm::Value* first = b_.CreateICmpSLT(at, i64(0));
          llvm::Value* current = b_.CreateLoad(xType, selected);
          HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> keep, callScalar(select, {current, x}));
          llvm::Value* replace = b_.CreateOr(first, b_.CreateNot(keep[0]));
          b_.CreateStore(b_.CreateSelect(replace, x, current), selected);
          b_.CreateStore(b_.CreateSelect(replace, linear(p), at), selectedAt);
          return okStatus();
        };
        return inside ? emitWhen(inside, "select.in", candidate) : candidate();
      }
      const WindowDim& wd = window[d];
      const bool checked = wd.padLow != 0 || wd.padHigh != 0;
      auto at = [&](llvm::Value* k) -> Status {
        p[d] = b_.CreateSub(b_.CreateAdd(b_.CreateMul(w[d], i64(wd.stride)), b_.CreateMul(k, i64(wd.windowDilation))),
                            i64(wd.padLow));
        llvm::Value* ok = inside;
        if (checked) {
          llvm::Value* in = b_.CreateAnd(b_.CreateICmpSGE(p[d], i64(0)), b_.CreateICmpSLT(p[d], i64(inDims[d])));
          ok = ok ? b_.CreateAnd(ok, in) : in;
        }
        return walk(d + 1, ok);
      };
      if (wd.size == 1) return at(i64(0));
      return emitLoop(i64(0), i64(wd.size), "select" + std::to_string(d), at);
    };
    b_.CreateStore(llvm::Constant::getNullValue(xType), selected);
    return walk(0, nullptr);
  };

  // The windows holding this element, in row-major source order: along
  // dimension d, window w covers w*stride - padLow + k*dilation for k in
  // [0, size), so w runs from ceil((i + padLow - (size-1)*dilation) / stride)
  // to floor((i + padLow) / stride), within the source, where
  // i + padLow - w*stride is a multiple of the dilation.
  std::function<Status(size_t, llvm::Value*)> windows = [&](size_t d, llvm::Value* aligned) -> Status {
    if (d == rank) {
      auto visit = [&]() -> Status {
        HLO_RETURN_IF_ERROR(selectIn());
        llvm::Value* mine = b_.CreateICmpEQ(b_.CreateLoad(b_.getInt64Ty(), selectedAt), self);
        return emitWhen(mine, "scatter.mine", [&]() -> Status {
          HLO_ASSIGN_OR_RETURN(llvm::Value * s, emit(source, IrIndex{sourceDims, w, nullptr}));
          HLO_ASSIGN_OR_RETURN(llvm::Value * v, applyScalar(*this, scatter, t, b_.CreateLoad(valueType(t), acc), s));
          b_.CreateStore(v, acc);
          return okStatus();
        });
      };
      return aligned ? emitWhen(aligned, "window.aligned", visit) : visit();
    }
    const WindowDim& wd = window[d];
    llvm::Value* reach = b_.CreateAdd(index.multi[d], i64(wd.padLow));  // i + padLow >= 0
    const int64_t extent = (wd.size - 1) * wd.windowDilation;
    llvm::Value* span = i64(extent);
    auto aligning = [&](llvm::Value* v, llvm::Value* ok) {
      if (wd.windowDilation == 1) return ok;
      llvm::Value* offset = b_.CreateSub(reach, b_.CreateMul(v, i64(wd.stride)));
      llvm::Value* on = b_.CreateICmpEQ(b_.CreateSRem(offset, i64(wd.windowDilation)), i64(0));
      return ok ? b_.CreateAnd(ok, on) : on;
    };
    if (wd.stride > extent) {
      // Windows that do not overlap (a pool's): at most one holds the
      // element, the one starting at or before it, if it reaches it.
      llvm::Value* v = b_.CreateSDiv(reach, i64(wd.stride));
      w[d] = v;
      llvm::Value* ok = aligned;
      if (!(wd.stride == 1 && wd.padLow == 0 && wd.padHigh == 0)) {  // else w = i, always there
        llvm::Value* holds = b_.CreateAnd(b_.CreateICmpSLE(b_.CreateSub(reach, b_.CreateMul(v, i64(wd.stride))), span),
                                          b_.CreateICmpSLT(v, i64(sourceDims[d])));
        ok = ok ? b_.CreateAnd(ok, holds) : holds;
      }
      return windows(d + 1, aligning(v, ok));
    }
    // ceil((reach - span) / stride) for a possibly negative numerator, then within [0, sourceDim).
    llvm::Value* lowest = b_.CreateSub(reach, span);
    llvm::Value* up = b_.CreateSDiv(b_.CreateAdd(lowest, i64(wd.stride - 1)), i64(wd.stride));
    llvm::Value* down = b_.CreateSDiv(lowest, i64(wd.stride));
    llvm::Value* first = b_.CreateSelect(b_.CreateICmpSGT(lowest, i64(0)), up, down);
    first = b_.CreateSelect(b_.CreateICmpSGT(first, i64(0)), first, i64(0));
    llvm::Value* last = b_.CreateAdd(b_.CreateSDiv(reach, i64(wd.stride)), i64(1));
    last = b_.CreateSelect(b_.CreateICmpSLT(last, i64(sourceDims[d])), last, i64(sourceDims[d]));
    return emitLoop(first, last, "windows" + std::to_string(d), [&](llvm::Value* v) -> Status {
      w[d] = v;
      return windows(d + 1, aligning(v, aligned));
    });
  };
  HLO_RETURN_IF_ERROR(windows(0, nullptr));
  return b_.CreateLoad(valueType(t), acc);
}

}  // namespace hlo::jit
