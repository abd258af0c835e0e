// The f8, f6 and f4 codecs as IR, for targets whose code cannot call the
// host runtime (a GPU: EmitterTarget::hostRuntime false).
//
// Both are built at compile time from hlo/float_formats.h's
// decodeSmallFloat and encodeSmallFloat — the rules the interpreter and the
// host runtime apply — so they cannot disagree with them:
//   decode  a table of the f32 value of every bit pattern (exact: every
//           such value is an f32);
//   encode  rounding is a step function of the value, constant between the
//           midpoints of consecutive representable values. The midpoints
//           are a sorted table searched in at most eight steps; at a
//           midpoint itself the table holds what encodeSmallFloat rounds it
//           to (ties to even), and the pieces beyond the largest finite
//           values hold what it gives there (infinity, NaN or the largest
//           value, as the format says), found by bisection. Zero, NaN and
//           infinity keep their sign as encodeSmallFloat gives it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

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
    // Piece i lies between midpoints[i-1] and midpoints[i]; a value equal
    // to midpoints[i] takes ties[i].
    std::vector<double> midpoints;
    std::vector<uint32_t> pieces = {encodeSmallFloat(t, values[0])}, ties;
    for (size_t i = 0; i + 1 < values.size(); ++i) {
      double m = values[i] / 2 + values[i + 1] / 2;
      midpoints.push_back(m);
      ties.push_back(encodeSmallFloat(t, m));
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

    llvm::GlobalVariable* mids = table(module, f64, midpoints, name + ".midpoints");
    llvm::GlobalVariable* tieCodes = table(module, i32, ties, name + ".ties");
    llvm::GlobalVariable* pieceCodes = table(module, i32, pieces, name + ".pieces");
    llvm::IRBuilder<> fb(llvm::BasicBlock::Create(c, "entry", fn));
    llvm::Value* x = fn->getArg(0);
    auto code = [&](uint32_t v) { return fb.getInt32(v); };
    auto load = [&](llvm::GlobalVariable* g, llvm::Type* type, llvm::Value* i) {
      return fb.CreateLoad(type, fb.CreateInBoundsGEP(g->getValueType(), g, {fb.getInt32(0), i}));
    };
    // Binary search: lo = the number of midpoints below x.
    llvm::BasicBlock* entry = fb.GetInsertBlock();
    auto* head = llvm::BasicBlock::Create(c, "search", fn);
    auto* step = llvm::BasicBlock::Create(c, "step", fn);
    auto* found = llvm::BasicBlock::Create(c, "found", fn);
    fb.CreateBr(head);
    fb.SetInsertPoint(head);
    llvm::PHINode* lo = fb.CreatePHI(i32, 2, "lo");
    llvm::PHINode* hi = fb.CreatePHI(i32, 2, "hi");
    lo->addIncoming(fb.getInt32(0), entry);
    hi->addIncoming(fb.getInt32(static_cast<uint32_t>(midpoints.size())), entry);
    fb.CreateCondBr(fb.CreateICmpULT(lo, hi), step, found);
    fb.SetInsertPoint(step);
    llvm::Value* mid = fb.CreateLShr(fb.CreateAdd(lo, hi), 1);
    llvm::Value* below = fb.CreateFCmpOLT(load(mids, f64, mid), x);
    lo->addIncoming(fb.CreateSelect(below, fb.CreateAdd(mid, fb.getInt32(1)), lo), step);
    hi->addIncoming(fb.CreateSelect(below, hi, mid), step);
    fb.CreateBr(head);
    fb.SetInsertPoint(found);
    llvm::Value* index = lo;
    llvm::Value* inRange = fb.CreateICmpULT(index, fb.getInt32(static_cast<uint32_t>(midpoints.size())));
    llvm::Value* safeIndex = fb.CreateSelect(inRange, index, fb.getInt32(0));
    llvm::Value* atMidpoint = fb.CreateAnd(inRange, fb.CreateFCmpOEQ(load(mids, f64, safeIndex), x));
    llvm::Value* r = fb.CreateSelect(atMidpoint, load(tieCodes, i32, safeIndex), load(pieceCodes, i32, index));
    // Zero's piece (what rounds to zero keeps its sign), and zeros.
    llvm::Value* negative = fb.CreateICmpSLT(fb.CreateBitCast(x, fb.getInt64Ty()), fb.getInt64(0));
    auto zeroPiece = std::find(values.begin(), values.end(), 0.0);
    if (zeroPiece != values.end()) {
      uint32_t zeroIndex = static_cast<uint32_t>(zeroPiece - values.begin());
      llvm::Value* inZero = fb.CreateAnd(fb.CreateICmpEQ(index, fb.getInt32(zeroIndex)), fb.CreateNot(atMidpoint));
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

}  // namespace hlo::jit
