// The elemental emitter's complex arithmetic (c64, c128).
//
// A complex value is a struct {re, im} of its component type (float for
// c64, double for c128), the layout of std::complex, so arrays load and
// store as they are. Add, subtract, negate, real, imag and the comparisons
// are emitted inline; multiply too, with C's rule for the case where both
// parts come out NaN (an infinity times a finite value) left to the
// runtime, or emitted as IR where code cannot call it (annexGProduct).
// Everything else -- divide, abs, exp, log, sqrt, power, the
// trigonometric functions -- calls the host runtime's hlo_complex_unary /
// hlo_complex_binary, which are hlo/complex_math.h's applyComplexUnary /
// applyComplexBinary: the very formulas the reference interpreter applies;
// where code cannot call the runtime, they are IR (elemental_complex_math.cc).
#include "hlo/complex_math.h"
#include "jit/elemental_emitter.h"

namespace hlo::jit {
namespace {

// A runtime function that writes its two-double result through its last
// argument and touches no other memory.
llvm::FunctionCallee complexRuntime(llvm::Module& module, const char* name, int doubles) {
  llvm::LLVMContext& c = module.getContext();
  std::vector<llvm::Type*> params = {llvm::Type::getInt32Ty(c), llvm::Type::getInt32Ty(c)};
  params.insert(params.end(), doubles, llvm::Type::getDoubleTy(c));
  params.push_back(llvm::PointerType::getUnqual(c));
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), params, false);
  llvm::FunctionCallee callee = module.getOrInsertFunction(name, type);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
    fn->setDoesNotThrow();
    fn->setMemoryEffects(llvm::MemoryEffects::argMemOnly(llvm::ModRefInfo::Mod));
    fn->addFnAttr(llvm::Attribute::WillReturn);
  }
  return callee;
}

// C's rule (Annex G) for a product a + bi times c + di whose parts both
// came out NaN, as libgcc's __mulsc3 / __muldc3 apply it, which
// std::complex's product (and so the interpreter) uses: an infinite factor
// is "boxed" to a signed 1 or 0 with NaNs in the other factor made 0, as
// are all NaNs when a partial product overflowed, and the product is
// recomputed times infinity. `re` and `im` are the plain product's parts.
std::pair<llvm::Value*, llvm::Value*> annexGProduct(llvm::IRBuilder<>& b, llvm::Value* a, llvm::Value* bi,
                                                    llvm::Value* c, llvm::Value* di, llvm::Value* re,
                                                    llvm::Value* im) {
  llvm::Type* f = a->getType();
  llvm::Value* zero = llvm::ConstantFP::get(f, 0.0);
  llvm::Value* one = llvm::ConstantFP::get(f, 1.0);
  llvm::Value* inf = llvm::ConstantFP::getInfinity(f);
  auto isInf = [&](llvm::Value* x) {
    return b.CreateFCmpOEQ(b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x), inf);
  };
  auto isNan = [&](llvm::Value* x) { return b.CreateFCmpUNO(x, x); };
  auto copySign = [&](llvm::Value* magnitude, llvm::Value* sign) {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, magnitude, sign);
  };
  // When `when`: x boxed to copysign(isinf(x) ? 1 : 0, x).
  auto box = [&](llvm::Value* when, llvm::Value* x) {
    return b.CreateSelect(when, copySign(b.CreateSelect(isInf(x), one, zero), x), x);
  };
  // When `when`: a NaN x made copysign(0, x).
  auto zeroNan = [&](llvm::Value* when, llvm::Value* x) {
    return b.CreateSelect(b.CreateAnd(when, isNan(x)), copySign(zero, x), x);
  };
  llvm::Value* ac = b.CreateFMul(a, c);
  llvm::Value* bd = b.CreateFMul(bi, di);
  llvm::Value* ad = b.CreateFMul(a, di);
  llvm::Value* bc = b.CreateFMul(bi, c);
  llvm::Value* firstInfinite = b.CreateOr(isInf(a), isInf(bi));
  a = box(firstInfinite, a);
  bi = box(firstInfinite, bi);
  c = zeroNan(firstInfinite, c);
  di = zeroNan(firstInfinite, di);
  llvm::Value* secondInfinite = b.CreateOr(isInf(c), isInf(di));
  c = box(secondInfinite, c);
  di = box(secondInfinite, di);
  a = zeroNan(secondInfinite, a);
  bi = zeroNan(secondInfinite, bi);
  llvm::Value* recalc = b.CreateOr(firstInfinite, secondInfinite);
  llvm::Value* overflowed = b.CreateAnd(
      b.CreateNot(recalc), b.CreateOr(b.CreateOr(isInf(ac), isInf(bd)), b.CreateOr(isInf(ad), isInf(bc))));
  a = zeroNan(overflowed, a);
  bi = zeroNan(overflowed, bi);
  c = zeroNan(overflowed, c);
  di = zeroNan(overflowed, di);
  recalc = b.CreateOr(recalc, overflowed);
  llvm::Value* x = b.CreateFMul(inf, b.CreateFSub(b.CreateFMul(a, c), b.CreateFMul(bi, di)));
  llvm::Value* y = b.CreateFMul(inf, b.CreateFAdd(b.CreateFMul(a, di), b.CreateFMul(bi, c)));
  return {b.CreateSelect(recalc, x, re), b.CreateSelect(recalc, y, im)};
}

