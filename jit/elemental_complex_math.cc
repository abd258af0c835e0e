// Complex functions as IR, for code that cannot call the host runtime (a
// GPU: EmitterTarget::hostRuntime false). On a CPU they are calls of
// hlo/complex_math.h's applyComplexUnary / applyComplexBinary, which apply
// std::complex (the C library's cexp, csqrt, casinh, ...); here each is
// built from real functions of the target's math library, with the
// textbook formulas arranged so that finite arguments lose no more than a
// few units in the last place away from overflow:
//   - sqrt as Kahan's csqrt: t = sqrt((|x| + |z|) / 2), no cancellation;
//   - divide by Smith's algorithm, with C's rule (Annex G) for the
//     infinities and zeros that make both parts NaN;
//   - tanh as the C library computes it, 1 for large |x|;
//   - asinh as log1p(z + z^2 / (1 + sqrt(z^2 + 1))) on the right half plane
//     (odd symmetry for the left), log(2z) where z^2 + 1 rounds to z^2;
//   - atanh by Kahan's formula; the other inverse functions by identities
//     (asin z = -i asinh(iz), acos z = pi/2 - asin z, atan z = -i atanh(iz),
//     acosh z = +-i acos z).
// Infinities and NaNs follow C's special cases where a formula gives them
// for free (exp, sin, cos, sinh and cosh keep a zero part's sign where the
// other factor is infinite); elsewhere a NaN may come out where C gives an
// infinity. expm1, log1p, sign, power and atan2 use the interpreter's own
// definitions in hlo/complex_math.h.
#include <numbers>
#include <utility>

#include "jit/elemental_emitter.h"

namespace hlo::jit {
namespace {

// A complex value as its two parts, of one float type.
struct Parts {
  llvm::Value* re;
  llvm::Value* im;
};

class ComplexIr {
 public:
  using MathCall = std::function<llvm::Value*(const std::string&, std::vector<llvm::Value*>)>;
  ComplexIr(llvm::IRBuilder<>& b, llvm::Type* f, MathCall math) : b_(b), f_(f), math_(std::move(math)) {}

  // `op` of x, or nullopt where op has no complex meaning here: one row per
  // function, so an opcode that is not listed is not one.
  std::optional<Parts> unary(Opcode op, Parts x) {
    using Form = Parts (*)(ComplexIr&, Parts);
    static constexpr std::pair<Opcode, Form> kForms[] = {
        {Opcode::kAbs, [](ComplexIr& c, Parts x) { return Parts{c.abs(x), c.zero()}; }},
        {Opcode::kSign, [](ComplexIr& c, Parts x) { return c.sign(x); }},
        {Opcode::kSqrt, [](ComplexIr& c, Parts x) { return c.sqrt(x); }},
        {Opcode::kRsqrt, [](ComplexIr& c, Parts x) { return c.divide(c.real(1), c.sqrt(x)); }},
        {Opcode::kExp, [](ComplexIr& c, Parts x) { return c.exp(x); }},
        {Opcode::kExpm1, [](ComplexIr& c, Parts x) { return c.expm1(x); }},
        {Opcode::kLog, [](ComplexIr& c, Parts x) { return c.log(x); }},
        {Opcode::kLog1p, [](ComplexIr& c, Parts x) { return c.log1p(x); }},
        {Opcode::kLogistic, [](ComplexIr& c, Parts x) { return c.divide(c.real(1), c.plusReal(1, c.exp(c.neg(x)))); }},
        {Opcode::kSin, [](ComplexIr& c, Parts x) { return c.sin(x); }},
        {Opcode::kCos, [](ComplexIr& c, Parts x) { return c.cos(x); }},
        {Opcode::kTan, [](ComplexIr& c, Parts x) { return c.timesMinusI(c.tanh(c.timesI(x))); }},
        {Opcode::kTanh, [](ComplexIr& c, Parts x) { return c.tanh(x); }},
        {Opcode::kSinh, [](ComplexIr& c, Parts x) { return c.sinh(x); }},
        {Opcode::kCosh, [](ComplexIr& c, Parts x) { return c.cosh(x); }},
        {Opcode::kAsin, [](ComplexIr& c, Parts x) { return c.asin(x); }},
        {Opcode::kAcos, [](ComplexIr& c, Parts x) { return c.acos(x); }},
        {Opcode::kAtan, [](ComplexIr& c, Parts x) { return c.timesMinusI(c.atanh(c.timesI(x))); }},
        {Opcode::kAsinh, [](ComplexIr& c, Parts x) { return c.asinh(x); }},
        {Opcode::kAcosh, [](ComplexIr& c, Parts x) { return c.acosh(x); }},
        {Opcode::kAtanh, [](ComplexIr& c, Parts x) { return c.atanh(x); }},
    };
    for (auto [listed, form] : kForms)
      if (listed == op) return form(*this, x);
    return std::nullopt;
  }

