// Running a compiled module: the steps of a Program in order (the walk of
// jit/step_walk.h, whose CPU side is ProgramRun below), each value in a
// slot until its last reader is done.
//
// A value is a shared pointer to a Literal. Where its bytes are comes from
// the memory plan (execution_memory.h): when a program runs in an arena (the
// ENTRY, and the computations its while loops, conditionals and calls run,
// each in the scratch range of its caller's step), a kernel or library op
// writes into a Literal that borrows its bytes from the arena or from an
// ENTRY result buffer; tuples, get-tuple-element, optimization barriers and
// renaming bitcasts are views of their operands and hold on to the values
// they borrow from; anything else is a Literal of its own on the heap.
// A program without a plan, or one run by an op whose semantics return a
// fresh Literal, runs with its values on the heap.
//
// A while loop's state lives in the while's own result buffers: the loop
// copies its operand in, and each iteration's body result over it. Nested
// programs return their root as it is (possibly in their scratch range); the
// caller copies what it keeps before it runs anything else.
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <thread>

#include "backends/cpu/program.h"
#include "jit/step_walk.h"
#include "hlo/computation.h"
#include "hlo/conditional_branch.h"
#include "hlo/array_copy.h"

namespace hlo::cpu {

using ValuePtr = std::shared_ptr<const Literal>;

// Where the program being run keeps its values.
struct CpuExecutable::Frame {
  uint8_t* base = nullptr;                  // the program's arena
  std::vector<Literal>* outputs = nullptr;  // ENTRY: the run's result buffers
};

struct CpuExecutable::RunState {
  int64_t liveBytes = 0;  // bytes of the values alive now, for the memory limit
  RunMemoryStats stats;
  collectives::Participant* device = nullptr;  // in a multi-device run
  RunScratch* scratch = nullptr;  // what programs with a plan keep between their runs
};

namespace {

int64_t arrayBytes(const Shape& shape) {
  if (shape.isTuple()) {
    int64_t total = 0;
    for (const Shape& e : shape.tupleElements()) total += arrayBytes(e);
    return total;
  }
  return shape.isArray() ? shape.elementCount() * storageBytes(shape.type()) : 0;
}

// A value that owns nothing: an argument or a constant.
ValuePtr unowned(const Literal* lit) { return ValuePtr(ValuePtr(), lit); }

ValuePtr owning(Literal lit) { return std::make_shared<Literal>(std::move(lit)); }

// A literal that borrows, and the values it borrows from.
struct Holder {
  Literal literal;
  std::vector<ValuePtr> keep;
};

ValuePtr holding(Literal lit, std::vector<ValuePtr> keep) {
  auto holder = std::make_shared<Holder>();
  holder->literal = std::move(lit);
  holder->keep = std::move(keep);
  return ValuePtr(holder, &holder->literal);
}

// A literal reading `lit`'s arrays where they are (tuples recursively).
Literal borrowFrom(const Literal& lit) {
  const Shape& shape = lit.shape();
  if (shape.isArray() && !lit.elided()) return Literal::borrow(shape, const_cast<uint8_t*>(lit.untypedData()));
  if (!shape.isTuple()) return lit;  // a token, an elided array: nothing to share
  Literal tuple;
  tuple.mutableShape() = shape;
  for (const Literal& e : lit.tupleElements()) tuple.tupleElements().push_back(borrowFrom(e));
  return tuple;
}

bool ownsAll(const Literal& lit) {
  if (!lit.shape().isTuple()) return !lit.borrowed();
  for (const Literal& e : lit.tupleElements())
    if (!ownsAll(e)) return false;
  return true;
}

// A literal that owns all its memory: `v`'s own when nothing else holds it,
// else a copy (copying a borrowed array copies its elements).
Literal materialize(ValuePtr v) {
  if (v.use_count() == 1 && ownsAll(*v)) return std::move(const_cast<Literal&>(*v));
  return Literal(*v);
}

void arraysOf(Literal& lit, std::vector<Literal*>& out) {
  if (lit.shape().isTuple()) {
    for (Literal& e : lit.tupleElements()) arraysOf(e, out);
  } else if (lit.shape().isArray()) {
    out.push_back(&lit);
  }
}

void arraysOf(const Literal& lit, std::vector<const Literal*>& out) {
  if (lit.shape().isTuple()) {
    for (const Literal& e : lit.tupleElements()) arraysOf(e, out);
  } else if (lit.shape().isArray()) {
    out.push_back(&lit);
  }
}

// Copies the arrays `src` (in leaf order) over those of `to`. A source may
// share memory with `to`: a loop body returns parts of its parameter, the
// loop state, possibly in another order; such arrays are copied aside first.
Status assignLeaves(Literal& to, const std::vector<const Literal*>& src) {
  // Scratch lists kept from call to call: a loop assigns its state every
  // iteration, and this is not reentrant.
  thread_local std::vector<Literal*> dst;
  thread_local std::vector<std::pair<const uint8_t*, size_t>> ranges;  // dst's memory, by address
  dst.clear();
  ranges.clear();
  arraysOf(to, dst);
  if (dst.size() != src.size()) return errorStatus("cpu: internal error: a result does not fit its buffers");
  for (Literal* d : dst) {
    if (d->byteSize() > 0) ranges.emplace_back(d->untypedData(), d->byteSize());
  }
  std::sort(ranges.begin(), ranges.end());
  auto insideDst = [&](const uint8_t* p, size_t n) {
    auto next = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(p, ~size_t{0}));
    if (next != ranges.end() && next->first < p + n) return true;
    return next != ranges.begin() && std::prev(next)->first + std::prev(next)->second > p;
  };
  std::vector<std::optional<Literal>> aside;  // only when a source lies in the destination
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i]->byteSize() != dst[i]->byteSize())
      return errorStatus("cpu: internal error: a result does not fit its buffers");
    if (src[i]->untypedData() != dst[i]->untypedData() && src[i]->byteSize() > 0 &&
        insideDst(src[i]->untypedData(), src[i]->byteSize())) {
      aside.resize(src.size());
      aside[i] = Literal(*src[i]);
    }
  }
  for (size_t i = 0; i < src.size(); ++i) {
    const Literal& s = !aside.empty() && aside[i] ? *aside[i] : *src[i];
    if (s.untypedData() != dst[i]->untypedData() && s.byteSize() > 0)
      std::memcpy(dst[i]->untypedData(), s.untypedData(), s.byteSize());
  }
  return okStatus();
}

