// The elemental emitter's sums: reduce folded into a kernel (blocked,
// vectorizable, f32 totals in f64 with compensation) and the element dot of
// small products. The rest of the emitter is in elemental_emitter.cc.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "hlo/computation.h"
#include "hlo/contraction.h"
#include "jit/elemental_emitter.h"

namespace hlo::jit {

// Whether every element of `x` is >= 0 (or NaN) by construction: read
// from what computes it, through data movement, a few levels deep (a
// parameter or anything else unknown is not). What the kernel reads from
// its inputs (`isInput`) is unknown too: a kernel's code depends on the
// instruction and its inputs' shapes only, so that instructions of the
// same structure can share one kernel (backends/cpu/cpu_compiler.cc).
template <typename IsInput>
static bool nonNegative(const Instruction& x, const IsInput& isInput, int depth = 8) {
  if (depth == 0 || isInput(x)) return false;
  auto operand = [&](int i) { return nonNegative(*x.operand(i), isInput, depth - 1); };
  switch (x.opcode()) {
    case Opcode::kExp:
    case Opcode::kAbs:
    case Opcode::kLogistic:
    case Opcode::kSqrt:  // sqrt(-0) is -0: equal to 0, nothing cancels
    case Opcode::kIota: return true;
    case Opcode::kMultiply: return x.operand(0) == x.operand(1) || (operand(0) && operand(1));
    case Opcode::kAdd:
    case Opcode::kDivide:
    case Opcode::kMinimum: return operand(0) && operand(1);
    case Opcode::kMaximum: return operand(0) || operand(1);
    case Opcode::kSelect: return operand(1) && operand(2);
    case Opcode::kBroadcast:
    case Opcode::kReshape:
    case Opcode::kBitcast:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kCopy: return isFloat(x.shape().type()) && operand(0);
    case Opcode::kConstant: {
      if (!x.hasLiteral() || !isFloat(x.shape().type()) || !x.shape().isArray()) return false;
      const Literal& l = x.literal();
      for (int64_t i = 0; i < l.shape().elementCount(); ++i)
        if (l.toDouble(i) < 0) return false;
      return true;
    }
    default: return false;
  }
}

bool emitsReduce(const Instruction& instr) {
  if (instr.opcode() != Opcode::kReduce || instr.operandCount() != 2 || !instr.shape().isArray()) return false;
  const Computation* reducer = instr.attrs().getComputation(AttrKey::kToApply);
  std::optional<Opcode> op = binaryOfParameters(reducer);
  if (!op) return false;
  ElementType t = instr.shape().type();
  if (instr.operand(0)->shape().type() != t || instr.operand(1)->shape().type() != t ||
      reducer->root()->shape().type() != t)
    return false;
  if (isComplex(t)) return *op == Opcode::kAdd;
  switch (*op) {
    case Opcode::kAdd:
    case Opcode::kMultiply:
    case Opcode::kMaximum:
    case Opcode::kMinimum: return true;
    case Opcode::kAnd:
    case Opcode::kOr: return !isFloat(t);
    default: return false;
  }
}

StatusOr<llvm::Value*> ElementalEmitter::reduceStep(const Instruction& reduce, llvm::Value* acc, llvm::Value* x,
                                                    ElementType as, bool inBlock) {
  const Computation* reducer = reduce.attrs().getComputation(AttrKey::kToApply);
  Opcode op = *binaryOfParameters(reducer);
  // Inside a block, f32/f64 maximum and minimum use LLVM's NaN-propagating
  // llvm.maximum/minimum, which the loop vectorizer turns into vector
  // reductions; they differ from the element-wise rule (the first NaN
  // wins, ties keep the left) only in which NaN or which zero comes out,
  // and the block's order is free anyway. Marked as not caring which
  // zero, they lower to one max (or min) and a NaN fix-up per vector
  // instead of also ordering the operands by sign (softmax over [4096,
  // 4096]: 2.9 -> 2.7 ms).
  if (inBlock && (op == Opcode::kMaximum || op == Opcode::kMinimum) &&
      (as == ElementType::kF32 || as == ElementType::kF64)) {
    llvm::Value* v = b_.CreateBinaryIntrinsic(
        op == Opcode::kMaximum ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, acc, x);
    llvm::FastMathFlags noSignedZeros;
    noSignedZeros.setNoSignedZeros();
    llvm::cast<llvm::Instruction>(v)->setFastMathFlags(noSignedZeros);
    return v;
  }
  HLO_ASSIGN_OR_RETURN(llvm::Value * v, binary(op, *reducer->root(), as, acc, x));
  auto* arith = llvm::dyn_cast<llvm::BinaryOperator>(v);
  if (inBlock && arith && arith->getType()->isFloatingPointTy()) arith->setHasAllowReassoc(true);
  return v;
}

StatusOr<llvm::Value*> ElementalEmitter::emitWidened(const Instruction& x, const IrIndex& index, ElementType as) {
  HLO_ASSIGN_OR_RETURN(llvm::Value * v, emit(x, index));
  const ElementType t = x.shape().type();
  if (as == t) return v;
  if (smallFloat(t)) return convert(x, t, as, v);  // exact: every f16 and bf16 value is an f32
  return b_.CreateFPExt(v, valueType(as));
}

// Block lengths of emitReduce (see there).
constexpr int64_t kBlock = 4096, kNonNegativeBlock = 1024;

ElementalEmitter::Folding ElementalEmitter::folding(const Instruction& reduce) {
  Opcode op = *binaryOfParameters(reduce.attrs().getComputation(AttrKey::kToApply));
  // f32 sums total in f64 and round to f32 once at the end; their block
  // partials are f64 unless no term is negative.
  ElementType t = reduce.shape().type();
  // An f16 or bf16 maximum or minimum is exact in any order (only which NaN
  // or which zero comes out may differ, as for f32's in blocks): folded in
  // f32, in blocks the vectorizer takes, instead of one rounded step per
  // element.
  if ((op == Opcode::kMaximum || op == Opcode::kMinimum) && (t == ElementType::kF16 || t == ElementType::kBF16))
    return {ElementType::kF32, ElementType::kF32, kBlock};
  if (op != Opcode::kAdd || t != ElementType::kF32) return {t, t, kBlock};
  if (nonNegative(*reduce.operand(0), [&](const Instruction& x) { return isInput(x); }))
    return {ElementType::kF32, ElementType::kF64, kNonNegativeBlock};
  return {ElementType::kF64, ElementType::kF64, kBlock};
}

// reduce(operand, init) with a reducer that is one elementwise binary op of
// its two parameters. Algorithm, for one output element:
//   1. total = init;
//   2. loop over the reduced dimensions but the innermost, and that one in
//      blocks of kBlock elements;
//   3. each block sums into a fresh partial that starts at the op's
//      identity — its float adds may be reassociated, so LLVM vectorizes
//      them with vector accumulators — and the partial joins the total,
//      for f32/f64 sums with Kahan's compensated addition.
// f32 sums keep their total in f64 and round to f32 once at the end, so they
// stay within the f32 tolerance of the reference interpreter's sum, which is
// exact and rounded once (hlo/exact_sum.h). Their block partials are f64
// too (every term converted), as terms of both signs may cancel to far less
// than their magnitudes — except when every term is known to be >= 0
// (nonNegative: exp, squares, abs...), as in softmax's and layer norm's
// second sums. Without cancellation, a partial summed in f32 is within
// (additions in its longest chain) x 2^-24 of the exact sum relative to the
// sum itself: at most 1024 additions (a block of kNonNegativeBlock, however
// the vectorizer splits it), 6e-5, below the f32 tolerance of 1e-4, and a
// few hundred times less when vectorized (16 lanes by 4 accumulators: 16
// additions). The f64 total's rounding errors are compensated once per
// block. f16, bf16, f8 and f4 sums and products round after every step,
// in the interpreter's row-major order.
StatusOr<llvm::Value*> ElementalEmitter::emitReduce(const Instruction& instr, const IrIndex& index) {
  if (!emitsReduce(instr))
    return cannotCompile(instr, "a reduce folded in a kernel has one input, one element type, and a reducer "
                                "that is one add, multiply, maximum, minimum, and or or of its parameters");
  const Computation* reducer = instr.attrs().getComputation(AttrKey::kToApply);
  Opcode op = *binaryOfParameters(reducer);
  const Instruction& input = *instr.operand(0);
  ElementType resultType = instr.shape().type();
  auto [partialType, t, block] = folding(instr);
  llvm::Value* id = identity(op, partialType);
  if (!id) return cannotCompile(instr, "no identity value for " + std::string(elementTypeName(partialType)));
  const std::vector<int64_t>& inDims = input.shape().dims();
  std::vector<int64_t> reduced = instr.attrs().getInts(AttrKey::kDimensions);
  std::sort(reduced.begin(), reduced.end());

  HLO_ASSIGN_OR_RETURN(llvm::Value * init, emitWidened(*instr.operand(1), scalarIndex(), t));
  llvm::AllocaInst* total = entryAlloca(valueType(t), "total");
  llvm::AllocaInst* partial = entryAlloca(valueType(partialType), "partial");
  b_.CreateStore(init, total);
  // f32 and f64 sums add the block partials with Kahan's compensation, so
  // the number of blocks does not grow the error.
  llvm::AllocaInst* compensation = nullptr;
  if (op == Opcode::kAdd && (t == ElementType::kF32 || t == ElementType::kF64)) {
    compensation = entryAlloca(valueType(t), "compensation");
    b_.CreateStore(llvm::ConstantFP::get(valueType(t), 0.0), compensation);
  }
  IrIndex in{inDims, std::vector<llvm::Value*>(inDims.size()), nullptr};
  for (size_t d = 0, k = 0; d < inDims.size(); ++d)
    if (!std::binary_search(reduced.begin(), reduced.end(), static_cast<int64_t>(d))) in.multi[d] = index.multi[k++];

  // f16, bf16, f8 and f4 round at every step, so their results depend on
  // the order: they fold in row-major order, one element after another,
  // exactly as the reference interpreter does.
  bool sequential = smallFloat(t);
  // The innermost reduced dimension, in blocks.
  auto innermost = [&]() -> Status {
    if (sequential && !reduced.empty()) {
      int64_t d = reduced.back();
      return emitLoop(i64(0), i64(inDims[d]), "r", [&](llvm::Value* j) -> Status {
        in.multi[d] = j;
        HLO_ASSIGN_OR_RETURN(llvm::Value * x, emitWidened(input, in, t));
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, reduceStep(instr, b_.CreateLoad(valueType(t), total), x, t, false));
        b_.CreateStore(v, total);
        return okStatus();
      });
    }
    if (reduced.empty()) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * x, emitWidened(input, in, t));
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, reduceStep(instr, b_.CreateLoad(valueType(t), total), x, t, false));
      b_.CreateStore(v, total);
      return okStatus();
    }
    int64_t d = reduced.back();
    int64_t n = inDims[d];
    int64_t blocks = (n + block - 1) / block;
    // The loop over the short blocks of a non-negative sum is not unrolled:
    // LLVM would copy out every block's (unrolled) loop.
    bool unroll = block != kNonNegativeBlock;
    return emitLoop(i64(0), i64(blocks), "block", [&](llvm::Value* blk) -> Status {
      llvm::Value* lo = b_.CreateMul(blk, i64(block));
      llvm::Value* hi = b_.CreateAdd(lo, i64(block));
      hi = b_.CreateSelect(b_.CreateICmpSLT(hi, i64(n)), hi, i64(n));
      b_.CreateStore(id, partial);
      HLO_RETURN_IF_ERROR(emitLoop(lo, hi, "r", [&](llvm::Value* j) -> Status {
        in.multi[d] = j;
        HLO_ASSIGN_OR_RETURN(llvm::Value * x, emitWidened(input, in, partialType));
        HLO_ASSIGN_OR_RETURN(llvm::Value * v,
                             reduceStep(instr, b_.CreateLoad(valueType(partialType), partial), x, partialType, true));
        b_.CreateStore(v, partial);
        return okStatus();
      }));
      llvm::Value* sum = b_.CreateLoad(valueType(t), total);
      llvm::Value* part = b_.CreateLoad(valueType(partialType), partial);
      if (partialType != t) part = b_.CreateFPExt(part, valueType(t));
      if (compensation) {
        // Kahan: y = part - c; s = sum + y; c = (s - sum) - y.
        llvm::Value* y = b_.CreateFSub(part, b_.CreateLoad(valueType(t), compensation));
        llvm::Value* next = b_.CreateFAdd(sum, y);
        b_.CreateStore(b_.CreateFSub(b_.CreateFSub(next, sum), y), compensation);
        b_.CreateStore(next, total);
        return okStatus();
      }
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, reduceStep(instr, sum, part, t, false));
      b_.CreateStore(v, total);
      return okStatus();
    }, unroll);
  };
  // The other reduced dimensions, outermost first.
  std::function<Status(size_t)> nest = [&](size_t k) -> Status {
    if (k + 1 >= reduced.size()) return innermost();
    int64_t d = reduced[k];
    return emitLoop(i64(0), i64(inDims[d]), "rd", [&](llvm::Value* j) -> Status {
      in.multi[d] = j;
      return nest(k + 1);
    });
  };
  HLO_RETURN_IF_ERROR(nest(0));
  llvm::Value* result = b_.CreateLoad(valueType(t), total);
  if (t == resultType) return result;
  if (smallFloat(resultType)) return convert(instr, t, resultType, result);  // exact: an f16 or bf16 value
  return b_.CreateFPTrunc(result, valueType(resultType));
}

