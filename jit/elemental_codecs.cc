// The host runtime's bit-level helpers as IR, for targets whose code
// cannot call it (a GPU: EmitterTarget::hostRuntime false): the f8, f6 and
// f4 codecs, reduce-precision and stochastic rounding (the steps of
// hlo/reduce_precision.h and hlo/stochastic_round.h, with the instruction's
// widths folded in).
//
// Both are built at compile time from hlo/float_formats.h's
// decodeSmallFloat and encodeSmallFloat — the rules the interpreter and the
// host runtime apply — so they cannot disagree with them:
//   decode  a table of the f32 value of every bit pattern (exact: every
//           such value is an f32);
//   encode  rounding is a step function of the value. Between two
//           consecutive representable values it changes once, at a point
//           found by bisection on encodeSmallFloat itself (the midpoint, or
//           just above it when the tie goes down; wherever a format's rule
//           puts it); those points are a sorted table searched in at most
//           eight steps. Beyond the largest finite values it gives what
//           encodeSmallFloat gives there (infinity, NaN or the largest
//           value, as the format says), also found by bisection. Zero, NaN
//           and infinity keep their sign as encodeSmallFloat gives it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <llvm/IR/Intrinsics.h>

#include "hlo/float_formats.h"
#include "jit/elemental_emitter.h"