// Whether the runtime defines `op` for complex values: asked of the very
// functions it calls, so the compile-time check and the runtime agree.
bool runtimeDefinesUnary(Opcode op, ElementType t) {
  double x[2] = {0, 0}, out[2];
  return applyComplexUnary(op, t, x, out);
}

bool runtimeDefinesBinary(Opcode op, ElementType t) {
  double x[2] = {1, 0}, out[2];
  return applyComplexBinary(op, t, x, x, out);
}

}  // namespace

llvm::Value* ElementalEmitter::makeComplex(ElementType t, llvm::Value* re, llvm::Value* im) {
  llvm::Value* v = llvm::UndefValue::get(valueType(t));
  v = b_.CreateInsertValue(v, re, 0);
  return b_.CreateInsertValue(v, im, 1);
}

// Calls the runtime with the parts of `args` widened to double; returns the
// result's two parts narrowed back to `t`'s component type (exact: the
// runtime computed them in that type).
static std::pair<llvm::Value*, llvm::Value*> callRuntime(ElementalEmitter& e, llvm::IRBuilder<>& b,
                                                        llvm::Module& module, const char* name, Opcode op,
                                                        ElementType t, std::vector<llvm::Value*> args) {
  std::vector<llvm::Value*> callArgs = {b.getInt32(static_cast<uint32_t>(op)), b.getInt32(static_cast<uint32_t>(t))};
  for (llvm::Value* a : args) {
    for (llvm::Value* part : {e.realPart(a), e.imagPart(a)})
      callArgs.push_back(part->getType()->isDoubleTy() ? part : b.CreateFPExt(part, b.getDoubleTy()));
  }
  llvm::AllocaInst* out = e.entryAlloca(llvm::ArrayType::get(b.getDoubleTy(), 2), "complex.out");
  callArgs.push_back(out);
  b.CreateCall(complexRuntime(module, name, static_cast<int>(args.size()) * 2), callArgs);
  llvm::Type* component = e.valueType(complexComponentType(t));
  auto part = [&](int i) -> llvm::Value* {
    llvm::Value* d = b.CreateLoad(b.getDoubleTy(), b.CreateConstInBoundsGEP2_32(out->getAllocatedType(), out, 0, i));
    return component->isDoubleTy() ? d : b.CreateFPTrunc(d, component);
  };
  return {part(0), part(1)};
}

