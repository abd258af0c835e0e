// Specializing a module to known runtime sizes (specialize_sizes.h says what
// and why; hlo/runtime_sizes.h has the rules).
#include "jit/specialize_sizes.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "hlo/element_io.h"
#include "hlo/passes/fold.h"
#include "hlo/passes/pass_util.h"
#include "interp/evaluator.h"

namespace hlo::jit {

ValueSizes ValueSizes::atBounds(const Shape& shape) {
  ValueSizes v;
  if (shape.isTuple()) {
    v.tuple = true;
    for (const Shape& e : shape.tupleElements()) v.elements.push_back(atBounds(e));
  } else if (shape.isArray()) {
    v.array = RuntimeDims::atBounds(shape.dims());
  }
  return v;
}

bool ValueSizes::sameSizes(const ValueSizes& other) const {
  if (tuple != other.tuple || !(array == other.array) || elements.size() != other.elements.size()) return false;
  for (size_t i = 0; i < elements.size(); ++i)
    if (!elements[i].sameSizes(other.elements[i])) return false;
  return true;
}

bool ValueSizes::anyDynamic() const {
  for (const ValueSizes& e : elements)
    if (e.anyDynamic()) return true;
  return array.anyDynamic();
}

std::vector<int64_t> SizeBindings::key() const {
  std::vector<int64_t> k;
  for (const auto& [number, value] : parameterValues) k.insert(k.end(), {number, value});
  k.push_back(-1);
  // Arguments at their bounds leave no trace: no list and a list of nullopt
  // are the same binding.
  for (size_t i = 0; i < argumentDims.size(); ++i) {
    const std::optional<RuntimeDims>& dims = argumentDims[i];
    if (!dims) continue;
    k.insert(k.end(), {static_cast<int64_t>(i), dims->rank()});
    k.insert(k.end(), dims->sizes.begin(), dims->sizes.end());
    for (bool d : dims->dynamic) k.push_back(d);
  }
  return k;
}

namespace {

bool isConstantEqualTo(const Instruction& size, int64_t want) {
  const Literal* lit = knownLiteral(size);
  return lit && size.shape().isScalar() && isInteger(size.shape().type()) && integerAt(*lit, 0) == want;
}

// A set-dimension-size or dynamic-reshape that leaves every size at its bound
// (constants equal to the bounds): compiled code runs it as it is.
bool keepsBounds(const Instruction& instr) {
  if (instr.opcode() == Opcode::kSetDimensionSize) {
    const std::vector<int64_t>& dims = instr.attrs().getInts(AttrKey::kDimensions);
    const Shape& x = instr.operand(0)->shape();
    return dims.size() == 1 && dims[0] >= 0 && dims[0] < x.rank() &&
           isConstantEqualTo(*instr.operand(1), x.dim(static_cast<int>(dims[0])));
  }
  if (instr.opcode() == Opcode::kDynamicReshape) {
    for (int d = 1; d < instr.operandCount(); ++d)
      if (d - 1 >= instr.shape().rank() || !isConstantEqualTo(*instr.operand(d), instr.shape().dim(d - 1)))
        return false;
    return true;
  }
  return true;
}

bool isSizeOp(Opcode op) {
  return op == Opcode::kSetDimensionSize || op == Opcode::kGetDimensionSize || op == Opcode::kDynamicReshape;
}

// `shape` (an array, or each array of a tuple) with the sizes `dims` and no
// `<=` marks; the layout stays.
void setStaticDims(Shape& shape, const std::vector<int64_t>& dims) {
  if (shape.isTuple()) {
    for (Shape& e : shape.mutableTupleElements()) setStaticDims(e, dims);
    return;
  }
  if (!shape.isArray()) return;
  for (int d = 0; d < shape.rank(); ++d) shape.setDim(d, dims[d], false);
}

void clearDynamicMarks(Shape& shape) {
  if (shape.isTuple()) {
    for (Shape& e : shape.mutableTupleElements()) clearDynamicMarks(e);
  } else if (shape.isArray()) {
    setStaticDims(shape, std::vector<int64_t>(shape.dims()));
  }
}

class Specializer {
 public:
  explicit Specializer(Module& module) : module_(module) {}

