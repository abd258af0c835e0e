// Dynamic sizes in the interpreter: set-dimension-size, get-dimension-size,
// dynamic-reshape, and every op given an operand with runtime sizes.
//
// The rule, as XLA:CPU runs it (its dynamic padder, from XLA's dynamic
// dimension inference):
//
// - Values carry the dynamism, not the declared shapes. A dimension of an
//   array is dynamic when the value holds a runtime size for it
//   (Literal::setDynamicSize); its value is then the elements below the
//   runtime size, the rest of the storage (up to the bound) being padding,
//   whose contents XLA leaves unspecified. set-dimension-size makes a
//   dimension dynamic (static again when its size is a constant equal to the
//   bound, as XLA does), dynamic-reshape makes its result's `<=` dimensions
//   dynamic, and the ops below pass dynamic dimensions on. A module's
//   parameters are static unless the caller gives runtime sizes.
// - An op computes on its operands' values, that is, on arrays of their
//   runtime shapes, and its result's dimensions are dynamic where XLA's
//   inference makes them so (the rules by op below). The result is stored
//   at its declared bounds, zero past its runtime sizes. So a reduce sees
//   only the valid elements, a pad pads the valid region, a reshape reshapes
//   the valid elements in row-major order, and so on.
// - Operands that must agree in a dimension (elementwise operands, the
//   contracting dimensions of a dot, ...): a static one adopts the runtime
//   size of the dynamic ones (XLA computes at the bound and reads only that
//   far), and dynamic ones must have equal sizes, except that for a binary
//   elementwise op XLA broadcasts a dynamic size of 1 against a larger one,
//   and otherwise takes the smaller.
// - set-dimension-size changes only the size, never the data: growing a size
//   exposes whatever the storage holds there (the operand's elements for an
//   array that was static, zeros past a computed result's runtime size; XLA
//   leaves them unspecified). A size outside [0, bound] is an error.
// - get-dimension-size answers a dynamic dimension's runtime size. Of a
//   dimension its operand's declared shape calls static it answers the
//   declared size: XLA folds it so, even where an ill-typed set-dimension-size
//   (declared static) made the value dynamic.
// - An op with no rule is refused when an operand has a runtime size below
//   its bound; when every runtime size is at its bound it runs as on static
//   values (its result is static). So are the cases a rule cannot answer
//   without reading padding (a slice past a runtime size, ...).
//
// The rules' shape half (which runtime sizes a result takes, how each
// operand is fit) is hlo/runtime_sizes.h, which the JIT shares; this file
// runs the data on it.
#include <algorithm>

#include "hlo/indexing.h"
#include "hlo/runtime_sizes.h"
#include "interp/data_checks.h"
#include "interp/ops.h"

