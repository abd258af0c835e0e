// batchnorm-expander: batch-norm-inference, -training and -grad become the
// ordinary HLO they stand for (broadcasts, elementwise ops, add-reductions,
// rsqrt and a tuple), which fusion and the CPU JIT handle like any other ops,
// as XLA's batch-norm expander does before fusion.
//
// Per feature (the feature_index dimension of the operand x), over the m
// elements of every other dimension; a per-feature vector is broadcast along
// feature_index where it meets x, and sum() is a reduce over every dimension
// but feature_index with an add computation this pass puts in the module:
//
//   inference(x, scale, offset, mean, var) -> y
//     y = (x - mean) * (scale * rsqrt(var + epsilon)) + offset
//   training(x, scale, offset) -> (y, mean, var)
//     mean = sum(x) / m
//     var  = sum((x - mean)^2) / m                      (biased)
//     y    as for inference
//   grad(x, scale, mean, var, dy) -> (dx, dscale, doffset)
//     xc = x - mean,  inv = rsqrt(var + epsilon)
//     doffset = sum(dy)
//     dscale  = sum(dy * xc) * inv
//     dx      = scale * inv * (dy - sum(dy) / m - xc * (sum(dy * xc) / m) / (var + epsilon))
//
// The variance is taken about the mean, a second pass over x, rather than
// as mean(x^2) - mean^2, which loses every digit when the mean is large
// next to the spread; it is also how the interpreter computes it.
//
// f32 and f64 are computed in their own type. Narrower floats (f16, bf16,
// f8) are converted to f32 on the way in and rounded back once on the way
// out: the interpreter computes these ops in double and rounds each result
// once, and a chain of ops and sums each rounded to 8 or 11 bits would drift
// far from that.
//
// Left alone: dynamic shapes and instructions with control edges.
#include <map>
#include <string>
#include <vector>

#include "hlo/batch_norm.h"
#include "hlo/element_io.h"
#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

// The scalar add computations the sums use, one per element type, each
// added to the module before the first computation that needs it.
class Adders {
 public:
  explicit Adders(Module& module) : module_(module) {}

  Computation* get(ElementType t, const Computation& user) {
    Computation*& add = byType_[t];
    if (add) return add;
    std::string base = "batchnorm_add_" + std::string(elementTypeName(t)), name = base;
    for (int n = 1; module_.find(name); ++n) name = base + "." + std::to_string(n);
    add = module_.addComputationBefore(name, &user);
    Shape scalar = Shape::scalar(t);
    Instruction* params[2];
    for (int k = 0; k < 2; ++k) {
      auto p = std::make_unique<Instruction>(Opcode::kParameter, k == 0 ? "a" : "b", scalar);
      p->setParameterNumber(k);
      params[k] = add->add(std::move(p));
    }
    add->setRoot(add->add(Opcode::kAdd, "sum", scalar, {params[0], params[1]}));
    return add;
  }

 private:
  Module& module_;
  std::map<ElementType, Computation*> byType_;
};

// Builds the expansion of one batch-norm instruction beside it: new
// instructions named after it, in the computing type, at its location.
class Builder {
 public:
  Builder(Computation& comp, NameUniquer& names, Adders& adders, const Instruction& bn)
      : comp_(comp), names_(names), adders_(adders), bn_(bn) {
    const Shape& x = bn.operand(0)->shape();
    type_ = bitWidth(x.type()) < 32 ? ElementType::kF32 : x.type();
    feature_ = static_cast<int>(bn.attrs().getInt(AttrKey::kFeatureIndex));
    features_ = x.dim(feature_);
    perFeature_ = features_ == 0 ? 0 : x.elementCount() / features_;
    epsilon_ = batchNormEpsilon(bn);
  }

  double epsilon() const { return epsilon_; }
  double perFeature() const { return static_cast<double>(perFeature_); }

  // Operand k in the computing type.
  Instruction* operand(int k) {
    Instruction* v = bn_.operand(k);
    if (v->shape().type() == type_) return v;
    return add(Opcode::kConvert, like(v->shape(), type_), {v}, v->name() + ".wide");
  }

  // `v` as a result of shape `want`: converted back to the element type,
  // or copied into `want`'s layout, where needed.
  Instruction* result(Instruction* v, const Shape& want) {
    if (interchangeable(want, v->shape())) return v;
    Opcode op = v->shape().type() == want.type() ? Opcode::kCopy : Opcode::kConvert;
    return add(op, want, {v}, local(*v) + ".out");
  }