// Copies the arrays of `from` over those of `to` (assignLeaves).
Status assignArrays(Literal& to, const Literal& from) {
  thread_local std::vector<const Literal*> src;
  src.clear();
  arraysOf(from, src);
  return assignLeaves(to, src);
}

// The same for a tuple given as its elements' values (a loop body's root,
// not built: runProgram's rootParts).
Status assignArrays(Literal& to, const std::vector<ValuePtr>& parts) {
  thread_local std::vector<const Literal*> src;
  src.clear();
  for (const ValuePtr& part : parts) arraysOf(*part, src);
  return assignLeaves(to, src);
}

// The ENTRY's result, owning its memory: each result buffer is handed over
// (once; a second use of it is copied), everything else — parameters,
// constants, heap values — is copied.
Literal takeResult(const Literal& root, std::vector<Literal>& outputs) {
  std::map<const uint8_t*, size_t> buffer;
  for (size_t k = 0; k < outputs.size(); ++k)
    if (outputs[k].byteSize() > 0) buffer[outputs[k].untypedData()] = k;
  std::vector<bool> taken(outputs.size());
  // 1. Copies, and borrowed placeholders for the buffers handed over.
  auto build = [&](auto& self, const Literal& lit) -> Literal {
    if (lit.shape().isArray() && lit.borrowed()) {
      auto it = buffer.find(lit.untypedData());
      if (it != buffer.end() && !taken[it->second]) {
        taken[it->second] = true;
        return Literal::borrow(lit.shape(), const_cast<uint8_t*>(lit.untypedData()));
      }
    }
    if (!lit.shape().isTuple()) return Literal(lit);
    Literal tuple;
    tuple.mutableShape() = lit.shape();
    for (const Literal& e : lit.tupleElements()) tuple.tupleElements().push_back(self(self, e));
    return tuple;
  };
  Literal result = build(build, root);
  // 2. The placeholders take their buffers.
  std::vector<Literal*> arrays;
  arraysOf(result, arrays);
  for (Literal* a : arrays) {
    if (!a->borrowed()) continue;
    Shape shape = a->shape();
    *a = std::move(outputs[buffer.at(a->untypedData())]);
    a->mutableShape() = std::move(shape);
  }
  return result;
}

