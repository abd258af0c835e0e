// The elemental IR emitter: the LLVM IR value of one element of an HLO
// instruction at a given index, computed from the elements of its operands.
//
// It knows nothing of loops over outputs or of threads: a backend wraps it in
// its own loop nest (backends/cpu/kernel_emitter.cc) and binds the arrays it
// reads — kernel arguments, fused-computation parameters — to base pointers.
// A fused computation is emitted inline, one element at a time, so a fusion
// needs no intermediate buffers. Reductions emit their own inner loop nest at
// the point where an element of the reduce is asked for.
//
// Values are held in their storage type (pred as i1, f16 as half, bf16 as its
// i16 bits); f16 and bf16 compute in f32 and are rounded after every
// operation, as the reference interpreter does.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "hlo/computation.h"
#include "hlo/instruction.h"
#include "hlo/status.h"
#include "jit/emitter_target.h"
#include "jit/host_helper_names.h"
#include "jit/refusal.h"

namespace hlo::jit {

// An index into an array of `dims`: one i64 per dimension, and the row-major
// linear index when it is at hand (elementwise chains then address memory
// without dividing it back into dimensions).
struct IrIndex {
  std::vector<int64_t> dims;
  std::vector<llvm::Value*> multi;
  llvm::Value* linear = nullptr;
};

class ElementalEmitter {
 public:
  ElementalEmitter(llvm::IRBuilder<>& b, llvm::Module& module, const EmitterTarget& target)
      : b_(b), module_(module), target_(target) {}

  // Reads of `instr` load from `base` (row-major, storage layout of Literal).
  // With `first`, base holds only a window of the array, from linear position
  // `first` on (a row kept in a buffer); reads stay inside it.
  void bindArray(const Instruction* instr, llvm::Value* base, llvm::Value* first = nullptr) {
    arrays_[instr] = {base, first};
  }
  // Reads of `instr` compute it again (it was bound by bindArray).
  void unbindArray(const Instruction* instr) { arrays_.erase(instr); }
  // Reads of `instr`, at any index, are `value` (of its value type): what a
  // kernel computed once for the row it works on (a GPU row kernel's row
  // sum). `value` must dominate the code emitted while it is bound.
  void bindValue(const Instruction* instr, llvm::Value* value) { values_[instr] = value; }
  void unbindValue(const Instruction* instr) { values_.erase(instr); }
  // Whether reads of `instr` load a whole array bound from outside (the
  // kernel's input), not one the kernel computes (a row buffer's window).
  bool isInput(const Instruction& instr) const {
    auto it = arrays_.find(&instr);
    return it != arrays_.end() && !it->second.first;
  }

  // The element of `instr` at `index`; an unsupported opcode or element type
  // is an error "cannot compile <opcode> (%name)...".
  StatusOr<llvm::Value*> emit(const Instruction& instr, const IrIndex& index);

  // Storage IR type of an element type (i8 for pred), and the type values
  // are held in while computing (i1 for pred).
  llvm::Type* storageType(ElementType t);
  llvm::Type* valueType(ElementType t);
  // Loads/stores one element, converting pred between i8 and i1.
  llvm::Value* load(llvm::Value* base, llvm::Value* linear, ElementType t);
  void store(llvm::Value* value, llvm::Value* base, llvm::Value* linear, ElementType t);
  // Between an element's storage form (storageType) and the value the
  // emitter computes with (valueType).
  llvm::Value* fromStorage(llvm::Value* stored, ElementType t);
  llvm::Value* toStorage(llvm::Value* value, ElementType t);

  // Index helpers.
  llvm::Value* linearize(const IrIndex& index);
  IrIndex delinearize(llvm::Value* linear, const std::vector<int64_t>& dims);
  // The index into a reshape's operand (of `dims`) of the reshape's element
  // at `index`.
  IrIndex reshapedIndex(const IrIndex& index, const std::vector<int64_t>& dims);
  IrIndex scalarIndex() const { return IrIndex{}; }

