// The elemental emitter's scalar semantics: one LLVM IR sequence per
// elementwise opcode and element type, matching interp/scalar_ops.h (integer
// division by zero, shifts past the width, NaN-propagating maximum, float to
// integer saturation, ...).
#include <llvm/IR/Intrinsics.h>

#include "hlo/attributes.h"
#include "hlo/reduce_precision.h"
#include "jit/elemental_emitter.h"

namespace hlo::jit {
namespace {

// A pure runtime function of the host (the f8/f4 codecs, reduce-precision,
// stochastic rounding): no memory touched, so LLVM may hoist and merge its
// calls.
llvm::FunctionCallee pureRuntimeFunction(llvm::Module& module, const char* name, llvm::Type* result,
                                         std::vector<llvm::Type*> params) {
  llvm::FunctionCallee callee = module.getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setMemoryEffects(llvm::MemoryEffects::none());
    fn->addFnAttr(llvm::Attribute::WillReturn);
  }
  return callee;
}

// The f8/f4 codecs take the element type first.
llvm::FunctionCallee runtimeFloatCodec(llvm::Module& module, const char* name, llvm::Type* result,
                                       llvm::Type* argument) {
  return pureRuntimeFunction(module, name, result, {llvm::Type::getInt32Ty(module.getContext()), argument});
}

}  // namespace

bool encodedFloat(ElementType t) { return isFloat(t) && bitWidth(t) <= 8; }

bool smallFloat(ElementType t) { return t == ElementType::kF16 || t == ElementType::kBF16 || encodedFloat(t); }

// f16 and bf16 compute in f32 (as the interpreter does) and round once per
// operation; these move values between the storage and compute forms. The
// f8 and f4 formats are decoded and encoded by the runtime functions named
// in elemental_emitter.h, which apply hlo/float_formats.h: the
// interpreter's own rounding rules.
static llvm::Value* toCompute(llvm::IRBuilder<>& b, const EmitterTarget& target, ElementType t, llvm::Value* x) {
  if (t == ElementType::kF16) return b.CreateFPExt(x, b.getFloatTy());
  if (t == ElementType::kBF16)
    return b.CreateBitCast(b.CreateShl(b.CreateZExt(x, b.getInt32Ty()), 16), b.getFloatTy());
  if (encodedFloat(t) && !target.hostRuntime) return emitDecodeSmallFloat(b, t, x);
  if (encodedFloat(t)) {
    llvm::Module& module = *b.GetInsertBlock()->getModule();
    llvm::FunctionCallee decode = runtimeFloatCodec(module, kDecodeSmallFloat, b.getDoubleTy(), b.getInt32Ty());
    llvm::Value* d = b.CreateCall(decode, {b.getInt32(static_cast<uint32_t>(t)), b.CreateZExt(x, b.getInt32Ty())});
    return b.CreateFPTrunc(d, b.getFloatTy());  // exact: every f8/f4 value is an f32
  }
  return x;
}

static llvm::Value* fromCompute(llvm::IRBuilder<>& b, const EmitterTarget& target, ElementType t, llvm::Value* f) {
  if (t == ElementType::kF16) return b.CreateFPTrunc(f, b.getHalfTy());
  if (encodedFloat(t) && !target.hostRuntime) return b.CreateTrunc(emitEncodeSmallFloat(b, t, f), b.getInt8Ty());
  if (encodedFloat(t)) {
    llvm::Module& module = *b.GetInsertBlock()->getModule();
    llvm::FunctionCallee encode = runtimeFloatCodec(module, kEncodeSmallFloat, b.getInt32Ty(), b.getDoubleTy());
    if (!f->getType()->isDoubleTy()) f = b.CreateFPExt(f, b.getDoubleTy());
    return b.CreateTrunc(b.CreateCall(encode, {b.getInt32(static_cast<uint32_t>(t)), f}), b.getInt8Ty());
  }
  if (t != ElementType::kBF16) return f;
  // Round to nearest even on the bits; NaN stays NaN (made quiet).
  llvm::Value* bits = b.CreateBitCast(f, b.getInt32Ty());
  llvm::Value* lsb = b.CreateAnd(b.CreateLShr(bits, 16), 1);
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(bits, b.CreateAdd(lsb, b.getInt32(0x7fff))), 16);
  llvm::Value* nan = b.CreateOr(b.CreateLShr(bits, 16), b.getInt32(0x40));
  llvm::Value* isNan = b.CreateFCmpUNO(f, f);
  return b.CreateTrunc(b.CreateSelect(isNan, nan, rounded), b.getInt16Ty());
}

// A call of the math library's `name`, float version when f32 (EmitterTarget).
llvm::Value* ElementalEmitter::mathCall(const std::string& name, std::vector<llvm::Value*> args) {
  llvm::Type* ty = args[0]->getType();
  std::string fn = target_.mathPrefix + (ty->isFloatTy() ? name + "f" : name);
  std::vector<llvm::Type*> params(args.size(), ty);
  llvm::FunctionCallee callee = module_.getOrInsertFunction(fn, llvm::FunctionType::get(ty, params, false));
  if (auto* f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    f->setDoesNotThrow();
    // Pure as far as we care (errno is never read), which lets the loop
    // vectorizer call the vector math library's variants (orc.cc).
    f->setDoesNotAccessMemory();
    f->setWillReturn();
  }
  return b_.CreateCall(callee, args);
}