namespace hlo::interp {
namespace {

// Whether an array of `v` (tuples recursively) passes `test`: runtime sizes
// (Literal::hasDynamicSizes) or padding (Literal::hasPadding).
bool anyArray(const Literal& v, bool (Literal::*test)() const) {
  if (!v.shape().isTuple()) return (v.*test)();
  for (const Literal& e : v.tupleElements())
    if (anyArray(e, test)) return true;
  return false;
}

Status refuse(const Instruction& instr, const std::string& why) { return EvalContext::unsupported(instr, why); }

// The value of `v` (its runtime shape) cut or broadcast to `want`: a longer
// dimension keeps its leading elements, a dimension of size 1 is repeated.
Literal fit(const Literal& v, const std::vector<int64_t>& want) {
  Literal value = v.compact();
  if (value.shape().dims() == want) return value;
  Literal out(Shape(value.type(), want));
  const std::vector<int64_t>& have = value.shape().dims();
  std::vector<int64_t> strides = rowMajorStrides(have);
  forEachIndex(want, [&](const std::vector<int64_t>& r, int64_t linear) {
    int64_t from = 0;
    for (size_t d = 0; d < r.size(); ++d) from += (have[d] == 1 ? 0 : r[d]) * strides[d];
    copyElement(value, from, out, linear);
  });
  return out;
}

// Runs `instr`'s op on static `operands` with `attrs`, its result (each array
// of a tuple) of sizes `dims`, and stores the result at the declared bounds
// with the dimensions `dynamic` names dynamic.
StatusOr<Literal> runOnValues(EvalContext& ctx, const Instruction& instr, const std::vector<Literal>& operands,
                              const std::vector<int64_t>& dims, const std::vector<bool>& dynamic,
                              const Attributes& attrs) {
  const Shape& bound = instr.shape().isTuple() ? instr.shape().tupleElement(0) : instr.shape();
  bool fits = bound.isArray() && static_cast<int>(dims.size()) == bound.rank();
  for (size_t d = 0; fits && d < dims.size(); ++d) fits = dims[d] >= 0 && dims[d] <= bound.dim(static_cast<int>(d));
  if (!fits)
    return errorStatus("internal error: runtime sizes " + dimsText(dims) + " do not fit " + bound.toString(false),
                       instr.loc());
  Computation scratch("runtime-shapes");
  std::vector<Instruction*> params;
  for (size_t i = 0; i < operands.size(); ++i) {
    auto p = std::make_unique<Instruction>(Opcode::kParameter, "operand." + std::to_string(i), operands[i].shape());
    p->setParameterNumber(static_cast<int64_t>(i));
    params.push_back(scratch.add(std::move(p)));
  }
  auto runtimeShape = [&](const Shape& declared) {
    return declared.isArray() ? Shape(declared.type(), dims) : declared;
  };
  Shape shape = instr.shape();
  if (shape.isTuple()) {
    std::vector<Shape> elements;
    for (const Shape& e : shape.tupleElements()) elements.push_back(runtimeShape(e));
    shape = Shape::tuple(std::move(elements));
  } else {
    shape = runtimeShape(shape);
  }
  Instruction* op = scratch.add(instr.opcode(), instr.name(), shape, params);
  op->attrs() = attrs;
  op->setLoc(instr.loc());
  std::vector<const Literal*> pointers;
  for (const Literal& o : operands) pointers.push_back(&o);
  HLO_ASSIGN_OR_RETURN(Literal value, evalStaticOp(ctx, *op, Operands(pointers.data(), pointers.size())));
  if (!instr.shape().isTuple()) return Literal::expand(value, instr.shape(), dynamic);
  Literal result(instr.shape());
  for (size_t i = 0; i < value.tupleElements().size(); ++i)
    result.tupleElements()[i] = instr.shape().tupleElement(static_cast<int>(i)).isArray()
                                    ? Literal::expand(value.tupleElements()[i],
                                                      instr.shape().tupleElement(static_cast<int>(i)), dynamic)
                                    : std::move(value.tupleElements()[i]);
  return result;
}

// Ops that trust their attributes to index their operands check first that
// the instruction is well typed (the module need not be verified).
bool checksTypes(Opcode op) {
  switch (op) {
    case Opcode::kReshape: case Opcode::kPad: case Opcode::kSlice: case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool takesDynamicRules(const Instruction& instr, Operands ops) {
  if (!takesRuntimeRule(instr.opcode())) return false;
  for (const Literal* o : ops)
    if (anyArray(*o, &Literal::hasDynamicSizes)) return true;
  return false;
}

StatusOr<Literal> evalWithDynamicSizes(EvalContext& ctx, const Instruction& instr, Operands ops) {
  if (checksTypes(instr.opcode())) HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  std::vector<RuntimeDims> dims;
  dims.reserve(ops.size());
  std::vector<const RuntimeDims*> operandDims;
  for (const Literal* o : ops) {
    if (!o->shape().isArray()) {
      operandDims.push_back(nullptr);
      continue;
    }
    dims.push_back(RuntimeDims::of(*o));
    operandDims.push_back(&dims.back());
  }
  StatusOr<std::optional<RuntimeRule>> rule = runtimeRule(instr, operandDims);
  if (!rule.ok()) return refuse(instr, rule.status().message());
  if (!*rule) {
    // No rule: only values at their bounds, which run as static ones.
    for (size_t i = 0; i < ops.size(); ++i)
      if (anyArray(*ops[i], &Literal::hasPadding))
        return refuse(instr, "operand " + std::to_string(i) + " has runtime sizes below its bounds (" +
                                 (ops[i]->shape().isArray() ? dimsText(ops[i]->runtimeDims()) + " of " +
                                                                  ops[i]->shape().toString(false)
                                                            : std::string("inside a tuple")) +
                                 "), which this op does not model");
    return evalStaticOp(ctx, instr, ops);
  }
  if (windowNeedsStartIndices(instr, *operandDims[0])) {
    std::vector<int64_t> starts;
    for (size_t k = firstStartIndexOperand(instr); k < ops.size(); ++k)
      for (int64_t i = 0; i < ops[k]->elementCount(); ++i) starts.push_back(integerAt(*ops[k], i));
    if (Status inside = checkWindowInRuntimeSizes(instr, *operandDims[0], starts); !inside.ok())
      return refuse(instr, inside.message());
  }
  std::vector<Literal> operands;
  for (size_t i = 0; i < ops.size(); ++i)
    operands.push_back((*rule)->fit[i] ? fit(*ops[i], *(*rule)->fit[i]) : ops[i]->compact());
  return runOnValues(ctx, instr, operands, (*rule)->result.sizes, (*rule)->result.dynamic, (*rule)->attrs);
}

// Sets the runtime size of one dimension; the data stay as they are.
StatusOr<Literal> evalSetDimensionSize(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  HLO_ASSIGN_OR_RETURN(RuntimeDims dims, setDimensionSizeRule(instr, RuntimeDims::of(x), integerAt(*ops[1], 0),
                                                              instr.operand(1)->opcode() == Opcode::kConstant));
  Literal result = x;
  result.mutableShape() = instr.shape();
  for (int d = 0; d < dims.rank(); ++d) {
    if (dims.dynamic[d]) result.setDynamicSize(d, dims.sizes[d]);
    else if (result.isDynamicDim(d)) result.setStaticDim(d);
  }
  return result;
}

// The runtime size of a dynamic dimension, the declared size of a static one.
StatusOr<Literal> evalGetDimensionSize(EvalContext& ctx, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  int64_t size = getDimensionSizeRule(instr, instr.operand(0)->shape(), RuntimeDims::of(*ops[0]));
  HLO_ASSIGN_OR_RETURN(Literal result, ctx.allocate(instr.shape(), instr));
  result.setBitsAt(0, static_cast<uint32_t>(size));
  return result;
}

// The valid elements in row-major order, in an array of the given sizes.
StatusOr<Literal> evalDynamicReshape(EvalContext&, const Instruction& instr, Operands ops) {
  HLO_RETURN_IF_ERROR(checkWellTyped(instr));
  const Literal& x = *ops[0];
  std::vector<int64_t> sizes(instr.shape().rank());
  for (int d = 0; d < instr.shape().rank(); ++d) {
    if (ops[d + 1]->hasDynamicSizes()) return refuse(instr, "a size operand is dynamic");
    sizes[d] = integerAt(*ops[d + 1], 0);
  }
  HLO_ASSIGN_OR_RETURN(RuntimeDims dims, dynamicReshapeRule(instr, RuntimeDims::of(x), sizes));
  Literal value = x.compact();
  value.mutableShape() = Shape(value.type(), dims.sizes);  // row-major: the same bytes
  return Literal::expand(value, instr.shape(), dims.dynamic);
}

}  // namespace hlo::interp