// The element types an element dot computes: real operands, and integer (or
// pred) ones for an integer result; a reason when not.
static std::string elementDotTypesProblem(const Instruction& instr) {
  ElementType lhs = instr.operand(0)->shape().type(), rhs = instr.operand(1)->shape().type();
  ElementType out = instr.shape().type();
  auto integral = [](ElementType t) { return isInteger(t) || isPred(t); };
  auto real = [&](ElementType t) { return isFloat(t) || integral(t); };
  if (real(lhs) && real(rhs) && (isFloat(out) || isInteger(out))) return "";
  return "element types " + std::string(elementTypeName(lhs)) + " x " + std::string(elementTypeName(rhs)) + " -> " +
         std::string(elementTypeName(out)) +
         " (an element dot has real operands and result)";
}

bool emitsDot(const Instruction& instr, int64_t maxProducts) {
  if (instr.opcode() != Opcode::kDot || instr.operandCount() != 2 || instr.attrs().has(AttrKey::kSparsity) ||
      !instr.shape().isArray() || !instr.operand(0)->shape().isArray() || !instr.operand(1)->shape().isArray())
    return false;
  StatusOr<DotDims> dims = dotDims(instr.attrs(), instr.operand(0)->shape(), instr.operand(1)->shape());
  if (!dims.ok() || !elementDotTypesProblem(instr).empty()) return false;
  return dims->batch * dims->m * dims->n * dims->k <= maxProducts;
}