  StatusOr<ValueSizes> run(const SizeBindings& bindings) {
    Computation& entry = *module_.entry();
    for (const auto& comp : module_.computations())
      for (const auto& instr : comp->instructions())
        if (instr->opcode() == Opcode::kSetDimensionSize && instr->operand(1)->opcode() == Opcode::kConstant)
          writtenConstant_.insert(instr.get());
    HLO_RETURN_IF_ERROR(bindParameterValues(entry, bindings));
    std::vector<ValueSizes> params;
    for (int p = 0; p < entry.parameterCount(); ++p) {
      const Shape& shape = entry.parameter(p)->shape();
      const std::optional<RuntimeDims>* given =
          p < static_cast<int>(bindings.argumentDims.size()) ? &bindings.argumentDims[p] : nullptr;
      ValueSizes v = ValueSizes::atBounds(shape);
      if (given && *given) {
        if (!shape.isArray() || (*given)->bounds != shape.dims())
          return errorStatus("jit: the runtime sizes of argument " + std::to_string(p) + " do not fit parameter %" +
                             entry.parameter(p)->name() + " " + shape.toString(false));
        v.array = **given;
      }
      params.push_back(std::move(v));
    }
    Shape declared = entry.root()->shape();
    HLO_RETURN_IF_ERROR(specialize(entry, params));
    // The computations the entry reaches with values at their bounds (those
    // called with runtime sizes were specialized as copies) have their own
    // size ops specialized with their parameters at the bounds.
    std::unordered_set<const Computation*> reachable = reachableComputations(module_);
    std::vector<Computation*> others;
    for (const auto& comp : module_.computations())
      if (comp.get() != &entry && reachable.count(comp.get()) && !specialized_.count(comp.get()))
        others.push_back(comp.get());
    for (Computation* comp : others) {
      bool hasSizeOps = false;
      for (const auto& instr : comp->instructions()) hasSizeOps = hasSizeOps || isSizeOp(instr->opcode());
      if (!hasSizeOps) continue;
      std::vector<ValueSizes> atBounds;
      for (const Instruction* p : comp->parameters()) atBounds.push_back(ValueSizes::atBounds(p->shape()));
      HLO_RETURN_IF_ERROR(specialize(*comp, atBounds));
      if (sizes_.at(comp->root()).anyDynamic())
        return refuse(*comp->root(), "computation %" + comp->name() +
                                         " returns runtime sizes to a caller that passes it none");
    }
    ValueSizes result = sizes_.at(entry.root());
    NameUniquer names(entry);
    entry.setRoot(padToBounds(entry, entry.root(), declared, result, names));
    removeUnreachableComputations(module_);  // the originals of specialized copies
    for (const auto& comp : module_.computations()) {
      comp->removeDetached();
      HLO_RETURN_IF_ERROR(comp->sortTopologically());
    }
    return result;
  }

 private:
  static Status refuse(const Instruction& instr, const std::string& why) {
    return errorStatus("cannot compile " + std::string(opcodeName(instr.opcode())) + " (%" + instr.name() + "): " + why,
                       instr.loc());
  }

  // The bound parameters' uses take constants of their values.
  Status bindParameterValues(Computation& entry, const SizeBindings& bindings) {
    NameUniquer names(entry);
    for (const auto& [number, value] : bindings.parameterValues) {
      if (number < 0 || number >= entry.parameterCount())
        return errorStatus("jit: no parameter " + std::to_string(number) + " to bind a size to");
      Instruction* param = entry.parameter(static_cast<int>(number));
      if (!param->shape().isScalar() || !isInteger(param->shape().type()))
        return errorStatus("jit: parameter %" + param->name() + " is not an integer scalar");
      Instruction* c = constant(entry, param->shape().type(), value, param->name() + ".value", names);
      entry.replaceAllUses(param, c);
    }
    return okStatus();
  }