// A literal of `shape` whose arrays are stored where `places` says, taken
// in leaf order from `next`.
// Where `place` is in this run (counted in `stats`); null on the heap.
uint8_t* placeAddress(const LeafPlace& place, uint8_t* base, std::vector<Literal>* outputs, RunMemoryStats& stats) {
  switch (place.where) {
    case LeafPlace::Where::kArena:
      stats.arenaBytes += place.bytes;
      return base + place.offset;
    case LeafPlace::Where::kOutput:
      stats.outputBytes += place.bytes;
      return (*outputs)[place.offset].untypedData();
    case LeafPlace::Where::kHeap:
      break;
  }
  return nullptr;
}

Literal placeArrays(const Shape& shape, const std::vector<LeafPlace>& places, size_t& next, uint8_t* base,
                    std::vector<Literal>* outputs, RunMemoryStats& stats) {
  if (shape.isArray()) {
    if (uint8_t* at = placeAddress(places[next++], base, outputs, stats)) return Literal::borrow(shape, at);
    Literal own = Literal::uninitialized(shape);
    stats.heapBytes += static_cast<int64_t>(own.byteSize());
    return own;
  }
  if (!shape.isTuple()) return Literal(shape);
  Literal tuple;
  tuple.mutableShape() = shape;
  for (const Shape& e : shape.tupleElements())
    tuple.tupleElements().push_back(placeArrays(e, places, next, base, outputs, stats));
  return tuple;
}

// `lit`, made by placeArrays from the same shape and places (none on the
// heap), pointed at where they are in this run.
void placeAgain(Literal& lit, const std::vector<LeafPlace>& places, size_t& next, uint8_t* base,
                std::vector<Literal>* outputs, RunMemoryStats& stats) {
  if (lit.shape().isTuple()) {
    for (Literal& e : lit.tupleElements()) placeAgain(e, places, next, base, outputs, stats);
    return;
  }
  if (lit.shape().isArray()) lit.rebind(placeAddress(places[next++], base, outputs, stats));
}

// Whether `v` holds nothing alive: an argument, a constant, or a value the
// run's scratch keeps. A view of it need not hold it.
bool ownsNothing(const ValuePtr& v) { return v.use_count() == 0; }

// The trace category of a step.
const char* categoryOf(Step::Kind kind) {
  switch (kind) {
    case Step::Kind::kKernel: return "kernel";
    case Step::Kind::kRuntime: return "library";
    case Step::Kind::kInterpreter: return "interpreter";
    default: return "runtime";
  }
}

// A dynamic-update-slice whose result is its operand's buffer (the memory
// plan updates it in place: a loop writing one row of its state per
// iteration) has every element outside the update in place already: only
// the update is copied in, where the interpreter's clamped starts put it.
// The kernel would read and write the whole array, which makes a scan over
// N rows take time in N^2 (XLA's scan benchmark, [2000, 3]: 2.2 us an
// iteration). False when not in place.
bool updateInPlace(const Instruction& instr, std::span<const Literal* const> operands, Literal& result) {
  if (instr.opcode() != Opcode::kDynamicUpdateSlice || operands.size() < 2 ||
      operands[0]->untypedData() != result.untypedData())
    return false;
  const Literal& update = *operands[1];
  copyInto(update, clampedStarts(operands, 2, result.shape().dims(), update.shape().dims()), result);
  return true;
}

// Work units per thread below which splitting costs more than it saves.
constexpr int64_t kMinWorkPerThread = int64_t{1} << 15;

}  // namespace

Status CpuExecutable::runKernel(const Step& step, std::span<const Literal* const> operands, Literal& result) {
  // The kernel's pointer arrays, kept from call to call: a loop of small
  // kernels pays for every allocation (runKernel does not nest).
  thread_local std::vector<const char*> in;
  thread_local std::vector<char*> out;
  in.clear();
  out.clear();
  for (const Literal* op : operands) in.push_back(reinterpret_cast<const char*>(op->untypedData()));
  if (result.shape().isTuple()) {
    for (Literal& e : result.tupleElements()) out.push_back(reinterpret_cast<char*>(e.untypedData()));
  } else {
    out.push_back(reinterpret_cast<char*>(result.untypedData()));
  }
  int64_t units = step.info.units;
  if (units <= 0) return okStatus();
  if (step.info.alignedOutputs)
    for (char* o : out)
      if (reinterpret_cast<uintptr_t>(o) % kBufferAlignment != 0)
        return errorStatus(backend_ + ": internal error: an output of %" + step.instr->name() +
                               "'s kernel does not start on a 64-byte line",
                           step.instr->loc());
  int64_t work = units * step.info.workPerUnit;
  int chunks = static_cast<int>(std::min<int64_t>({units, work / kMinWorkPerThread, 4 * (pool_->workers() + 1)}));
  KernelFn kernel = step.kernel;
  // (Taken here: in a worker, `in` and `out` would name the worker's own.)
  const char* const* inputs = in.data();
  char* const* outputs = out.data();
  if (chunks <= 1) {  // (no std::function to build: most kernels of a loop are this small)
    kernel(inputs, outputs, 0, units);
    return okStatus();
  }
  pool_->parallelFor(units, chunks, [&](int64_t begin, int64_t end) { kernel(inputs, outputs, begin, end); });
  return okStatus();
}

