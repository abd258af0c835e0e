// Shape inference for the operations that apply a reducer computation:
// reduce, reduce-window, select-and-scatter and scan; and the reducer check
// that scatter and all-reduce share.
#include <algorithm>

#include "hlo/shape_inference_internal.h"

namespace hlo::inference {
namespace {

std::string typeName(ElementType t) { return std::string(elementTypeName(t)); }

// The elements of a tuple, or the shape itself.
std::vector<Shape> flatten(const Shape& s) {
  if (s.isTuple()) return s.tupleElements();
  return {s};
}

Shape insertDim(const Shape& s, int dim, int64_t size) {
  std::vector<int64_t> dims = s.dims();
  std::vector<bool> dynamic = s.dynamicDims();
  dims.insert(dims.begin() + dim, size);
  dynamic.insert(dynamic.begin() + dim, false);
  return makeArray(s.type(), dims, dynamic);
}

// Operands [0, n) are the inputs, [n, 2n) their initial values.
Status checkInputsAndInits(const Ctx& c, int& n) {
  if (c.operandCount() < 2 || c.operandCount() % 2 != 0)
    return c.error("expected inputs and as many initial values, got " +
                   std::to_string(c.operandCount()) + " operands");
  n = c.operandCount() / 2;
  for (int i = 0; i < n; ++i) {
    if (!c.operand(i).isArray()) return c.error("inputs must be arrays, got " + str(c.operand(i)));
    if (!sameDims(c.operand(i), c.operand(0)))
      return c.error("inputs " + str(c.operand(0)) + " and " + str(c.operand(i)) +
                     " must have the same dimensions");
  }
  return okStatus();
}

Status checkReducerOf(const Ctx& c, int n) {
  std::vector<ElementType> types;
  std::vector<const Shape*> inits;
  for (int i = 0; i < n; ++i) {
    types.push_back(c.operand(i).type());
    inits.push_back(&c.operand(n + i));
  }
  return checkReducer(c, c.attrs().getComputation(AttrKey::kToApply), types, inits);
}

}  // namespace

Status checkReducer(const Ctx& c, const Computation* comp,
                    const std::vector<ElementType>& inputTypes,
                    const std::vector<const Shape*>& initShapes) {
  int n = static_cast<int>(inputTypes.size());
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, comp, "to_apply"));
  std::string name = "reducer '" + comp->name() + "'";
  if (comp->parameterCount() != 2 * n)
    return c.error(name + " takes " + std::to_string(comp->parameterCount()) +
                   " parameters, expected " + std::to_string(2 * n));
  std::vector<Shape> acc = flatten(root);
  if (static_cast<int>(acc.size()) != n || (n != 1 && !root.isTuple()))
    return c.error(name + " must return " + std::to_string(n) + " scalars, returns " + str(root));
  for (int i = 0; i < n; ++i) {
    const Instruction* accParam = comp->parameter(i);
    const Instruction* inParam = comp->parameter(n + i);
    if (!accParam || !inParam) return c.error(name + " has a missing parameter");
    if (!acc[i].isScalar())
      return c.error(name + " must return scalars, returns " + str(root));
    if (!compatibleShapes(acc[i], accParam->shape(), false))
      return c.error(name + " parameter " + std::to_string(i) + " " + str(accParam->shape()) +
                     " differs from its result " + str(acc[i]));
    if (!compatibleShapes(acc[i], *initShapes[i], true))
      return c.error("initial value " + str(*initShapes[i]) + " does not fit " + name +
                     " result " + str(acc[i]));
    if (!compatibleShapes(Shape::scalar(inputTypes[i]), inParam->shape(), true) ||
        !compatibleShapes(acc[i], inParam->shape(), true))
      return c.error(name + " parameter " + std::to_string(n + i) + " " +
                     str(inParam->shape()) + " must be a " + typeName(inputTypes[i]) + " scalar");
  }
  return okStatus();
}

StatusOr<Shape> inferReduce(const Ctx& c) {
  int n = 0;
  HLO_RETURN_IF_ERROR(checkInputsAndInits(c, n));
  const Shape& x = c.operand(0);
  const std::vector<int64_t>& reduced = c.attrs().getInts(AttrKey::kDimensions);
  if (!validDimList(reduced, x.rank()))
    return c.error("dimensions " + str(reduced) + " are not distinct dimensions of " + str(x));
  HLO_RETURN_IF_ERROR(checkReducerOf(c, n));
  std::vector<int64_t> dims;
  std::vector<bool> dynamic;
  for (int i = 0; i < x.rank(); ++i) {
    if (std::find(reduced.begin(), reduced.end(), i) != reduced.end()) continue;
    dims.push_back(x.dim(i));
    dynamic.push_back(x.isDynamicDim(i));
  }
  const Shape& root = c.attrs().getComputation(AttrKey::kToApply)->root()->shape();
  if (!root.isTuple()) return makeArray(root.type(), dims, dynamic);
  std::vector<Shape> out;
  for (const Shape& e : root.tupleElements()) out.push_back(makeArray(e.type(), dims, dynamic));
  return Shape::tuple(std::move(out));
}