static llvm::Value* intrinsic(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, std::vector<llvm::Value*> args) {
  return b.CreateIntrinsic(id, {args[0]->getType()}, args);
}

// exp of f32 scalars or vectors (XLA's CPU backend also computes it inline
// rather than calling the C library: the vector math library's expf is an
// out-of-line call, 8 lanes at a time, that costs a softmax more time than
// its memory traffic). As Cephes' expf reduces: exp(x) = 2^n * e^r with
// n = round(x / ln 2), r = x - n ln 2 (ln 2 in two parts, the first exact in
// few bits, so n * C1 is exact), |r| <= ln(2)/2; then e^r = 1 + r q(r) with
// q a degree-5 polynomial fitted for the least maximum relative error on
// that interval (1.98e-9, a thirtieth of an ulp), evaluated by Horner's
// rule. Checked against double exp at every f32 in [-104, 88.7]: within
// 1.06 ulp (Cephes' degree-7 1 + r + r^2 P(r), two operations longer: 1.26
// ulp); softmax [4096, 4096] 4% faster. x is clamped to [-104, 89]
// first (exp is 0 below, inf above), so n runs from -150 to 128.
// `scale(p, n)` returns p * 2^n rounded once (overflow to inf, subnormal
// results), and NaN for a NaN n. Without it, 2^n is applied as two factors
// 2^(n/2) 2^(n - n/2) built in the exponent field, so no n needs a special
// case: the last multiplication rounds.
llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x, const Pow2Scale& scale) {
  llvm::Type* ty = x->getType();
  auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  auto mulAdd = [&](llvm::Value* m, llvm::Value* n, llvm::Value* a) {
    return intrinsic(b, llvm::Intrinsic::fmuladd, {m, n, a});
  };
  // max and min as compare-and-select, which x86 does in one instruction
  // each; the compares are false for NaN, which passes through unchanged.
  llvm::Value* lo = c(-104.0), *hi = c(89.0);
  llvm::Value* clamped = b.CreateSelect(b.CreateFCmpOLT(x, lo), lo, x);
  clamped = b.CreateSelect(b.CreateFCmpOGT(clamped, hi), hi, clamped);
  llvm::Value* n = intrinsic(b, llvm::Intrinsic::roundeven, {b.CreateFMul(clamped, c(1.44269504088896341))});
  llvm::Value* r = mulAdd(n, c(-0.693359375), clamped);
  r = mulAdd(n, c(2.12194440e-4), r);
  // e^r = 1 + r q(r), q of degree 5 by Horner's rule: one chain of six
  // multiply-adds.
  llvm::Value* q = c(1.3843606716e-3);
  for (double k : {8.3741956774e-3, 4.1668004729e-2, 1.6666430800e-1, 4.9999994192e-1, 1.0})
    q = mulAdd(q, r, c(k));
  llvm::Value* p = mulAdd(q, r, c(1.0));
  if (scale) return scale(b, p, n);
  llvm::Type* i32 = b.getInt32Ty();
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(ty)) i32 = llvm::VectorType::get(i32, vector->getElementCount());
  llvm::Value* ni = b.CreateFPToSI(n, i32);  // poison for NaN: the select below
  llvm::Value* half = b.CreateAShr(ni, 1);
  auto pow2 = [&](llvm::Value* e) {
    return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, llvm::ConstantInt::get(i32, 127)), 23), ty);
  };
  llvm::Value* result = b.CreateFMul(b.CreateFMul(p, pow2(half)), pow2(b.CreateSub(ni, half)));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

// The module's kExpF32 function, defined on first use: exp of one f32.
static llvm::Function* expF32Function(llvm::Module& m) {
  if (llvm::Function* f = m.getFunction(kExpF32)) return f;
  llvm::LLVMContext& context = m.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(context);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(f32, {f32}, false), llvm::GlobalValue::InternalLinkage,
                                   kExpF32, m);
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();
  f->setWillReturn();
  f->addFnAttr(llvm::Attribute::NoInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  b.CreateRet(emitExpF32(b, f->getArg(0)));
  return f;
}

// exp: f32 through the module's kExpF32 where the target wants it, else the math library's.
llvm::Value* ElementalEmitter::exp(llvm::Value* x) {
  if (x->getType()->isFloatTy() && target_.inlineExpF32) return b_.CreateCall(expF32Function(module_), {x});
  return mathCall("exp", {x});
}