// One run of one program, the CPU's side of jit/step_walk.h.
struct CpuExecutable::ProgramRun {
  using Value = ValuePtr;
  using Step = cpu::Step;
  using Program = cpu::Program;

  ProgramRun(CpuExecutable& exe, const Program& program, std::span<const Literal* const> args, const Frame* frame,
             RunState& run, bool ownArgs, std::vector<ValuePtr>* rootParts)
      : program(program), backend(exe.backend_), maxWhileIterations(exe.options_.maxWhileIterations), exe(exe),
        args(args), frame(frame), memory(frame ? program.memory.get() : nullptr), run(run), ownArgs(ownArgs),
        rootParts(rootParts) {
    // The lists a previous run of the program left, emptied (no allocation).
    if (memory && run.scratch) {
      scratch = &run.scratch->of(program);
      values.swap(scratch->values);
      counted.swap(scratch->counted);
      ops.swap(scratch->ops);
      pointers.swap(scratch->pointers);
      parts.swap(scratch->parts);
      scratch->literals.resize(program.steps.size());
    }
    values.assign(program.steps.size(), Value());
    counted.assign(program.steps.size(), 0);
  }
  ~ProgramRun() {
    if (!scratch) return;
    values.clear();
    parts.clear();
    values.swap(scratch->values);
    counted.swap(scratch->counted);
    ops.swap(scratch->ops);
    pointers.swap(scratch->pointers);
    parts.swap(scratch->parts);
  }
  ProgramRun(const ProgramRun&) = delete;
  ProgramRun& operator=(const ProgramRun&) = delete;

  std::vector<Value> values;
  const Program& program;
  const std::string& backend;
  int64_t maxWhileIterations;

  static jit::HostStep hostStep(const Step& step) {
    using K = Step::Kind;
    switch (step.kind) {
      case K::kParameter: return jit::HostStep::kParameter;
      case K::kConstant: return jit::HostStep::kConstant;
      case K::kTuple: return jit::HostStep::kTuple;
      case K::kGetTupleElement: return jit::HostStep::kGetTupleElement;
      case K::kForward: return jit::HostStep::kForward;
      case K::kToken: return jit::HostStep::kToken;
      case K::kWhile: return jit::HostStep::kWhile;
      case K::kConditional: return jit::HostStep::kConditional;
      case K::kCall: return jit::HostStep::kCall;
      case K::kView: case K::kKernel: case K::kRuntime: case K::kShared: case K::kInterpreter: case K::kIllTyped:
        break;
    }
    return jit::HostStep::kNone;
  }

  size_t argumentCount() const { return args.size(); }
  Value argument(size_t n) const { return unowned(args[n]); }
  StatusOr<Value> constant(const Instruction& instr) const { return unowned(&instr.literal()); }

  Value tuple(size_t s) {
    const Step& step = program.steps[s];
    if (rootParts && static_cast<int>(s) == program.root && s + 1 == program.steps.size()) {
      // The caller takes the elements' values as they are.
      for (int op : step.operands) rootParts->push_back(values[op]);
      return Value();
    }
    if (Literal* reused = reusedTuple(s)) return unowned(reused);
    std::vector<ValuePtr> keep;
    for (int op : step.operands) keep.push_back(values[op]);
    return holding(borrowedTuple(step), std::move(keep));
  }

  // A tuple of step's operands, reading their arrays where they are.
  Literal borrowedTuple(const Step& step) const {
    Literal tuple;
    tuple.mutableShape() = step.instr->shape();
    for (int op : step.operands) tuple.tupleElements().push_back(borrowFrom(*values[op]));
    return tuple;
  }

  static int64_t tupleSize(const Value& tuple) { return static_cast<int64_t>(tuple->tupleElements().size()); }
  static Value element(const Value& tuple, int64_t index) { return ValuePtr(tuple, &tuple->tupleElements()[index]); }

