// Buffer assignment: where every array value of a module lives while it runs
// — a byte range of one arena allocated per execution, or memory the caller
// owns (parameters) or the program carries (constants) — found by liveness
// over a sequential schedule with reuse of freed ranges. The algorithm and
// what it leaves alone are in buffer_assignment.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo {

// Every arena range starts at a multiple of this many bytes (a cache line,
// and the widest vector load), and sizes are rounded up to it.
inline constexpr int64_t kBufferAlignment = 64;

// Where the memory of a value is.
enum class BufferKind {
  kArena,      // [offset, offset + allocatedSize) of the arena
  kParameter,  // the caller's argument `parameter`, at `parameterIndex`
  kConstant,   // the constant's own data, read-only
  kOutput,     // ENTRY result number `output`, outside the arena (see BufferAssignmentOptions)
};

// One array leaf of one instruction's result.
struct BufferSlot {
  const Instruction* instruction = nullptr;
  ShapeIndex index;  // the array leaf within the instruction's shape ({} for an array)
  BufferKind kind = BufferKind::kArena;
  int64_t offset = 0;         // kArena: from the start of the computation's arena
  int64_t bytes = 0;          // the value's own size
  int64_t allocatedSize = 0;  // kArena: bytes rounded up to kBufferAlignment
  int64_t parameter = -1;     // kParameter
  ShapeIndex parameterIndex;  // kParameter
  int64_t output = -1;        // kOutput
  // The value that owns the memory: this slot's own (instruction, index)
  // unless it shares a buffer (tuple, get-tuple-element, bitcast, in-place
  // dynamic-update-slice, an output aliased with a parameter).
  const Instruction* owner = nullptr;
  ShapeIndex ownerIndex;
  // Schedule steps over which the buffer is live (its first write to its last
  // read; the end of the schedule for what the computation returns).
  int64_t firstStep = 0, lastStep = 0;
};

// The range reserved for the computations a while, conditional or call runs:
// each callee's arena starts at `offset` (they never run at the same time).
struct ScratchSlot {
  const Instruction* instruction = nullptr;
  int64_t offset = 0, size = 0;
};

// The assignment of one computation. Offsets are relative to its own arena.
struct ComputationBuffers {
  const Computation* computation = nullptr;
  std::vector<const Instruction*> schedule;  // step i runs schedule[i]
  std::vector<BufferSlot> slots;             // by step, then leaf order
  std::vector<ScratchSlot> scratch;
  int64_t arenaBytes = 0;    // the arena's size, nested scratch included
  int64_t peakBytes = 0;     // the most bytes live at one step, nested (and kOutput) included
  int64_t noReuseBytes = 0;  // the arena's size if freed ranges were never reused (and kOutput buffers in it)

  // The slot of an array leaf of `instr`, or nullptr (not an array leaf, or
  // not of this computation).
  const BufferSlot* find(const Instruction& instr, const ShapeIndex& index = {}) const;

 private:
  friend class BufferAssigner;
  std::unordered_map<const Instruction*, size_t> firstSlot_;
};

struct BufferAssignment {
  // The entry's first, then each computation a while, conditional or call
  // runs (once each, however many callers), callees after their callers.
  std::vector<ComputationBuffers> computations;

  const ComputationBuffers& entry() const { return computations.front(); }
  // The assignment of `comp`, or nullptr.
  const ComputationBuffers* of(const Computation& comp) const;
  // The entry's figures: what one execution needs.
  int64_t arenaBytes() const { return entry().arenaBytes; }
  int64_t peakBytes() const { return entry().peakBytes; }
  int64_t noReuseBytes() const { return entry().noReuseBytes; }
};

struct BufferAssignmentOptions {
  // The ENTRY's results get memory of their own (BufferKind::kOutput), not a
  // range of the arena, and no parameter holds one (input_output_alias and
  // buffer_donor are not used): for a runtime that hands each execution's
  // results to its caller and never writes the caller's arguments.
  bool outputsOutsideArena = false;
  // Fusions that run as calls of their fused computation, one instruction at
  // a time: the fused computation gets buffers of its own in a scratch range
  // of the fusion's step, like a call's.
  std::function<bool(const Instruction&)> fusionRunsAsCall;
  // Bitcasts that copy their operand (a runtime that stores arrays in
  // logical order moves elements for a bitcast between layouts): they write
  // fresh buffers and read their operand.
  std::function<bool(const Instruction&)> bitcastCopies;
  // Say why each buffer lives where it does (hlo/passes/explain.h), as the
  // buffer-assignment pass does under hlo-opt --explain=buffer-assignment.
  bool explain = false;
};

// Whether `instr` may write its result into its operand 0's buffer, updated
// in place (step 4 of buffer_assignment.cc): a dynamic-update-slice. Every
// other instruction writes buffers apart from all its operands', which a
// backend may rely on (the CPU kernels tell LLVM so).
inline bool updatesOperandInPlace(const Instruction& instr) {
  return instr.opcode() == Opcode::kDynamicUpdateSlice && instr.operandCount() >= 2;
}

// Assigns buffers for the module's entry and what it runs. Fails on a module
// without an entry, or whose instructions are not in def-before-use order.
StatusOr<BufferAssignment> assignBuffers(const Module& module, const BufferAssignmentOptions& options = {});

// A readable report: the totals, then per computation one line per slot.
std::string formatBufferAssignment(const BufferAssignment& assignment);

}  // namespace hlo