llvm::Value* ElementalEmitter::identity(Opcode op, ElementType t) {
  llvm::Type* ty = valueType(t);
  bool isF = isFloat(t);
  int bits = ty->isIntegerTy() ? static_cast<int>(ty->getIntegerBitWidth()) : 0;
  auto fp = [&](double v) -> llvm::Value* {
    if (t == ElementType::kBF16 || encodedFloat(t)) return fromCompute(b_, target_, t, llvm::ConstantFP::get(b_.getFloatTy(), v));
    return llvm::ConstantFP::get(ty, v);
  };
  if (isComplex(t)) {
    if (op != Opcode::kAdd) return nullptr;
    llvm::Value* zero = llvm::ConstantFP::get(ty->getStructElementType(0), -0.0);
    return makeComplex(t, zero, zero);
  }
  switch (op) {
    case Opcode::kAdd:
      return isF ? fp(-0.0) : llvm::ConstantInt::get(ty, 0);
    case Opcode::kMultiply:
      return isF ? fp(1.0) : llvm::ConstantInt::get(ty, t == ElementType::kPred ? 1 : 1);
    case Opcode::kMaximum:
      if (isF) return fp(-INFINITY);
      if (t == ElementType::kPred || isUnsigned(t)) return llvm::ConstantInt::get(ty, 0);
      return llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(bits));
    case Opcode::kMinimum:
      if (isF) return fp(INFINITY);
      if (t == ElementType::kPred || isUnsigned(t)) return llvm::ConstantInt::getAllOnesValue(ty);
      return llvm::ConstantInt::get(ty, llvm::APInt::getSignedMaxValue(bits));
    case Opcode::kAnd:
      return isF ? nullptr : llvm::ConstantInt::getAllOnesValue(ty);
    case Opcode::kOr:
      return isF ? nullptr : llvm::ConstantInt::get(ty, 0);
    default:
      return nullptr;
  }
}

StatusOr<llvm::Value*> ElementalEmitter::unary(const Instruction& instr, ElementType t, llvm::Value* x) {
  Opcode op = instr.opcode();
  if (isComplex(t)) return complexUnary(instr, t, x);
  if (t == ElementType::kPred) {
    if (op == Opcode::kNot) return b_.CreateNot(x);
    return cannotCompile(instr, "not defined for pred");
  }
  if (isInteger(t)) {
    llvm::Value* zero = llvm::ConstantInt::get(x->getType(), 0);
    switch (op) {
      case Opcode::kNot: return b_.CreateNot(x);
      case Opcode::kNegate: return b_.CreateSub(zero, x);
      case Opcode::kAbs:
        return isSigned(t) ? b_.CreateSelect(b_.CreateICmpSLT(x, zero), b_.CreateSub(zero, x), x) : x;
      case Opcode::kSign:
        if (isUnsigned(t)) return b_.CreateZExt(b_.CreateICmpNE(x, zero), x->getType());
        return b_.CreateSelect(b_.CreateICmpSLT(x, zero), llvm::ConstantInt::getAllOnesValue(x->getType()),
                               b_.CreateZExt(b_.CreateICmpNE(x, zero), x->getType()));
      case Opcode::kClz: return intrinsic(b_, llvm::Intrinsic::ctlz, {x, b_.getFalse()});
      case Opcode::kPopulationCount: return intrinsic(b_, llvm::Intrinsic::ctpop, {x});
      default: return cannotCompile(instr, "not supported for integers");
    }
  }
  if (op == Opcode::kBitcastConvert) return cannotCompile(instr);
  if (op == Opcode::kReducePrecision) return reducePrecision(instr, t, x);
  llvm::Value* f = toCompute(b_, target_, t, x);
  llvm::Type* ft = f->getType();
  llvm::Value* one = llvm::ConstantFP::get(ft, 1.0);
  llvm::Value* r = nullptr;
  switch (op) {
    case Opcode::kAbs: r = intrinsic(b_, llvm::Intrinsic::fabs, {f}); break;
    case Opcode::kNegate: r = b_.CreateFNeg(f); break;
    case Opcode::kSqrt: r = intrinsic(b_, llvm::Intrinsic::sqrt, {f}); break;
    case Opcode::kRsqrt: r = b_.CreateFDiv(one, intrinsic(b_, llvm::Intrinsic::sqrt, {f})); break;
    case Opcode::kFloor: r = intrinsic(b_, llvm::Intrinsic::floor, {f}); break;
    case Opcode::kCeil: r = intrinsic(b_, llvm::Intrinsic::ceil, {f}); break;
    case Opcode::kRoundNearestAfz: r = intrinsic(b_, llvm::Intrinsic::round, {f}); break;
    case Opcode::kRoundNearestEven: r = intrinsic(b_, llvm::Intrinsic::roundeven, {f}); break;
    case Opcode::kExp: r = exp(f); break;
    case Opcode::kLog: r = mathCall("log", {f}); break;
    case Opcode::kSin: r = mathCall("sin", {f}); break;
    case Opcode::kCos: r = mathCall("cos", {f}); break;
    case Opcode::kTan: r = mathCall("tan", {f}); break;
    case Opcode::kTanh: r = mathCall("tanh", {f}); break;
    case Opcode::kExpm1: r = mathCall("expm1", {f}); break;
    case Opcode::kLog1p: r = mathCall("log1p", {f}); break;
    case Opcode::kCbrt: r = mathCall("cbrt", {f}); break;
    case Opcode::kErf: r = mathCall("erf", {f}); break;
    case Opcode::kAtan: r = mathCall("atan", {f}); break;
    case Opcode::kAsin: r = mathCall("asin", {f}); break;
    case Opcode::kAcos: r = mathCall("acos", {f}); break;
    case Opcode::kSinh: r = mathCall("sinh", {f}); break;
    case Opcode::kCosh: r = mathCall("cosh", {f}); break;
    case Opcode::kAsinh: r = mathCall("asinh", {f}); break;
    case Opcode::kAcosh: r = mathCall("acosh", {f}); break;
    case Opcode::kAtanh: r = mathCall("atanh", {f}); break;
    case Opcode::kLogistic:
      r = b_.CreateFDiv(one, b_.CreateFAdd(one, exp(b_.CreateFNeg(f))));
      break;
    case Opcode::kSign: {
      llvm::Value* zero = llvm::ConstantFP::get(ft, 0.0);
      llvm::Value* mag = b_.CreateSelect(b_.CreateFCmpUNE(f, zero), one, zero);
      r = b_.CreateSelect(b_.CreateFCmpUNO(f, f), f, intrinsic(b_, llvm::Intrinsic::copysign, {mag, f}));
      break;
    }
    case Opcode::kIsFinite:
      return b_.CreateFCmpOLT(intrinsic(b_, llvm::Intrinsic::fabs, {f}), llvm::ConstantFP::getInfinity(ft));
    case Opcode::kReal: r = f; break;
    case Opcode::kImag: r = llvm::ConstantFP::get(ft, 0.0); break;
    default:
      return cannotCompile(instr, "not supported for " + std::string(elementTypeName(t)));
  }
  return fromCompute(b_, target_, t, r);
}

