// The threads of one block working together, in either of the kernel's two
// forms (gpu_kernel_emitter.h):
//
//   kNvptx: every thread runs the kernel's code itself; a barrier is
//           bar.sync, a warp exchange is shfl.sync, shared memory is PTX
//           .shared (LLVM address space 3).
//   kHost:  one call of the kernel runs a whole block on the CPU. The code
//           between two barriers is one loop over the block's threads, in
//           ascending order; a warp exchange is a loop of its own that reads
//           what every thread held before it; shared memory and each
//           thread's variables are arrays of the call.
//
// Kernels are written as phases (forEachThread) separated by barriers and
// warp exchanges, so the host grid runner executes the same indexing, the
// same exchange pattern and the same order of combining as the GPU. Phases
// with no barrier between them share one loop on the host, as they are one
// stretch of code on the GPU: a thread reading shared memory that a later
// thread writes, without a barrier between, reads it before it is written
// there too, and the answer is wrong.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include <llvm/IR/IRBuilder.h>

#include "backends/gpu/gpu_kernel_emitter.h"
#include "jit/elemental_emitter.h"

namespace hlo::gpu {

inline constexpr int kWarpSize = 32;

class ThreadBlock {
 public:
  // `block` is the kernel's i32 block index; the builder is in the kernel's
  // entry block, where the thread index (kNvptx) is read.
  ThreadBlock(jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, GridForm form, llvm::Value* block);

  // The block index, as an i64.
  llvm::Value* block() const { return block_; }

  // body(thread) for every thread of the block (thread an i64 in [0,
  // kThreadsPerBlock)), with an emitter cache of its own.
  Status forEachThread(const std::function<Status(llvm::Value* thread)>& body);

  // Inside a phase: this thread's share of `count` items, body(q) for
  // q = thread, thread + kThreadsPerBlock, ... below count.
  Status forEachItem(llvm::Value* thread, int64_t count, const std::function<Status(llvm::Value* item)>& body);

  // All threads reach this point before any goes on (on the host: the loop
  // over the threads ends here).
  void barrier();

  // Ends the kernel's code (on the host: closes the open loop over the
  // threads). The builder is then where the kernel returns.
  void finish();

  // A variable every thread has its own copy of, kept from one phase to the
  // next: a register on the GPU, an array of kThreadsPerBlock on the host.
  struct PerThread {
    llvm::Type* type;
    llvm::Value* storage;
  };
  PerThread perThread(llvm::Type* type, const std::string& name);
  llvm::Value* address(const PerThread& v, llvm::Value* thread);

  // `count` elements of `type` that the block's threads share.
  llvm::Value* shared(llvm::Type* type, int64_t count, const std::string& name);

  // Folds `v` across each aligned group of `width` lanes of a warp (a power
  // of two, at most kWarpSize) by recursive halving: in round d = width/2,
  // ..., 1, every thread sets v = combine(v, v of the thread whose lane
  // differs in bit d). Every thread of a group ends with the group's
  // total; with a commutative combine they all hold the same bits.
  using Combine = std::function<StatusOr<llvm::Value*>(llvm::Value* mine, llvm::Value* other)>;
  Status butterfly(const PerThread& v, int width, const Combine& combine);

 private:
  // A warp exchange of `value`, any first-class type (split into 32-bit
  // pieces): the value of the lane whose index differs in bit `d`.
  llvm::Value* shuffleXor(llvm::Value* value, int d);
  // kHost: the loop over the threads that the next phase joins, opened if
  // none is; closeLoop ends it.
  llvm::Value* openLoop();
  void closeLoop();

  jit::ElementalEmitter& emitter_;
  llvm::IRBuilder<>& b_;
  GridForm form_;
  llvm::Value* block_;
  llvm::Value* thread_ = nullptr;  // kNvptx: %tid.x, as an i64; kHost: the open loop's thread
  llvm::BasicBlock* loopHeader_ = nullptr;  // kHost: the open loop, if any
};

}  // namespace hlo::gpu
