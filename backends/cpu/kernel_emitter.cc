// Kernel loops around the elemental emitter.
//
// Algorithm:
//   1. Bind the arrays the kernel reads (a fusion's parameters, or the
//      instruction's operands) to the input pointers.
//   2. Pick the loop: when everything inside is elementwise on arrays of the
//      output's dimensions (or scalars), one flat loop over the elements, which
//      LLVM vectorizes; otherwise an outer loop over rows (all dimensions but
//      the last) and an inner loop along the last dimension, so the index
//      arithmetic of transposes, slices and reductions is done once per row.
//   3. Compute every output element with the elemental emitter and store it.
//      A multi-output fusion whose outputs differ in dimensions gets one
//      loop per output instead, as one work unit.
//   4. In the loop over rows, whose inner loops count the row's elements
//      from 0 (a constant trip count: no remainder loops to emit and
//      compile), before a row's elements, compute the values
//      the row reads through row broadcasts (row fusion,
//      hlo/passes/fusion_rules.h): the emitter's cache then hands the
//      elements the row's value, so a reduction fused there (softmax's row
//      sum) runs once per row, while its row is still in the L1/L2 cache.
//      An expensive value that several of the row's loops read (softmax's
//      exponential: the row sum's and the output's) is computed once into a
//      row buffer, and read from there.
//   5. Outputs of 32 MiB or more (beyond the cache) are written with
//      non-temporal (streaming) stores: an ordinary store first reads the
//      line it writes (read-for-ownership), a third more memory traffic for
//      a kernel that reads one array and writes one, and the output could
//      not stay in the cache anyway. LLVM's vectorizer does not vectorize a
//      loop of non-temporal scalar stores, and x86 streams only whole aligned
//      vectors. So the loop stores plainly, through a pointer LLVM is told is
//      64-byte aligned (checked before the loop: outputs that are not, or the
//      elements before a thread's first line, take a plain loop); once the
//      loop is vectorized and its stores are known aligned, they are marked
//      non-temporal (markStreamingStores, after optimization).
//   6. A row loop that passes over each row several times (a fused
//      reduction, a row buffer) reading inputs larger than the cache
//      prefetches the next row of those inputs as it goes: every vector load
//      of such an input is preceded by a prefetch of the same address one
//      row on (prefetchNextRows, after optimization). The first pass over a
//      row then finds it in the cache instead of waiting on memory, and
//      memory is busy while the core computes the later passes: softmax's
//      exponentials leave it idle otherwise. Issued all at once at the start
//      of a row, the same prefetches fill the load queue and stall the
//      computation; spread over the loads they cost a slot each.
//   7. Inputs and outputs are apart (separateInputsFromOutputs), but for an
//      instruction buffer assignment may update in place
//      (updatesOperandInPlace: a dynamic-update-slice).
//   8. Streamed rows run in a pipeline (PipelinedRows): one loop reads the
//      next row, computes this row's buffer and writes an output row, so
//      memory and the core work side by side.
#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/pipelined_rows.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include "hlo/computation.h"
#include "hlo/passes/buffer_assignment.h"
#include "hlo/passes/fusion_rules.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

// The bytes of `instr`'s operands and result arrays.
int64_t bytesMoved(const Instruction& instr) {
  int64_t bytes = 0;
  auto add = [&](const Shape& shape) {
    for (const Shape& leaf : shape.elementsOrSelf())
      if (leaf.isArray()) bytes += leaf.elementCount() * storageBytes(leaf.type());
  };
  add(instr.shape());
  for (const Instruction* op : instr.operands()) add(op->shape());
  return bytes;
}