  Instruction* constant(Computation& comp, ElementType type, int64_t value, const std::string& name,
                        NameUniquer& names) {
    Literal lit(Shape::scalar(type));
    writeInt(lit, 0, value);
    Instruction* c = comp.add(Opcode::kConstant, names.make(name), lit.shape());
    c->setLiteral(std::move(lit));
    sizes_[c] = ValueSizes::atBounds(c->shape());
    return c;
  }

  // Each instruction in operand order, its operands' sizes known first.
  // `params`: the parameters' runtime sizes; `paramShapes`, for a copy
  // called with values of runtime sizes, the static shapes they arrive in.
  Status specialize(Computation& comp, const std::vector<ValueSizes>& params,
                    const std::vector<Shape>* paramShapes = nullptr) {
    specialized_.insert(&comp);
    paramShapes_ = paramShapes;
    HLO_RETURN_IF_ERROR(comp.sortTopologically());
    std::vector<Instruction*> order;
    for (const auto& instr : comp.instructions()) order.push_back(instr.get());
    for (Instruction* instr : order) declared_.emplace(instr, instr->shape());
    NameUniquer names(comp);
    for (Instruction* instr : order) HLO_RETURN_IF_ERROR(visit(comp, instr, params, names));
    return okStatus();
  }

  // Gives `instr` its runtime sizes (sizes_), rewriting it, or replacing it
  // by a static equivalent, as its rule says.
  Status visit(Computation& comp, Instruction* instr, const std::vector<ValueSizes>& params, NameUniquer& names) {
    if (instr->users().empty() && comp.root() != instr && instr->opcode() != Opcode::kParameter &&
        !instr->hasControlEdges() && !effects_.of(*instr)) {
      // Unused (a bound parameter's value stands in for it, ...): its
      // sizes need not be known, and the pipeline removes it.
      sizes_[instr] = ValueSizes::atBounds(instr->shape());
      return okStatus();
    }
    std::vector<const ValueSizes*> ops;
    bool dynamicIn = false;
    for (const Instruction* o : instr->operands()) {
      ops.push_back(&sizes_.at(o));
      dynamicIn = dynamicIn || ops.back()->anyDynamic();
    }
    ValueSizes v;
    switch (instr->opcode()) {
      case Opcode::kParameter: {
        v = params.at(instr->parameterNumber());
        if (paramShapes_) {
          instr->setShape(paramShapes_->at(instr->parameterNumber()));
        } else if (v.array.padded()) {
          // The argument's valid elements, sliced out for the users.
          std::vector<Instruction*> users = instr->users();
          bool root = comp.root() == instr;
          Instruction* valid = slice(comp, instr, v.array.sizes, names);
          for (Instruction* u : users)
            for (int k = 0; k < u->operandCount(); ++k)
              if (u->operand(k) == instr) comp.setOperand(u, k, valid);
          if (root) comp.setRoot(valid);
          declared_.emplace(valid, instr->shape());
          v.storage = instr;  // the argument as the caller stored it, padding and all
          sizes_[valid] = v;
          v = ValueSizes::atBounds(instr->shape());
        }
        sizes_[instr] = std::move(v);
        return okStatus();  // the signature keeps its declared shapes
      }
      case Opcode::kTuple:
        v.tuple = true;
        for (const ValueSizes* o : ops) v.elements.push_back(*o);
        if (dynamicIn) {
          std::vector<Shape> elements;
          for (const Instruction* o : instr->operands()) elements.push_back(o->shape());
          instr->setShape(Shape::tuple(std::move(elements)));
        }
        break;
      case Opcode::kGetTupleElement: {
        int64_t index = instr->attrs().getInt(AttrKey::kIndex);
        v = ops[0]->elements.at(index);
        if (dynamicIn) instr->setShape(instr->operand(0)->shape().tupleElement(static_cast<int>(index)));
        break;
      }
      case Opcode::kOptimizationBarrier: case Opcode::kAddDependency: case Opcode::kDomain:
        v = *ops[0];
        if (dynamicIn) instr->setShape(instr->operand(0)->shape());
        break;
      case Opcode::kSetDimensionSize: return setDimensionSize(comp, instr, *ops[0], names);
      case Opcode::kDynamicReshape: return dynamicReshape(comp, instr, ops[0]->array, names);
      case Opcode::kGetDimensionSize: {
        int64_t size = getDimensionSizeRule(*instr, declared(instr->operand(0)), ops[0]->array);
        replace(comp, instr, constant(comp, instr->shape().type(), size, instr->name(), names));
        return okStatus();
      }
      default:
        if (!dynamicIn) {
          v = ValueSizes::atBounds(instr->shape());
          break;
        }
        if (!takesRuntimeRule(instr->opcode())) {
          HLO_ASSIGN_OR_RETURN(v, throughCall(instr, ops));
          break;
        }
        HLO_ASSIGN_OR_RETURN(v, byRule(comp, instr, ops, names));
        break;
    }
    sizes_[instr] = std::move(v);
    return okStatus();
  }

