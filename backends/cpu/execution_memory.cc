// The memory plan of a compiled module (what goes where: execution_memory.h)
// and the pool of arenas.
//
// Planning:
//   0. Buffer assignment runs with the runtime's choices: the ENTRY's results
//      outside the arena (step 2), a fusion that is not one kernel runs its
//      fused computation as a call (scratch range and buffers for it), a
//      bitcast that is a kernel rather than a view copies.
// Then, per computation assignment covers:
//   1. Check that the program's steps are assignment's schedule, instruction
//      for instruction: the runtime runs steps in that order, so assignment's
//      live ranges are the runtime's.
//   2. Assignment runs with outputsOutsideArena: the buffers of the ENTRY's
//      results are output buffers of their own (and no parameter holds a
//      result: the caller's arguments are never written).
//   3. Each step that writes its result (kernels, library ops, while,
//      conditional, call, copy of a tuple) writes a leaf into the buffer
//      assignment gave it only when that buffer is the leaf's own, or when the
//      step is a dynamic-update-slice that assignment updates in place. That
//      kernel computes each element from the same element of its operand, so
//      reading and writing one buffer is safe. A leaf that names another
//      value's buffer goes to the heap (it does not happen with step 0).
//   4. Each step that forwards its operand (tuple, get-tuple-element,
//      optimization barrier and the like, a row-major bitcast) must name the
//      buffers its operand's leaves have, since the runtime's view reads them
//      later: if not, the program runs on the heap (it never happens with
//      assignment as it is, whose rules for forwarding are these).
//   5. A while, conditional or call (or a fusion run as a call) gets the
//      offset of its scratch range.
#include "backends/cpu/execution_memory.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <new>
#include <unordered_set>
#include <utility>

#include "backends/cpu/program.h"
#include "hlo/byte_buffer.h"
#include "hlo/computation.h"