namespace hlo::jit {
namespace {

std::string typeSuffix(ElementType t) { return std::string(elementTypeName(t)); }

// A private constant table of `values` in `module`.
template <typename T>
llvm::GlobalVariable* table(llvm::Module& module, llvm::Type* elementType, const std::vector<T>& values,
                            const std::string& name) {
  std::vector<llvm::Constant*> items;
  for (T v : values) {
    if constexpr (std::is_floating_point_v<T>) items.push_back(llvm::ConstantFP::get(elementType, v));
    else items.push_back(llvm::ConstantInt::get(elementType, v));
  }
  auto* type = llvm::ArrayType::get(elementType, items.size());
  return new llvm::GlobalVariable(module, type, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(type, items), name);
}

llvm::Function* newFunction(llvm::Module& module, llvm::Type* result, llvm::Type* param, const std::string& name) {
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(result, {param}, false), llvm::GlobalValue::InternalLinkage,
                                    name, module);
  fn->setDoesNotThrow();
  fn->setWillReturn();
  fn->setMemoryEffects(llvm::MemoryEffects::none());
  return fn;
}

// The smallest double above `lo` that encodes otherwise than `lo` does, up
// to `hi` (which does); nullopt when nothing up to `hi` does.
std::optional<double> firstChange(ElementType t, double lo, double hi) {
  uint32_t code = encodeSmallFloat(t, lo);
  if (encodeSmallFloat(t, hi) == code) return std::nullopt;
  for (int i = 0; i < 4096 && std::nextafter(lo, hi) != hi; ++i) {
    double mid = lo / 2 + hi / 2;
    if (mid == lo || mid == hi) mid = std::nextafter(lo, hi);
    (encodeSmallFloat(t, mid) == code ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

llvm::Value* emitDecodeSmallFloat(llvm::IRBuilder<>& b, ElementType t, llvm::Value* bits) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  const std::string name = "hlo_codec_decode." + typeSuffix(t);
  llvm::Function* fn = module.getFunction(name);
  if (!fn) {
    llvm::LLVMContext& c = module.getContext();
    fn = newFunction(module, llvm::Type::getFloatTy(c), llvm::Type::getInt32Ty(c), name);
    std::vector<float> values;
    for (uint32_t code = 0; code < (1u << bitWidth(t)); ++code)
      values.push_back(static_cast<float>(decodeSmallFloat(t, code)));
    llvm::GlobalVariable* decoded = table(module, llvm::Type::getFloatTy(c), values, name + ".table");
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(c, "entry", fn));
    llvm::Value* index = fb.CreateAnd(fn->getArg(0), fb.getInt32((1u << bitWidth(t)) - 1));
    llvm::Value* at = fb.CreateInBoundsGEP(decoded->getValueType(), decoded, {fb.getInt32(0), index});
    fb.CreateRet(fb.CreateLoad(fb.getFloatTy(), at));
  }
  return b.CreateCall(fn, {b.CreateZExt(bits, b.getInt32Ty())});
}

llvm::Value* emitEncodeSmallFloat(llvm::IRBuilder<>& b, ElementType t, llvm::Value* value) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  const std::string name = "hlo_codec_encode." + typeSuffix(t);
  llvm::Function* fn = module.getFunction(name);
  if (!fn) {
    llvm::LLVMContext& c = module.getContext();
    llvm::Type* f64 = llvm::Type::getDoubleTy(c);
    llvm::Type* i32 = llvm::Type::getInt32Ty(c);
    fn = newFunction(module, i32, f64, name);
    // The distinct finite values, sorted (+0 and -0 are one).
    std::vector<double> values;
    for (uint32_t code = 0; code < (1u << bitWidth(t)); ++code) {
      double v = decodeSmallFloat(t, code);
      if (std::isfinite(v)) values.push_back(v == 0 ? 0.0 : v);
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    // Piece i runs from changes[i-1] up to, not including, changes[i]:
    // the first double at which the code of values[i] gives way.
    std::vector<double> changes;
    std::vector<uint32_t> pieces = {encodeSmallFloat(t, values[0])};
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      changes.push_back(firstChange(t, values[i], values[i + 1]).value_or(values[i + 1]));
      pieces.push_back(encodeSmallFloat(t, values[i + 1]));
    }
    const double huge = std::numeric_limits<double>::max();
    std::optional<double> high = firstChange(t, values.back(), huge);
    std::optional<double> low = firstChange(t, values.front(), -huge);
    // Zero's piece keeps the sign: of the value, or of a zero itself.
    double tiny = std::numeric_limits<double>::denorm_min();
    uint32_t positiveZero = encodeSmallFloat(t, tiny), negativeZero = encodeSmallFloat(t, -tiny);
    uint32_t plusZero = encodeSmallFloat(t, 0.0), minusZero = encodeSmallFloat(t, -0.0);
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();

    llvm::GlobalVariable* steps = table(module, f64, changes, name + ".changes");
    llvm::GlobalVariable* pieceCodes = table(module, i32, pieces, name + ".pieces");
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(c, "entry", fn));
    llvm::Value* x = fn->getArg(0);
    auto code = [&](uint32_t v) { return fb.getInt32(v); };
    auto load = [&](llvm::GlobalVariable* g, llvm::Type* type, llvm::Value* i) {
      return fb.CreateLoad(type, fb.CreateInBoundsGEP(g->getValueType(), g, {fb.getInt32(0), i}));
    };
    // Binary search: lo = the number of changes at or below x.
    llvm::BasicBlock* entry = fb.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(c, "search", fn);
    auto* step = llvm::BasicBlock::Create(c, "step", fn);
    auto* found = llvm::BasicBlock::Create(c, "found", fn);
    fb.CreateBr(head);
    fb.SetInsertPoint(head);
    llvm::PHINode* lo = fb.CreatePHI(i32, 2, "lo");
    llvm::PHINode* hi = fb.CreatePHI(i32, 2, "hi");
    lo->addIncoming(fb.getInt32(0), entry);
    hi->addIncoming(fb.getInt32(static_cast<uint32_t>(changes.size())), entry);
    fb.CreateCondBr(fb.CreateICmpULT(lo, hi), step, found);
    fb.SetInsertPoint(step);
    llvm::Value* mid = fb.CreateLShr(fb.CreateAdd(lo, hi), 1);
    llvm::Value* below = fb.CreateFCmpOLE(load(steps, f64, mid), x);
    lo->addIncoming(fb.CreateSelect(below, fb.CreateAdd(mid, fb.getInt32(1)), lo), step);
    hi->addIncoming(fb.CreateSelect(below, hi, mid), step);
    fb.CreateBr(head);
    fb.SetInsertPoint(found);
    llvm::Value* index = lo;
    llvm::Value* r = load(pieceCodes, i32, index);
    // Zero's piece (what rounds to zero keeps its sign), and zeros.
    llvm::Value* negative = fb.CreateICmpSLT(fb.CreateBitCast(x, fb.getInt64Ty()), fb.getInt64(0));
    auto zeroPiece = std::find(values.begin(), values.end(), 0.0);
    if (zeroPiece != values.end()) {
      uint32_t zeroIndex = static_cast<uint32_t>(zeroPiece - values.begin());
      llvm::Value* inZero = fb.CreateICmpEQ(index, fb.getInt32(zeroIndex));
      r = fb.CreateSelect(inZero, fb.CreateSelect(negative, code(negativeZero), code(positiveZero)), r);
    }
    // Beyond the largest finite values, infinities and NaN.
    if (high) r = fb.CreateSelect(fb.CreateFCmpOGE(x, llvm::ConstantFP::get(f64, *high)), code(encodeSmallFloat(t, *high)), r);
    if (low) r = fb.CreateSelect(fb.CreateFCmpOLE(x, llvm::ConstantFP::get(f64, *low)), code(encodeSmallFloat(t, *low)), r);
    llvm::Value* isZero = fb.CreateFCmpOEQ(x, llvm::ConstantFP::get(f64, 0.0));
    r = fb.CreateSelect(isZero, fb.CreateSelect(negative, code(minusZero), code(plusZero)), r);
    r = fb.CreateSelect(fb.CreateFCmpOEQ(x, llvm::ConstantFP::get(f64, inf)), code(encodeSmallFloat(t, inf)), r);
    r = fb.CreateSelect(fb.CreateFCmpOEQ(x, llvm::ConstantFP::get(f64, -inf)), code(encodeSmallFloat(t, -inf)), r);
    llvm::Value* nanCode = fb.CreateSelect(negative, code(encodeSmallFloat(t, -nan)), code(encodeSmallFloat(t, nan)));
    r = fb.CreateSelect(fb.CreateFCmpUNO(x, x), nanCode, r);
    fb.CreateRet(r);
  }
  if (!value->getType()->isDoubleTy()) value = b.CreateFPExt(value, b.getDoubleTy());
  return b.CreateCall(fn, {value});
}