  // A copy of `callee` specialized for parameters of the sizes `params`,
  // arriving in the shapes of `args`.
  StatusOr<Computation*> specializedCopy(const Computation& callee, std::vector<ValueSizes> params,
                                         const std::vector<const Instruction*>& args) {
    // Storage the caller keeps is out of the copy's reach.
    for (ValueSizes& p : params) forgetStorage(p);
    std::string name = callee.name() + ".sized";
    for (int n = 1; module_.find(name); ++n) name = callee.name() + ".sized." + std::to_string(n);
    Computation* copy = module_.cloneComputation(callee, name);
    std::vector<Shape> shapes;
    for (const Instruction* a : args) shapes.push_back(a->shape());
    const std::vector<Shape>* outer = paramShapes_;
    Status done = specialize(*copy, params, &shapes);
    paramShapes_ = outer;
    HLO_RETURN_IF_ERROR(done);
    return copy;
  }

  static void forgetStorage(ValueSizes& v) {
    if (v.storage) {
      v.storage = nullptr;
      v.storageUnknown = true;
    }
    for (ValueSizes& e : v.elements) forgetStorage(e);
  }

  // A while, conditional, call or fusion given values of runtime sizes:
  // what it calls is specialized, as a copy, for them. A loop must keep its
  // state's sizes from one iteration to the next, and a conditional's
  // branches must return equal sizes: otherwise the sizes are not known
  // before the run.
  StatusOr<ValueSizes> throughCall(Instruction* instr, const std::vector<const ValueSizes*>& ops) {
    Attributes& attrs = instr->attrs();
    switch (instr->opcode()) {
      case Opcode::kWhile: {
        Computation* body = attrs.getComputation(AttrKey::kBody);
        Computation* condition = attrs.getComputation(AttrKey::kCondition);
        if (!body || !condition) break;
        HLO_ASSIGN_OR_RETURN(Computation * b, specializedCopy(*body, {*ops[0]}, {instr->operand(0)}));
        if (!sizes_.at(b->root()).sameSizes(*ops[0]))
          return refuse(*instr, "its body changes the runtime sizes of the loop state from one iteration to the "
                                "next, so they are not known before the run");
        HLO_ASSIGN_OR_RETURN(Computation * c, specializedCopy(*condition, {*ops[0]}, {instr->operand(0)}));
        attrs.setComputation(AttrKey::kBody, b);
        attrs.setComputation(AttrKey::kCondition, c);
        instr->setShape(instr->operand(0)->shape());
        return *ops[0];
      }
      case Opcode::kConditional: {
        std::vector<Computation*> branches = attrs.conditionalBranches();
        if (branches.empty() || static_cast<int>(branches.size()) + 1 != instr->operandCount()) break;
        std::vector<Computation*> copies;
        for (size_t k = 0; k < branches.size(); ++k) {
          HLO_ASSIGN_OR_RETURN(Computation * copy,
                               specializedCopy(*branches[k], {*ops[k + 1]}, {instr->operand(static_cast<int>(k) + 1)}));
          if (k > 0 && !sizes_.at(copy->root()).sameSizes(sizes_.at(copies[0]->root())))
            return refuse(*instr, "its branches return different runtime sizes, so they are not known before the run");
          copies.push_back(copy);
        }
        if (attrs.has(AttrKey::kBranchComputations)) {
          attrs.find(AttrKey::kBranchComputations)->comps = copies;
        } else {
          attrs.setComputation(AttrKey::kTrueComputation, copies[0]);
          attrs.setComputation(AttrKey::kFalseComputation, copies[1]);
        }
        instr->setShape(copies[0]->root()->shape());
        return sizes_.at(copies[0]->root());
      }
      case Opcode::kCall: case Opcode::kFusion: {
        AttrKey key = instr->opcode() == Opcode::kCall ? AttrKey::kToApply : AttrKey::kCalls;
        AttrValue* callee = attrs.find(key);
        if (!callee || callee->comps.size() != 1) break;
        std::vector<ValueSizes> params;
        for (const ValueSizes* o : ops) params.push_back(*o);
        HLO_ASSIGN_OR_RETURN(Computation * copy,
                             specializedCopy(*callee->comps[0], std::move(params),
                                             std::vector<const Instruction*>(instr->operands().begin(),
                                                                             instr->operands().end())));
        callee->comps[0] = copy;
        instr->setShape(copy->root()->shape());
        return sizes_.at(copy->root());
      }
      default:
        break;
    }
    return refuse(*instr, "an operand has runtime sizes, which compiled code does not pass into " +
                              std::string(opcodeName(instr->opcode())));
  }