  std::optional<Parts> binary(Opcode op, Parts a, Parts b) {
    using Form = Parts (*)(ComplexIr&, Parts, Parts);
    static constexpr std::pair<Opcode, Form> kForms[] = {
        {Opcode::kDivide, [](ComplexIr& c, Parts a, Parts b) { return c.divide(a, b); }},
        {Opcode::kPower, [](ComplexIr& c, Parts a, Parts b) { return c.power(a, b); }},
        {Opcode::kAtan2, [](ComplexIr& c, Parts a, Parts b) { return c.atan2(a, b); }},
    };
    for (auto [listed, form] : kForms)
      if (listed == op) return form(*this, a, b);
    return std::nullopt;
  }

 private:
  // Reals.
  llvm::Value* k(double v) { return llvm::ConstantFP::get(f_, v); }
  llvm::Value* zero() { return k(0); }
  llvm::Value* fabs(llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, v); }
  llvm::Value* squareRoot(llvm::Value* v) { return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, v); }
  llvm::Value* copySign(llvm::Value* magnitude, llvm::Value* sign) {
    return b_.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
  }
  llvm::Value* fmax(llvm::Value* a, llvm::Value* c) { return b_.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, a, c); }
  llvm::Value* mul(llvm::Value* a, llvm::Value* c) { return b_.CreateFMul(a, c); }
  llvm::Value* div(llvm::Value* a, llvm::Value* c) { return b_.CreateFDiv(a, c); }
  llvm::Value* plus(llvm::Value* a, llvm::Value* c) { return b_.CreateFAdd(a, c); }
  llvm::Value* minus(llvm::Value* a, llvm::Value* c) { return b_.CreateFSub(a, c); }
  llvm::Value* fn(const char* name, llvm::Value* a) { return math_(name, {a}); }
  llvm::Value* fn(const char* name, llvm::Value* a, llvm::Value* c) { return math_(name, {a, c}); }
  llvm::Value* isZero(llvm::Value* v) { return b_.CreateFCmpOEQ(v, zero()); }
  llvm::Value* isInf(llvm::Value* v) { return b_.CreateFCmpOEQ(fabs(v), llvm::ConstantFP::getInfinity(f_)); }
  llvm::Value* isNan(llvm::Value* v) { return b_.CreateFCmpUNO(v, v); }
  llvm::Value* isFinite(llvm::Value* v) { return b_.CreateFCmpOLT(fabs(v), llvm::ConstantFP::getInfinity(f_)); }
  llvm::Value* select(llvm::Value* when, llvm::Value* then, llvm::Value* otherwise) {
    return b_.CreateSelect(when, then, otherwise);
  }
  Parts select(llvm::Value* when, Parts then, Parts otherwise) {
    return {select(when, then.re, otherwise.re), select(when, then.im, otherwise.im)};
  }
  // a * b where either may be an exact zero and the other infinite or NaN:
  // the zero, with the product's sign, as C's functions give it
  // (cexp(inf + 0i) = inf + 0i, csin(NaN + 0i) = NaN + 0i).
  llvm::Value* mulKeepZero(llvm::Value* a, llvm::Value* b) {
    return select(isZero(b), mul(copySign(k(1), a), b),
                  select(isZero(a), mul(a, copySign(k(1), b)), mul(a, b)));
  }
  // The number of bits of the type's significand.
  int digits() const { return f_->isFloatTy() ? 24 : 53; }

  // Complex arithmetic.
  Parts real(double v) { return {k(v), zero()}; }
  Parts neg(Parts x) { return {b_.CreateFNeg(x.re), b_.CreateFNeg(x.im)}; }
  Parts add(Parts a, Parts c) { return {plus(a.re, c.re), plus(a.im, c.im)}; }
  // v + x for a real v: x's imaginary part as it is (adding a +0 would
  // lose the sign of a -0, which picks the side of a branch cut).
  Parts plusReal(double v, Parts x) { return {plus(k(v), x.re), x.im}; }
  Parts sub(Parts a, Parts c) { return {minus(a.re, c.re), minus(a.im, c.im)}; }
  Parts times(Parts a, Parts c) {
    return {minus(mul(a.re, c.re), mul(a.im, c.im)), plus(mul(a.re, c.im), mul(a.im, c.re))};
  }
  Parts timesI(Parts x) { return {b_.CreateFNeg(x.im), x.re}; }
  Parts timesMinusI(Parts x) { return {x.im, b_.CreateFNeg(x.re)}; }
  llvm::Value* abs(Parts x) { return fn("hypot", x.re, x.im); }

  // Smith's algorithm: divide through by the larger part of c. Where both
  // parts come out NaN, C's rule (Annex G, libgcc's __divdc3) recovers a
  // nonzero / 0 (an infinity), an infinite / finite (an infinity) and a
  // finite / infinite (a zero).
  Parts divide(Parts a, Parts c) {
    llvm::Value* byRe = b_.CreateFCmpOGE(fabs(c.re), fabs(c.im));
    llvm::Value* ratio = select(byRe, div(c.im, c.re), div(c.re, c.im));
    llvm::Value* denominator = select(byRe, plus(c.re, mul(c.im, ratio)), plus(mul(c.re, ratio), c.im));
    llvm::Value* re = select(byRe, plus(a.re, mul(a.im, ratio)), plus(mul(a.re, ratio), a.im));
    llvm::Value* im = select(byRe, minus(a.im, mul(a.re, ratio)), minus(mul(a.im, ratio), a.re));
    Parts q{div(re, denominator), div(im, denominator)};
    llvm::Value* bothNan = b_.CreateAnd(isNan(q.re), isNan(q.im));
    // A "box": x's infinity as a signed 1, a finite x as a signed 0.
    auto box = [&](llvm::Value* x) { return copySign(select(isInf(x), k(1), zero()), x); };
    auto recomputed = [&](llvm::Value* scale, Parts n, Parts d) -> Parts {
      return {mul(scale, plus(mul(n.re, d.re), mul(n.im, d.im))), mul(scale, minus(mul(n.im, d.re), mul(n.re, d.im)))};
    };
    llvm::Value* inf = llvm::ConstantFP::getInfinity(f_);
    llvm::Value* byZero = b_.CreateAnd(b_.CreateAnd(isZero(c.re), isZero(c.im)),
                                       b_.CreateOr(b_.CreateNot(isNan(a.re)), b_.CreateNot(isNan(a.im))));
    Parts overZero{mul(copySign(inf, c.re), a.re), mul(copySign(inf, c.re), a.im)};
    llvm::Value* infiniteOverFinite = b_.CreateAnd(b_.CreateOr(isInf(a.re), isInf(a.im)),
                                                   b_.CreateAnd(isFinite(c.re), isFinite(c.im)));
    Parts infinite = recomputed(inf, {box(a.re), box(a.im)}, c);
    llvm::Value* finiteOverInfinite = b_.CreateAnd(b_.CreateOr(isInf(c.re), isInf(c.im)),
                                                   b_.CreateAnd(isFinite(a.re), isFinite(a.im)));
    Parts vanishing = recomputed(zero(), a, {box(c.re), box(c.im)});
    Parts recovered =
        select(byZero, overZero, select(infiniteOverFinite, infinite, select(finiteOverInfinite, vanishing, q)));
    return select(bothNan, recovered, q);
  }

  // x / |x|, or 0 (hlo/complex_math.h's complexSign).
  Parts sign(Parts x) {
    llvm::Value* magnitude = abs(x);
    return select(isZero(magnitude), real(0), Parts{div(x.re, magnitude), div(x.im, magnitude)});
  }

  // Kahan: t = sqrt((|x| + |z|) / 2); sqrt z = t + i y / 2t for x >= 0,
  // |y| / 2t + i copysign(t, y) otherwise; sqrt(+-0 + yi) keeps y, and an
  // infinite y gives inf + yi.
  Parts sqrt(Parts z) {
    llvm::Value* t = squareRoot(plus(mul(k(0.5), fabs(z.re)), mul(k(0.5), abs(z))));
    llvm::Value* twoT = plus(t, t);
    Parts right{t, div(z.im, twoT)};
    Parts left{div(fabs(z.im), twoT), copySign(t, z.im)};
    Parts root = select(b_.CreateFCmpOGE(z.re, zero()), right, left);
    Parts atZero{zero(), z.im};
    Parts infinite{llvm::ConstantFP::getInfinity(f_), z.im};
    return select(isInf(z.im), infinite, select(b_.CreateAnd(isZero(z.re), isZero(z.im)), atZero, root));
  }

  // e^x (cos y + i sin y).
  Parts exp(Parts z) {
    llvm::Value* e = fn("exp", z.re);
    return {mulKeepZero(e, fn("cos", z.im)), mulKeepZero(e, fn("sin", z.im))};
  }

  // hlo/complex_math.h's complexExpm1: (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y.
  Parts expm1(Parts z) {
    llvm::Value* h = fn("sin", mul(z.im, k(0.5)));
    return {minus(mul(fn("expm1", z.re), fn("cos", z.im)), mul(k(2), mul(h, h))),
            mulKeepZero(fn("exp", z.re), fn("sin", z.im))};
  }

  // log|z| + i arg z.
  Parts log(Parts z) { return {fn("log", abs(z)), fn("atan2", z.im, z.re)}; }

  // hlo/complex_math.h's complexLog1p: log1p(2x + x^2 + y^2) / 2 + i atan2(y, 1 + x).
  Parts log1p(Parts z) {
    llvm::Value* s = plus(plus(mul(k(2), z.re), mul(z.re, z.re)), mul(z.im, z.im));
    return {mul(k(0.5), fn("log1p", s)), fn("atan2", z.im, plus(k(1), z.re))};
  }

  // sin x cosh y + i cos x sinh y.
  Parts sin(Parts z) {
    return {mulKeepZero(fn("cosh", z.im), fn("sin", z.re)), mulKeepZero(fn("sinh", z.im), fn("cos", z.re))};
  }

  // cos x cosh y - i sin x sinh y.
  Parts cos(Parts z) {
    return {mulKeepZero(fn("cosh", z.im), fn("cos", z.re)),
            b_.CreateFNeg(mulKeepZero(fn("sinh", z.im), fn("sin", z.re)))};
  }

  // sinh x cos y + i cosh x sin y.
  Parts sinh(Parts z) {
    return {mulKeepZero(fn("sinh", z.re), fn("cos", z.im)), mulKeepZero(fn("cosh", z.re), fn("sin", z.im))};
  }

  // cosh x cos y + i sinh x sin y.
  Parts cosh(Parts z) {
    return {mulKeepZero(fn("cosh", z.re), fn("cos", z.im)), mulKeepZero(fn("sinh", z.re), fn("sin", z.im))};
  }

  // As the C library's ctanh: (sinh x cosh x + i sin y cos y) / (sinh^2 x +
  // cos^2 y), and copysign(1, x) + 4i sin y cos y e^(-2|x|) once |x| is so
  // large that tanh x rounds to +-1.
  Parts tanh(Parts z) {
    llvm::Value* large = b_.CreateFCmpOGT(fabs(z.re), k((digits() - 1) * std::numbers::ln2 / 2));
    llvm::Value* sinY = fn("sin", z.im);
    llvm::Value* cosY = fn("cos", z.im);
    llvm::Value* sinhX = fn("sinh", z.re);
    llvm::Value* denominator = plus(mul(sinhX, sinhX), mul(cosY, cosY));
    Parts moderate{div(mul(sinhX, fn("cosh", z.re)), denominator), div(mul(sinY, cosY), denominator)};
    Parts saturated{copySign(k(1), z.re), mul(mul(k(4), mul(sinY, cosY)), fn("exp", mul(k(-2), fabs(z.re))))};
    Parts r = select(large, saturated, moderate);
    // A zero real part stays (C99: tanh(0 + inf i) = 0 + NaN i), where the
    // quotient's denominator would be NaN.
    r.re = select(isZero(z.re), z.re, r.re);
    return r;
  }

  // On the right half plane log1p(z + z^2 / (1 + sqrt(z^2 + 1))), which
  // neither cancels nor loses small z; asinh is odd, so the left half plane
  // (x's sign bit set) is -asinh(-z). Where z^2 + 1 rounds to z^2, log(2z).
  Parts asinh(Parts z) {
    llvm::Value* flip = b_.CreateFCmpOLT(copySign(k(1), z.re), zero());
    Parts w = select(flip, neg(z), z);
    Parts square = times(w, w);
    Parts u = add(w, divide(square, plusReal(1, sqrt(plusReal(1, square)))));
    Parts small = log1p(u);
    Parts huge = log(w);
    huge.re = plus(huge.re, k(std::numbers::ln2));
    llvm::Value* isHuge = b_.CreateFCmpOGT(fmax(fabs(w.re), fabs(w.im)), k(std::ldexp(1.0, digits() / 2 + 1)));
    Parts r = select(isHuge, huge, small);
    return select(flip, neg(r), r);
  }

  Parts asin(Parts z) { return timesMinusI(asinh(timesI(z))); }

  Parts acos(Parts z) {
    Parts s = asin(z);
    return {minus(k(std::numbers::pi / 2), s.re), b_.CreateFNeg(s.im)};
  }

  // i acos z or -i acos z, whichever has a real part >= 0.
  Parts acosh(Parts z) {
    Parts a = acos(z);
    Parts up = timesI(a);
    return select(b_.CreateFCmpOLT(copySign(k(1), up.re), zero()), timesMinusI(a), up);
  }

  // Kahan: log1p(4x / ((1 - x)^2 + y^2)) / 4 + i atan2(2y, (1 - x)(1 + x) - y^2) / 2.
  Parts atanh(Parts z) {
    llvm::Value* oneMinus = minus(k(1), z.re);
    llvm::Value* d = plus(mul(oneMinus, oneMinus), mul(z.im, z.im));
    return {mul(k(0.25), fn("log1p", div(mul(k(4), z.re), d))),
            mul(k(0.5), fn("atan2", mul(k(2), z.im), minus(mul(oneMinus, plus(k(1), z.re)), mul(z.im, z.im))))};
  }

  // hlo/complex_math.h's complexPower: 1 where a = 1 or b = 0; inf or 0 for
  // +inf to a positive or negative real power; else exp(b log a).
  Parts power(Parts a, Parts c) {
    Parts general = exp(times(c, log(a)));
    llvm::Value* one = b_.CreateOr(b_.CreateAnd(b_.CreateFCmpOEQ(a.re, k(1)), isZero(a.im)),
                                   b_.CreateAnd(isZero(c.re), isZero(c.im)));
    llvm::Value* positiveInf =
        b_.CreateAnd(b_.CreateAnd(isZero(a.im), b_.CreateFCmpOEQ(a.re, llvm::ConstantFP::getInfinity(f_))),
                     isZero(c.im));
    Parts special = select(b_.CreateAnd(positiveInf, b_.CreateFCmpOGT(c.re, zero())), a, general);
    special = select(b_.CreateAnd(positiveInf, b_.CreateFCmpOLT(c.re, zero())), real(0), special);
    return select(one, real(1), special);
  }

  // hlo/complex_math.h's complexAtan2: -i log((x + iy) / sqrt(x^2 + y^2)).
  Parts atan2(Parts y, Parts x) {
    return timesMinusI(log(divide(add(x, timesI(y)), sqrt(add(times(x, x), times(y, y))))));
  }

  llvm::IRBuilder<>& b_;
  llvm::Type* f_;
  MathCall math_;
};

}  // namespace

std::optional<llvm::Value*> ElementalEmitter::complexFunctionAsIr(Opcode op, ElementType t,
                                                                  std::span<llvm::Value* const> args) {
  ComplexIr ir(b_, valueType(complexComponentType(t)),
               [this](const std::string& name, std::vector<llvm::Value*> a) { return mathCall(name, std::move(a)); });
  std::optional<Parts> r;
  if (args.size() == 1) r = ir.unary(op, {realPart(args[0]), imagPart(args[0])});
  if (args.size() == 2)
    r = ir.binary(op, {realPart(args[0]), imagPart(args[0])}, {realPart(args[1]), imagPart(args[1])});
  if (!r) return std::nullopt;
  if (op == Opcode::kAbs) return r->re;  // the magnitude, a real number
  return makeComplex(t, r->re, r->im);
}

}  // namespace hlo::jit