  // `for (i = begin; i < end; ++i) body(i)` at the insertion point; the
  // builder is left after the loop. Values made inside are not cached past it.
  // With `unroll` false, LLVM is told not to unroll it (the vectorizer still
  // widens and interleaves it): a short loop of known trip count would
  // otherwise be copied out whole, which costs compile time and no speed.
  template <typename Body>
  Status emitLoop(llvm::Value* begin, llvm::Value* end, const std::string& name, Body&& body, bool unroll = true);

  // body() with a cache of its own: the values it makes are not reused after
  // it (by code on the other side of a branch).
  template <typename Body>
  Status inScope(Body&& body) {
    cache_.emplace_back();
    Status s = body();
    cache_.pop_back();
    return s;
  }
  // body() where `cond` holds (a branch around it), with a cache of its
  // own; the builder is left after the branch. `name` names its blocks.
  template <typename Body>
  Status emitWhen(llvm::Value* cond, const std::string& name, Body&& body);
  // An i64 constant.
  llvm::Value* i64(int64_t v) { return b_.getInt64(v); }
  // A variable in the function's entry block (promoted to a register by LLVM).
  llvm::AllocaInst* entryAlloca(llvm::Type* type, const std::string& name);
  StatusOr<llvm::Value*> emitMap(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitReduceWindow(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitSelectAndScatter(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitGather(const Instruction& instr, const IrIndex& index);
  // The values of `f`'s root (a tuple root: its elements', in order) for
  // its parameters reading `args` (one for each, of its value type),
  // emitted at a scalar index with a cache of its own: one step of a
  // reducer the emitter does not fold itself.
  StatusOr<std::vector<llvm::Value*>> callScalar(const Computation& f, const std::vector<llvm::Value*>& args);

  // Scalar semantics, shared with the reductions (elemental_scalar.cc).
  StatusOr<llvm::Value*> unary(const Instruction& instr, ElementType t, llvm::Value* x);
  StatusOr<llvm::Value*> binary(Opcode op, const Instruction& instr, ElementType t, llvm::Value* a,
                                llvm::Value* c);
  StatusOr<llvm::Value*> compare(const Instruction& instr, ElementType t, llvm::Value* a, llvm::Value* c);
  StatusOr<llvm::Value*> convert(const Instruction& instr, ElementType from, ElementType to, llvm::Value* x);
  StatusOr<llvm::Value*> reducePrecision(const Instruction& instr, ElementType t, llvm::Value* x);
  // The double `d` rounded once to the float type `to` (a dot's sum, as the
  // interpreter rounds it), where convert takes f16 and bf16 through f32.
  StatusOr<llvm::Value*> roundedFromDouble(const Instruction& instr, llvm::Value* d, ElementType to);
  StatusOr<llvm::Value*> stochasticConvert(const Instruction& instr, llvm::Value* x, llvm::Value* random);
  llvm::Value* clamp(ElementType t, llvm::Value* lo, llvm::Value* x, llvm::Value* hi);
  // One step of the fold of `reduce` (emitsReduce): acc op x in the type
  // `as`. `inBlock`: the order of the steps is free (the reducer's float
  // adds may be reassociated; maximum and minimum may return either zero
  // and any NaN).
  StatusOr<llvm::Value*> reduceStep(const Instruction& reduce, llvm::Value* acc, llvm::Value* x, ElementType as,
                                    bool inBlock);
  // How emitReduce folds `reduce` (emitsReduce): the innermost reduced
  // dimension in blocks of `block` elements, each folded into a partial of
  // type `partial` (starting at the identity, in any order), which joins a
  // total of type `total` (starting at the init value, in order).
  struct Folding {
    ElementType partial, total;
    int64_t block;
  };
  Folding folding(const Instruction& reduce);
  // The element of `x` at `index` in the float type `as`, as wide as x's or
  // wider (a fold's partial or total).
  StatusOr<llvm::Value*> emitWidened(const Instruction& x, const IrIndex& index, ElementType as);
  // The identity of a reducer's opcode (0 for add, 1 for multiply, ...), or null.
  llvm::Value* identity(Opcode op, ElementType t);

  // Complex values (elemental_complex.cc) are held as a struct {re, im} of
  // their component type, laid out as std::complex.
  // A call of the math library's `name` (see EmitterTarget) on args of one float type.
  llvm::Value* mathCall(const std::string& name, std::vector<llvm::Value*> args);
  llvm::Value* makeComplex(ElementType t, llvm::Value* re, llvm::Value* im);
  llvm::Value* realPart(llvm::Value* c) { return b_.CreateExtractValue(c, 0); }
  llvm::Value* imagPart(llvm::Value* c) { return b_.CreateExtractValue(c, 1); }
  StatusOr<llvm::Value*> complexUnary(const Instruction& instr, ElementType t, llvm::Value* x);
  StatusOr<llvm::Value*> complexBinary(Opcode op, const Instruction& instr, ElementType t, llvm::Value* a,
                                       llvm::Value* c);
  StatusOr<llvm::Value*> complexCompare(const Instruction& instr, llvm::Value* a, llvm::Value* c);
  // A complex function (one or two arguments of type t) as IR from real
  // math functions, for code that cannot call the host runtime
  // (elemental_complex_math.cc); nullopt where `op` has no complex meaning.
  std::optional<llvm::Value*> complexFunctionAsIr(Opcode op, ElementType t, std::span<llvm::Value* const> args);

  // Element `index` of tuple element `i` of `producer`: a tuple, a nested
  // fusion whose root is one, or a forwarded parameter of one.
  StatusOr<llvm::Value*> emitTupleElement(const Instruction& producer, int64_t i, const IrIndex& index);

 private:
  // The element already emitted for (instr, index) in a scope that is still open, else null.
  llvm::Value* cached(const Instruction& instr, const IrIndex& index) const;
  // Emits, bottom-up with a stack of its own, the elementwise operands that
  // `instr` reads at `index` itself, and theirs: emit() then finds them in
  // the cache, so a chain of many thousand elementwise ops (an unrolled
  // graph) does not recurse once per link.
  Status emitElementwiseOperandsFirst(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitUncached(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitElementwise(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitNestedFusion(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitConditional(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitConstant(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitConcatenate(const Instruction& instr, const IrIndex& index, int operand,
                                         int64_t offset);
  StatusOr<llvm::Value*> emitPad(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitDynamicSlice(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitDynamicUpdateSlice(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitReduce(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitDot(const Instruction& instr, const IrIndex& index);
  StatusOr<llvm::Value*> emitConvolution(const Instruction& instr, const IrIndex& index);  // elemental_convolution.cc
  StatusOr<llvm::Value*> emitBitcastConvert(const Instruction& instr, const IrIndex& index);  // elemental_bitcast.cc
  StatusOr<llvm::Value*> emitFft(const Instruction& instr, const IrIndex& index);  // elemental_fft.cc
  llvm::Value* bitsOf(llvm::Value* x, ElementType t);
  llvm::Value* fromBits(llvm::Value* bits, ElementType t);
  // `cond ? then() : otherwise()` with real branches (only one side runs).
  template <typename Then, typename Else>
  StatusOr<llvm::Value*> emitIf(llvm::Value* cond, Then&& then, Else&& otherwise);
  // body() with the parameters of `callee` reading `args` (none: the caller
  // binds them) and a cache of the callee's own, so values a computation
  // made for one call never stand in for another call's.
  template <typename Body>
  StatusOr<llvm::Value*> inCallee(const Computation& callee, const std::vector<const Instruction*>& args,
                                  Body&& body);
  // Clamped i64 start indices of dynamic-(update-)slice, operands first..first+rank-1.
  StatusOr<std::vector<llvm::Value*>> startIndices(const Instruction& instr, int first,
                                                   const std::vector<int64_t>& sizes);

  // Elements already computed, per scope: a value made inside a loop body or
  // a branch does not dominate code after it, so each gets a scope.
  // An element's key: its per-dimension index values, or its linear position alone.
  using CacheKey = std::pair<const Instruction*, std::vector<llvm::Value*>>;
  static CacheKey cacheKey(const Instruction& instr, const IrIndex& index);
  std::vector<std::map<CacheKey, llvm::Value*>> cache_ = std::vector<std::map<CacheKey, llvm::Value*>>(1);

  llvm::Value* exp(llvm::Value* x);

  llvm::IRBuilder<>& b_;
  llvm::Module& module_;
  EmitterTarget target_;
  struct Bound {
    llvm::Value* base;
    llvm::Value* first;  // the linear position base holds, or null for 0
  };
  std::unordered_map<const Instruction*, Bound> arrays_;
  std::unordered_map<const Instruction*, llvm::Value*> values_;  // bindValue
  // Parameters of a nested fused computation and the operands they read.
  std::unordered_map<const Instruction*, const Instruction*> forwarded_;
};

// The host runtime's helpers kernels call by name: jit/host_helper_names.h.
// exp of f32 is the module's internal function
//   float hlo_exp_f32(float)
// (emitExpF32), kept out of line (noinline) while LLVM optimizes, so the loop
// vectorizer can put a backend's vector variants in its place
// (backends/cpu/vector_math.h); the backend inlines what is left afterwards.
inline constexpr const char* kExpF32 = "hlo_exp_f32";
// p * 2^n for p, n of one float type (n integral; see emitExpF32).
using Pow2Scale = std::function<llvm::Value*(llvm::IRBuilder<>& b, llvm::Value* p, llvm::Value* n)>;
// exp of each element of the f32 scalar or vector x, with `scale` for the
// final p * 2^n when given (a target's instruction for it).
llvm::Value* emitExpF32(llvm::IRBuilder<>& b, llvm::Value* x, const Pow2Scale& scale = {});
// f8 and f4 types (stored one per byte, computed through those functions).
bool encodedFloat(ElementType t);
// Those functions as IR, for a target without the host runtime
// (elemental_codecs.cc): `bits` (an integer) to its f32 value, and a float
// or double value rounded to `t`'s bit pattern (an i32).
llvm::Value* emitDecodeSmallFloat(llvm::IRBuilder<>& b, ElementType t, llvm::Value* bits);
llvm::Value* emitEncodeSmallFloat(llvm::IRBuilder<>& b, ElementType t, llvm::Value* value);
// hlo/stochastic_round.h's stochasticRound as IR: the double x, the random
// bits as an i64, an i64 result; the widths known when compiling.
llvm::Value* emitStochasticRound(llvm::IRBuilder<>& b, llvm::Value* x, llvm::Value* random, int randomBits,
                                 int targetBits);
// hlo/reduce_precision.h's reducePrecisionBits as IR, on an i64 holding the
// bits; the widths are the instruction's, known when compiling.
llvm::Value* emitReducePrecisionBits(llvm::IRBuilder<>& b, llvm::Value* bits, int srcExponentBits, int srcMantissaBits,
                                     int exponentBits, int mantissaBits);
// f16, bf16, f8 and f4: stored narrower than they compute (in f32).
bool smallFloat(ElementType t);

// Whether the emitter folds the reduce `instr` itself: one input, one
// element type throughout, and a reducer that is one add, multiply,
// maximum, minimum, and or or (and/or on integers and pred) of its
// parameters. Other reduces are library ops (backends/cpu/runtime_reduce.cc).
bool emitsReduce(const Instruction& instr);

// Whether the emitter computes the reduce-window `instr` itself
// (elemental_windows.cc): one input, one element type throughout (input,
// init, result, the reducer's parameters and root, all scalars in the
// reducer), a window without reversal. Others are library ops.
bool emitsReduceWindow(const Instruction& instr);

// Whether the emitter computes the select-and-scatter `instr` itself
// (elemental_windows.cc): scalar select and scatter functions of its
// types, a window without base dilation, reversal or negative padding.
bool emitsSelectAndScatter(const Instruction& instr);

// Whether the emitter computes the gather `instr` itself
// (elemental_gather.cc): integer start indices, and a slice of at least one
// element in each collapsed or batching dimension. The CPU backend gathers
// rows in its library instead; a GPU runs this as a kernel.
bool emitsGather(const Instruction& instr);

// Whether the emitter can compute the dot `instr` itself (ElementalEmitter::
// emitDot) in at most `maxProducts` multiply-adds: real operand types, two
// dense operands. Where a kernel's plain loop beats a library call is the
// backend's limit (backends/cpu/runtime_ops.cc); inside a scalar function
// (a reducer) every dot of those types is emitted.
bool emitsDot(const Instruction& instr, int64_t maxProducts);

template <typename Body>
Status ElementalEmitter::emitLoop(llvm::Value* begin, llvm::Value* end, const std::string& name, Body&& body,
                                  bool unroll) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = fn->getContext();
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  auto* header = llvm::BasicBlock::Create(ctx, name + ".header", fn);
  auto* bodyBlock = llvm::BasicBlock::Create(ctx, name + ".body", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, name + ".exit", fn);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* i = b_.CreatePHI(b_.getInt64Ty(), 2, name);
  i->addIncoming(begin, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(i, end), bodyBlock, exit);
  b_.SetInsertPoint(bodyBlock);
  cache_.emplace_back();
  Status s = body(static_cast<llvm::Value*>(i));
  cache_.pop_back();
  if (!s.ok()) return s;
  llvm::Value* next = b_.CreateAdd(i, i64(1), name + ".next", /*HasNUW=*/true, /*HasNSW=*/true);
  i->addIncoming(next, b_.GetInsertBlock());
  llvm::BranchInst* latch = b_.CreateBr(header);
  if (!unroll || !target_.unrollLoops) {
    // A distinct loop ID whose first operand is itself, as LLVM requires.
    llvm::Metadata* disable = llvm::MDNode::get(ctx, llvm::MDString::get(ctx, "llvm.loop.unroll.disable"));
    llvm::MDNode* id = llvm::MDNode::getDistinct(ctx, {nullptr, disable});
    id->replaceOperandWith(0, id);
    latch->setMetadata(llvm::LLVMContext::MD_loop, id);
  }
  b_.SetInsertPoint(exit);
  return okStatus();
}

template <typename Body>
Status ElementalEmitter::emitWhen(llvm::Value* cond, const std::string& name, Body&& body) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  auto* inside = llvm::BasicBlock::Create(fn->getContext(), name, fn);
  auto* after = llvm::BasicBlock::Create(fn->getContext(), name + ".end", fn);
  b_.CreateCondBr(cond, inside, after);
  b_.SetInsertPoint(inside);
  HLO_RETURN_IF_ERROR(inScope(std::forward<Body>(body)));
  b_.CreateBr(after);
  b_.SetInsertPoint(after);
  return okStatus();
}

template <typename Body>
StatusOr<llvm::Value*> ElementalEmitter::inCallee(const Computation& callee, const std::vector<const Instruction*>& args,
                                                  Body&& body) {
  for (size_t i = 0; i < args.size(); ++i) forwarded_[callee.parameter(static_cast<int>(i))] = args[i];
  std::vector<std::map<CacheKey, llvm::Value*>> own(1);
  std::swap(cache_, own);
  StatusOr<llvm::Value*> value = body();
  std::swap(cache_, own);
  for (size_t i = 0; i < args.size(); ++i) forwarded_.erase(callee.parameter(static_cast<int>(i)));
  return value;
}

template <typename Then, typename Else>
StatusOr<llvm::Value*> ElementalEmitter::emitIf(llvm::Value* cond, Then&& then, Else&& otherwise) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = fn->getContext();
  auto* thenBlock = llvm::BasicBlock::Create(ctx, "if.then", fn);
  auto* elseBlock = llvm::BasicBlock::Create(ctx, "if.else", fn);
  auto* merge = llvm::BasicBlock::Create(ctx, "if.end", fn);
  b_.CreateCondBr(cond, thenBlock, elseBlock);
  b_.SetInsertPoint(thenBlock);
  cache_.emplace_back();
  StatusOr<llvm::Value*> a = then();
  cache_.pop_back();
  if (!a.ok()) return a.status();
  llvm::BasicBlock* thenEnd = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(elseBlock);
  cache_.emplace_back();
  StatusOr<llvm::Value*> c = otherwise();
  cache_.pop_back();
  if (!c.ok()) return c.status();
  llvm::BasicBlock* elseEnd = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  llvm::PHINode* phi = b_.CreatePHI((*a)->getType(), 2);
  phi->addIncoming(*a, thenEnd);
  phi->addIncoming(*c, elseEnd);
  return static_cast<llvm::Value*>(phi);
}

}  // namespace hlo::jit