// reduce-precision works on the stored bits through the runtime's
// hlo_reduce_precision (hlo/reduce_precision.h, the interpreter's rule).
StatusOr<llvm::Value*> ElementalEmitter::reducePrecision(const Instruction& instr, ElementType t, llvm::Value* x) {
  int64_t exponentBits = instr.attrs().getInt(AttrKey::kExponentBits, -1);
  int64_t mantissaBits = instr.attrs().getInt(AttrKey::kMantissaBits, -1);
  if (exponentBits < 1 || mantissaBits < 0) return cannotCompile(instr, "needs exponent_bits >= 1 and mantissa_bits >= 0");
  llvm::Type* bitsType = b_.getIntNTy(storageBytes(t) * 8);
  llvm::Value* bits = x->getType() == bitsType ? x : b_.CreateBitCast(x, bitsType);
  if (!target_.hostRuntime) {
    int e = static_cast<int>(std::min<int64_t>(exponentBits, 64)), m = static_cast<int>(std::min<int64_t>(mantissaBits, 64));
    llvm::Value* reduced;
    if (std::optional<std::pair<int, int>> layout = ieeeFloatLayout(t)) {
      reduced = b_.CreateTrunc(emitReducePrecisionBits(b_, b_.CreateZExt(bits, b_.getInt64Ty()), layout->first,
                                                       layout->second, e, m),
                               bitsType);
    } else {
      // Through f32, as reducePrecisionOf does.
      llvm::Value* wide = b_.CreateZExt(b_.CreateBitCast(emitDecodeSmallFloat(b_, t, bits), b_.getInt32Ty()), b_.getInt64Ty());
      llvm::Value* r = b_.CreateTrunc(emitReducePrecisionBits(b_, wide, 8, 23, e, m), b_.getInt32Ty());
      reduced = b_.CreateTrunc(emitEncodeSmallFloat(b_, t, b_.CreateBitCast(r, b_.getFloatTy())), bitsType);
    }
    return reduced->getType() == x->getType() ? reduced : b_.CreateBitCast(reduced, x->getType());
  }
  llvm::FunctionCallee fn = pureRuntimeFunction(module_, kReducePrecision, b_.getInt64Ty(),
                                                {b_.getInt32Ty(), b_.getInt64Ty(), b_.getInt32Ty(), b_.getInt32Ty()});
  llvm::Value* reduced = b_.CreateCall(
      fn, {b_.getInt32(static_cast<uint32_t>(t)), b_.CreateZExt(bits, b_.getInt64Ty()),
           b_.getInt32(static_cast<uint32_t>(std::min<int64_t>(exponentBits, 64))),
           b_.getInt32(static_cast<uint32_t>(std::min<int64_t>(mantissaBits, 64)))});
  reduced = b_.CreateTrunc(reduced, bitsType);
  return reduced->getType() == x->getType() ? reduced : b_.CreateBitCast(reduced, x->getType());
}

// stochastic-convert(x, random) into a signed integer through the
// runtime's hlo_stochastic_round (hlo/stochastic_round.h, the interpreter's
// rule).
StatusOr<llvm::Value*> ElementalEmitter::stochasticConvert(const Instruction& instr, llvm::Value* x,
                                                           llvm::Value* random) {
  ElementType from = instr.operand(0)->shape().type(), bitsType = instr.operand(1)->shape().type();
  ElementType to = instr.shape().type();
  if (!isFloat(from) || !isUnsigned(bitsType) || !isSigned(to))
    return cannotCompile(instr, "needs a float operand, unsigned random bits and a signed integer result");
  llvm::Value* d = toCompute(b_, target_, from, x);
  if (!d->getType()->isDoubleTy()) d = b_.CreateFPExt(d, b_.getDoubleTy());
  if (!target_.hostRuntime)
    return b_.CreateTrunc(emitStochasticRound(b_, d, b_.CreateZExt(random, b_.getInt64Ty()), bitWidth(bitsType), bitWidth(to)),
                          valueType(to));
  llvm::FunctionCallee fn = pureRuntimeFunction(module_, kStochasticRound, b_.getInt64Ty(),
                                                {b_.getDoubleTy(), b_.getInt64Ty(), b_.getInt32Ty(), b_.getInt32Ty()});
  llvm::Value* r = b_.CreateCall(fn, {d, b_.CreateZExt(random, b_.getInt64Ty()), b_.getInt32(bitWidth(bitsType)),
                                      b_.getInt32(bitWidth(to))});
  return b_.CreateTrunc(r, valueType(to));
}