  // An op with a runtime-size rule: its operands fit as the rule says, its
  // shape and attributes the rule's.
  StatusOr<ValueSizes> byRule(Computation& comp, Instruction* instr, const std::vector<const ValueSizes*>& ops,
                              NameUniquer& names) {
    std::vector<const RuntimeDims*> arrays;
    for (size_t i = 0; i < ops.size(); ++i) {
      if (ops[i]->tuple && ops[i]->anyDynamic())
        return refuse(*instr, "operand " + std::to_string(i) + " is a tuple with runtime sizes, which this op does not model");
      arrays.push_back(ops[i]->tuple ? nullptr : &ops[i]->array);
    }
    StatusOr<std::optional<RuntimeRule>> rule = runtimeRule(*instr, arrays);
    if (!rule.ok()) return refuse(*instr, rule.status().message());
    if (!*rule) {
      for (size_t i = 0; i < ops.size(); ++i)
        if (arrays[i] && arrays[i]->padded())
          return refuse(*instr, "operand " + std::to_string(i) + " has runtime sizes below its bounds (" +
                                    dimsText(arrays[i]->sizes) + " of " + dimsText(arrays[i]->bounds) +
                                    "), which this op does not model");
      return ValueSizes::atBounds(instr->shape());
    }
    if (windowNeedsStartIndices(*instr, *arrays[0])) {
      // Compiled code cannot check where the window starts: the start
      // indices must be known before the run.
      std::vector<int64_t> starts;
      for (int k = firstStartIndexOperand(*instr); k < instr->operandCount(); ++k) {
        HLO_ASSIGN_OR_RETURN(Literal value, knownValue(*instr, *instr->operand(k), "start index"));
        for (int64_t i = 0; i < value.elementCount(); ++i) starts.push_back(integerAt(value, i));
      }
      if (Status inside = checkWindowInRuntimeSizes(*instr, *arrays[0], starts); !inside.ok())
        return refuse(*instr, inside.message());
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      if (!(*rule)->fit[i]) continue;
      Instruction* fitted = fit(comp, instr->operand(static_cast<int>(i)), *arrays[i], *(*rule)->fit[i], names);
      if (fitted != instr->operand(static_cast<int>(i))) comp.setOperand(instr, static_cast<int>(i), fitted);
    }
    instr->attrs() = (*rule)->attrs;
    setStaticDims(instr->mutableShape(), (*rule)->result.sizes);
    ValueSizes v = ValueSizes::atBounds(instr->shape());
    auto mark = [&](ValueSizes& array) {
      array.array.bounds = (*rule)->result.bounds;
      array.array.dynamic = (*rule)->result.dynamic;
    };
    if (v.tuple) {
      for (ValueSizes& e : v.elements) mark(e);
    } else {
      mark(v);
    }
    return v;
  }