// True when every element is computed from the same position of same-shaped
// arrays (or from scalars), so a flat loop needs no index arithmetic.
bool flatLoopFits(const Instruction& instr, const std::vector<int64_t>& dims) {
  auto fits = [&](const Instruction& i) {
    switch (i.opcode()) {
      case Opcode::kParameter: case Opcode::kTuple: return true;
      case Opcode::kConstant: return i.shape().isArray() && (i.shape().rank() == 0 || i.shape().dims() == dims);
      case Opcode::kBroadcast: return i.operand(0)->shape().rank() == 0;
      default: break;
    }
    if (opcodeCategory(i.opcode()) != OpCategory::kElementwise || i.opcode() == Opcode::kMap) return false;
    return i.shape().dims() == dims || i.shape().rank() == 0;
  };
  if (instr.opcode() != Opcode::kFusion) return fits(instr);
  for (const auto& i : instr.calledComputations()[0]->instructions())
    if (!fits(*i)) return false;
  return true;
}

// Step 7: tells LLVM that the kernel's loads from its inputs and stores to
// its outputs touch different memory (alias scopes: one for the inputs, one
// for the outputs), and that its inputs do not change while it runs
// (invariant loads). Without it, a store may change any input, so a value
// read from an input at every element (a dynamic slice's start index) is
// read again after every store and the loop stays scalar (as in 64
// dynamic slices concatenated, XLA's dynamic_slice_loop benchmark).
void separateInputsFromOutputs(llvm::Function& fn, const std::vector<llvm::Value*>& inputs,
                               const std::vector<llvm::Value*>& outputs) {
  llvm::LLVMContext& ctx = fn.getContext();
  llvm::MDBuilder md(ctx);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain("hlo.kernel");
  llvm::MDNode* in = llvm::MDNode::get(ctx, {md.createAnonymousAliasScope(domain, "inputs")});
  llvm::MDNode* out = llvm::MDNode::get(ctx, {md.createAnonymousAliasScope(domain, "outputs")});
  std::unordered_set<const llvm::Value*> inputSet(inputs.begin(), inputs.end()), outputSet(outputs.begin(), outputs.end());
  for (llvm::BasicBlock& block : fn)
    for (llvm::Instruction& i : block) {
      auto mark = [&](const llvm::Value* pointer, bool isStore) {
        const llvm::Value* object = llvm::getUnderlyingObject(pointer, 0);
        if (!isStore && inputSet.count(object)) {
          i.setMetadata(llvm::LLVMContext::MD_alias_scope, in);
          i.setMetadata(llvm::LLVMContext::MD_noalias, out);
          i.setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx, {}));
        } else if (isStore && outputSet.count(object)) {
          i.setMetadata(llvm::LLVMContext::MD_alias_scope, out);
          i.setMetadata(llvm::LLVMContext::MD_noalias, in);
        }
      };
      if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&i)) mark(load->getPointerOperand(), false);
      else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&i)) mark(store->getPointerOperand(), true);
    }
}

// Step 5: outputs of at least kStreamingBytes (kernel_emitter.h) are
// streamed. Marks a kernel whose outputs are streamed, for markStreamingStores.
constexpr const char* kStreamedOutputs = "hlo.streamed-outputs";

// Step 6: marks a kernel that prefetches next rows, for prefetchNextRows;
// for each such input k, attribute "<kPrefetchNextRow>.<k>" holds the bytes
// of its row.
constexpr const char* kPrefetchNextRow = "hlo.prefetch-next-row";
std::string prefetchAttribute(int64_t input) { return std::string(kPrefetchNextRow) + "." + std::to_string(input); }

// Step 4's row buffers: the expensive values (exponentials, divisions,
// ...) of the output's dimensions that more than one loop over the row
// evaluates (the output's and a fused reduction's, as softmax's exponential
// is read by the row sum and by the output), each computed once into a
// buffer of a row (which stays in the L1/L2 cache) and read from there.
// Rows of more than kRowBufferBytes are recomputed instead.
constexpr int64_t kRowBufferBytes = 64 << 10;