StatusOr<llvm::Value*> ElementalEmitter::binary(Opcode op, const Instruction& instr, ElementType t, llvm::Value* a,
                                                llvm::Value* c) {
  llvm::Type* ty = a->getType();
  if (isComplex(t)) return complexBinary(op, instr, t, a, c);
  if (t == ElementType::kPred) {
    switch (op) {
      case Opcode::kAdd: case Opcode::kOr: case Opcode::kMaximum: return b_.CreateOr(a, c);
      case Opcode::kMultiply: case Opcode::kAnd: case Opcode::kMinimum: return b_.CreateAnd(a, c);
      case Opcode::kXor: return b_.CreateXor(a, c);
      default: return cannotCompile(instr, "not defined for pred");
    }
  }
  if (isInteger(t)) {
    bool sgn = isSigned(t);
    unsigned bits = ty->getIntegerBitWidth();
    llvm::Value* zero = llvm::ConstantInt::get(ty, 0);
    llvm::Value* ones = llvm::ConstantInt::getAllOnesValue(ty);
    llvm::Value* width = llvm::ConstantInt::get(ty, bits);
    switch (op) {
      case Opcode::kAdd: return b_.CreateAdd(a, c);
      case Opcode::kSubtract: return b_.CreateSub(a, c);
      case Opcode::kMultiply: return b_.CreateMul(a, c);
      case Opcode::kAnd: return b_.CreateAnd(a, c);
      case Opcode::kOr: return b_.CreateOr(a, c);
      case Opcode::kXor: return b_.CreateXor(a, c);
      case Opcode::kMaximum:
        return b_.CreateSelect(sgn ? b_.CreateICmpSLT(a, c) : b_.CreateICmpULT(a, c), c, a);
      case Opcode::kMinimum:
        return b_.CreateSelect(sgn ? b_.CreateICmpSLT(c, a) : b_.CreateICmpULT(c, a), c, a);
      case Opcode::kDivide:
      case Opcode::kRemainder: {
        // x / 0 = -1 and x % 0 = x; INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0.
        llvm::Value* byZero = b_.CreateICmpEQ(c, zero);
        llvm::Value* overflow = sgn ? b_.CreateAnd(b_.CreateICmpEQ(a, llvm::ConstantInt::get(
                                                                         ty, llvm::APInt::getSignedMinValue(bits))),
                                                   b_.CreateICmpEQ(c, ones))
                                    : b_.getFalse();
        llvm::Value* safe = b_.CreateSelect(b_.CreateOr(byZero, overflow), llvm::ConstantInt::get(ty, 1), c);
        if (op == Opcode::kDivide) {
          llvm::Value* q = sgn ? b_.CreateSDiv(a, safe) : b_.CreateUDiv(a, safe);
          return b_.CreateSelect(byZero, ones, b_.CreateSelect(overflow, a, q));
        }
        llvm::Value* r = sgn ? b_.CreateSRem(a, safe) : b_.CreateURem(a, safe);
        return b_.CreateSelect(byZero, a, b_.CreateSelect(overflow, zero, r));
      }
      case Opcode::kShiftLeft:
      case Opcode::kShiftRightLogical:
      case Opcode::kShiftRightArithmetic: {
        // Amounts are unsigned; at or past the width: 0, or all sign bits.
        if (bits < 8) {
          // Sub-byte types shift in i8 and keep their low bits: LLVM 19's
          // x86 instruction selection can loop forever on shifts of
          // vectors of i2 beside other vector work.
          llvm::Type* byte = b_.getInt8Ty();
          const bool arithmetic = op == Opcode::kShiftRightArithmetic;
          llvm::Value* a8 = arithmetic ? b_.CreateSExt(a, byte) : b_.CreateZExt(a, byte);
          llvm::Value* c8 = b_.CreateZExt(c, byte);
          llvm::Value* past = b_.CreateICmpUGE(c8, b_.getInt8(static_cast<uint8_t>(bits)));
          llvm::Value* r = nullptr;
          if (op == Opcode::kShiftLeft) r = b_.CreateSelect(past, b_.getInt8(0), b_.CreateShl(a8, c8));
          if (op == Opcode::kShiftRightLogical) r = b_.CreateSelect(past, b_.getInt8(0), b_.CreateLShr(a8, c8));
          if (arithmetic) r = b_.CreateAShr(a8, b_.CreateSelect(past, b_.getInt8(static_cast<uint8_t>(bits - 1)), c8));
          return b_.CreateTrunc(r, ty);
        }
        llvm::Value* out = b_.CreateICmpUGE(c, width);
        llvm::Value* n = b_.CreateSelect(out, zero, c);
        if (op == Opcode::kShiftLeft) return b_.CreateSelect(out, zero, b_.CreateShl(a, n));
        if (op == Opcode::kShiftRightLogical) return b_.CreateSelect(out, zero, b_.CreateLShr(a, n));
        return b_.CreateAShr(a, b_.CreateSelect(out, llvm::ConstantInt::get(ty, bits - 1), c));
      }
      case Opcode::kMulhi: {
        llvm::Type* wide = b_.getIntNTy(bits * 2);
        llvm::Value* wa = sgn ? b_.CreateSExt(a, wide) : b_.CreateZExt(a, wide);
        llvm::Value* wc = sgn ? b_.CreateSExt(c, wide) : b_.CreateZExt(c, wide);
        return b_.CreateTrunc(b_.CreateLShr(b_.CreateMul(wa, wc), bits), ty);
      }
      case Opcode::kPower: {
        // Repeated squaring over every bit of the exponent, wrapping;
        // x^0 = 1 and 1^x = 1; a negative exponent gives 1 / x^-c
        // truncated: -1 or 1 for x = -1 (by parity), else 0.
        llvm::Value* one = llvm::ConstantInt::get(ty, 1);
        llvm::Value* result = one;
        llvm::Value* base = a;
        for (unsigned k = 0; k < bits; ++k) {
          llvm::Value* bit = b_.CreateICmpNE(b_.CreateAnd(b_.CreateLShr(c, k), one), zero);
          result = b_.CreateSelect(bit, b_.CreateMul(result, base), result);
          base = b_.CreateMul(base, base);
        }
        llvm::Value* trivial = b_.CreateOr(b_.CreateICmpEQ(c, zero), b_.CreateICmpEQ(a, one));
        if (sgn) {
          llvm::Value* minusOne = llvm::ConstantInt::getSigned(ty, -1);
          llvm::Value* odd = b_.CreateICmpNE(b_.CreateAnd(c, one), zero);
          llvm::Value* reciprocal =
              b_.CreateSelect(b_.CreateICmpEQ(a, minusOne), b_.CreateSelect(odd, minusOne, one), zero);
          result = b_.CreateSelect(b_.CreateICmpSLT(c, zero), reciprocal, result);
        }
        return b_.CreateSelect(trivial, one, result);
      }
      default: return cannotCompile(instr, "not supported for integers");
    }
  }
  llvm::Value* x = toCompute(b_, target_, t, a);
  llvm::Value* y = toCompute(b_, target_, t, c);
  llvm::Value* r = nullptr;
  switch (op) {
    case Opcode::kAdd: r = b_.CreateFAdd(x, y); break;
    case Opcode::kSubtract: r = b_.CreateFSub(x, y); break;
    case Opcode::kMultiply: r = b_.CreateFMul(x, y); break;
    case Opcode::kDivide: r = b_.CreateFDiv(x, y); break;
    case Opcode::kRemainder: r = mathCall("fmod", {x, y}); break;
    case Opcode::kPower: r = mathCall("pow", {x, y}); break;
    case Opcode::kAtan2: r = mathCall("atan2", {x, y}); break;
    case Opcode::kMaximum:
    case Opcode::kMinimum: {
      // The first NaN operand wins; between equal values the left one.
      llvm::Value* pick = op == Opcode::kMaximum ? b_.CreateFCmpOLT(x, y) : b_.CreateFCmpOLT(y, x);
      r = b_.CreateSelect(pick, y, x);
      r = b_.CreateSelect(b_.CreateFCmpUNO(y, y), y, r);
      r = b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, r);
      if (smallFloat(t)) return b_.CreateSelect(b_.CreateFCmpUNO(x, x), a,
                                                b_.CreateSelect(b_.CreateFCmpUNO(y, y), c,
                                                                b_.CreateSelect(pick, c, a)));
      return r;
    }
    default: return cannotCompile(instr, "not supported for " + std::string(elementTypeName(t)));
  }
  return fromCompute(b_, target_, t, r);
}