  Status setDimensionSize(Computation& comp, Instruction* instr, const ValueSizes& x, NameUniquer& names) {
    HLO_ASSIGN_OR_RETURN(int64_t size, sizeValue(*instr, *instr->operand(1)));
    HLO_ASSIGN_OR_RETURN(RuntimeDims dims,
                         setDimensionSizeRule(*instr, x.array, size, writtenConstant_.count(instr) != 0));
    int dim = static_cast<int>(instr->attrs().getInts(AttrKey::kDimensions)[0]);
    // The data stay as they are: a static operand becomes the storage of
    // what is left of it; a grown size exposes the storage.
    ValueSizes v = x;
    v.array = dims;
    if (!x.array.padded()) {
      v.storage = instr->operand(0);
      v.storageUnknown = false;
    }
    Instruction* value;
    if (size <= x.array.sizes[dim]) {
      value = fit(comp, instr->operand(0), x.array, dims.sizes, names);
      if (value == instr->operand(0)) value = copy(comp, value, names);  // its own sizes, apart from the operand's
    } else if (x.storage) {
      value = slice(comp, x.storage, dims.sizes, names);
    } else if (!x.storageUnknown) {
      value = padWithZeros(comp, instr->operand(0), dims.sizes, names);
    } else {
      return refuse(*instr, "it grows dimension " + std::to_string(dim) + " from its runtime size " +
                                std::to_string(x.array.sizes[dim]) + " to " + std::to_string(size) +
                                ", exposing storage the caller of this computation keeps");
    }
    sizes_[value] = std::move(v);
    replace(comp, instr, value);
    return okStatus();
  }

  Status dynamicReshape(Computation& comp, Instruction* instr, const RuntimeDims& x, NameUniquer& names) {
    std::vector<int64_t> sizes;
    for (int d = 1; d < instr->operandCount(); ++d) {
      HLO_ASSIGN_OR_RETURN(int64_t size, sizeValue(*instr, *instr->operand(d)));
      sizes.push_back(size);
    }
    HLO_ASSIGN_OR_RETURN(RuntimeDims dims, dynamicReshapeRule(*instr, x, sizes));
    Shape shape = instr->shape();
    setStaticDims(shape, dims.sizes);
    Instruction* value = comp.add(Opcode::kReshape, names.make(instr->name()), shape, {instr->operand(0)});
    value->setLoc(instr->loc());
    ValueSizes v;
    v.array = std::move(dims);
    sizes_[value] = std::move(v);
    replace(comp, instr, value);
    return okStatus();
  }

  // The value of an operand that must be known before the run (a size, a
  // start index): a constant, or computed from constants (the bound
  // parameters' values and the sizes get-dimension-size answered are
  // constants by now) by the interpreter, where constant folding would.
  StatusOr<Literal> knownValue(const Instruction& user, const Instruction& operand, const std::string& what) {
    std::unordered_map<const Instruction*, Literal> known;
    std::function<Status(const Instruction&, int)> evaluate = [&](const Instruction& i, int depth) -> Status {
      if (known.count(&i)) return okStatus();
      if (const Literal* lit = knownLiteral(i)) {
        known.emplace(&i, *lit);
        return okStatus();
      }
      if (depth > 64 || !pureFunctionOfOperands(i) || !i.shape().isArray() ||
          i.shape().elementCount() > kMaxFoldedElements)
        return refuse(user, "its " + what + " is computed from %" + i.name() + ", which is not known before the run");
      std::vector<const Literal*> operands;
      for (const Instruction* o : i.operands()) {
        HLO_RETURN_IF_ERROR(evaluate(*o, depth + 1));
        operands.push_back(&known.at(o));
      }
      StatusOr<Literal> value = interp::evaluateInstruction(i, operands);
      if (!value.ok()) return refuse(user, "its " + what + " cannot be computed: " + value.status().message());
      known.emplace(&i, std::move(value).value());
      return okStatus();
    };
    HLO_RETURN_IF_ERROR(evaluate(operand, 0));
    return std::move(known.at(&operand));
  }

