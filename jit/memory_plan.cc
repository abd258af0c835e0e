// The memory plan (what goes where: memory_plan.h).
//
// Planning:
//   0. Buffer assignment runs with the runtime's choices: the ENTRY's results
//      outside the arena (step 2), a fusion that is not one kernel runs its
//      fused computation as a call (scratch range and buffers for it), a
//      bitcast that is not a view copies.
// Then, per computation assignment covers:
//   1. Check that the program's steps are assignment's schedule, instruction
//      for instruction: the runtime runs steps in that order, so assignment's
//      live ranges are the runtime's.
//   2. Assignment runs with outputsOutsideArena: the buffers of the ENTRY's
//      results are output buffers of their own (and no parameter holds a
//      result: the caller's arguments are never written).
//   3. Each step that writes its result writes a leaf into the buffer
//      assignment gave it only when that buffer is the leaf's own, or when the
//      step may update in place (kWritesInPlace) and assignment updates its
//      operand in place: that kernel computes each element from the same
//      element of its operand, so reading and writing one buffer is safe. A
//      leaf that names another value's buffer gets memory of its own.
//   4. Each step that forwards its operand must name the buffers its
//      operand's leaves have, since the runtime's view reads them later: if
//      not, the program runs outside the arena (it never happens with
//      assignment as it is, whose rules for forwarding are these).
//   5. A while, conditional or call (or a fusion run as a call) gets the
//      offset of its scratch range.
#include "jit/memory_plan.h"

#include <map>
#include <unordered_set>
#include <utility>

#include "hlo/computation.h"

namespace hlo::jit {
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

bool writesResult(StepMemory m) {
  return m == StepMemory::kWrites || m == StepMemory::kWritesInPlace || m == StepMemory::kRunsCallees;
}

// The leaf of `instr`'s operand that leaf `index` of a forwarding `instr` names.
std::pair<const Instruction*, ShapeIndex> forwardedLeaf(const Instruction& instr, const ShapeIndex& index) {
  if (instr.opcode() == Opcode::kTuple) {
    if (index.empty() || index[0] >= instr.operandCount()) return {nullptr, {}};
    return {instr.operand(static_cast<int>(index[0])), ShapeIndex(index.begin() + 1, index.end())};
  }
  if (instr.opcode() == Opcode::kGetTupleElement) {
    ShapeIndex from{instr.attrs().getInt(AttrKey::kIndex)};
    from.insert(from.end(), index.begin(), index.end());
    return {instr.operand(0), from};
  }
  if (instr.operandCount() == 0) return {nullptr, {}};
  return {instr.operand(0), index};
}

// Plans one program against its computation's assignment; an empty string on
// success, else why the program runs outside the arena.
std::string planProgram(const Module& module, const ComputationBuffers& cb, PlannedProgram& program,
                        MemoryPlan& plan) {
  // 1.
  if (program.steps != cb.schedule) return "its steps are not assignment's schedule";
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
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Instruction& instr = *program.steps[s];
    StepMemory role = program.memory[s];
    std::vector<LeafPlace> places;
    for (const ShapeIndex& index : arrayLeaves(instr.shape())) {
      const BufferSlot* slot = cb.find(instr, index);
      if (!slot) return "%" + instr.name() + " has no buffer";
      // 4.
      if (role == StepMemory::kForwards) {
        auto [operand, at] = forwardedLeaf(instr, index);
        const BufferSlot* from = operand ? cb.find(*operand, at) : nullptr;
        if (!from || keyOf(*from) != keyOf(*slot)) return "%" + instr.name() + " does not name its operand's buffer";
      }
      // 3.
      LeafPlace place;
      place.bytes = slot->bytes;
      BufferKey key = keyOf(*slot);
      bool own = key == BufferKey{&instr, index};
      bool inPlace = role == StepMemory::kWritesInPlace && updatesOperandInPlace(instr) && index.empty() &&
                     cb.find(*instr.operand(0)) && keyOf(*cb.find(*instr.operand(0))) == key;
      if (writesResult(role) && (own || inPlace) && slot->bytes > 0) {
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
    memory->scratch.push_back(role == StepMemory::kRunsCallees && at != scratch.end() ? at->second : -1);
  }
  program.plan = std::move(memory);
  if (&comp == module.entry()) plan.outputs = std::move(outputs);
  return "";
}

}  // namespace

MemoryPlan planMemory(const Module& module, std::vector<PlannedProgram>& programs, size_t entry) {
  MemoryPlan plan;
  // 0. Assignment as the runtime runs the module: results outside the
  // arena, fusions that are not one kernel as calls, bitcasts that are not
  // views as copies.
  std::unordered_set<const Instruction*> fusionCalls, bitcastCopies;
  for (const PlannedProgram& program : programs)
    for (size_t s = 0; s < program.steps.size(); ++s) {
      const Instruction* instr = program.steps[s];
      if (program.memory[s] == StepMemory::kRunsCallees && instr->opcode() == Opcode::kFusion)
        fusionCalls.insert(instr);
      if (program.memory[s] != StepMemory::kForwards && instr->opcode() == Opcode::kBitcast)
        bitcastCopies.insert(instr);
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
  for (const ComputationBuffers& cb : plan.assignment->computations)
    for (PlannedProgram& program : programs) {
      if (program.computation != cb.computation) continue;
      std::string why = planProgram(module, cb, program, plan);
      if (!why.empty()) plan.notes.push_back("%" + cb.computation->name() + " runs outside the arena: " + why);
    }
  if (entry < programs.size() && programs[entry].plan) plan.arenaBytes = programs[entry].plan->arenaBytes;
  return plan;
}

}  // namespace hlo::jit