  Instruction* binary(Opcode op, Instruction* a, Instruction* b, std::string_view what) {
    return add(op, a->shape(), {a, b}, what);
  }
  Instruction* rsqrt(Instruction* a, std::string_view what) { return add(Opcode::kRsqrt, a->shape(), {a}, what); }

  // A per-feature vector with every element `value`.
  Instruction* splat(double value, std::string_view what) {
    Literal lit(Shape::scalar(type_));
    writeFloat(lit, 0, value);
    Instruction* c = add(Opcode::kConstant, lit.shape(), {}, std::string(what));
    c->setLiteral(std::move(lit));
    return broadcast(c, {}, vector(), std::string(what) + ".v");
  }

  // A per-feature vector broadcast along feature_index to x's shape.
  Instruction* spread(Instruction* v) {
    return broadcast(v, {feature_}, like(bn_.operand(0)->shape(), type_), local(*v) + ".b");
  }

  // The per-feature sum of `v`, shaped like x: a reduce over every other
  // dimension.
  Instruction* sum(Instruction* v, std::string_view what) {
    if (!zero_) {
      Literal lit(Shape::scalar(type_));
      writeFloat(lit, 0, 0.0);
      zero_ = add(Opcode::kConstant, lit.shape(), {}, "zero");
      zero_->setLiteral(std::move(lit));
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < v->shape().rank(); ++d)
      if (d != feature_) dims.push_back(d);
    Instruction* r = add(Opcode::kReduce, vector(), {v, zero_}, what);
    r->attrs().setInts(AttrKey::kDimensions, std::move(dims));
    r->attrs().setComputation(AttrKey::kToApply, adders_.get(type_, comp_));
    return r;
  }

  Instruction* tuple(std::vector<Instruction*> parts) {
    return add(Opcode::kTuple, bn_.shape(), std::move(parts), "tuple");
  }

 private:
  static Shape like(const Shape& s, ElementType t) {
    Shape r = s;
    r.setType(t);
    return r;
  }
  Shape vector() const { return Shape(type_, {features_}); }
  // The name of `v` less the prefix add() gives the instructions it makes.
  std::string local(const Instruction& v) const {
    std::string prefix = bn_.name() + ".";
    return v.name().starts_with(prefix) ? v.name().substr(prefix.size()) : v.name();
  }

  Instruction* broadcast(Instruction* v, std::vector<int64_t> dims, Shape shape, std::string name) {
    Instruction* b = add(Opcode::kBroadcast, std::move(shape), {v}, name);
    b->attrs().setInts(AttrKey::kDimensions, std::move(dims));
    return b;
  }

  Instruction* add(Opcode op, Shape shape, std::vector<Instruction*> operands, std::string_view what) {
    Instruction* i = comp_.add(op, names_.make(bn_.name() + "." + std::string(what)), std::move(shape),
                               std::move(operands));
    i->setLoc(bn_.loc());
    return i;
  }

  Computation& comp_;
  NameUniquer& names_;
  Adders& adders_;
  const Instruction& bn_;
  ElementType type_;
  int feature_ = 0;
  int64_t features_ = 0, perFeature_ = 0;
  double epsilon_ = 0;
  Instruction* zero_ = nullptr;  // the sums' init, made once
};

// y = centered * (scale * rsqrt(var + epsilon)) + offset, centered = x - mean.
Instruction* normalize(Builder& b, Instruction* centered, Instruction* scale, Instruction* offset, Instruction* var) {
  Instruction* varEps = b.binary(Opcode::kAdd, var, b.splat(b.epsilon(), "epsilon"), "var_eps");
  Instruction* factor = b.binary(Opcode::kMultiply, scale, b.rsqrt(varEps, "inv"), "factor");
  Instruction* scaled = b.binary(Opcode::kMultiply, centered, b.spread(factor), "scaled");
  return b.binary(Opcode::kAdd, scaled, b.spread(offset), "normalized");
}

// inference(x, scale, offset, mean, var) -> y.
Instruction* expandInference(Builder& b, const Instruction& bn) {
  Instruction* centered = b.binary(Opcode::kSubtract, b.operand(0), b.spread(b.operand(3)), "centered");
  Instruction* y = normalize(b, centered, b.operand(1), b.operand(2), b.operand(4));
  return b.result(y, bn.shape());
}