  StatusOr<int64_t> sizeValue(const Instruction& user, const Instruction& size) {
    HLO_ASSIGN_OR_RETURN(Literal value, knownValue(user, size, "size"));
    return integerAt(value, 0);
  }

  // `value` (of the runtime sizes `have`) fit to `want`: longer dimensions
  // cut to their leading elements, dimensions of size 1 repeated.
  Instruction* fit(Computation& comp, Instruction* value, const RuntimeDims& have, const std::vector<int64_t>& want,
                   NameUniquer& names) {
    if (have.sizes == want) return value;
    std::vector<int64_t> cut = have.sizes;
    bool longer = false;
    for (size_t d = 0; d < cut.size(); ++d)
      if (cut[d] > want[d]) {
        cut[d] = want[d];
        longer = true;
      }
    if (longer) value = slice(comp, value, cut, names);
    if (cut == want) return value;
    // The rule repeats only dimensions of size 1: drop them, then broadcast.
    std::vector<int64_t> kept, keptDims;
    for (size_t d = 0; d < cut.size(); ++d)
      if (cut[d] == want[d]) {
        kept.push_back(static_cast<int64_t>(d));
        keptDims.push_back(cut[d]);
      }
    Instruction* reshaped = comp.add(Opcode::kReshape, names.make(value->name() + ".repeat"),
                                     Shape(value->shape().type(), keptDims), {value});
    Instruction* repeated = comp.add(Opcode::kBroadcast, names.make(value->name() + ".repeated"),
                                     Shape(value->shape().type(), want), {reshaped});
    repeated->attrs().setInts(AttrKey::kDimensions, kept);
    return repeated;
  }

  Instruction* slice(Computation& comp, Instruction* value, const std::vector<int64_t>& sizes, NameUniquer& names) {
    Shape shape = value->shape();
    setStaticDims(shape, sizes);
    Instruction* s = comp.add(Opcode::kSlice, names.make(value->name() + ".valid"), shape, {value});
    AttrValue slices;
    for (int64_t size : sizes) slices.slices.push_back(SliceDim{0, size, 1});
    s->attrs().set(AttrKey::kSlice, std::move(slices));
    s->setLoc(value->loc());
    return s;
  }

  Instruction* copy(Computation& comp, Instruction* value, NameUniquer& names) {
    Shape shape = value->shape();
    clearDynamicMarks(shape);
    return comp.add(Opcode::kCopy, names.make(value->name() + ".sized"), shape, {value});
  }

  // `value` (of runtime sizes `sizes`) padded with zeros to `declared`'s bounds.
  Instruction* padToBounds(Computation& comp, Instruction* value, const Shape& declared, const ValueSizes& sizes,
                           NameUniquer& names) {
    if (declared.isTuple()) {
      std::vector<Instruction*> elements;
      bool changed = false;
      for (int i = 0; i < declared.tupleSize(); ++i) {
        Instruction* e = comp.add(Opcode::kGetTupleElement, names.make(value->name() + ".element"),
                                  value->shape().tupleElement(i), {value});
        e->attrs().setInt(AttrKey::kIndex, i);
        Instruction* padded = padToBounds(comp, e, declared.tupleElement(i), sizes.elements[i], names);
        changed = changed || padded != e;
        elements.push_back(padded);
      }
      if (!changed) {
        for (Instruction* e : elements) comp.detach(e);
        return value;
      }
      std::vector<Shape> shapes;
      for (const Instruction* e : elements) shapes.push_back(e->shape());
      return comp.add(Opcode::kTuple, names.make(value->name() + ".bounds"), Shape::tuple(std::move(shapes)),
                      elements);
    }
    if (!declared.isArray() || !sizes.array.padded()) return value;
    Instruction* padded = padWithZeros(comp, value, declared.dims(), names);
    Shape shape = declared;  // the result's layout, as declared
    clearDynamicMarks(shape);
    padded->setShape(std::move(shape));
    return padded;
  }