// dot, one element: [batch..., lhs free..., rhs free...] of the result is the
// sum over the contracting dimensions (row-major in the order they are
// listed) of lhs * rhs, computed as the interpreter does (interp/dot_conv.cc)
// in the accumulation type of the result type: double for a float result,
// 64-bit integers wrapping for an integer one (the same, modulo the result
// width, as any wider wrapping), then rounded or wrapped to the result type;
// double for float operands of an integer result, rounded to the wider
// operand type and truncated.
// Larger dots are library ops (backends/cpu/runtime_dot.cc, OpenBLAS).
//
// scaled-dot (lhs, rhs, lhs_scale, rhs_scale) is the dot of the operands
// dequantized as hlo/contraction.h says: element [i...] times its scale
// [i_d / (dim_d / scale dim_d)...] (a scalar scale for all), in double; an
// integer result takes the sum truncated toward zero.
//
// ragged-dot (lhs, rhs, group_sizes) is hlo/contraction.h's RaggedDotPlan:
// each lhs element's group found by walking group_sizes; with a free
// ragged dimension the rhs is read at that group (rows in no group give
// zeros), with a contracting one the result's leading group index keeps
// only its group's terms.
StatusOr<llvm::Value*> ElementalEmitter::emitDot(const Instruction& instr, const IrIndex& index) {
  const bool scaled = instr.opcode() == Opcode::kScaledDot;
  const bool ragged = instr.opcode() == Opcode::kRaggedDot;
  if (instr.operandCount() != (scaled ? 4 : ragged ? 3 : 2) || instr.attrs().has(AttrKey::kSparsity))
    return cannotCompile(instr, scaled ? "a scaled-dot of two operands and their scales"
                                : ragged ? "a ragged-dot of two operands and group sizes"
                                         : "a dot of two dense operands");
  const Instruction& lhs = *instr.operand(0);
  const Instruction& rhs = *instr.operand(1);
  std::optional<RaggedDotPlan> plan;
  StatusOr<DotDims> dims = errorStatus("");
  if (ragged) {
    StatusOr<RaggedDotPlan> p = raggedDotPlan(instr.attrs(), lhs.shape(), rhs.shape(), instr.operand(2)->shape());
    if (!p.ok()) return cannotCompile(instr, p.status().message());
    plan = *p;
    dims = p->dot;
  } else {
    dims = dotDims(instr.attrs(), lhs.shape(), rhs.shape());
  }
  if (!dims.ok()) return cannotCompile(instr, dims.status().message());
  using Mode = RaggedDotPlan::Mode;
  const Mode mode = plan ? plan->mode : Mode::kBatch;
  const size_t rhsShift = mode == Mode::kFree ? 1 : 0;        // rhsPerm starts with the group dimension
  const size_t outShift = mode == Mode::kContracting ? 1 : 0;  // the result starts with it
  if (scaled) {
    for (int i = 0; i < 2; ++i) {
      const Shape& x = instr.operand(i)->shape();
      const Shape& scale = instr.operand(2 + i)->shape();
      Status fits = checkDotScale(x, scale);
      if (!fits.ok()) return cannotCompile(instr, fits.message());
      if (!isFloat(x.type()) || !isFloat(scale.type()))
        return cannotCompile(instr, "a scaled-dot of float operands and scales");
    }
  } else if (std::string problem = elementDotTypesProblem(instr); !problem.empty()) {
    return cannotCompile(instr, problem);
  }
  ElementType out = instr.shape().type();
  bool floatResult = isFloat(out);
  if (scaled && !floatResult && !isInteger(out)) return cannotCompile(instr, "a scaled-dot of a real result");
  const bool floatOperands = isFloat(lhs.shape().type()) || isFloat(rhs.shape().type());
  ElementType acc = floatResult || floatOperands || scaled ? ElementType::kF64 : ElementType::kS64;
  llvm::Type* accType = valueType(acc);
  // An operand element in the accumulation type (times its scale).
  auto widen = [&](const Instruction& from, const IrIndex& at) -> StatusOr<llvm::Value*> {
    HLO_ASSIGN_OR_RETURN(llvm::Value * x, emit(from, at));
    ElementType t = from.shape().type();
    if (acc == ElementType::kF64) {
      HLO_ASSIGN_OR_RETURN(x, convert(instr, t, acc, x));
    } else {
      x = isSigned(t) ? b_.CreateSExt(x, accType) : b_.CreateZExt(x, accType);
    }
    if (!scaled) return x;
    const Instruction& scale = *instr.operand(&from == &lhs ? 2 : 3);
    IrIndex block{scale.shape().dims(), std::vector<llvm::Value*>(scale.shape().rank()), nullptr};
    for (int d = 0; d < scale.shape().rank(); ++d)
      block.multi[d] = b_.CreateUDiv(at.multi[d], i64(from.shape().dim(d) / scale.shape().dim(d)));
    HLO_ASSIGN_OR_RETURN(llvm::Value * factor, emit(scale, block));
    HLO_ASSIGN_OR_RETURN(factor, convert(instr, scale.shape().type(), acc, factor));
    return b_.CreateFMul(x, factor);
  };
  const DotDims& d = *dims;
  size_t batch = instr.attrs().getInts(AttrKey::kLhsBatchDims).size();
  size_t lhsFree = d.lhsFree.size(), rhsFree = d.rhsFree.size();
  size_t contracting = d.lhsPerm.size() - batch - lhsFree;
  IrIndex l{lhs.shape().dims(), std::vector<llvm::Value*>(lhs.shape().rank()), nullptr};
  IrIndex r{rhs.shape().dims(), std::vector<llvm::Value*>(rhs.shape().rank()), nullptr};
  for (size_t i = 0; i < batch; ++i) l.multi[d.lhsPerm[i]] = r.multi[d.rhsPerm[rhsShift + i]] = index.multi[outShift + i];
  for (size_t f = 0; f < lhsFree; ++f) l.multi[d.lhsPerm[batch + f]] = index.multi[outShift + batch + f];
  for (size_t f = 0; f < rhsFree; ++f)
    r.multi[d.rhsPerm[rhsShift + batch + contracting + f]] = index.multi[outShift + batch + lhsFree + f];
  // The group of the lhs element at l (-1: none), walking group_sizes.
  auto groupOf = [&]() -> StatusOr<llvm::Value*> {
    const Instruction& sizes = *instr.operand(2);
    IrIndex at{sizes.shape().dims(), {}, nullptr};
    for (int64_t p : plan->prefix) at.multi.push_back(l.multi[static_cast<size_t>(p)]);
    at.multi.push_back(nullptr);
    llvm::Value* coord = l.multi[static_cast<size_t>(plan->raggedDim)];
    llvm::Value* start = i64(0);
    llvm::Value* group = i64(-1);
    for (int64_t j = 0; j < plan->groups; ++j) {  // groups are few: unrolled
      at.multi.back() = i64(j);
      HLO_ASSIGN_OR_RETURN(llvm::Value * size, emit(sizes, at));
      size = isSigned(sizes.shape().type()) ? b_.CreateSExtOrTrunc(size, b_.getInt64Ty())
                                            : b_.CreateZExtOrTrunc(size, b_.getInt64Ty());
      llvm::Value* end = b_.CreateAdd(start, size);
      llvm::Value* inside = b_.CreateAnd(b_.CreateICmpSGE(coord, start), b_.CreateICmpSLT(coord, end));
      group = b_.CreateSelect(b_.CreateAnd(inside, b_.CreateICmpEQ(group, i64(-1))), i64(j), group);
      start = end;
    }
    return group;
  };

  llvm::AllocaInst* sum = entryAlloca(accType, "dot_sum");
  b_.CreateStore(acc == ElementType::kF64 ? llvm::ConstantFP::get(accType, 0.0) : llvm::ConstantInt::get(accType, 0),
                 sum);
  std::function<Status(size_t)> nest = [&](size_t c) -> Status {
    if (c == contracting) {
      auto add = [&]() -> Status {
        HLO_ASSIGN_OR_RETURN(llvm::Value * a, widen(lhs, l));
        HLO_ASSIGN_OR_RETURN(llvm::Value * b, widen(rhs, r));
        llvm::Value* s = b_.CreateLoad(accType, sum);
        b_.CreateStore(
            acc == ElementType::kF64 ? b_.CreateFAdd(s, b_.CreateFMul(a, b)) : b_.CreateAdd(s, b_.CreateMul(a, b)), sum);
        return okStatus();
      };
      if (mode == Mode::kBatch) return add();
      HLO_ASSIGN_OR_RETURN(llvm::Value * group, groupOf());
      if (mode == Mode::kFree) r.multi[d.rhsPerm[0]] = group;
      llvm::Value* counts = mode == Mode::kFree ? b_.CreateICmpSGE(group, i64(0)) : b_.CreateICmpEQ(group, index.multi[0]);
      return emitWhen(counts, "ragged", add);
    }
    int64_t lhsDim = d.lhsPerm[batch + lhsFree + c], rhsDim = d.rhsPerm[rhsShift + batch + c];
    return emitLoop(i64(0), i64(lhs.shape().dim(static_cast<int>(lhsDim))), "k", [&](llvm::Value* k) -> Status {
      l.multi[lhsDim] = k;
      r.multi[rhsDim] = k;
      return nest(c + 1);
    });
  };
  HLO_RETURN_IF_ERROR(nest(0));
  llvm::Value* total = b_.CreateLoad(accType, sum);
  if (floatResult) return roundedFromDouble(instr, total, out);
  if (acc == ElementType::kF64) {
    // An integer result of float operands: the sum rounded to the wider
    // float operand type first (as XLA reads it: a dot into that type, then
    // a convert), then truncated toward zero, saturating (NaN to 0).
    std::optional<ElementType> through;
    for (ElementType t : {lhs.shape().type(), rhs.shape().type()})
      if (isFloat(t) && (!through || storageBytes(t) > storageBytes(*through))) through = t;
    if (through) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * rounded, roundedFromDouble(instr, total, *through));
      HLO_ASSIGN_OR_RETURN(total, convert(instr, *through, ElementType::kF64, rounded));
    }
    return b_.CreateTrunc(b_.CreateIntrinsic(llvm::Intrinsic::fptosi_sat, {b_.getInt64Ty(), accType}, {total}),
                          valueType(out));
  }
  return b_.CreateTrunc(total, valueType(out));
}
}  // namespace hlo::jit