// training(x, scale, offset) -> (y, mean, var), mean and biased variance
// over all but feature_index.
Instruction* expandTraining(Builder& b, const Instruction& bn) {
  Instruction* x = b.operand(0);
  Instruction* m = b.splat(b.perFeature(), "count");
  Instruction* mean = b.binary(Opcode::kDivide, b.sum(x, "sum"), m, "mean");
  Instruction* centered = b.binary(Opcode::kSubtract, x, b.spread(mean), "centered");
  Instruction* squares = b.binary(Opcode::kMultiply, centered, centered, "square");
  Instruction* var = b.binary(Opcode::kDivide, b.sum(squares, "sum_squares"), m, "var");
  Instruction* y = normalize(b, centered, b.operand(1), b.operand(2), var);
  const Shape& s = bn.shape();
  return b.tuple({b.result(y, s.tupleElement(0)), b.result(mean, s.tupleElement(1)), b.result(var, s.tupleElement(2))});
}

// grad(x, scale, mean, var, dy) -> (dx, dscale, doffset).
Instruction* expandGrad(Builder& b, const Instruction& bn) {
  Instruction* x = b.operand(0);
  Instruction* scale = b.operand(1);
  Instruction* mean = b.operand(2);
  Instruction* dy = b.operand(4);
  Instruction* m = b.splat(b.perFeature(), "count");
  Instruction* varEps = b.binary(Opcode::kAdd, b.operand(3), b.splat(b.epsilon(), "epsilon"), "var_eps");
  Instruction* inv = b.rsqrt(varEps, "inv");
  Instruction* xc = b.binary(Opcode::kSubtract, x, b.spread(mean), "centered");
  Instruction* sumDy = b.sum(dy, "sum_dy");
  Instruction* sumDyXc = b.sum(b.binary(Opcode::kMultiply, dy, xc, "dy_centered"), "sum_dy_centered");
  Instruction* gradScale = b.binary(Opcode::kMultiply, sumDyXc, inv, "grad_scale");
  // dx = (scale * inv) * (dy - meanDy - xc * (meanDyXc / (var + epsilon))).
  Instruction* meanDy = b.binary(Opcode::kDivide, sumDy, m, "mean_dy");
  Instruction* meanDyXc = b.binary(Opcode::kDivide, sumDyXc, m, "mean_dy_centered");
  Instruction* slope = b.binary(Opcode::kDivide, meanDyXc, varEps, "slope");
  Instruction* factor = b.binary(Opcode::kMultiply, scale, inv, "factor");
  Instruction* t = b.binary(Opcode::kSubtract, dy, b.spread(meanDy), "dy_less_mean");
  t = b.binary(Opcode::kSubtract, t, b.binary(Opcode::kMultiply, xc, b.spread(slope), "projection"), "residual");
  Instruction* gradX = b.binary(Opcode::kMultiply, b.spread(factor), t, "grad_operand");
  const Shape& s = bn.shape();
  return b.tuple({b.result(gradX, s.tupleElement(0)), b.result(gradScale, s.tupleElement(1)),
                  b.result(sumDy, s.tupleElement(2))});
}

bool isBatchNorm(const Instruction& i) {
  Opcode op = i.opcode();
  return op == Opcode::kBatchNormInference || op == Opcode::kBatchNormTraining || op == Opcode::kBatchNormGrad;
}

bool expandable(const Instruction& i) {
  if (!isBatchNorm(i) || i.hasControlEdges()) return false;
  if (i.shape().isDynamic()) return false;
  for (const Instruction* o : i.operands())
    if (!o->shape().isArray() || o->shape().isDynamic()) return false;
  const Shape& x = i.operand(0)->shape();
  int64_t f = i.attrs().getInt(AttrKey::kFeatureIndex, -1);
  return isFloat(x.type()) && f >= 0 && f < x.rank();
}

bool expandIn(Computation& comp, Adders& adders) {
  std::vector<Instruction*> found;
  for (const auto& i : comp.instructions())
    if (expandable(*i)) found.push_back(i.get());
  if (found.empty()) return false;
  NameUniquer names(comp);
  for (Instruction* bn : found) {
    Builder b(comp, names, adders, *bn);
    Instruction* with = bn->opcode() == Opcode::kBatchNormInference ? expandInference(b, *bn)
                        : bn->opcode() == Opcode::kBatchNormTraining ? expandTraining(b, *bn)
                                                                     : expandGrad(b, *bn);
    comp.replaceAllUses(bn, with);
    comp.remove(bn);
  }
  (void)comp.sortTopologically();
  return true;
}

}  // namespace

bool runBatchNormExpander(Module& module) {
  Adders adders(module);
  std::vector<Computation*> comps;
  for (const auto& c : module.computations()) comps.push_back(c.get());
  bool changed = false;
  for (Computation* c : comps) changed = expandIn(*c, adders) || changed;
  return changed;
}

}  // namespace hlo