StatusOr<llvm::Value*> ElementalEmitter::compare(const Instruction& instr, ElementType t, llvm::Value* a,
                                                 llvm::Value* c) {
  auto dir = parseComparisonDirection(instr.attrs().getString(AttrKey::kDirection));
  if (!dir) return cannotCompile(instr, "unknown comparison direction");
  if (isComplex(t)) return complexCompare(instr, a, c);
  StatusOr<ComparisonType> type = comparisonTypeOf(instr.attrs(), t);
  if (!type.ok()) return cannotCompile(instr, type.status().message());
  using P = llvm::CmpInst::Predicate;
  auto pick = [&](P eq, P ne, P ge, P gt, P le, P lt) {
    switch (*dir) {
      case ComparisonDirection::kEq: return eq;
      case ComparisonDirection::kNe: return ne;
      case ComparisonDirection::kGe: return ge;
      case ComparisonDirection::kGt: return gt;
      case ComparisonDirection::kLe: return le;
      case ComparisonDirection::kLt: return lt;
    }
    return eq;
  };
  if (isFloat(t) && *type == ComparisonType::kFloat) {
    llvm::Value* x = toCompute(b_, target_, t, a);
    llvm::Value* y = toCompute(b_, target_, t, c);
    return b_.CreateFCmp(pick(P::FCMP_OEQ, P::FCMP_UNE, P::FCMP_OGE, P::FCMP_OGT, P::FCMP_OLE, P::FCMP_OLT), x, y);
  }
  if (isFloat(t)) {
    // Total order: sign-magnitude bits read as a signed number. The f8, f6
    // and f4 formats are held as their bits in an i8 (the sign is the
    // type's top bit); f8e8m0fnu, without a sign, orders by its bits.
    auto key = [&](llvm::Value* v) -> llvm::Value* {
      if (encodedFloat(t)) {
        llvm::Value* bits = b_.CreateZExt(v, b_.getInt32Ty());
        if (t == ElementType::kF8E8M0FNU) return bits;
        const uint32_t sign = 1u << (bitWidth(t) - 1);
        llvm::Value* mag = b_.CreateAnd(bits, b_.getInt32(sign - 1));
        llvm::Value* negative = b_.CreateICmpNE(b_.CreateAnd(bits, b_.getInt32(sign)), b_.getInt32(0));
        return b_.CreateSelect(negative, b_.CreateNot(mag), mag);
      }
      llvm::Type* it = b_.getIntNTy(v->getType()->getPrimitiveSizeInBits());
      llvm::Value* bits = b_.CreateBitCast(v, it);
      llvm::Value* mag = b_.CreateAnd(bits, llvm::ConstantInt::get(it, llvm::APInt::getSignedMaxValue(it->getIntegerBitWidth())));
      return b_.CreateSelect(b_.CreateICmpSLT(bits, llvm::ConstantInt::get(it, 0)), b_.CreateNot(mag), mag);
    };
    a = key(a);
    c = key(c);
    type = ComparisonType::kSigned;
  }
  if (*type == ComparisonType::kSigned && t != ElementType::kPred)
    return b_.CreateICmp(pick(P::ICMP_EQ, P::ICMP_NE, P::ICMP_SGE, P::ICMP_SGT, P::ICMP_SLE, P::ICMP_SLT), a, c);
  return b_.CreateICmp(pick(P::ICMP_EQ, P::ICMP_NE, P::ICMP_UGE, P::ICMP_UGT, P::ICMP_ULE, P::ICMP_ULT), a, c);
}

