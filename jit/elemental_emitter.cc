// The elemental emitter: dispatch and data movement. The scalar semantics
// of the elementwise opcodes are in elemental_scalar.cc, the sums (reduce,
// the element dot) in elemental_sums.cc.
#include "jit/elemental_emitter.h"

#include <algorithm>
#include <cassert>
#include <complex>
#include <functional>
#include <string>
#include <unordered_set>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include "hlo/computation.h"
#include "hlo/indexing.h"
#include "hlo/shape_inference.h"

namespace hlo::jit {


namespace {

// Element types the emitter computes with (dynamic dimensions at their
// bounds): pred, integers of every width
// (s2 and s4 compute as LLVM i2 and i4, so they wrap as they must), every
// real float type, and c64/c128.
bool supportedType(ElementType t) {
  return t == ElementType::kPred || isInteger(t) || isFloat(t) || isComplex(t);
}

Status checkTypes(const Instruction& instr) {
  auto check = [&](const Shape& s) -> Status {
    if (!s.isArray()) return cannotCompile(instr, "a " + s.toString(false) + " value is not an array");
    if (!supportedType(s.type()))
      return cannotCompile(instr, "element type " + std::string(elementTypeName(s.type())) + " is not supported");
    return okStatus();
  };
  HLO_RETURN_IF_ERROR(check(instr.shape()));
  for (const Instruction* op : instr.operands()) HLO_RETURN_IF_ERROR(check(op->shape()));
  return okStatus();
}

// Shape inference lets floats of different precisions meet in data
// movement (XLA's mixed precision); moving bits does not convert them, so
// the values an op moves must have its result's element type (as the
// interpreter requires: interp/data_checks.h). The index operands of the
// dynamic slices are not moved.
Status sameElementTypeMoved(const Instruction& instr) {
  Opcode op = instr.opcode();
  int moved = op == Opcode::kConcatenate ? instr.operandCount()
              : op == Opcode::kPad || op == Opcode::kDynamicUpdateSlice ? 2
                                                                       : 1;
  ElementType want = instr.shape().type();
  for (int i = 0; i < moved && i < instr.operandCount(); ++i) {
    ElementType got = instr.operand(i)->shape().type();
    if (got != want)
      return cannotCompile(instr, "operand " + std::to_string(i) + " has element type " +
                                      std::string(elementTypeName(got)) + ", not the result's " +
                                      std::string(elementTypeName(want)) + " (data movement does not convert)");
  }
  return okStatus();
}

bool untiled(const Shape& s) { return !s.layout() || (s.layout()->tiles.empty() && s.layout()->elementSizeBits == 0); }

// Dimension numbers from the most major to the most minor.
std::vector<int64_t> majorToMinor(const Shape& s) {
  std::vector<int64_t> m2m = s.minorToMajor();
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

// A layout that stores the array in row-major order (or none written).
bool rowMajor(const Shape& s) {
  if (!s.layout()) return true;
  std::vector<int64_t> m2m = s.minorToMajor();
  for (size_t i = 0; i < m2m.size(); ++i)
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  return s.layout()->tiles.empty();
}

}  // namespace

llvm::Type* ElementalEmitter::storageType(ElementType t) {
  llvm::LLVMContext& c = module_.getContext();
  switch (t) {
    case ElementType::kF16: return llvm::Type::getHalfTy(c);
    case ElementType::kF32: return llvm::Type::getFloatTy(c);
    case ElementType::kF64: return llvm::Type::getDoubleTy(c);
    case ElementType::kC64: return llvm::StructType::get(c, {llvm::Type::getFloatTy(c), llvm::Type::getFloatTy(c)});
    case ElementType::kC128:
      return llvm::StructType::get(c, {llvm::Type::getDoubleTy(c), llvm::Type::getDoubleTy(c)});
    default: return llvm::Type::getIntNTy(c, storageBytes(t) * 8);
  }
}

// pred computes as i1; a sub-byte integer as an integer of its width
// (stored one per byte, signed ones sign-extended).
llvm::Type* ElementalEmitter::valueType(ElementType t) {
  if (t == ElementType::kPred) return b_.getInt1Ty();
  if (isInteger(t) && bitWidth(t) < storageBytes(t) * 8) return b_.getIntNTy(bitWidth(t));
  return storageType(t);
}

llvm::Value* ElementalEmitter::fromStorage(llvm::Value* stored, ElementType t) {
  if (t == ElementType::kPred) return b_.CreateICmpNE(stored, b_.getInt8(0));
  llvm::Type* vt = valueType(t);
  return vt == stored->getType() ? stored : b_.CreateTrunc(stored, vt);
}

llvm::Value* ElementalEmitter::toStorage(llvm::Value* value, ElementType t) {
  llvm::Type* st = storageType(t);
  if (value->getType() == st) return value;
  return isSigned(t) ? b_.CreateSExt(value, st) : b_.CreateZExt(value, st);
}

llvm::Value* ElementalEmitter::load(llvm::Value* base, llvm::Value* linear, ElementType t) {
  llvm::Type* st = storageType(t);
  return fromStorage(b_.CreateLoad(st, b_.CreateInBoundsGEP(st, base, linear)), t);
}

void ElementalEmitter::store(llvm::Value* value, llvm::Value* base, llvm::Value* linear, ElementType t) {
  llvm::Type* st = storageType(t);
  b_.CreateStore(toStorage(value, t), b_.CreateInBoundsGEP(st, base, linear));
}

llvm::Value* ElementalEmitter::linearize(const IrIndex& index) {
  if (index.linear) return index.linear;
  assert(index.multi.size() == index.dims.size() && "an index of another rank");
  llvm::Value* linear = i64(0);
  for (size_t d = 0; d < index.dims.size(); ++d)
    linear = b_.CreateAdd(b_.CreateMul(linear, i64(index.dims[d]), "", true, true), index.multi[d], "", true, true);
  return linear;
}

IrIndex ElementalEmitter::delinearize(llvm::Value* linear, const std::vector<int64_t>& dims) {
  // Unused components cost nothing: LLVM deletes the divisions nobody reads.
  IrIndex index{dims, std::vector<llvm::Value*>(dims.size()), linear};
  llvm::Value* rest = linear;
  for (size_t d = dims.size(); d-- > 0;) {
    index.multi[d] = d == 0 ? rest : b_.CreateURem(rest, i64(dims[d]));
    if (d > 0) rest = b_.CreateUDiv(rest, i64(dims[d]));
  }
  return index;
}

// A reshape keeps row-major order within each of its groups of dimensions
// (reshapeGroups, hlo/indexing.h: [11, 6912] and [1, 11, 1, 6912] pair 11
// with 1, 11 and 6912 with 1, 6912). A dimension that is a group of its own
// on both sides is copied, with no division, so a loop along it (a kernel's
// row) stays a vector loop; other groups divide their linear position among
// their operand dimensions.
IrIndex ElementalEmitter::reshapedIndex(const IrIndex& index, const std::vector<int64_t>& dims) {
  const std::vector<int64_t>& out = index.dims;
  std::vector<llvm::Value*> multi(dims.size());
  for (const ReshapeGroup& g : reshapeGroups(dims, out)) {
    if (g.inEnd - g.inBegin == 1 && g.outEnd - g.outBegin == 1) {
      multi[g.inBegin] = index.multi[g.outBegin];
      continue;
    }
    llvm::Value* linear = i64(0);
    for (size_t d = g.outBegin; d < g.outEnd; ++d)
      linear = b_.CreateAdd(b_.CreateMul(linear, i64(out[d]), "", true, true), index.multi[d], "", true, true);
    for (size_t d = g.inEnd; d-- > g.inBegin;) {
      multi[d] = dims[d] == 1 ? i64(0) : d == g.inBegin ? linear : b_.CreateURem(linear, i64(dims[d]));
      if (d > g.inBegin) linear = b_.CreateUDiv(linear, i64(dims[d]));
    }
  }
  return IrIndex{dims, std::move(multi), linearize(index)};
}

llvm::AllocaInst* ElementalEmitter::entryAlloca(llvm::Type* type, const std::string& name) {
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::IRBuilder<> entry(&fn->getEntryBlock(), fn->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

ElementalEmitter::CacheKey ElementalEmitter::cacheKey(const Instruction& instr, const IrIndex& index) {
  CacheKey key{&instr, index.multi};
  if (index.multi.empty() && index.linear) key.second.push_back(index.linear);
  return key;
}

llvm::Value* ElementalEmitter::cached(const Instruction& instr, const IrIndex& index) const {
  CacheKey key = cacheKey(instr, index);
  for (auto scope = cache_.rbegin(); scope != cache_.rend(); ++scope)
    if (auto it = scope->find(key); it != scope->end()) return it->second;
  return nullptr;
}

// An operand that emitElementwise reads at its user's own index (not a
// scalar bound) and that is itself elementwise, computed from its operands.
static bool readAtSameIndex(const Instruction& user, const Instruction& op) {
  return op.opcode() != Opcode::kMap && opcodeCategory(op.opcode()) == OpCategory::kElementwise &&
         op.shape().isArray() && op.shape().dims() == user.shape().dims() && op.operandCount() > 0;
}

Status ElementalEmitter::emitElementwiseOperandsFirst(const Instruction& instr, const IrIndex& index) {
  // Depth-first, operands in order, each emitted after its own operands:
  // the order the recursion would emit them in, so the IR is the same.
  struct Frame {
    const Instruction* instr;
    int next = 0;  // the operand to visit next
  };
  std::vector<Frame> stack{{&instr}};
  std::unordered_set<const Instruction*> visited{&instr};
  while (!stack.empty()) {
    Frame& top = stack.back();
    const Instruction& at = *top.instr;
    if (top.next < at.operandCount()) {
      const Instruction& op = *at.operand(top.next++);
      if (readAtSameIndex(at, op) && !arrays_.count(&op) && !values_.count(&op) && !forwarded_.count(&op) &&
          visited.insert(&op).second &&
          !cached(op, index))
        stack.push_back({&op});
      continue;
    }
    stack.pop_back();
    if (&at != &instr) HLO_RETURN_IF_ERROR(emit(at, index).status());
  }
  return okStatus();
}

StatusOr<llvm::Value*> ElementalEmitter::emit(const Instruction& instr, const IrIndex& index) {
  if (llvm::Value* v = cached(instr, index)) return v;
  if (opcodeCategory(instr.opcode()) == OpCategory::kElementwise && instr.opcode() != Opcode::kMap &&
      !arrays_.count(&instr) && !values_.count(&instr) && !forwarded_.count(&instr))
    HLO_RETURN_IF_ERROR(emitElementwiseOperandsFirst(instr, index));
  HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitUncached(instr, index));
  cache_.back()[cacheKey(instr, index)] = v;
  return v;
}

StatusOr<llvm::Value*> ElementalEmitter::emitUncached(const Instruction& instr, const IrIndex& index) {
  if (auto it = values_.find(&instr); it != values_.end()) return it->second;
  if (auto it = arrays_.find(&instr); it != arrays_.end()) {
    if (!instr.shape().isArray()) return cannotCompile(instr, "reading a tuple is not supported");
    IrIndex own = index;
    own.dims = instr.shape().dims();
    if (index.linear && index.dims != own.dims) own.linear = nullptr;
    if (!own.linear && own.multi.size() != own.dims.size())
      return cannotCompile(instr, "internal error: read with an index of rank " + std::to_string(own.multi.size()));
    llvm::Value* at = linearize(own);
    if (it->second.first) at = b_.CreateSub(at, it->second.first, "", true, true);
    return load(it->second.base, at, instr.shape().type());
  }
  if (auto it = forwarded_.find(&instr); it != forwarded_.end()) return emit(*it->second, index);
  // A fusion, a tuple element and a conditional are typed by what they read.
  Opcode op = instr.opcode();
  if (op != Opcode::kFusion && op != Opcode::kGetTupleElement && op != Opcode::kConditional)
    HLO_RETURN_IF_ERROR(checkTypes(instr));
  const Attributes& a = instr.attrs();
  const std::vector<int64_t>& outDims = instr.shape().dims();
  auto operandAt = [&](int i, const IrIndex& idx) { return emit(*instr.operand(i), idx); };
  // An index into operand i from per-dimension values.
  auto indexOf = [&](int i, std::vector<llvm::Value*> multi) {
    return IrIndex{instr.operand(i)->shape().dims(), std::move(multi), nullptr};
  };

  // Data movement keeps the element type; an ill-typed instance (which the
  // interpreter refuses when it runs: interp/data_checks.h) would make
  // ill-typed IR.
  static constexpr Opcode kMovesData[] = {
      Opcode::kBroadcast, Opcode::kReshape, Opcode::kCopy,         Opcode::kTranspose,
      Opcode::kSlice,     Opcode::kReverse, Opcode::kConcatenate,  Opcode::kPad,
      Opcode::kDynamicSlice, Opcode::kDynamicUpdateSlice, Opcode::kSetDimensionSize};
  if (std::ranges::find(kMovesData, op) != std::end(kMovesData)) {
    if (Status typed = checkDeclaredShape(instr); !typed.ok()) return cannotCompile(instr, typed.message());
    if (Status same = sameElementTypeMoved(instr); !same.ok()) return same;
  }
  // Every opcode is named: a new one does not compile until the emitter
  // says what it does with it.
  switch (op) {
    case Opcode::kParameter:
      return cannotCompile(instr, "a parameter with no array bound to it");
    case Opcode::kConstant:
      return emitConstant(instr, index);
    case Opcode::kReplicaId:
    case Opcode::kPartitionId:
      // One device: replica 0 of partition 0.
      return static_cast<llvm::Value*>(llvm::ConstantInt::get(valueType(instr.shape().type()), 0));
    case Opcode::kIota: {
      int64_t d = a.getInt(AttrKey::kIotaDimension);
      if (d < 0 || d >= instr.shape().rank()) return cannotCompile(instr, "iota_dimension out of range");
      return convert(instr, ElementType::kS64, instr.shape().type(), index.multi[d]);
    }
    case Opcode::kBroadcast: {
      const std::vector<int64_t>& dims = a.getInts(AttrKey::kDimensions);
      std::vector<llvm::Value*> multi;
      for (int64_t d : dims) multi.push_back(index.multi[d]);
      return operandAt(0, indexOf(0, multi));
    }
    case Opcode::kBitcast: {
      // The element at the same position in memory: the output index's
      // offset in the output's layout, read back in the operand's layout.
      // Tiling pads dimensions, so only a bitcast between identical tiled
      // shapes (the same bytes read the same way) has defined values; an
      // element type of the same width reinterprets each element's bits.
      const Shape& in = instr.operand(0)->shape();
      if (instr.shape() == in) return operandAt(0, index);
      if (instr.shape().elementCount() != in.elementCount())
        return cannotCompile(instr, "element counts differ");
      if (!untiled(instr.shape()) || !untiled(in))
        return cannotCompile(instr, "bitcasts between tiled layouts of different shapes read tiling padding");
      ElementType from = in.type(), to = instr.shape().type();
      if (from != to && (bitWidth(from) != bitWidth(to) || isComplex(from) || isComplex(to) ||
                         from == ElementType::kPred || to == ElementType::kPred))
        return cannotCompile(instr, "element types of different widths");
      auto reinterpret = [&](StatusOr<llvm::Value*> v) -> StatusOr<llvm::Value*> {
        if (!v.ok() || from == to) return v;
        return b_.CreateBitCast(*v, valueType(to));
      };
      if (rowMajor(instr.shape()) && rowMajor(in))
        return reinterpret(operandAt(0, delinearize(linearize(index), in.dims())));
      std::vector<int64_t> outOrder = majorToMinor(instr.shape()), inOrder = majorToMinor(in);
      llvm::Value* offset = i64(0);
      for (int64_t d : outOrder)
        offset = b_.CreateAdd(b_.CreateMul(offset, i64(outDims[d])), index.multi[d]);
      std::vector<int64_t> physical;
      for (int64_t d : inOrder) physical.push_back(in.dim(static_cast<int>(d)));
      IrIndex p = delinearize(offset, physical);
      std::vector<llvm::Value*> multi(in.rank());
      for (size_t k = 0; k < inOrder.size(); ++k) multi[inOrder[k]] = p.multi[k];
      return reinterpret(operandAt(0, indexOf(0, multi)));
    }
    case Opcode::kReshape: {
      if (instr.shape().elementCount() != instr.operand(0)->shape().elementCount())
        return cannotCompile(instr, "element counts differ");
      return operandAt(0, reshapedIndex(index, instr.operand(0)->shape().dims()));
    }
    case Opcode::kCopy:
      return operandAt(0, index);
    // Dynamic shapes run at their bounds: a dynamic dimension holds its
    // bound's worth of elements, set-dimension-size only marks it, and
    // get-dimension-size is the bound. jit/compile.cc refuses modules where
    // a runtime size could differ from its bound.
    case Opcode::kSetDimensionSize:
      return operandAt(0, index);
    case Opcode::kGetDimensionSize: {
      const std::vector<int64_t>& dims = a.getInts(AttrKey::kDimensions);
      const Shape& in = instr.operand(0)->shape();
      if (dims.size() != 1 || dims[0] < 0 || dims[0] >= in.rank()) return cannotCompile(instr, "bad dimensions");
      return static_cast<llvm::Value*>(llvm::ConstantInt::get(valueType(instr.shape().type()), in.dim(static_cast<int>(dims[0]))));
    }
    case Opcode::kTranspose: {
      const std::vector<int64_t>& perm = a.getInts(AttrKey::kDimensions);
      std::vector<llvm::Value*> multi(perm.size());
      for (size_t i = 0; i < perm.size(); ++i) multi[perm[i]] = index.multi[i];
      return operandAt(0, indexOf(0, multi));
    }
    case Opcode::kSlice: {
      const AttrValue* slice = a.find(AttrKey::kSlice);
      if (!slice || slice->slices.size() != outDims.size()) return cannotCompile(instr, "bad slice attribute");
      std::vector<llvm::Value*> multi;
      for (size_t d = 0; d < outDims.size(); ++d) {
        const SliceDim& s = slice->slices[d];
        multi.push_back(b_.CreateAdd(i64(s.start), b_.CreateMul(index.multi[d], i64(s.stride))));
      }
      return operandAt(0, indexOf(0, multi));
    }
    case Opcode::kReverse: {
      std::vector<llvm::Value*> multi = index.multi;
      for (int64_t d : a.getInts(AttrKey::kDimensions))
        multi[d] = b_.CreateSub(i64(outDims[d] - 1), multi[d]);
      return operandAt(0, indexOf(0, multi));
    }
    case Opcode::kConcatenate:
      return emitConcatenate(instr, index, 0, 0);
    case Opcode::kPad:
      return emitPad(instr, index);
    case Opcode::kDynamicSlice:
      return emitDynamicSlice(instr, index);
    case Opcode::kDynamicUpdateSlice:
      return emitDynamicUpdateSlice(instr, index);
    case Opcode::kReduce:
      return emitReduce(instr, index);
    case Opcode::kReduceWindow:
      return emitReduceWindow(instr, index);
    case Opcode::kSelectAndScatter:
      return emitSelectAndScatter(instr, index);
    case Opcode::kGather:
      return emitGather(instr, index);
    case Opcode::kDot:
    case Opcode::kScaledDot:
    case Opcode::kRaggedDot:
      return emitDot(instr, index);
    case Opcode::kConvolution:
      return emitConvolution(instr, index);
    case Opcode::kBitcastConvert:
      return emitBitcastConvert(instr, index);
    case Opcode::kFft:
      return emitFft(instr, index);
    case Opcode::kFusion:
      return emitNestedFusion(instr, index);
    case Opcode::kGetTupleElement:
      return emitTupleElement(*instr.operand(0), a.getInt(AttrKey::kIndex), index);
    case Opcode::kConditional:
      return emitConditional(instr, index);
    case Opcode::kMap:
      return emitMap(instr, index);
    case Opcode::kAbs: case Opcode::kAcos: case Opcode::kAcosh: case Opcode::kAdd: case Opcode::kAnd:
    case Opcode::kAsin: case Opcode::kAsinh: case Opcode::kAtan: case Opcode::kAtan2: case Opcode::kAtanh:
    case Opcode::kCbrt: case Opcode::kCeil: case Opcode::kClamp:
    case Opcode::kClz: case Opcode::kCompare: case Opcode::kComplex: case Opcode::kConvert: case Opcode::kCos:
    case Opcode::kCosh: case Opcode::kDivide: case Opcode::kErf: case Opcode::kExp: case Opcode::kExpm1:
    case Opcode::kFloor: case Opcode::kImag: case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLog1p:
    case Opcode::kLogistic: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kMulhi:
    case Opcode::kMultiply: case Opcode::kNegate: case Opcode::kNot: case Opcode::kOr:
    case Opcode::kPopulationCount: case Opcode::kPower: case Opcode::kReal: case Opcode::kReducePrecision:
    case Opcode::kRemainder: case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven:
    case Opcode::kRsqrt: case Opcode::kSelect: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kSign: case Opcode::kSin: case Opcode::kSinh:
    case Opcode::kSqrt: case Opcode::kStochasticConvert: case Opcode::kSubtract: case Opcode::kTan:
    case Opcode::kTanh: case Opcode::kXor:
      return emitElementwise(instr, index);
    // Not a function of one element: library ops and runtime steps of the
    // backend, or not compiled at all.
    case Opcode::kAddDependency: case Opcode::kAfterAll: case Opcode::kAllGather: case Opcode::kAllGatherDone:
    case Opcode::kAllGatherStart: case Opcode::kAllReduce: case Opcode::kAllReduceDone:
    case Opcode::kAllReduceStart: case Opcode::kAllToAll: case Opcode::kAsyncDone: case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate: case Opcode::kBatchNormGrad: case Opcode::kBatchNormInference:
    case Opcode::kBatchNormTraining: case Opcode::kCall: case Opcode::kCholesky:
    case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute: case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectivePermuteStart: case Opcode::kCollectiveReduce:
    case Opcode::kCopyDone: case Opcode::kCopyStart: case Opcode::kCustomCall: case Opcode::kDomain:
    case Opcode::kDynamicReshape: case Opcode::kInfeed:
    case Opcode::kOptimizationBarrier: case Opcode::kOutfeed: case Opcode::kRaggedAllToAll:
    case Opcode::kRecv: case Opcode::kRecvDone: case Opcode::kReduceScatter:
    case Opcode::kRng: case Opcode::kRngBitGenerator:
    case Opcode::kRngGetAndUpdateState: case Opcode::kScan: case Opcode::kScatter:
    case Opcode::kSend: case Opcode::kSendDone: case Opcode::kShuffle:
    case Opcode::kSort: case Opcode::kTopK: case Opcode::kTriangularSolve: case Opcode::kTuple:
    case Opcode::kWhile:
      return cannotCompile(instr);
  }
  return cannotCompile(instr, "internal error: an opcode out of range");
}

// map applies to_apply to the operands' elements at the same index (a
// scalar operand to every element). Each element is converted to the type
// its parameter declares, as the interpreter converts it, and goes through
// a stack slot bound as the computation's parameter, so the computation is
// emitted as written; its value is converted to the map's element type.
StatusOr<llvm::Value*> ElementalEmitter::emitMap(const Instruction& instr, const IrIndex& index) {
  const Computation* f = instr.attrs().getComputation(AttrKey::kToApply);
  if (!f || f->parameterCount() != instr.operandCount())
    return cannotCompile(instr, "to_apply must take one parameter per operand");
  std::vector<llvm::Value*> args;
  for (int i = 0; i < instr.operandCount(); ++i) {
    const Shape& op = instr.operand(i)->shape();
    const Shape& p = f->parameter(i)->shape();
    bool scalar = op.rank() == 0;
    if (!scalar && op.dims() != instr.shape().dims())
      return cannotCompile(instr, "operands must have the result's dimensions or be scalars");
    if (!p.isArray() || p.rank() != 0) return cannotCompile(instr, "to_apply parameters must be scalars");
    HLO_ASSIGN_OR_RETURN(llvm::Value * v, emit(*instr.operand(i), scalar ? scalarIndex() : index));
    if (p.type() != op.type()) {
      HLO_ASSIGN_OR_RETURN(v, convert(instr, op.type(), p.type(), v));
    }
    args.push_back(v);
  }
  const Shape& result = f->root()->shape();
  if (!result.isArray() || result.rank() != 0) return cannotCompile(instr, "to_apply must return a scalar");
  HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> values, callScalar(*f, args));
  if (result.type() == instr.shape().type()) return values[0];
  return convert(instr, result.type(), instr.shape().type(), values[0]);
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::callScalar(const Computation& f,
                                                                 const std::vector<llvm::Value*>& args) {
  const Instruction& root = *f.root();
  if (f.parameterCount() != static_cast<int>(args.size()))
    return cannotCompile(root, "its computation takes " + std::to_string(f.parameterCount()) + " parameters, " +
                                   std::to_string(args.size()) + " given");
  const int results = root.shape().isTuple() ? static_cast<int>(root.shape().tupleElements().size()) : 1;
  for (int i = 0; i < results; ++i) {
    const Shape& r = root.shape().isTuple() ? root.shape().tupleElements()[static_cast<size_t>(i)] : root.shape();
    if (!r.isArray() || r.rank() != 0) return cannotCompile(root, "a scalar function's results are scalars");
  }
  for (size_t i = 0; i < args.size(); ++i) bindValue(f.parameter(static_cast<int>(i)), args[i]);
  std::vector<llvm::Value*> values;
  StatusOr<llvm::Value*> done = inCallee(f, {}, [&]() -> StatusOr<llvm::Value*> {
    for (int i = 0; i < results; ++i) {
      // A tuple root: a tuple, or a nested fusion or call that returns one.
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, root.shape().isTuple() ? emitTupleElement(root, i, scalarIndex())
                                                                   : emit(root, scalarIndex()));
      values.push_back(v);
    }
    return static_cast<llvm::Value*>(nullptr);
  });
  for (size_t i = 0; i < args.size(); ++i) unbindValue(f.parameter(static_cast<int>(i)));
  if (!done.ok()) return done.status();
  return values;
}

// A fusion inside a fused computation (as other compilers' dumps nest
// them) is emitted inline: its computation's parameters read the fusion's
// operands.
StatusOr<llvm::Value*> ElementalEmitter::emitNestedFusion(const Instruction& instr, const IrIndex& index) {
  const Computation* f = instr.calledComputations().empty() ? nullptr : instr.calledComputations()[0];
  if (!f || f->parameterCount() != instr.operandCount())
    return cannotCompile(instr, "a fusion needs one operand per parameter of its computation");
  if (!f->root()->shape().isArray() || f->root()->shape() != instr.shape())
    return cannotCompile(instr, "a nested fusion must compute one array of its own shape");
  return inCallee(*f, {instr.operands().begin(), instr.operands().end()}, [&] { return emit(*f->root(), index); });
}

// Element `index` of tuple element `i` of `producer`, when the tuple is
// made in the same computation (a tuple instruction, or a nested fusion
// whose root is one) or is a forwarded parameter of one.
StatusOr<llvm::Value*> ElementalEmitter::emitTupleElement(const Instruction& producer, int64_t i,
                                                          const IrIndex& index) {
  if (auto it = forwarded_.find(&producer); it != forwarded_.end()) return emitTupleElement(*it->second, i, index);
  if (!producer.shape().isTuple() || i < 0 || i >= static_cast<int64_t>(producer.shape().tupleElements().size()))
    return cannotCompile(producer, "tuple index " + std::to_string(i) + " out of range");
  if (producer.opcode() == Opcode::kTuple) return emit(*producer.operand(static_cast<int>(i)), index);
  if (producer.opcode() != Opcode::kFusion || producer.calledComputations().empty())
    return cannotCompile(producer, "a tuple read element by element must be built in the same computation");
  const Computation* f = producer.calledComputations()[0];
  if (f->parameterCount() != producer.operandCount())
    return cannotCompile(producer, "a fusion needs one operand per parameter of its computation");
  return inCallee(*f, {producer.operands().begin(), producer.operands().end()}, [&] { return emitTupleElement(*f->root(), i, index); });
}

// conditional, element by element: only the chosen branch's root element
// is computed, its parameter reading the branch's operand. A pred selects
// true_computation or false_computation; an s32 index selects a branch of
// branch_computations, and one out of range the last, as in the
// interpreter.
StatusOr<llvm::Value*> ElementalEmitter::emitConditional(const Instruction& instr, const IrIndex& index) {
  std::vector<Computation*> branches = instr.attrs().conditionalBranches();
  if (!instr.shape().isArray() || branches.empty() || static_cast<int>(branches.size()) + 1 != instr.operandCount())
    return cannotCompile(instr, "an element-wise conditional needs an array result and one operand per branch");
  for (const Computation* c : branches)
    if (!c || c->parameterCount() != 1 || c->root()->shape() != instr.shape())
      return cannotCompile(instr, "each branch must take one parameter and return the conditional's shape");
  const Instruction& selector = *instr.operand(0);
  if (!selector.shape().isArray() || selector.shape().rank() != 0 ||
      (selector.shape().type() != ElementType::kPred && !isInteger(selector.shape().type())))
    return cannotCompile(instr, "the selector must be a pred or integer scalar");
  HLO_ASSIGN_OR_RETURN(llvm::Value * chosen, emit(selector, scalarIndex()));
  // The branch to run as an i64: pred true is branch 0 (true_computation).
  llvm::Value* branch;
  if (selector.shape().type() == ElementType::kPred) {
    branch = b_.CreateSelect(chosen, i64(0), i64(1));
  } else {
    branch = isSigned(selector.shape().type()) ? b_.CreateSExt(chosen, b_.getInt64Ty())
                                               : b_.CreateZExt(chosen, b_.getInt64Ty());
    int64_t last = static_cast<int64_t>(branches.size()) - 1;
    llvm::Value* outside = b_.CreateOr(b_.CreateICmpSLT(branch, i64(0)), b_.CreateICmpSGT(branch, i64(last)));
    branch = b_.CreateSelect(outside, i64(last), branch);
  }
  std::function<StatusOr<llvm::Value*>(size_t)> run = [&](size_t k) -> StatusOr<llvm::Value*> {
    auto body = [&]() -> StatusOr<llvm::Value*> {
      const Computation& c = *branches[k];
      return inCallee(c, {instr.operand(static_cast<int>(k) + 1)}, [&] { return emit(*c.root(), index); });
    };
    if (k + 1 == branches.size()) return body();
    return emitIf(b_.CreateICmpEQ(branch, i64(static_cast<int64_t>(k))), body, [&]() { return run(k + 1); });
  };
  return run(0);
}

StatusOr<llvm::Value*> ElementalEmitter::emitElementwise(const Instruction& instr, const IrIndex& index) {
  // Operands have the result's dimensions, except scalar bounds of clamp
  // and a scalar predicate of select, which XLA still accepts.
  std::vector<llvm::Value*> ops;
  for (const Instruction* op : instr.operands()) {
    bool scalar = op->shape().rank() == 0 && instr.shape().rank() != 0;
    if (!scalar && op->shape().dims() != instr.shape().dims())
      return cannotCompile(instr, "operand %" + op->name() + " has other dimensions than the result");
    IrIndex idx = scalar ? scalarIndex() : index;
    HLO_ASSIGN_OR_RETURN(llvm::Value * v, emit(*op, idx));
    ops.push_back(v);
  }
  ElementType t = instr.operandCount() ? instr.operand(0)->shape().type() : instr.shape().type();
  Opcode op = instr.opcode();
  // abs, real and imag of a complex value give its component type; complex
  // builds one from two reals; compare gives pred.
  bool typeChanging = op == Opcode::kCompare || op == Opcode::kConvert || op == Opcode::kBitcastConvert ||
                      op == Opcode::kIsFinite || op == Opcode::kComplex || op == Opcode::kStochasticConvert ||
                      (isComplex(t) && (op == Opcode::kAbs || op == Opcode::kReal || op == Opcode::kImag));
  // Operands of mixed float precision, which HLO allows, are converted
  // first, as the interpreter does: compare's to the wider of the two, the
  // others' (arithmetic, select, clamp) to the result type.
  ElementType common = instr.shape().type();
  if (op == Opcode::kCompare) {
    ElementType other = instr.operand(1)->shape().type();
    common = isFloat(t) && isFloat(other) && bitWidth(other) > bitWidth(t) ? other : t;
  }
  if (!typeChanging || op == Opcode::kCompare) {
    for (int i = op == Opcode::kSelect ? 1 : 0; i < instr.operandCount(); ++i) {
      ElementType from = instr.operand(i)->shape().type();
      if (from == common) continue;
      HLO_ASSIGN_OR_RETURN(ops[i], convert(instr, from, common, ops[i]));
    }
    t = common;
  }
  switch (instr.opcode()) {
    case Opcode::kComplex:
      return makeComplex(instr.shape().type(), ops[0], ops[1]);
    case Opcode::kStochasticConvert:
      return stochasticConvert(instr, ops[0], ops[1]);
    case Opcode::kSelect:
      return b_.CreateSelect(ops[0], ops[1], ops[2]);
    case Opcode::kClamp:
      return clamp(instr.shape().type(), ops[0], ops[1], ops[2]);
    case Opcode::kCompare:
      return compare(instr, t, ops[0], ops[1]);
    case Opcode::kConvert:
    case Opcode::kBitcastConvert:
      return convert(instr, t, instr.shape().type(), ops[0]);
    default:
      break;
  }
  if (ops.size() == 1) return unary(instr, t, ops[0]);
  if (ops.size() == 2) return binary(instr.opcode(), instr, t, ops[0], ops[1]);
  return cannotCompile(instr);
}

StatusOr<llvm::Value*> ElementalEmitter::emitConstant(const Instruction& instr, const IrIndex& index) {
  if (!instr.hasLiteral() || instr.literal().elided())
    return cannotCompile(instr, "the constant's values are left out");
  const Literal& lit = instr.literal();
  ElementType t = lit.type();
  llvm::Type* st = storageType(t);
  auto scalarAt = [&](int64_t i) -> llvm::Value* {
    if (isComplex(t)) {
      std::complex<double> z = lit.toComplex(i);
      llvm::Type* component = st->getStructElementType(0);
      return makeComplex(t, llvm::ConstantFP::get(component, z.real()), llvm::ConstantFP::get(component, z.imag()));
    }
    uint64_t bits = lit.bitsAt(i);
    llvm::Value* v = llvm::ConstantInt::get(b_.getIntNTy(storageBytes(t) * 8), bits);
    if (st->isFloatingPointTy()) return b_.CreateBitCast(v, st);
    return fromStorage(v, t);
  };
  if (lit.elementCount() == 1) return scalarAt(0);
  // Larger constants live in a global of their storage bytes.
  std::string name = "const." + instr.name();
  llvm::GlobalVariable* g = module_.getGlobalVariable(name, true);
  if (!g) {
    llvm::StringRef bytes(reinterpret_cast<const char*>(lit.untypedData()), lit.byteSize());
    auto* data = llvm::ConstantDataArray::getString(module_.getContext(), bytes, /*AddNull=*/false);
    g = new llvm::GlobalVariable(module_, data->getType(), true, llvm::GlobalValue::PrivateLinkage, data, name);
    g->setAlignment(llvm::Align(64));
  }
  IrIndex own = index;
  own.dims = instr.shape().dims();
  if (index.linear && index.dims != own.dims) own.linear = nullptr;
  if (!own.linear && own.multi.size() != own.dims.size())
    return cannotCompile(instr, "internal error: read with an index of rank " + std::to_string(own.multi.size()));
  return load(g, linearize(own), t);
}

StatusOr<llvm::Value*> ElementalEmitter::emitConcatenate(const Instruction& instr, const IrIndex& index,
                                                         int operand, int64_t offset) {
  const std::vector<int64_t>& dimAttr = instr.attrs().getInts(AttrKey::kDimensions);
  if (dimAttr.size() != 1) return cannotCompile(instr, "bad dimensions attribute");
  int64_t d = dimAttr[0];
  auto read = [&]() -> StatusOr<llvm::Value*> {
    IrIndex idx{instr.operand(operand)->shape().dims(), index.multi, nullptr};
    idx.multi[d] = b_.CreateSub(index.multi[d], i64(offset));
    return emit(*instr.operand(operand), idx);
  };
  int64_t end = offset + instr.operand(operand)->shape().dim(static_cast<int>(d));
  if (operand + 1 == instr.operandCount()) return read();
  return emitIf(b_.CreateICmpSLT(index.multi[d], i64(end)), read,
                [&]() { return emitConcatenate(instr, index, operand + 1, end); });
}

StatusOr<llvm::Value*> ElementalEmitter::emitPad(const Instruction& instr, const IrIndex& index) {
  const AttrValue* pad = instr.attrs().find(AttrKey::kPadding);
  const Shape& in = instr.operand(0)->shape();
  if (!pad || pad->padding.size() != static_cast<size_t>(in.rank())) return cannotCompile(instr, "bad padding");
  // Output position o reads operand element (o - low) / (interior + 1) when
  // that divides exactly and lands inside the operand.
  llvm::Value* inside = b_.getTrue();
  std::vector<llvm::Value*> multi;
  for (int d = 0; d < in.rank(); ++d) {
    const PadDim& p = pad->padding[d];
    llvm::Value* t = b_.CreateSub(index.multi[d], i64(p.low));
    llvm::Value* q = t;
    inside = b_.CreateAnd(inside, b_.CreateICmpSGE(t, i64(0)));
    if (p.interior > 0) {
      q = b_.CreateSDiv(t, i64(p.interior + 1));
      inside = b_.CreateAnd(inside, b_.CreateICmpEQ(b_.CreateSRem(t, i64(p.interior + 1)), i64(0)));
    }
    inside = b_.CreateAnd(inside, b_.CreateICmpSLT(q, i64(in.dim(d))));
    multi.push_back(q);
  }
  return emitIf(
      inside, [&]() { return emit(*instr.operand(0), IrIndex{in.dims(), multi, nullptr}); },
      [&]() { return emit(*instr.operand(1), scalarIndex()); });
}

StatusOr<std::vector<llvm::Value*>> ElementalEmitter::startIndices(const Instruction& instr, int first,
                                                                   const std::vector<int64_t>& sizes) {
  const Shape& in = instr.operand(0)->shape();
  // One integer scalar per dimension, or (the old form) one index vector.
  bool vectorForm = instr.operandCount() == first + 1 && instr.operand(first)->shape().rank() == 1 &&
                    instr.operand(first)->shape().dim(0) == in.rank();
  if (!vectorForm && instr.operandCount() != first + in.rank())
    return cannotCompile(instr, "expected one scalar start index per dimension");
  std::vector<llvm::Value*> starts;
  for (int d = 0; d < in.rank(); ++d) {
    const Instruction& op = *instr.operand(vectorForm ? first : first + d);
    if ((!vectorForm && op.shape().rank() != 0) || !isInteger(op.shape().type()))
      return cannotCompile(instr, "start indices must be integers");
    IrIndex at = vectorForm ? IrIndex{op.shape().dims(), {i64(d)}, i64(d)} : scalarIndex();
    HLO_ASSIGN_OR_RETURN(llvm::Value * v, emit(op, at));
    v = isSigned(op.shape().type()) ? b_.CreateSExt(v, b_.getInt64Ty()) : b_.CreateZExt(v, b_.getInt64Ty());
    // XLA clamps the start so the whole window lies inside the operand.
    llvm::Value* hi = i64(std::max<int64_t>(in.dim(d) - sizes[d], 0));
    v = b_.CreateSelect(b_.CreateICmpSLT(v, i64(0)), i64(0), v);
    v = b_.CreateSelect(b_.CreateICmpSGT(v, hi), hi, v);
    starts.push_back(v);
  }
  return starts;
}

StatusOr<llvm::Value*> ElementalEmitter::emitDynamicSlice(const Instruction& instr, const IrIndex& index) {
  HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts, startIndices(instr, 1, instr.shape().dims()));
  std::vector<llvm::Value*> multi;
  for (size_t d = 0; d < starts.size(); ++d) multi.push_back(b_.CreateAdd(starts[d], index.multi[d]));
  return emit(*instr.operand(0), IrIndex{instr.operand(0)->shape().dims(), multi, nullptr});
}

StatusOr<llvm::Value*> ElementalEmitter::emitDynamicUpdateSlice(const Instruction& instr, const IrIndex& index) {
  const Shape& update = instr.operand(1)->shape();
  HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts, startIndices(instr, 2, update.dims()));
  llvm::Value* inside = b_.getTrue();
  std::vector<llvm::Value*> multi;
  for (size_t d = 0; d < starts.size(); ++d) {
    llvm::Value* t = b_.CreateSub(index.multi[d], starts[d]);
    inside = b_.CreateAnd(inside, b_.CreateICmpSGE(t, i64(0)));
    inside = b_.CreateAnd(inside, b_.CreateICmpSLT(t, i64(update.dim(static_cast<int>(d)))));
    multi.push_back(t);
  }
  return emitIf(
      inside, [&]() { return emit(*instr.operand(1), IrIndex{update.dims(), multi, nullptr}); },
      [&]() { return emit(*instr.operand(0), index); });
}

}  // namespace hlo::jit
