// A block's threads working together, on the GPU and on the host grid
// runner (thread_block.h).
#include "backends/gpu/thread_block.h"

#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

namespace hlo::gpu {

ThreadBlock::ThreadBlock(jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, GridForm form, llvm::Value* block)
    : emitter_(emitter), b_(b), form_(form) {
  block_ = b_.CreateZExt(block, b_.getInt64Ty(), "block");
  if (form_ == GridForm::kNvptx)
    thread_ = b_.CreateZExt(b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {}), b_.getInt64Ty(),
                            "thread");
}

Status ThreadBlock::forEachThread(const std::function<Status(llvm::Value* thread)>& body) {
  llvm::Value* thread = form_ == GridForm::kNvptx ? thread_ : openLoop();
  return emitter_.inScope([&] { return body(thread); });
}

llvm::Value* ThreadBlock::openLoop() {
  if (loopHeader_) return thread_;
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::BasicBlock* before = b_.GetInsertBlock();
  loopHeader_ = llvm::BasicBlock::Create(b_.getContext(), "threads", fn);
  b_.CreateBr(loopHeader_);
  b_.SetInsertPoint(loopHeader_);
  llvm::PHINode* thread = b_.CreatePHI(b_.getInt64Ty(), 2, "thread");
  thread->addIncoming(b_.getInt64(0), before);
  thread_ = thread;
  return thread_;
}

void ThreadBlock::closeLoop() {
  if (!loopHeader_) return;
  llvm::Function* fn = b_.GetInsertBlock()->getParent();
  llvm::Value* next = b_.CreateAdd(thread_, b_.getInt64(1), "thread.next", /*HasNUW=*/true, /*HasNSW=*/true);
  llvm::cast<llvm::PHINode>(thread_)->addIncoming(next, b_.GetInsertBlock());
  auto* after = llvm::BasicBlock::Create(b_.getContext(), "threads.end", fn);
  b_.CreateCondBr(b_.CreateICmpULT(next, b_.getInt64(kThreadsPerBlock)), loopHeader_, after);
  b_.SetInsertPoint(after);
  loopHeader_ = nullptr;
  thread_ = nullptr;
}