StatusOr<llvm::Value*> ElementalEmitter::convert(const Instruction& instr, ElementType from, ElementType to,
                                                 llvm::Value* x) {
  if (instr.opcode() == Opcode::kBitcastConvert) {
    if (from == ElementType::kPred || to == ElementType::kPred || bitWidth(from) != bitWidth(to) ||
        isComplex(from) || isComplex(to))
      return cannotCompile(instr, "only same-width bitcast-convert of real types is supported");
    return b_.CreateBitCast(x, valueType(to));
  }
  if (from == to) return x;
  // Complex to complex converts both parts; a real value becomes (x, +0);
  // complex to pred is "either part nonzero", to any other real type its
  // real part converts (numpy's rule; XLA refuses the conversion).
  if (isComplex(to)) {
    ElementType component = complexComponentType(to);
    llvm::Value* re = x;
    llvm::Value* im = nullptr;
    if (isComplex(from)) {
      HLO_ASSIGN_OR_RETURN(im, convert(instr, complexComponentType(from), component, imagPart(x)));
      re = realPart(x);
      from = complexComponentType(from);
    }
    HLO_ASSIGN_OR_RETURN(re, convert(instr, from, component, re));
    if (!im) im = llvm::ConstantFP::get(valueType(component), 0.0);
    return makeComplex(to, re, im);
  }
  if (isComplex(from)) {
    if (to == ElementType::kPred) {
      llvm::Value* zero = llvm::ConstantFP::get(valueType(complexComponentType(from)), 0.0);
      return b_.CreateOr(b_.CreateFCmpUNE(realPart(x), zero), b_.CreateFCmpUNE(imagPart(x), zero));
    }
    return convert(instr, complexComponentType(from), to, realPart(x));
  }
  llvm::Type* target = valueType(to);
  if (to == ElementType::kPred) {
    if (isFloat(from)) return b_.CreateFCmpUNE(toCompute(b_, target_, from, x), llvm::ConstantFP::get(toCompute(b_, target_, from, x)->getType(), 0.0));
    return b_.CreateICmpNE(x, llvm::ConstantInt::get(x->getType(), 0));
  }
  bool fromSigned = isSigned(from);
  if (isInteger(to)) {
    if (!isFloat(from)) {
      unsigned fw = x->getType()->getIntegerBitWidth(), tw = target->getIntegerBitWidth();
      if (fw == tw) return x;
      if (fw > tw) return b_.CreateTrunc(x, target);
      return fromSigned ? b_.CreateSExt(x, target) : b_.CreateZExt(x, target);
    }
    // NaN -> 0; at or beyond the range saturate; else truncate toward zero.
    llvm::Value* d = toCompute(b_, target_, from, x);
    if (!d->getType()->isDoubleTy()) d = b_.CreateFPExt(d, b_.getDoubleTy());
    unsigned tw = target->getIntegerBitWidth();
    llvm::APInt maxV = isSigned(to) ? llvm::APInt::getSignedMaxValue(tw) : llvm::APInt::getMaxValue(tw);
    llvm::APInt minV = isSigned(to) ? llvm::APInt::getSignedMinValue(tw) : llvm::APInt::getMinValue(tw);
    double maxD = isSigned(to) ? static_cast<double>(maxV.getSExtValue()) : static_cast<double>(maxV.getZExtValue());
    double minD = isSigned(to) ? static_cast<double>(minV.getSExtValue()) : 0.0;
    llvm::Value* inRange = b_.CreateAnd(b_.CreateFCmpOLT(d, llvm::ConstantFP::get(b_.getDoubleTy(), maxD)),
                                        b_.CreateFCmpOGT(d, llvm::ConstantFP::get(b_.getDoubleTy(), minD)));
    llvm::Value* safe = b_.CreateSelect(inRange, d, llvm::ConstantFP::get(b_.getDoubleTy(), 0.0));
    llvm::Value* v = isSigned(to) ? b_.CreateFPToSI(safe, target) : b_.CreateFPToUI(safe, target);
    llvm::Value* sat = b_.CreateSelect(b_.CreateFCmpOGE(d, llvm::ConstantFP::get(b_.getDoubleTy(), maxD)),
                                       llvm::ConstantInt::get(target, maxV),
                                       b_.CreateSelect(b_.CreateFCmpOLE(d, llvm::ConstantFP::get(b_.getDoubleTy(), minD)),
                                                       llvm::ConstantInt::get(target, minV),
                                                       llvm::ConstantInt::get(target, 0)));
    return b_.CreateSelect(inRange, v, sat);
  }
  // To a float: integers and f64 reach f16/bf16 through f32, as the
  // interpreter does; f64 reaches f8 and f4 directly.
  bool wide = to == ElementType::kF64 || (from == ElementType::kF64 && encodedFloat(to));
  llvm::Type* compute = wide ? b_.getDoubleTy() : b_.getFloatTy();
  llvm::Value* f;
  if (from == ElementType::kPred) {
    f = b_.CreateUIToFP(x, compute);
  } else if (isInteger(from)) {
    f = fromSigned ? b_.CreateSIToFP(x, compute) : b_.CreateUIToFP(x, compute);
  } else {
    f = toCompute(b_, target_, from, x);
    if (f->getType() != compute) f = compute->isDoubleTy() ? b_.CreateFPExt(f, compute) : b_.CreateFPTrunc(f, compute);
  }
  return fromCompute(b_, target_, to, f);
}