llvm::Value* emitReducePrecisionBits(llvm::IRBuilder<>& b, llvm::Value* bits, int srcExponentBits, int srcMantissaBits,
                                     int exponentBits, int mantissaBits) {
  // The same steps as reducePrecisionBits, with its constants folded here.
  int width = 1 + srcExponentBits + srcMantissaBits;
  uint64_t all = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  uint64_t signMask = uint64_t{1} << (width - 1);
  uint64_t exponentMask = ((uint64_t{1} << srcExponentBits) - 1) << srcMantissaBits;
  auto c = [&](uint64_t v) { return b.getInt64(v); };
  bits = b.CreateAnd(bits, c(all));
  llvm::Value* isNan = b.CreateICmpUGT(b.CreateAnd(bits, c(~signMask)), c(exponentMask));
  llvm::Value* x = bits;
  if (mantissaBits < srcMantissaBits) {
    int dropped = srcMantissaBits - mantissaBits;
    uint64_t lowestKept = uint64_t{1} << dropped;
    llvm::Value* bias = b.CreateAdd(c((lowestKept >> 1) - 1), b.CreateAnd(b.CreateLShr(x, dropped), c(1)));
    x = b.CreateAnd(b.CreateAnd(b.CreateAdd(x, bias), c(~(lowestKept - 1))), c(all));
  }
  if (exponentBits < srcExponentBits) {
    uint64_t srcBias = (uint64_t{1} << (srcExponentBits - 1)) - 1;
    uint64_t reducedBias = (uint64_t{1} << (exponentBits - 1)) - 1;
    uint64_t maxExponent = (srcBias + reducedBias) << srcMantissaBits;
    uint64_t minExponent = (srcBias - reducedBias) << srcMantissaBits;
    llvm::Value* exponent = b.CreateAnd(x, c(exponentMask));
    llvm::Value* sign = b.CreateAnd(x, c(signMask));
    x = b.CreateSelect(b.CreateICmpUGT(exponent, c(maxExponent)), b.CreateOr(sign, c(exponentMask)),
                       b.CreateSelect(b.CreateICmpULE(exponent, c(minExponent)), sign, x));
  }
  return b.CreateSelect(isNan, mantissaBits > 0 ? bits : c(exponentMask), x);
}

llvm::Value* emitStochasticRound(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* random, int randomBits,
                                 int targetBits) {
  // The same steps as stochasticRound.
  const int64_t max = targetBits >= 64 ? INT64_MAX : (int64_t{1} << (targetBits - 1)) - 1;
  const int64_t min = -max - 1;
  llvm::Type* f64 = b.getDoubleTy();
  llvm::Value* magnitude = b.CreateIntrinsic(llvm::Intrinsic::fabs, {f64}, {x});
  llvm::Value* whole = b.CreateIntrinsic(llvm::Intrinsic::floor, {f64}, {magnitude});
  // (magnitude - whole) * 2^randomBits is exact: a power of two.
  llvm::Value* scaled = b.CreateFMul(b.CreateFSub(magnitude, whole), llvm::ConstantFP::get(f64, std::ldexp(1.0, randomBits)));
  llvm::Value* threshold = b.CreateFPToUI(scaled, b.getInt64Ty());
  llvm::Value* result = b.CreateFPToUI(whole, b.getInt64Ty());
  result = b.CreateSelect(b.CreateICmpULT(random, threshold), b.CreateAdd(result, b.getInt64(1)), result);
  llvm::Value* bits = b.CreateSelect(b.CreateFCmpOLT(x, llvm::ConstantFP::get(f64, 0.0)),
                                     b.CreateSub(b.getInt64(0), result), result);
  int shift = 64 - targetBits;
  if (shift > 0) bits = b.CreateAShr(b.CreateShl(bits, shift), shift);
  // Saturation and NaN last: the conversions above are poison there.
  llvm::Value* r = b.CreateSelect(b.CreateFCmpOGE(x, llvm::ConstantFP::get(f64, static_cast<double>(max))), b.getInt64(max),
                                  b.CreateSelect(b.CreateFCmpOLE(x, llvm::ConstantFP::get(f64, static_cast<double>(min))),
                                                 b.getInt64(static_cast<uint64_t>(min)), bits));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), b.getInt64(0), r);
}

}  // namespace hlo::jit