std::unordered_set<const Instruction*> rowBuffered(const Computation& fused,
                                                   std::unordered_map<const Instruction*, fusion::RowReading>& readings,
                                                   const std::vector<const Instruction*>& outputs, int64_t inner) {
  // The loops over a row, by what they compute: the outputs, and the
  // operand of each reduction computed once per row.
  std::vector<std::vector<const Instruction*>> loops{outputs};
  for (const auto& i : fused.instructions())
    if (fusion::rowFusibleReduce(*i) && readings[i.get()] == fusion::RowReading::kOncePerRow)
      loops.push_back({i->operand(0)});
  // Each loop evaluates the values read in the row that its roots reach
  // (not through the row's values, computed before the loops).
  std::unordered_map<const Instruction*, int> loopsOf;
  for (const auto& roots : loops) {
    std::unordered_set<const Instruction*> seen;
    std::vector<const Instruction*> stack = roots;
    while (!stack.empty()) {
      const Instruction* x = stack.back();
      stack.pop_back();
      if (readings[x] != fusion::RowReading::kInRow || !seen.insert(x).second) continue;
      ++loopsOf[x];
      stack.insert(stack.end(), x->operands().begin(), x->operands().end());
    }
  }
  std::unordered_set<const Instruction*> out;
  for (const auto& [x, n] : loopsOf)
    if (n > 1 && fusion::isExpensive(*x) && inner * storageBytes(x->shape().type()) <= kRowBufferBytes) out.insert(x);
  return out;
}

// Step 4: the work of a row before its elements (RowWork,
// pipelined_rows.h), in the fused computation's order (operands first).
RowWork rowWorkOf(const Instruction& instr, const std::vector<const Instruction*>& outputs,
                  const std::vector<int64_t>& dims) {
  RowWork work;
  if (instr.opcode() != Opcode::kFusion || dims.empty()) return work;
  const Computation& fused = *instr.calledComputations()[0];
  auto readings = fusion::rowReadings(fused);
  std::unordered_set<const Instruction*> buffered = rowBuffered(fused, readings, outputs, dims.back());
  for (const auto& i : fused.instructions()) {
    if (buffered.count(i.get())) work.push_back({i.get(), true});
    if (fusion::isRowBroadcast(*i) && readings[i.get()] == fusion::RowReading::kInRow)
      work.push_back({i->operand(0), false});
  }
  return work;
}

// One kernel being emitted: its function, the arrays it reads and writes,
// and how its stores are written. emit() runs the algorithm's steps in the
// header's order; on failure the function is erased.
class KernelBuilder {
 public:
  using IndexAt = std::function<jit::IrIndex(llvm::Value*)>;

  KernelBuilder(llvm::Module& module, const Instruction& instr, const std::string& name)
      : module_(module),
        ctx_(module.getContext()),
        instr_(instr),
        fn_(createFunction(module, name)),
        b_(llvm::BasicBlock::Create(ctx_, "entry", fn_)),
        target_(targetFor(instr)),
        emitter_(b_, module, target_) {}

  StatusOr<KernelInfo> emit() {
    Status built = build();
    if (!built.ok()) {
      fn_->eraseFromParent();
      return built;
    }
    return info_;
  }