  StatusOr<Value> copyTuple(size_t s, const Value& from) {
    const Shape& shape = program.steps[s].instr->shape();
    HLO_RETURN_IF_ERROR(room(*program.steps[s].instr, shape));
    Literal copy = memory ? newResult(s, shape) : Literal(*from);
    if (memory) HLO_RETURN_IF_ERROR(assignArrays(copy, *from));
    else run.stats.heapBytes += arrayBytes(shape);
    count(s, shape);
    return owning(std::move(copy));
  }

  static Value token(const Shape& shape) { return owning(Literal(shape)); }

  Status reserve(size_t s) { return room(*program.steps[s].instr, program.steps[s].instr->shape()); }
  void made(size_t s) { count(s, program.steps[s].instr->shape()); }

  // The loop state: the while's result buffers, or a copy of the operand on the heap.
  StatusOr<Value> loopState(size_t s, const Value& init) {
    const Shape& shape = program.steps[s].instr->shape();
    Literal state = memory ? newResult(s, shape) : Literal(*init);
    if (memory) HLO_RETURN_IF_ERROR(assignArrays(state, *init));
    else run.stats.heapBytes += arrayBytes(shape);
    return owning(std::move(state));
  }

  StatusOr<Value> runCallee(size_t s, const Program& callee, std::span<const Value> calleeArgs) {
    pointers.clear();
    for (const Value& v : calleeArgs) pointers.push_back(v.get());
    Frame storage;
    return exe.runProgram(callee, pointers, calleeFrame(s, callee, storage), run);
  }

  static StatusOr<const Literal*> onHost(const Value& v) { return v.get(); }

  // With a plan the new state is copied in from the body's root, whose
  // elements come back unbuilt (parts); the body may update the state's
  // arrays where they are (ownArgs).
  Status iterate(size_t s, const Program& body, Value& state) {
    const Literal* arg = state.get();
    Literal& mutableState = const_cast<Literal&>(*state);
    Frame storage;
    parts.clear();
    HLO_ASSIGN_OR_RETURN(ValuePtr next, exe.runProgram(body, std::span(&arg, 1), calleeFrame(s, body, storage), run,
                                                       /*ownArgs=*/true, memory ? &parts : nullptr));
    if (!next) return assignArrays(mutableState, parts);
    if (memory) return assignArrays(mutableState, *next);
    state = owning(materialize(std::move(next)));
    return okStatus();
  }

  // Copied into the step's own buffers before anything else runs in the callee's range.
  StatusOr<Value> keep(size_t s, Value result) {
    if (!memory) return owning(materialize(std::move(result)));
    Literal out = newResult(s, program.steps[s].instr->shape());
    HLO_RETURN_IF_ERROR(assignArrays(out, *result));
    return owning(std::move(out));
  }

  // --profile: one span per step that does work (a nested program's steps get their own).
  // (The trace is one per executable: profile runs from one thread at a time.)
  jit::TraceScope traceStep(size_t s) {
    const Step& step = program.steps[s];
    if (!exe.options_.profile || step.kind == Step::Kind::kParameter || step.kind == Step::Kind::kConstant ||
        step.kind == Step::Kind::kToken)
      return jit::TraceScope(nullptr, {}, {});
    return jit::TraceScope(&exe.mutableTrace(), step.instr->name(), categoryOf(step.kind),
                           opcodeName(step.instr->opcode()));
  }

  void stepDone(size_t s) {
    for (int dead : program.steps[s].freeAfter) {
      run.liveBytes -= counted[dead];
      counted[dead] = 0;
      values[dead].reset();
    }
  }

  Status runStep(size_t s);

 private:
  // Bytes the value of step s adds to run.liveBytes.
  void count(size_t s, const Shape& shape) {
    counted[s] = arrayBytes(shape);
    run.liveBytes += counted[s];
  }

  // Whether a value of `shape` fits under the memory limit now.
  Status room(const Instruction& instr, const Shape& shape) const {
    int64_t bytes = arrayBytes(shape);
    int64_t limit = exe.options_.maxMemoryBytes;
    if (bytes <= limit - run.liveBytes) return okStatus();
    return errorStatus(backend + ": %" + instr.name() + " needs " + std::to_string(bytes) +
                           " bytes, beyond the memory limit of " + std::to_string(limit) + " bytes with " +
                           std::to_string(run.liveBytes) + " in use",
                       instr.loc());
  }