namespace hlo::cpu {
namespace {

using BufferKey = std::pair<const Instruction*, ShapeIndex>;

void arrayLeaves(const Shape& shape, ShapeIndex& at, std::vector<ShapeIndex>& out) {
  if (shape.isArray()) {
    out.push_back(at);
    return;
  }
  if (!shape.isTuple()) return;
  for (int i = 0; i < shape.tupleSize(); ++i) {
    at.push_back(i);
    arrayLeaves(shape.tupleElement(i), at, out);
    at.pop_back();
  }
}

std::vector<ShapeIndex> arrayLeaves(const Shape& shape) {
  std::vector<ShapeIndex> out;
  ShapeIndex at;
  arrayLeaves(shape, at, out);
  return out;
}

BufferKey keyOf(const BufferSlot& slot) { return {slot.owner, slot.ownerIndex}; }

// Whether the step's value is a view of its operand's (step 4).
bool forwardsOperand(const Step& step) {
  switch (step.kind) {
    case Step::Kind::kTuple:
    case Step::Kind::kGetTupleElement:
    case Step::Kind::kView:
      return true;
    case Step::Kind::kForward:
      return step.instr->opcode() != Opcode::kCopy;  // a tuple's copy writes new buffers
    default:
      return false;
  }
}

// Whether the step writes its result into memory given to it (step 3).
bool writesResult(const Step& step) {
  switch (step.kind) {
    case Step::Kind::kKernel:
    case Step::Kind::kRuntime:
    case Step::Kind::kWhile:
    case Step::Kind::kConditional:
    case Step::Kind::kCall:
      return true;
    case Step::Kind::kForward:
      return step.instr->opcode() == Opcode::kCopy;
    default:
      return false;
  }
}

// The leaf of `instr`'s operand that leaf `index` of a forwarding `instr` names.
std::pair<const Instruction*, ShapeIndex> forwardedLeaf(const Instruction& instr, const ShapeIndex& index) {
  switch (instr.opcode()) {
    case Opcode::kTuple:
      if (index.empty() || index[0] >= instr.operandCount()) return {nullptr, {}};
      return {instr.operand(static_cast<int>(index[0])), ShapeIndex(index.begin() + 1, index.end())};
    case Opcode::kGetTupleElement: {
      ShapeIndex from{instr.attrs().getInt(AttrKey::kIndex)};
      from.insert(from.end(), index.begin(), index.end());
      return {instr.operand(0), from};
    }
    default:
      if (instr.operandCount() == 0) return {nullptr, {}};
      return {instr.operand(0), index};
  }
}

// Plans one program against its computation's assignment; an empty string on
// success, else why the program stays on the heap.
std::string planProgram(const Module& module, const ComputationBuffers& cb, Program& program, MemoryPlan& plan) {
  // 1.
  if (program.steps.size() != cb.schedule.size()) return "its steps are not assignment's schedule";
  for (size_t s = 0; s < program.steps.size(); ++s)
    if (program.steps[s].instr != cb.schedule[s]) return "its steps are not assignment's schedule";
  // 2.
  const Computation& comp = *cb.computation;
  std::vector<Shape> outputs;
  for (const BufferSlot& slot : cb.slots) {
    if (slot.kind != BufferKind::kOutput || slot.owner != slot.instruction || slot.ownerIndex != slot.index) continue;
    const Shape* shape = subshape(slot.instruction->shape(), slot.index);
    if (!shape || slot.output < 0) return "an output buffer has no shape";
    if (static_cast<int64_t>(outputs.size()) <= slot.output) outputs.resize(slot.output + 1);
    outputs[slot.output] = *shape;
  }
  std::map<const Instruction*, int64_t> scratch;
  for (const ScratchSlot& s : cb.scratch) scratch[s.instruction] = s.offset;

  auto memory = std::make_unique<ProgramMemory>();
  memory->arenaBytes = cb.arenaBytes;
  for (const Step& step : program.steps) {
    const Instruction& instr = *step.instr;
    std::vector<LeafPlace> places;
    for (const ShapeIndex& index : arrayLeaves(instr.shape())) {
      const BufferSlot* slot = cb.find(instr, index);
      if (!slot) return "%" + instr.name() + " has no buffer";
      // 4.
      if (forwardsOperand(step)) {
        auto [operand, at] = forwardedLeaf(instr, index);
        const BufferSlot* from = operand ? cb.find(*operand, at) : nullptr;
        if (!from || keyOf(*from) != keyOf(*slot))
          return "%" + instr.name() + " does not name its operand's buffer";
      }
      // 3.
      LeafPlace place;
      place.bytes = slot->bytes;
      BufferKey key = keyOf(*slot);
      bool own = key == BufferKey{&instr, index};
      bool inPlace = updatesOperandInPlace(instr) && index.empty() && step.kind == Step::Kind::kKernel &&
                     cb.find(*instr.operand(0)) && keyOf(*cb.find(*instr.operand(0))) == key;
      if (writesResult(step) && (own || inPlace) && slot->bytes > 0) {
        if (slot->kind == BufferKind::kOutput) {
          place.where = LeafPlace::Where::kOutput;
          place.offset = slot->output;
        } else if (slot->kind == BufferKind::kArena) {
          place.where = LeafPlace::Where::kArena;
          place.offset = slot->offset;
        }
      }
      places.push_back(place);
    }
    memory->leaves.push_back(std::move(places));
    // 5.
    auto at = scratch.find(&instr);
    bool runsCallees =
        step.kind == Step::Kind::kWhile || step.kind == Step::Kind::kConditional || step.kind == Step::Kind::kCall;
    memory->scratch.push_back(runsCallees && at != scratch.end() ? at->second : -1);
  }
  program.memory = std::move(memory);
  if (&comp == module.entry()) plan.outputs = std::move(outputs);
  return "";
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
  MemoryPlan plan;
  // Assignment as the runtime runs the module: results outside the arena,
  // fusions that are not one kernel as calls, bitcasts that are kernels
  // (not views) as copies.
  std::unordered_set<const Instruction*> fusionCalls, bitcastCopies;
  for (const auto& program : programs)
    for (const Step& step : program->steps) {
      if (step.kind == Step::Kind::kCall && step.instr->opcode() == Opcode::kFusion) fusionCalls.insert(step.instr);
      if (step.kind != Step::Kind::kView && step.instr->opcode() == Opcode::kBitcast) bitcastCopies.insert(step.instr);
    }
  BufferAssignmentOptions options;
  options.outputsOutsideArena = true;
  options.fusionRunsAsCall = [&](const Instruction& i) { return fusionCalls.count(&i) > 0; };
  options.bitcastCopies = [&](const Instruction& i) { return bitcastCopies.count(&i) > 0; };
  StatusOr<BufferAssignment> assignment = assignBuffers(module, options);
  if (!assignment.ok()) {
    plan.notes.push_back("no buffer assignment: " + assignment.status().message());
    return plan;
  }
  plan.assignment = std::make_unique<BufferAssignment>(std::move(assignment).value());
  plan.peakBytes = plan.assignment->peakBytes();
  plan.noReuseBytes = plan.assignment->noReuseBytes();
  for (const ComputationBuffers& cb : plan.assignment->computations) {
    for (auto& program : programs) {
      if (program->computation != cb.computation) continue;
      std::string why = planProgram(module, cb, *program, plan);
      if (!why.empty()) plan.notes.push_back("%" + cb.computation->name() + " runs on the heap: " + why);
    }
  }
  if (entry.memory) plan.arenaBytes = entry.memory->arenaBytes;
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