 private:
  static llvm::Function* createFunction(llvm::Module& module, const std::string& name) {
    llvm::LLVMContext& ctx = module.getContext();
    llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
    auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, llvm::Type::getInt64Ty(ctx),
                                                                        llvm::Type::getInt64Ty(ctx)}, false);
    llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
    fn->addFnAttr(llvm::Attribute::NoUnwind);
    return fn;
  }

  // A kernel that moves kStreamingBytes or more waits on memory: its loops
  // are not unrolled, which runs no slower there and takes LLVM far less
  // time to compile.
  static jit::EmitterTarget targetFor(const Instruction& instr) {
    jit::EmitterTarget target = kCpuEmitterTarget;
    target.unrollLoops = bytesMoved(instr) < kStreamingBytes;
    return target;
  }

  Status build() {
    HLO_RETURN_IF_ERROR(bindInputs());
    HLO_RETURN_IF_ERROR(findOutputs());
    planStreaming();
    HLO_RETURN_IF_ERROR(emitLoops());
    return finish();
  }

  // Step 1: the arrays the kernel reads, bound to its input pointers.
  Status bindInputs() {
    llvm::Value* inputs = fn_->getArg(0);
    if (instr_.opcode() != Opcode::kFusion) {
      for (int i = 0; i < instr_.operandCount(); ++i) {
        inPtrs_.push_back(loadPointer(inputs, i));
        emitter_.bindArray(instr_.operand(i), inPtrs_.back());
      }
      root_ = &instr_;
      return okStatus();
    }
    const Computation* fused = instr_.calledComputations().empty() ? nullptr : instr_.calledComputations()[0];
    if (!fused || fused->parameterCount() != instr_.operandCount())
      return jit::cannotCompile(instr_, "malformed fusion");
    for (int i = 0; i < fused->parameterCount(); ++i) {
      if (!fused->parameter(i)->shape().isArray())
        return jit::cannotCompile(instr_, "a fusion parameter is not an array");
      inPtrs_.push_back(loadPointer(inputs, i));
      emitter_.bindArray(fused->parameter(i), inPtrs_.back());
    }
    root_ = fused->root();
    return okStatus();
  }

  // The outputs: one array, or the elements of a tuple root.
  Status findOutputs() {
    outputs_ = {root_};
    if (root_->opcode() == Opcode::kTuple) outputs_.assign(root_->operands().begin(), root_->operands().end());
    if (outputs_.empty()) return jit::cannotCompile(instr_, "a kernel needs at least one output");
    dims_ = outputs_[0]->shape().dims();
    for (const Instruction* out : outputs_) {
      if (!out->shape().isArray()) return jit::cannotCompile(instr_, "an output is not an array");
      sameDims_ = sameDims_ && out->shape().dims() == dims_;
    }
    for (size_t k = 0; k < outputs_.size(); ++k) outPtrs_.push_back(loadPointer(fn_->getArg(1), static_cast<int>(k)));
    for (int64_t d : dims_) elements_ *= d;
    return okStatus();
  }

  // Step 5: whether the outputs are streamed. Positions that are multiples
  // of lineElements_ start a 64-byte line in every output (when the outputs
  // themselves start on one, as the runtime's buffers do).
  void planStreaming() {
    int64_t outputBytes = 0, smallest = 64;
    bool streamable = sameDims_ && llvm::Triple(module_.getTargetTriple()).isX86();
    for (const Instruction* out : outputs_) {
      int64_t size = storageBytes(out->shape().type());
      outputBytes += out->shape().elementCount() * size;
      streamable = streamable && size > 0 && 64 % size == 0;
      smallest = std::min(smallest, size);
    }
    streamed_ = streamable && outputBytes >= kStreamingBytes;
    lineElements_ = streamed_ ? 64 / smallest : 1;
    if (streamed_) fn_->addFnAttr(kStreamedOutputs);
    // Whether each row (of the last dimension) is whole lines in every
    // output: then, the outputs starting on a line (KernelInfo::alignedOutputs,
    // which the runtime checks), every row starts one, and only the streamed
    // code is emitted for rows, not also a plain copy of it that cannot run
    // (and that LLVM would compile all the same).
    rowsAreLines_ = streamed_ && !dims_.empty();
    for (const Instruction* out : outputs_)
      rowsAreLines_ = rowsAreLines_ && dims_.back() * storageBytes(out->shape().type()) % 64 == 0;
  }

  // Steps 2-4, 6 and 8: the loop nest.
  Status emitLoops() {
    // Outputs of different dimensions (a reduce beside its elementwise
    // sibling): one loop per output, run as a single work unit.
    if (!sameDims_) return emitLoopPerOutput();
    const RowWork rowWork = rowWorkOf(instr_, outputs_, dims_);
    // One row and nothing to do before its elements: the flat loop, whose
    // units are elements, splits it across threads, where a row loop would
    // be one unit.
    if (flatLoopFits(instr_, dims_) || dims_.size() <= 1 || (elements_ == dims_.back() && rowWork.empty())) {
      info_.units = elements_;
      return outputLoop(fn_->getArg(2), fn_->getArg(3), "i",
                        [&](llvm::Value* i) { return emitter_.delinearize(i, dims_); });
    }
    return emitRowLoops(rowWork);
  }

  // Step 3, outputs of different dimensions.
  Status emitLoopPerOutput() {
    info_.units = 1;
    elements_ = 0;
    for (size_t k = 0; k < outputs_.size(); ++k) {
      const Shape& shape = outputs_[k]->shape();
      elements_ += shape.elementCount();
      HLO_RETURN_IF_ERROR(emitter_.emitLoop(emitter_.i64(0), emitter_.i64(shape.elementCount()), "out",
                                            [&](llvm::Value* i) -> Status {
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.emit(*outputs_[k], emitter_.delinearize(i, shape.dims())));
        emitter_.store(v, outPtrs_[k], i, shape.type());
        return okStatus();
      }));
    }
    return okStatus();
  }

  // Steps 2 and 4: a loop over rows, each row's work before its elements,
  // then its output; step 6's prefetches; step 8's pipeline where it pays.
  Status emitRowLoops(const RowWork& rowWork) {
    const int64_t inner = dims_.back();
    const std::vector<int64_t> outerDims(dims_.begin(), dims_.end() - 1);
    info_.units = inner == 0 ? 0 : elements_ / inner;
    // Step 4: each buffered value with its row buffer (null when not buffered).
    std::vector<std::pair<const Instruction*, llvm::Value*>> rowBuffers;
    for (auto [value, buffered] : rowWork) {
      llvm::AllocaInst* buffer = nullptr;
      if (buffered) {
        int64_t bytes = inner * storageBytes(value->shape().type());
        buffer = emitter_.entryAlloca(llvm::ArrayType::get(b_.getInt8Ty(), bytes), "row." + value->name());
        buffer->setAlignment(llvm::Align(64));
      }
      rowBuffers.push_back({value, buffer});
    }
    if (!rowWork.empty()) markPrefetchedInputs();
    // Step 8: streamed rows of whole lines with a row buffer or a fold to do
    // a row ahead run in a pipeline, from its first row, which starts a line.
    std::optional<PipelinedRows> pipeline;
    if (rowsAreLines_ && !rowWork.empty())
      pipeline.emplace(
          emitter_, b_, rowWork, dims_,
          [this](const jit::IrIndex& index, const std::vector<llvm::Value*>& bases, llvm::Value* at) {
            return storeAll(index, bases, at);
          },
          [this](llvm::Value* from) { return linesFrom(from); });
    if (pipeline && pipeline->worthIt()) {
      info_.alignedOutputs = true;
      llvm::Value* first = fn_->getArg(2);
      return branch(
          b_.CreateICmpSLT(first, fn_->getArg(3)),
          [&] { return emitter_.inScope([&] { return pipeline->emit(first, fn_->getArg(3)); }); },
          [] { return okStatus(); });
    }
    // Row by row.
    return emitter_.emitLoop(fn_->getArg(2), fn_->getArg(3), "row", [&](llvm::Value* row) -> Status {
      jit::IrIndex outer = emitter_.delinearize(row, outerDims);
      llvm::Value* rowStart = b_.CreateMul(row, emitter_.i64(inner), "", true, true);
      // Output position i of the row.
      auto at = [&](llvm::Value* i) {
        jit::IrIndex index{dims_, outer.multi, i};
        index.multi.push_back(b_.CreateSub(i, rowStart, "", true, true));
        return index;
      };
      for (auto [value, buffer] : rowBuffers) {
        if (!buffer) {
          // Cached under the index the broadcasts read it at: the row's.
          HLO_RETURN_IF_ERROR(emitter_.emit(*value, jit::IrIndex{outerDims, outer.multi, nullptr}).status());
          continue;
        }
        ElementType t = value->shape().type();
        HLO_RETURN_IF_ERROR(
            emitter_.emitLoop(emitter_.i64(0), emitter_.i64(inner), "buffer", [&](llvm::Value* j) -> Status {
              HLO_ASSIGN_OR_RETURN(llvm::Value * v,
                                   emitter_.emit(*value, at(b_.CreateAdd(rowStart, j, "", true, true))));
              emitter_.store(v, buffer, j, t);
              return okStatus();
            }));
        emitter_.bindArray(value, buffer, rowStart);  // read from the buffer from now on
      }
      return rowOutputLoop(rowStart, at);
    });
  }

  // Step 6: a fusion that passes over each row before its output prefetches
  // the next row of its large inputs laid out as the output is.
  void markPrefetchedInputs() {
    if (instr_.opcode() != Opcode::kFusion) return;
    const Computation& fused = *instr_.calledComputations()[0];
    for (int k = 0; k < fused.parameterCount(); ++k) {
      const Shape& shape = fused.parameter(k)->shape();
      const int64_t size = storageBytes(shape.type());
      if (shape.dims() != dims_ || size < 1 || shape.elementCount() * size < kStreamingBytes) continue;
      fn_->addFnAttr(kPrefetchNextRow);
      fn_->addFnAttr(prefetchAttribute(k), std::to_string(dims_.back() * size));
    }
  }

  // Step 7, and what ends every kernel.
  Status finish() {
    // Outputs apart from inputs, unless buffer assignment may update the
    // operand in place.
    if (!updatesOperandInPlace(instr_)) separateInputsFromOutputs(*fn_, inPtrs_, outPtrs_);
    // Streaming stores are weakly ordered: fenced before the kernel returns
    // and another thread may read the output.
    if (streamed_) b_.CreateCall(llvm::Intrinsic::getDeclaration(&module_, llvm::Intrinsic::x86_sse_sfence));
    b_.CreateRetVoid();
    int64_t reads = 0;
    for (const Instruction* op : instr_.operands())
      if (op->shape().isArray()) reads += op->shape().elementCount();
    info_.workPerUnit = info_.units > 0 ? std::max<int64_t>(1, std::max(elements_, reads) / info_.units) : 1;
    std::string problems;
    llvm::raw_string_ostream os(problems);
    if (llvm::verifyFunction(*fn_, &os))
      return errorStatus("internal error: bad IR for %" + instr_.name() + ": " + problems);
    return okStatus();
  }

  // --- The loops' parts.

  llvm::Value* loadPointer(llvm::Value* array, int i) {
    llvm::Type* ptr = llvm::PointerType::get(ctx_, 0);
    return b_.CreateLoad(ptr, b_.CreateInBoundsGEP(ptr, array, b_.getInt64(i)));
  }

  // Computes the element at `index` of every output and stores output k's
  // at position `at` of bases[k] (the output, or its tile).
  Status storeAll(const jit::IrIndex& index, const std::vector<llvm::Value*>& bases, llvm::Value* at) {
    for (size_t k = 0; k < outputs_.size(); ++k) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter_.emit(*outputs_[k], index));
      emitter_.store(v, bases[k], at, outputs_[k]->shape().type());
    }
    return okStatus();
  }

  // Whether output position `at` starts a 64-byte line in every output.
  llvm::Value* linesStartAt(llvm::Value* at) {
    llvm::Value* all = b_.getTrue();
    for (size_t k = 0; k < outputs_.size(); ++k) {
      llvm::Value* address = b_.CreateAdd(b_.CreatePtrToInt(outPtrs_[k], b_.getInt64Ty()),
                                          b_.CreateMul(at, emitter_.i64(storageBytes(outputs_[k]->shape().type()))));
      all = b_.CreateAnd(all, b_.CreateICmpEQ(b_.CreateAnd(address, 63), emitter_.i64(0)));
    }
    return all;
  }

  // Each output's pointer to its position `from`, which starts a line, and
  // which LLVM is told is 64-byte aligned: the vectorized stores through it,
  // counted from 0, are then known to be aligned (and become streaming
  // stores after optimization, markStreamingStores).
  std::vector<llvm::Value*> linesFrom(llvm::Value* from) {
    std::vector<llvm::Value*> lines;
    for (size_t k = 0; k < outputs_.size(); ++k) {
      llvm::Value* offset = b_.CreateMul(from, emitter_.i64(storageBytes(outputs_[k]->shape().type())));
      llvm::Value* line = b_.CreateInBoundsGEP(b_.getInt8Ty(), outPtrs_[k], offset);
      b_.CreateAlignmentAssumption(module_.getDataLayout(), line, 64);
      lines.push_back(line);
    }
    return lines;
  }

  // The loop over output positions [from, from + n), which start a line.
  Status streamingLoop(llvm::Value* from, llvm::Value* n, const std::string& loopName, const IndexAt& at) {
    std::vector<llvm::Value*> lines = linesFrom(from);
    return emitter_.emitLoop(emitter_.i64(0), n, loopName, [&](llvm::Value* j) {
      return storeAll(at(b_.CreateAdd(from, j, "", true, true)), lines, j);
    });
  }

  // Runs `aligned` when `cond` holds, else `plain`; the builder is left after.
  Status branch(llvm::Value* cond, const std::function<Status()>& aligned, const std::function<Status()>& plain) {
    auto* yes = llvm::BasicBlock::Create(ctx_, "lines", fn_);
    auto* no = llvm::BasicBlock::Create(ctx_, "unaligned", fn_);
    auto* done = llvm::BasicBlock::Create(ctx_, "written", fn_);
    b_.CreateCondBr(cond, yes, no);
    b_.SetInsertPoint(yes);
    HLO_RETURN_IF_ERROR(aligned());
    b_.CreateBr(done);
    b_.SetInsertPoint(no);
    HLO_RETURN_IF_ERROR(plain());
    b_.CreateBr(done);
    b_.SetInsertPoint(done);
    return okStatus();
  }

  // The loop over output positions [lo, hi), each element computed by
  // `at(i)` (its index) and stored. Streamed, the positions before the first
  // line start are stored plainly, the rest by streamingLoop (all plainly
  // when the outputs are not aligned).
  Status outputLoop(llvm::Value* lo, llvm::Value* hi, const std::string& loopName, const IndexAt& at) {
    auto plain = [&](llvm::Value* end) {
      return emitter_.emitLoop(lo, end, loopName, [&](llvm::Value* i) { return storeAll(at(i), outPtrs_, i); });
    };
    if (!streamed_) return plain(hi);
    llvm::Value* up = b_.CreateAnd(b_.CreateAdd(lo, emitter_.i64(lineElements_ - 1)), emitter_.i64(-lineElements_));
    llvm::Value* from = b_.CreateSelect(b_.CreateICmpSLT(up, hi), up, hi);
    llvm::Value* aligned = linesStartAt(from);
    HLO_RETURN_IF_ERROR(plain(b_.CreateSelect(aligned, from, hi)));
    return branch(aligned, [&] { return streamingLoop(from, b_.CreateSub(hi, from), loopName + ".lines", at); },
                  [] { return okStatus(); });
  }

  // The output loop over a row, [rowStart, rowStart + inner), counted from 0:
  // a loop of a constant trip count needs no remainder and no vector
  // epilogue, so LLVM emits (and compiles) a third of the code. Streamed, a
  // row that starts a line (every row, when a row is whole lines) goes
  // through streamingLoop.
  Status rowOutputLoop(llvm::Value* rowStart, const IndexAt& at) {
    llvm::Value* inner = emitter_.i64(dims_.back());
    auto plain = [&] {
      return emitter_.emitLoop(emitter_.i64(0), inner, "col", [&](llvm::Value* j) {
        llvm::Value* i = b_.CreateAdd(rowStart, j, "", true, true);
        return storeAll(at(i), outPtrs_, i);
      });
    };
    if (!streamed_) return plain();
    if (rowsAreLines_) {
      info_.alignedOutputs = true;
      return streamingLoop(rowStart, inner, "col.lines", at);
    }
    return branch(linesStartAt(rowStart), [&] { return streamingLoop(rowStart, inner, "col.lines", at); }, plain);
  }

  llvm::Module& module_;
  llvm::LLVMContext& ctx_;
  const Instruction& instr_;
  llvm::Function* fn_;
  llvm::IRBuilder<> b_;
  jit::EmitterTarget target_;
  jit::ElementalEmitter emitter_;
  KernelInfo info_;

  const Instruction* root_ = nullptr;  // the instruction, or its fused computation's root
  std::vector<llvm::Value*> inPtrs_, outPtrs_;
  std::vector<const Instruction*> outputs_;
  std::vector<int64_t> dims_;  // outputs_[0]'s
  bool sameDims_ = true;       // every output has dims_
  int64_t elements_ = 1;       // elements written
  bool streamed_ = false;
  int64_t lineElements_ = 1;   // elements of the smallest output type in a 64-byte line, streamed
  bool rowsAreLines_ = false;
};

}  // namespace