  // `value` padded at the end of each dimension with zeros to `sizes`.
  Instruction* padWithZeros(Computation& comp, Instruction* value, const std::vector<int64_t>& sizes,
                            NameUniquer& names) {
    Shape shape = value->shape();
    setStaticDims(shape, sizes);
    Instruction* zero = constant(comp, shape.type(), 0, value->name() + ".zero", names);
    Instruction* padded = comp.add(Opcode::kPad, names.make(value->name() + ".padded"), shape, {value, zero});
    AttrValue padding;
    for (size_t d = 0; d < sizes.size(); ++d)
      padding.padding.push_back(PadDim{0, sizes[d] - value->shape().dim(static_cast<int>(d)), 0});
    padded->attrs().set(AttrKey::kPadding, std::move(padding));
    return padded;
  }

  // The shape `instr` (or the instruction it replaced) had in the module as
  // written: its `<=` marks say which dimensions get-dimension-size answers
  // at their runtime sizes.
  const Shape& declared(const Instruction* instr) const {
    auto it = declared_.find(instr);
    return it != declared_.end() ? it->second : instr->shape();
  }

  void replace(Computation& comp, Instruction* instr, Instruction* value) {
    declared_.insert_or_assign(value, declared(instr));
    value->setLoc(instr->loc());
    comp.replaceAllUses(instr, value);
    if (!instr->hasControlEdges()) comp.detach(instr);
  }

  Module& module_;
  std::unordered_map<const Instruction*, ValueSizes> sizes_;
  std::unordered_map<const Instruction*, Shape> declared_;  // declared()
  std::unordered_set<const Computation*> specialized_;
  SideEffects effects_;
  const std::vector<Shape>* paramShapes_ = nullptr;  // specialize()'s, while it runs
  // The set-dimension-sizes whose size the module writes as a constant (XLA
  // keeps such a dimension static when the size is its bound).
  std::unordered_set<const Instruction*> writtenConstant_;
};

}  // namespace

bool needsSizeSpecialization(const Module& module) {
  for (const Instruction* p : module.entry()->parameters())
    if (p->shape().isDynamic()) return true;
  for (const auto& comp : module.computations())
    for (const auto& instr : comp->instructions())
      if (!keepsBounds(*instr)) return true;
  return false;
}

std::vector<int64_t> sizeParameters(const Module& module) {
  const Computation& entry = *module.entry();
  std::vector<const Instruction*> stack;
  for (const auto& instr : entry.instructions())
    if (instr->opcode() == Opcode::kSetDimensionSize || instr->opcode() == Opcode::kDynamicReshape)
      for (int k = 1; k < instr->operandCount(); ++k) stack.push_back(instr->operand(k));
  std::unordered_set<const Instruction*> seen;
  std::vector<int64_t> numbers;
  while (!stack.empty()) {
    const Instruction* i = stack.back();
    stack.pop_back();
    if (!seen.insert(i).second) continue;
    if (i->opcode() == Opcode::kParameter && i->shape().isScalar() && isInteger(i->shape().type()))
      numbers.push_back(i->parameterNumber());
    for (const Instruction* o : i->operands()) stack.push_back(o);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

StatusOr<ValueSizes> specializeSizes(Module& module, const SizeBindings& bindings) {
  return Specializer(module).run(bindings);
}

void markRuntimeSizes(Literal& result, const Shape& declared, const ValueSizes& sizes) {
  if (declared.isTuple()) {
    for (int i = 0; i < declared.tupleSize() && i < static_cast<int>(result.tupleElements().size()); ++i)
      markRuntimeSizes(result.tupleElements()[i], declared.tupleElement(i), sizes.elements[i]);
    result.mutableShape() = declared;
    return;
  }
  if (!declared.isArray()) return;
  result.mutableShape() = declared;
  for (int d = 0; d < declared.rank(); ++d)
    if (sizes.array.dynamic[d]) result.setDynamicSize(d, sizes.array.sizes[d]);
}

}  // namespace hlo::jit