  // The literal of step s's value kept from the program's last run, pointed
  // at this run's places; null where none is kept: no plan, or an array of
  // the value on the heap.
  Literal* reusedResult(size_t s) {
    if (!scratch) return nullptr;
    const std::vector<LeafPlace>& places = memory->leaves[s];
    for (const LeafPlace& place : places)
      if (place.where == LeafPlace::Where::kHeap) return nullptr;
    std::optional<Literal>& kept = scratch->literals[s];
    size_t next = 0;
    if (kept) placeAgain(*kept, places, next, frame->base, frame->outputs, run.stats);
    else kept = placeArrays(program.steps[s].instr->shape(), places, next, frame->base, frame->outputs, run.stats);
    return &*kept;
  }

  // Step s's value as a view of `source`'s array (a renaming bitcast, an
  // update in place): the literal kept from the program's last run when
  // the source holds nothing alive, else one of its own holding the source.
  ValuePtr viewOf(size_t s, const ValuePtr& source) {
    uint8_t* data = const_cast<uint8_t*>(source->untypedData());
    const Shape& shape = program.steps[s].instr->shape();
    if (!scratch || !ownsNothing(source)) return holding(Literal::borrow(shape, data), {source});
    std::optional<Literal>& kept = scratch->literals[s];
    if (kept) kept->rebind(data);
    else kept = Literal::borrow(shape, data);
    return unowned(&*kept);
  }

  // A tuple of arrays that hold nothing alive, kept from the program's last
  // run; null otherwise.
  Literal* reusedTuple(size_t s) {
    if (!scratch) return nullptr;
    const Step& step = program.steps[s];
    for (int op : step.operands)
      if (!ownsNothing(values[op]) || !values[op]->shape().isArray() || values[op]->elided()) return nullptr;
    std::optional<Literal>& kept = scratch->literals[s];
    if (!kept) {
      kept = borrowedTuple(step);
      return &*kept;
    }
    for (size_t i = 0; i < step.operands.size(); ++i)
      kept->tupleElements()[i].rebind(const_cast<uint8_t*>(values[step.operands[i]]->untypedData()));
    return &*kept;
  }

  // A kernel's or library op's result.
  Status compute(const Step& step, Literal& result) {
    if (updateInPlace(*step.instr, ops, result)) return okStatus();
    if (step.kind == Step::Kind::kKernel) return exe.runKernel(step, ops, result);
    return step.runtime(RuntimeCall{*step.instr, ops, result, *exe.pool_, step.helpers, step.runtimeState.get()});
  }

  // Memory for the result of step s: its places in the arena, or the heap.
  Literal newResult(size_t s, const Shape& shape) {
    if (memory) {
      size_t next = 0;
      return placeArrays(shape, memory->leaves[s], next, frame->base, frame->outputs, run.stats);
    }
    run.stats.heapBytes += arrayBytes(shape);
    return Literal::uninitialized(shape);
  }

  // Where `callee`, run by step s, keeps its values: its caller's scratch
  // range for that step when both have plans, else the heap.
  const Frame* calleeFrame(size_t s, const Program& callee, Frame& storage) const {
    if (!memory || memory->scratch[s] < 0 || !callee.memory) return nullptr;
    storage = Frame{frame->base + memory->scratch[s], nullptr};
    return &storage;
  }

  CpuExecutable& exe;
  std::span<const Literal* const> args;
  const Frame* frame;
  const ProgramMemory* memory;  // the arena only for a program with a plan, where its caller's plan put it
  RunState& run;
  bool ownArgs;
  std::vector<ValuePtr>* rootParts;
  std::vector<int64_t> counted;      // bytes each value adds to run.liveBytes
  std::vector<const Literal*> ops;   // the step's operands, reused from step to step
  std::vector<const Literal*> pointers;  // a callee's arguments
  std::vector<ValuePtr> parts;       // a loop body's root elements (iterate)
  ProgramScratch* scratch = nullptr;  // what the program keeps between runs, when it has a plan
};