StatusOr<KernelInfo> emitKernel(llvm::Module& module, const Instruction& instr, const std::string& name) {
  return KernelBuilder(module, instr, name).emit();
}

// A store into output k of a kernel stores through the pointer loaded from
// outputs[k] (the kernel's second argument). A vector store there that LLVM
// knows to be aligned to its size is streamed; what stays scalar or
// unaligned (a plain loop's, or a remainder's) stays an ordinary store.
void markStreamingStores(llvm::Module& module) {
  for (llvm::Function& fn : module) {
    if (fn.isDeclaration() || !fn.hasFnAttribute(kStreamedOutputs) || fn.arg_size() < 2) continue;
    llvm::Value* outputs = fn.getArg(1);
    const llvm::DataLayout& layout = module.getDataLayout();
    for (llvm::BasicBlock& block : fn)
      for (llvm::Instruction& i : block) {
        auto* store = llvm::dyn_cast<llvm::StoreInst>(&i);
        if (!store || !store->getValueOperand()->getType()->isVectorTy()) continue;
        uint64_t bytes = layout.getTypeStoreSize(store->getValueOperand()->getType()).getFixedValue();
        if (bytes < 16 || !llvm::isPowerOf2_64(bytes) || store->getAlign().value() < bytes) continue;
        auto* pointer = llvm::dyn_cast<llvm::LoadInst>(llvm::getUnderlyingObject(store->getPointerOperand()));
        if (!pointer || pointer->getPointerOperand()->stripInBoundsConstantOffsets() != outputs) continue;
        store->setMetadata(llvm::LLVMContext::MD_nontemporal,
                           llvm::MDNode::get(module.getContext(),
                                             llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                                 llvm::Type::getInt32Ty(module.getContext()), 1))));
      }
  }
}

