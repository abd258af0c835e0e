// The CPU's memory plan (execution_memory.h) and its pool of arenas.
#include "backends/cpu/execution_memory.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "backends/cpu/program.h"
#include "hlo/byte_buffer.h"

namespace hlo::cpu {
namespace {

// The role of a step in the plan (execution_memory.h).
jit::StepMemory memoryOf(const Step& step) {
  using Kind = Step::Kind;
  using M = jit::StepMemory;
  switch (step.kind) {
    case Kind::kKernel: return M::kWritesInPlace;
    case Kind::kRuntime: return M::kWrites;
    case Kind::kWhile: case Kind::kConditional: case Kind::kCall: return M::kRunsCallees;
    case Kind::kTuple: case Kind::kGetTupleElement: case Kind::kView: return M::kForwards;
    case Kind::kForward:  // a tuple's copy writes new buffers
      return step.instr->opcode() == Opcode::kCopy ? M::kWrites : M::kForwards;
    case Kind::kParameter: case Kind::kConstant: case Kind::kToken: case Kind::kShared:
    case Kind::kInterpreter: case Kind::kIllTyped:
      return M::kNone;
  }
  return M::kNone;
}

// What a run still allocates on the heap — its results, which the caller
// keeps, and the values the arena cannot hold — glibc serves with fresh mmap
// pages when over 32 MiB, unmapped again when freed, so every run would fault
// in (and have the kernel zero) all those pages again: the fused 10-op chain
// over 16M f32, whose only buffer is its result, went from 8 to 44 ms a run
// without this. Served from the heap, the buffers a caller frees are reused
// by the next run.
void keepLargeBuffersInTheHeap() {
  static std::once_flag once;
  std::call_once(once, [] {
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
}

}  // namespace

MemoryPlan planMemory(const Module& module, std::vector<std::unique_ptr<Program>>& programs, const Program& entry) {
  keepLargeBuffersInTheHeap();
  std::vector<jit::PlannedProgram> planned(programs.size());
  size_t entryIndex = programs.size();
  for (size_t p = 0; p < programs.size(); ++p) {
    planned[p].computation = programs[p]->computation;
    for (const Step& step : programs[p]->steps) {
      planned[p].steps.push_back(step.instr);
      planned[p].memory.push_back(memoryOf(step));
    }
    if (programs[p].get() == &entry) entryIndex = p;
  }
  MemoryPlan plan = jit::planMemory(module, planned, entryIndex);
  for (size_t p = 0; p < programs.size(); ++p) programs[p]->memory = std::move(planned[p].plan);
  return plan;
}

ArenaPool::~ArenaPool() {
  for (uint8_t* data : all_) std::free(data);
}

ArenaPool::Lease ArenaPool::acquire() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!free_.empty()) {
    uint8_t* data = free_.back();
    free_.pop_back();
    return Lease(this, data);
  }
  // Whole cache lines, at least one, so that an empty arena has an address too.
  size_t size = static_cast<size_t>(std::max<int64_t>(bytes_, 1) + kBufferAlignment - 1) / kBufferAlignment *
                kBufferAlignment;
  auto* data = static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, size));
  if (data) {
    all_.push_back(data);
    // Before the pages are first touched, as for a Literal's large buffers.
    adviseHugePages(data, size);
  }
  return Lease(this, data);
}

void ArenaPool::giveBack(uint8_t* data) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_.push_back(data);
}

int ArenaPool::allocated() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int>(all_.size());
}

ArenaPool::Lease::~Lease() {
  if (data_) pool_->giveBack(data_);
}

}  // namespace hlo::cpu
