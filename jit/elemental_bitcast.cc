// The elemental emitter's bitcast-convert: an element's bits read as
// another type. Between types of one width the bits are kept. Between
// widths, the wider element is split into (or built from) a trailing
// dimension of narrower ones, lowest bits first (element 0 holds bits
// 0..w-1: the little-endian order of the interpreter and of XLA). pred is
// a byte (a nonzero byte reads as true); a complex value is its real part's
// bits, then its imaginary part's; a type narrower than a byte takes
// part with its own width (s4 {1, -1} is the byte 0xf1).
#include <algorithm>

#include "jit/elemental_emitter.h"

namespace hlo::jit {
namespace {

// The bits an element of t takes part with: pred's byte, else its width.
int bitcastWidth(ElementType t) { return t == ElementType::kPred ? 8 : bitWidth(t); }

}  // namespace

// The bits of `x`, a value of type t, as one integer of bitcastWidth(t) bits.
llvm::Value* ElementalEmitter::bitsOf(llvm::Value* x, ElementType t) {
  const unsigned width = static_cast<unsigned>(bitcastWidth(t));
  llvm::Type* bits = b_.getIntNTy(width);
  if (isComplex(t)) {
    llvm::Type* half = b_.getIntNTy(width / 2);
    llvm::Value* re = b_.CreateZExt(b_.CreateBitCast(realPart(x), half), bits);
    llvm::Value* im = b_.CreateZExt(b_.CreateBitCast(imagPart(x), half), bits);
    return b_.CreateOr(re, b_.CreateShl(im, width / 2));
  }
  if (t == ElementType::kPred) return b_.CreateZExt(x, bits);
  if (x->getType()->isFloatingPointTy()) return b_.CreateBitCast(x, bits);
  return b_.CreateZExtOrTrunc(x, bits);  // a sub-byte float is its code in a byte
}

// The value of type t whose bits are `bits` (an integer of bitcastWidth(t) bits).
llvm::Value* ElementalEmitter::fromBits(llvm::Value* bits, ElementType t) {
  const unsigned width = static_cast<unsigned>(bitcastWidth(t));
  if (isComplex(t)) {
    ElementType part = complexComponentType(t);
    llvm::Type* half = b_.getIntNTy(width / 2);
    llvm::Value* re = b_.CreateBitCast(b_.CreateTrunc(bits, half), valueType(part));
    llvm::Value* im = b_.CreateBitCast(b_.CreateTrunc(b_.CreateLShr(bits, width / 2), half), valueType(part));
    return makeComplex(t, re, im);
  }
  if (t == ElementType::kPred) return b_.CreateICmpNE(bits, llvm::ConstantInt::get(bits->getType(), 0));
  llvm::Type* value = valueType(t);
  if (value->isFloatingPointTy()) return b_.CreateBitCast(bits, value);
  return b_.CreateZExtOrTrunc(bits, value);
}

StatusOr<llvm::Value*> ElementalEmitter::emitBitcastConvert(const Instruction& instr, const IrIndex& index) {
  const Instruction& operand = *instr.operand(0);
  const ElementType from = operand.shape().type(), to = instr.shape().type();
  const int fromWidth = bitcastWidth(from), toWidth = bitcastWidth(to);
  if (fromWidth <= 0 || toWidth <= 0 || std::max(fromWidth, toWidth) % std::min(fromWidth, toWidth) != 0)
    return cannotCompile(instr, "widths " + std::to_string(fromWidth) + " and " + std::to_string(toWidth) +
                                    " that do not divide");
  const std::vector<int64_t>& dims = instr.shape().dims();
  const std::vector<int64_t>& operandDims = operand.shape().dims();
  if (fromWidth == toWidth) {
    if (operandDims != dims) return cannotCompile(instr, "operand %" + operand.name() + " has other dimensions than the result");
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, index));
    return fromBits(bitsOf(x, from), to);
  }
  if (fromWidth > toWidth) {
    // Result element [..., j] is piece j of operand element [...].
    const int64_t pieces = fromWidth / toWidth;
    if (dims.empty() || dims.back() != pieces ||
        std::vector<int64_t>(dims.begin(), dims.end() - 1) != operandDims)
      return cannotCompile(instr, "its result is not the operand's dimensions and " + std::to_string(pieces));
    IrIndex whole{operandDims, std::vector<llvm::Value*>(index.multi.begin(), index.multi.end() - 1), nullptr};
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, whole));
    llvm::Value* bits = bitsOf(x, from);
    llvm::Value* shift = b_.CreateMul(b_.CreateZExtOrTrunc(index.multi.back(), bits->getType()),
                                      llvm::ConstantInt::get(bits->getType(), static_cast<uint64_t>(toWidth)));
    return fromBits(b_.CreateTrunc(b_.CreateLShr(bits, shift), b_.getIntNTy(static_cast<unsigned>(toWidth))), to);
  }
  // Result element [...] is built from operand elements [..., 0 .. pieces - 1].
  const int64_t pieces = toWidth / fromWidth;
  if (operandDims.empty() || operandDims.back() != pieces ||
      std::vector<int64_t>(operandDims.begin(), operandDims.end() - 1) != dims)
    return cannotCompile(instr, "its operand is not the result's dimensions and " + std::to_string(pieces));
  llvm::Type* wide = b_.getIntNTy(static_cast<unsigned>(toWidth));
  llvm::Value* bits = llvm::ConstantInt::get(wide, 0);
  IrIndex part{operandDims, index.multi, nullptr};
  part.multi.push_back(nullptr);
  for (int64_t j = 0; j < pieces; ++j) {
    part.multi.back() = i64(j);
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, emit(operand, part));
    llvm::Value* piece = b_.CreateZExt(bitsOf(x, from), wide);
    bits = b_.CreateOr(bits, b_.CreateShl(piece, static_cast<uint64_t>(j * fromWidth)));
  }
  return fromBits(bits, to);
}

}  // namespace hlo::jit