// Step 6. The input pointers a kernel loads from inputs[k] (its first
// argument, k at byte offset 8k); a vector load through one whose row bytes
// the kernel's attributes give gets a prefetch of the address a row on (a
// plain GEP: past the last row it points beyond the array, which a
// prefetch may).
void prefetchNextRows(llvm::Module& module) {
  const llvm::DataLayout& layout = module.getDataLayout();
  for (llvm::Function& fn : module) {
    if (fn.isDeclaration() || !fn.hasFnAttribute(kPrefetchNextRow) || fn.arg_size() < 1) continue;
    std::vector<std::pair<llvm::LoadInst*, int64_t>> loads;
    for (llvm::BasicBlock& block : fn)
      for (llvm::Instruction& i : block) {
        auto* load = llvm::dyn_cast<llvm::LoadInst>(&i);
        if (!load || !load->getType()->isVectorTy()) continue;
        auto* base = llvm::dyn_cast<llvm::LoadInst>(llvm::getUnderlyingObject(load->getPointerOperand()));
        if (!base) continue;
        llvm::APInt offset(64, 0);
        llvm::Value* slot = base->getPointerOperand()->stripAndAccumulateInBoundsConstantOffsets(layout, offset);
        llvm::Attribute row = fn.getFnAttribute(prefetchAttribute(offset.getSExtValue() / 8));
        if (slot == fn.getArg(0) && row.isStringAttribute())
          loads.push_back({load, std::stoll(row.getValueAsString().str())});
      }
    for (auto [load, bytes] : loads) {
      llvm::IRBuilder<> b(load);
      llvm::Value* next = b.CreateGEP(b.getInt8Ty(), load->getPointerOperand(), b.getInt64(bytes));
      // Read, keep in every cache level, data.
      b.CreateIntrinsic(llvm::Intrinsic::prefetch, {next->getType()},
                        {next, b.getInt32(0), b.getInt32(3), b.getInt32(1)});
    }
  }
}

}  // namespace hlo::cpu