inline Status CpuExecutable::ProgramRun::runStep(size_t s) {
  const Step& step = program.steps[s];
  const Instruction& instr = *step.instr;
  ops.clear();
  for (int op : step.operands) ops.push_back(values[op].get());
  switch (step.kind) {
    case Step::Kind::kView:
      values[s] = viewOf(s, values[step.operands[0]]);
      return okStatus();
    case Step::Kind::kKernel:
    case Step::Kind::kRuntime: {
      if (ownArgs && step.updatesParameterElement) {
        // The loop state's element, updated where it is (a view of it).
        ValuePtr view = viewOf(s, values[step.operands[0]]);
        if (updateInPlace(instr, ops, const_cast<Literal&>(*view))) {
          values[s] = std::move(view);
          return okStatus();
        }
      }
      HLO_RETURN_IF_ERROR(room(instr, instr.shape()));
      // Kernels and library ops write every element of their result.
      if (Literal* reused = reusedResult(s)) {
        HLO_RETURN_IF_ERROR(compute(step, *reused));
        count(s, instr.shape());
        values[s] = unowned(reused);
        return okStatus();
      }
      Literal result = newResult(s, instr.shape());
      HLO_RETURN_IF_ERROR(compute(step, result));
      count(s, instr.shape());
      values[s] = owning(std::move(result));
      return okStatus();
    }
    case Step::Kind::kShared: {
      // These semantics return a Literal of their own: a heap value.
      EngineHooks hooks{
          [&](const Computation&, Values callArgs) -> StatusOr<Literal> {
            if (step.callees.empty())
              return errorStatus(backend + ": %" + instr.name() + " has no compiled computation to run", instr.loc());
            HLO_ASSIGN_OR_RETURN(ValuePtr result, exe.runProgram(*step.callees[0], callArgs, nullptr, run));
            return materialize(std::move(result));
          },
          [this](const Instruction& i, const std::string& why) {
            return errorStatus(backend + ": " + std::string(opcodeName(i.opcode())) + " (%" + i.name() + "): " + why,
                               i.loc());
          },
          [this](const Instruction& i, const Shape& shape) { return room(i, shape); },
          run.device};
      HLO_ASSIGN_OR_RETURN(Literal result, step.shared(instr, ops, hooks));
      run.stats.heapBytes += arrayBytes(result.shape());
      count(s, result.shape());
      values[s] = owning(std::move(result));
      return okStatus();
    }
    case Step::Kind::kIllTyped:
      return step.refusal;
    case Step::Kind::kInterpreter: {
      HLO_ASSIGN_OR_RETURN(Literal result, step.interpret(instr, ops, exe.options_));
      run.stats.heapBytes += arrayBytes(result.shape());
      count(s, result.shape());
      values[s] = owning(std::move(result));
      return okStatus();
    }
    case Step::Kind::kParameter: case Step::Kind::kConstant: case Step::Kind::kTuple:
    case Step::Kind::kGetTupleElement: case Step::Kind::kForward: case Step::Kind::kToken: case Step::Kind::kWhile:
    case Step::Kind::kConditional: case Step::Kind::kCall:
      break;
  }
  return errorStatus(backend + ": internal error: host step %" + instr.name() + " run as the backend's own");
}

CpuExecutable::CpuExecutable(std::unique_ptr<Module> module, const jit::CompileOptions& options,
                             std::string backend)
    : module_(std::move(module)), options_(options), backend_(std::move(backend)) {}

CpuExecutable::~CpuExecutable() = default;

StatusOr<ValuePtr> CpuExecutable::runProgram(const Program& program, std::span<const Literal* const> args,
                                             const Frame* frame, RunState& run, bool ownArgs,
                                             std::vector<ValuePtr>* rootParts) {
  int64_t startBytes = run.liveBytes;
  ProgramRun programRun(*this, program, args, frame, run, ownArgs, rootParts);
  StatusOr<ValuePtr> root = jit::walkSteps(programRun);
  programRun.values.clear();
  run.liveBytes = startBytes;
  return root;
}

StatusOr<Literal> CpuExecutable::run(std::span<const Literal> args, collectives::Participant* device) {
  return runWithMemory(args, device, {});
}

StatusOr<Literal> CpuExecutable::runWith(std::span<const Literal> args, const CallerMemory& memory) {
  auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % kBufferAlignment == 0; };
  if (memory.arena && !aligned(memory.arena))
    return errorStatus(backend_ + ": the arena must be aligned to " + std::to_string(kBufferAlignment) + " bytes");
  return runWithMemory(args, nullptr, memory);
}