StatusOr<Shape> inferReduceWindow(const Ctx& c) {
  int n = 0;
  HLO_RETURN_IF_ERROR(checkInputsAndInits(c, n));
  HLO_RETURN_IF_ERROR(checkReducerOf(c, n));
  const AttrValue* w = c.attrs().find(AttrKey::kWindow);
  std::vector<WindowDim> window = w ? w->window : std::vector<WindowDim>{};
  std::vector<Shape> out;
  for (int i = 0; i < n; ++i) {
    HLO_ASSIGN_OR_RETURN(Shape s, windowedShape(c, c.operand(i), window, c.operand(n + i).type()));
    out.push_back(std::move(s));
  }
  if (!c.attrs().getComputation(AttrKey::kToApply)->root()->shape().isTuple()) return out[0];
  return Shape::tuple(std::move(out));
}

// select-and-scatter(operand, source, init_value), select=(T, T) -> pred,
// scatter a reducer; the source has the window-reduced operand's shape.
StatusOr<Shape> inferSelectAndScatter(const Ctx& c) {
  const Shape& x = c.operand(0);
  const Shape& source = c.operand(1);
  if (!x.isArray() || !source.isArray())
    return c.error("operand and source must be arrays, got " + str(x) + " and " + str(source));
  const Computation* select = c.attrs().getComputation(AttrKey::kSelect);
  HLO_ASSIGN_OR_RETURN(Shape selectRoot, rootShape(c, select, "select"));
  if (!selectRoot.isScalar() || !isPred(selectRoot.type()))
    return c.error("select must return pred[], got " + str(selectRoot));
  if (select->parameterCount() != 2)
    return c.error("select '" + select->name() + "' must take 2 parameters");
  for (int i = 0; i < 2; ++i) {
    const Instruction* p = select->parameter(i);
    if (!p || !compatibleShapes(p->shape(), Shape::scalar(x.type()), true))
      return c.error("select parameters must be " + typeName(x.type()) + " scalars");
  }
  HLO_RETURN_IF_ERROR(checkReducer(c, c.attrs().getComputation(AttrKey::kScatter),
                                   {source.type()}, {&c.operand(2)}));
  const AttrValue* w = c.attrs().find(AttrKey::kWindow);
  HLO_ASSIGN_OR_RETURN(Shape windowed,
                       windowedShape(c, x, w ? w->window : std::vector<WindowDim>{}, x.type()));
  if (!sameDims(windowed, source))
    return c.error("source " + str(source) + " must have the window-reduced shape " +
                   str(windowed));
  return x;
}

// scan(inputs..., carries...), dimensions={d}, num_carries=k: to_apply maps
// (input slices..., carries...) to (output slices..., carries...); outputs
// gain dimension d back.
StatusOr<Shape> inferScan(const Ctx& c) {
  const std::vector<int64_t>& dimAttr = c.attrs().getInts(AttrKey::kDimensions);
  if (dimAttr.size() != 1 || dimAttr[0] < 0)
    return c.error("expected dimensions={d} with one dimension");
  int dim = static_cast<int>(dimAttr[0]);
  int carries = static_cast<int>(c.attrs().getInt(AttrKey::kNumCarries, 0));
  const Computation* body = c.attrs().getComputation(AttrKey::kToApply);
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, body, "to_apply"));
  std::vector<Shape> roots = flatten(root);
  int operands = c.operandCount(), results = static_cast<int>(roots.size());
  if (carries < 0 || carries > operands || carries > results ||
      (operands == carries && results == carries))
    return c.error("num_carries=" + std::to_string(carries) + " does not fit " +
                   std::to_string(operands) + " operands and " + std::to_string(results) +
                   " results");
  if (body->parameterCount() != operands)
    return c.error("to_apply '" + body->name() + "' takes " +
                   std::to_string(body->parameterCount()) + " parameters, expected " +
                   std::to_string(operands));
  int inputs = operands - carries, outputs = results - carries;
  int64_t length = -1;
  if (inputs > 0 && c.operand(0).isArray() && c.operand(0).rank() > dim)
    length = c.operand(0).dim(dim);
  else if (c.declared && flatten(*c.declared).size() == roots.size() && outputs > 0 &&
           flatten(*c.declared)[0].rank() > dim)
    length = flatten(*c.declared)[0].dim(dim);
  if (length < 0) return c.cannotInfer();
  for (int i = 0; i < operands; ++i) {
    const Shape& s = c.operand(i);
    Shape expected = s;
    if (i < inputs) {
      if (!s.isArray() || s.rank() <= dim || s.dim(dim) != length)
        return c.error("input " + str(s) + " must have dimension " + std::to_string(dim) +
                       " of size " + std::to_string(length));
      expected = deleteDim(s, dim);
    }
    const Instruction* p = body->parameter(i);
    if (!p || !compatibleShapes(p->shape(), expected, true))
      return c.error("to_apply parameter " + std::to_string(i) + " must be " + str(expected));
  }
  std::vector<Shape> out;
  for (int i = 0; i < results; ++i) {
    if (i >= outputs) {
      const Instruction* p = body->parameter(inputs + i - outputs);
      if (!compatibleShapes(p->shape(), roots[i], true))
        return c.error("carry " + std::to_string(i - outputs) + " of to_apply changes shape");
      out.push_back(roots[i]);
      continue;
    }
    if (!roots[i].isArray() || roots[i].rank() < dim)
      return c.error("to_apply output " + str(roots[i]) + " cannot take scan dimension " +
                     std::to_string(dim));
    out.push_back(insertDim(roots[i], dim, length));
  }
  // A one-result scan may be declared without the tuple.
  if (!root.isTuple() || (results == 1 && c.declared && !c.declared->isTuple())) return out[0];
  return Shape::tuple(std::move(out));
}

}  // namespace hlo::inference