// f16 and bf16 are rounded from f32 (fromCompute): d is first narrowed to
// f32 rounding to odd (toward zero, then the last bit set when inexact),
// which keeps the information a second rounding to fewer bits needs, so the
// two roundings give what one from d would.
StatusOr<llvm::Value*> ElementalEmitter::roundedFromDouble(const Instruction& instr, llvm::Value* d, ElementType to) {
  if (to != ElementType::kF16 && to != ElementType::kBF16) return convert(instr, ElementType::kF64, to, d);
  llvm::Value* t = b_.CreateFPTrunc(d, b_.getFloatTy());
  llvm::Value* back = b_.CreateFPExt(t, b_.getDoubleTy());
  llvm::Value* inexact = b_.CreateFCmpONE(back, d);
  llvm::Value* away = b_.CreateFCmpOGT(intrinsic(b_, llvm::Intrinsic::fabs, {back}), intrinsic(b_, llvm::Intrinsic::fabs, {d}));
  llvm::Value* bits = b_.CreateBitCast(t, b_.getInt32Ty());
  bits = b_.CreateSelect(b_.CreateAnd(inexact, away), b_.CreateSub(bits, b_.getInt32(1)), bits);
  bits = b_.CreateSelect(inexact, b_.CreateOr(bits, b_.getInt32(1)), bits);
  return fromCompute(b_, target_, to, b_.CreateBitCast(bits, b_.getFloatTy()));
}

llvm::Value* ElementalEmitter::clamp(ElementType t, llvm::Value* lo, llvm::Value* x, llvm::Value* hi) {
  if (!isFloat(t)) {
    bool sgn = isSigned(t);
    auto lt = [&](llvm::Value* p, llvm::Value* q) { return sgn ? b_.CreateICmpSLT(p, q) : b_.CreateICmpULT(p, q); };
    llvm::Value* atLeastLo = b_.CreateSelect(lt(x, lo), lo, x);
    return b_.CreateSelect(lt(atLeastLo, hi), atLeastLo, hi);
  }
  // A NaN bound or x is returned: lo first, then x, then hi.
  llvm::Value* fl = toCompute(b_, target_, t, lo);
  llvm::Value* fx = toCompute(b_, target_, t, x);
  llvm::Value* fh = toCompute(b_, target_, t, hi);
  llvm::Value* atLeastLo = b_.CreateSelect(b_.CreateFCmpOLT(fx, fl), lo, x);
  llvm::Value* fa = b_.CreateSelect(b_.CreateFCmpOLT(fx, fl), fl, fx);
  llvm::Value* r = b_.CreateSelect(b_.CreateFCmpOLT(fa, fh), atLeastLo, hi);
  r = b_.CreateSelect(b_.CreateFCmpUNO(fh, fh), hi, r);
  r = b_.CreateSelect(b_.CreateFCmpUNO(fx, fx), x, r);
  return b_.CreateSelect(b_.CreateFCmpUNO(fl, fl), lo, r);
}

}  // namespace hlo::jit