StatusOr<Literal> CpuExecutable::runWithMemory(std::span<const Literal> args, collectives::Participant* device,
                                               const CallerMemory& caller) {
  const Computation& entry = *entry_->computation;
  if (static_cast<int>(args.size()) != entry.parameterCount())
    return errorStatus(backend_ + ": ENTRY takes " + std::to_string(entry.parameterCount()) + " arguments, " +
                       std::to_string(args.size()) + " given");
  std::vector<const Literal*> pointers;
  for (int p = 0; p < entry.parameterCount(); ++p) {
    const Shape& want = entry.parameter(p)->shape();
    const Shape& got = args[p].shape();
    if (!got.compatible(want) && !(want.isArray() && got.isArray() && want.type() == got.type() &&
                                   want.dims() == got.dims()))
      return errorStatus(backend_ + ": argument " + std::to_string(p) + " is " + got.toString(false) + " but parameter %" +
                         entry.parameter(p)->name() + " is " + want.toString(false));
    // Compiled code runs dynamic dimensions at their bounds (jit/compile.cc).
    if (args[p].hasPadding()) {
      std::string sizes;
      for (int64_t d : args[p].runtimeDims()) sizes += (sizes.empty() ? "" : ",") + std::to_string(d);
      return errorStatus(backend_ + ": argument " + std::to_string(p) + " has runtime sizes [" + sizes + "] below its bounds " +
                         got.toString(false) + ", which compiled code does not model");
    }
    pointers.push_back(&args[p]);
  }
  RunState run;
  run.device = device;
  std::optional<Literal> result;
  // One arena per run in progress, and buffers of their own for the results,
  // which the caller keeps. When the arena and the results are over the
  // memory limit together, or the arena cannot be allocated, the run goes on
  // the heap, where the limit refuses the value that crosses it.
  // A caller's arena is used as it is given.
  std::optional<ArenaPool::Lease> arena;
  if (arenas_ && !caller.arena) {
    int64_t bytes = arenas_->bytes();
    for (const Shape& shape : memory_.outputs) bytes += arrayBytes(shape);
    if (bytes <= options_.maxMemoryBytes) arena.emplace(arenas_->acquire());
  }
  uint8_t* arenaData = !arenas_ ? nullptr : caller.arena ? caller.arena : arena ? arena->data() : nullptr;
  if (arenaData) {
    const bool direct = writesCallerResults(caller.results);
    std::vector<Literal> outputs;
    for (size_t k = 0; k < memory_.outputs.size(); ++k)
      outputs.push_back(direct ? Literal::borrow(memory_.outputs[k], static_cast<uint8_t*>(caller.results[k]))
                               : Literal::uninitialized(memory_.outputs[k]));
    Frame frame{arenaData, &outputs};
    RunScratchPool::Lease scratch = scratch_.acquire();
    run.scratch = &scratch.get();
    HLO_ASSIGN_OR_RETURN(ValuePtr root, runProgram(*entry_, pointers, &frame, run));
    // A heap value no one else holds (a result of an op the arena cannot
    // hold) is moved out as it is.
    result = root.use_count() == 1 && ownsAll(*root) ? materialize(std::move(root)) : takeResult(*root, outputs);
  } else {
    HLO_ASSIGN_OR_RETURN(ValuePtr root, runProgram(*entry_, pointers, nullptr, run));
    result = materialize(std::move(root));
  }
  {
    std::lock_guard<std::mutex> lock(statsMutex_);
    lastRun_ = run.stats;
  }
  if (options_.verbose && !reported_.exchange(true))
    jit::report(options_, jit::formatted("%s: run: %lld bytes of values in the arena, %lld in result buffers, %lld on the heap",
                                         backend_.c_str(), static_cast<long long>(run.stats.arenaBytes),
                                         static_cast<long long>(run.stats.outputBytes),
                                         static_cast<long long>(run.stats.heapBytes)));
  return std::move(*result);
}

bool CpuExecutable::writesCallerResults(std::span<void* const> results) const {
  // Output buffer k is the root's k-th array when there are as many as the
  // root has arrays: buffer assignment numbers them in the root's order,
  // skipping arrays that are not outputs (parameters, constants, repeats).
  std::vector<Shape> arrays = entry_->computation->root()->shape().elementsOrSelf();
  if (results.empty() || results.size() != memory_.outputs.size() || arrays.size() != memory_.outputs.size())
    return false;
  for (size_t k = 0; k < results.size(); ++k)
    if (!results[k] || reinterpret_cast<uintptr_t>(results[k]) % kBufferAlignment != 0 || !arrays[k].isArray() ||
        arrayBytes(arrays[k]) != arrayBytes(memory_.outputs[k]))
      return false;
  return true;
}

RunMemoryStats CpuExecutable::lastRunMemory() const {
  std::lock_guard<std::mutex> lock(statsMutex_);
  return lastRun_;
}

jit::MemoryStats CpuExecutable::memoryStats() const {
  RunMemoryStats run = lastRunMemory();
  return {memory_.arenaBytes, memory_.peakBytes, memory_.noReuseBytes, run.arenaBytes, run.outputBytes, run.heapBytes};
}

}  // namespace hlo::cpu