Status ThreadBlock::forEachItem(llvm::Value* thread, int64_t count,
                                const std::function<Status(llvm::Value* item)>& body) {
  const int64_t rounds = (count + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return emitter_.emitLoop(b_.getInt64(0), b_.getInt64(rounds), "round", [&](llvm::Value* r) -> Status {
    llvm::Value* q = b_.CreateAdd(b_.CreateMul(r, b_.getInt64(kThreadsPerBlock)), thread);
    return emitter_.emitWhen(b_.CreateICmpULT(q, b_.getInt64(count)), "item", [&] { return body(q); });
  }, /*unroll=*/false);
}

void ThreadBlock::barrier() {
  if (form_ == GridForm::kNvptx) b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
  closeLoop();
}

void ThreadBlock::finish() { closeLoop(); }

ThreadBlock::PerThread ThreadBlock::perThread(llvm::Type* type, const std::string& name) {
  if (form_ == GridForm::kNvptx) return {type, emitter_.entryAlloca(type, name)};
  return {type, emitter_.entryAlloca(llvm::ArrayType::get(type, kThreadsPerBlock), name)};
}

llvm::Value* ThreadBlock::address(const PerThread& v, llvm::Value* thread) {
  if (form_ == GridForm::kNvptx) return v.storage;
  return b_.CreateInBoundsGEP(v.type, v.storage, thread);
}

llvm::Value* ThreadBlock::shared(llvm::Type* type, int64_t count, const std::string& name) {
  llvm::Type* array = llvm::ArrayType::get(type, static_cast<uint64_t>(count));
  if (form_ == GridForm::kHost) return emitter_.entryAlloca(array, name);
  llvm::Module& module = *b_.GetInsertBlock()->getModule();
  constexpr unsigned kSharedAddressSpace = 3;
  auto* global = new llvm::GlobalVariable(module, array, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(array), name, nullptr,
                                          llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
  // Stated, not left to the data layout: the optimizer takes an array of
  // more than 16 bytes as 16-byte aligned and merges its loads into
  // ld.shared.v2.f64 / .v4.f32, while the PTX printer declares it at its
  // element's alignment; an array placed after a smaller one would then
  // fault with a misaligned address.
  global->setAlignment(llvm::Align(16));
  return global;
}

llvm::Value* ThreadBlock::shuffleXor(llvm::Value* value, int d) {
  llvm::Type* type = value->getType();
  if (auto* st = llvm::dyn_cast<llvm::StructType>(type)) {
    llvm::Value* out = llvm::PoisonValue::get(st);
    for (unsigned i = 0; i < st->getNumElements(); ++i)
      out = b_.CreateInsertValue(out, shuffleXor(b_.CreateExtractValue(value, i), d), i);
    return out;
  }
  const unsigned bits = static_cast<unsigned>(type->getPrimitiveSizeInBits().getFixedValue());
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* wide = b_.getIntNTy(std::max(32u, (bits + 31) / 32 * 32));
  llvm::Value* asInt = type->isIntegerTy() ? value : b_.CreateBitCast(value, b_.getIntNTy(bits));
  asInt = b_.CreateZExtOrTrunc(asInt, wide);
  llvm::Value* result = llvm::ConstantInt::get(wide, 0);
  for (unsigned piece = 0; piece < wide->getIntegerBitWidth() / 32; ++piece) {
    llvm::Value* part = b_.CreateTrunc(b_.CreateLShr(asInt, piece * 32), i32);
    llvm::Value* got = b_.CreateIntrinsic(llvm::Intrinsic::nvvm_shfl_sync_bfly_i32, {},
                                          {b_.getInt32(0xffffffffu), part, b_.getInt32(d), b_.getInt32(0x1f)});
    result = b_.CreateOr(result, b_.CreateShl(b_.CreateZExt(got, wide), piece * 32));
  }
  result = b_.CreateTrunc(result, b_.getIntNTy(bits));
  return type->isIntegerTy() ? result : b_.CreateBitCast(result, type);
}

Status ThreadBlock::butterfly(const PerThread& v, int width, const Combine& combine) {
  if (form_ == GridForm::kNvptx) {
    // Every lane takes part in every exchange (shfl.sync names the whole
    // warp), so this runs outside any branch on the thread.
    llvm::Value* x = b_.CreateLoad(v.type, v.storage);
    for (int d = width / 2; d >= 1; d /= 2) {
      HLO_ASSIGN_OR_RETURN(x, combine(x, shuffleXor(x, d)));
    }
    b_.CreateStore(x, v.storage);
    return okStatus();
  }
  // Each round reads the values of the round before from a copy, as the
  // GPU's lanes exchange them all at once.
  PerThread before = perThread(v.type, "exchanged");
  for (int d = width / 2; d >= 1; d /= 2) {
    HLO_RETURN_IF_ERROR(forEachThread([&](llvm::Value* t) -> Status {
      b_.CreateStore(b_.CreateLoad(v.type, address(v, t)), address(before, t));
      return okStatus();
    }));
    closeLoop();
    HLO_RETURN_IF_ERROR(forEachThread([&](llvm::Value* t) -> Status {
      llvm::Value* partner = b_.CreateXor(t, b_.getInt64(d));
      llvm::Value* mine = b_.CreateLoad(v.type, address(v, t));
      HLO_ASSIGN_OR_RETURN(llvm::Value * x, combine(mine, b_.CreateLoad(v.type, address(before, partner))));
      b_.CreateStore(x, address(v, t));
      return okStatus();
    }));
    closeLoop();
  }
  return okStatus();
}

}  // namespace hlo::gpu