StatusOr<llvm::Value*> ElementalEmitter::complexUnary(const Instruction& instr, ElementType t, llvm::Value* x) {
  Opcode op = instr.opcode();
  switch (op) {
    case Opcode::kNegate: return makeComplex(t, b_.CreateFNeg(realPart(x)), b_.CreateFNeg(imagPart(x)));
    case Opcode::kReal: return realPart(x);
    case Opcode::kImag: return imagPart(x);
    default: break;
  }
  if (!runtimeDefinesUnary(op, t)) return cannotCompile(instr, "not defined for " + std::string(elementTypeName(t)));
  if (!target_.hostRuntime) {
    llvm::Value* args[] = {x};
    if (std::optional<llvm::Value*> r = complexFunctionAsIr(op, t, args)) return *r;
    return cannotCompile(instr, "has no form as IR for " + std::string(elementTypeName(t)));
  }
  auto [re, im] = callRuntime(*this, b_, module_, kComplexUnary, op, t, {x});
  if (op == Opcode::kAbs) return re;  // the magnitude, a real number
  return makeComplex(t, re, im);
}

StatusOr<llvm::Value*> ElementalEmitter::complexBinary(Opcode op, const Instruction& instr, ElementType t,
                                                       llvm::Value* a, llvm::Value* c) {
  llvm::Value *ar = realPart(a), *ai = imagPart(a), *cr = realPart(c), *ci = imagPart(c);
  switch (op) {
    case Opcode::kAdd: return makeComplex(t, b_.CreateFAdd(ar, cr), b_.CreateFAdd(ai, ci));
    case Opcode::kSubtract: return makeComplex(t, b_.CreateFSub(ar, cr), b_.CreateFSub(ai, ci));
    case Opcode::kMultiply: {
      // (ar cr - ai ci) + (ar ci + ai cr) i; when both parts are NaN, C's
      // rule (Annex G) may still give an infinity: the runtime decides.
      llvm::Value* re = b_.CreateFSub(b_.CreateFMul(ar, cr), b_.CreateFMul(ai, ci));
      llvm::Value* im = b_.CreateFAdd(b_.CreateFMul(ar, ci), b_.CreateFMul(ai, cr));
      llvm::Value* bothNan = b_.CreateAnd(b_.CreateFCmpUNO(re, re), b_.CreateFCmpUNO(im, im));
      return emitIf(
          bothNan,
          [&]() -> StatusOr<llvm::Value*> {
            if (!target_.hostRuntime) {
              auto [r, i] = annexGProduct(b_, ar, ai, cr, ci, re, im);
              return makeComplex(t, r, i);
            }
            auto [r, i] = callRuntime(*this, b_, module_, kComplexBinary, op, t, {a, c});
            return makeComplex(t, r, i);
          },
          [&]() -> StatusOr<llvm::Value*> { return makeComplex(t, re, im); });
    }
    default: break;
  }
  if (!runtimeDefinesBinary(op, t)) return cannotCompile(instr, "not defined for " + std::string(elementTypeName(t)));
  if (!target_.hostRuntime) {
    llvm::Value* args[] = {a, c};
    if (std::optional<llvm::Value*> r = complexFunctionAsIr(op, t, args)) return *r;
    return cannotCompile(instr, "has no form as IR for " + std::string(elementTypeName(t)));
  }
  auto [re, im] = callRuntime(*this, b_, module_, kComplexBinary, op, t, {a, c});
  return makeComplex(t, re, im);
}

// Complex numbers are unordered: only EQ (both parts equal) and NE.
StatusOr<llvm::Value*> ElementalEmitter::complexCompare(const Instruction& instr, llvm::Value* a, llvm::Value* c) {
  auto dir = parseComparisonDirection(instr.attrs().getString(AttrKey::kDirection));
  if (dir == ComparisonDirection::kEq)
    return b_.CreateAnd(b_.CreateFCmpOEQ(realPart(a), realPart(c)), b_.CreateFCmpOEQ(imagPart(a), imagPart(c)));
  if (dir == ComparisonDirection::kNe)
    return b_.CreateOr(b_.CreateFCmpUNE(realPart(a), realPart(c)), b_.CreateFCmpUNE(imagPart(a), imagPart(c)));
  return cannotCompile(instr, "complex values have no order");
}

}  // namespace hlo::jit
