// Running a compiled module on the GPU (gpu_program.h).
//
// The driver is opened, the PTX loaded, the device arena allocated and the
// constants uploaded by the first run. A run uploads its arguments, walks
// the entry program's steps on one stream (the walk of jit/step_walk.h,
// whose GPU side is ProgramRun below), and copies the result back.
// Values lie where the memory plan put them (jit/memory_plan.h): in the
// executable's one device arena (a callee's in its caller's scratch range,
// from the callee's base), or in a buffer of their own taken from the
// executable's pool of buffers (BufferPool), given back when its last
// holder lets go (results, arguments, constants, what host steps make, and
// every value of a program the plan does not cover). Tuples are host-side
// lists of values, so passing one on (a get-tuple-element) copies nothing.
// The result of a while, conditional or call is copied out of its callee's
// scratch range into the step's own buffers, and a while's body result
// into the loop state after each iteration: the next iteration's values
// overwrite the range.
//
// Control flow decides on the host: a loop's predicate and a conditional's
// selector are copied back (one small synchronous copy each time: a few
// microseconds per loop iteration). Host steps (hlo/shared_semantics.h, the
// interpreter fallback) copy their operands back and their result up.
// Arrays of a megabyte or more cross the bus through pinned chunks
// (staging.h).
#include <atomic>
#include <chrono>
#include <functional>
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "backends/gpu/cuda_driver.h"
#include "backends/gpu/gpu_program.h"
#include "backends/gpu/staging.h"
#include "hlo/conditional_branch.h"
#include "hlo/transport.h"
#include "hlo/computation.h"
#include "jit/step_walk.h"
#include "jit/trace.h"

namespace hlo::gpu {

struct GpuExecutable::Value {
  Shape shape;
  CUdeviceptr ptr = 0;                                 // an array's elements
  std::shared_ptr<DeviceBuffer> buffer;                // the buffer they lie in, unless it is the arena
  std::vector<std::shared_ptr<const Value>> elements;  // a tuple's
};

namespace {

// Device buffers kept for reuse, by size. A run makes a buffer for every
// kernel's output, and cuMemAlloc and cuMemFree cost microseconds each
// (cuMemFree waits for the device), so a buffer whose last holder lets go
// of it comes back here for the next buffer of its size. Reuse is safe on
// one stream: whatever read or wrote the buffer was queued before whatever
// writes it next, and no live value's buffer is ever here (the kernels may
// take their arrays as apart: gpu_kernel_emitter.cc).
class BufferPool : public std::enable_shared_from_this<BufferPool> {
 public:
  StatusOr<std::shared_ptr<DeviceBuffer>> take(const CudaDriver& driver, std::size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::vector<DeviceBuffer>& free = free_[bytes];
      if (!free.empty()) {
        DeviceBuffer buffer = std::move(free.back());
        free.pop_back();
        return held(std::move(buffer));
      }
    }
    HLO_ASSIGN_OR_RETURN(DeviceBuffer buffer, DeviceBuffer::allocate(driver, bytes));
    allocatedBytes_ += static_cast<int64_t>(bytes);
    return held(std::move(buffer));
  }

  // Device memory the pool has allocated: buffers in use and kept.
  int64_t allocatedBytes() const { return allocatedBytes_; }

 private:
  // `buffer`, coming back here when its last holder lets go (or freed, if
  // the pool is gone by then).
  std::shared_ptr<DeviceBuffer> held(DeviceBuffer buffer) {
    std::weak_ptr<BufferPool> pool = weak_from_this();
    return std::shared_ptr<DeviceBuffer>(new DeviceBuffer(std::move(buffer)), [pool](DeviceBuffer* b) {
      if (std::shared_ptr<BufferPool> alive = pool.lock()) {
        std::lock_guard<std::mutex> lock(alive->mutex_);
        alive->free_[b->size()].push_back(std::move(*b));
      }
      delete b;
    });
  }

  std::mutex mutex_;
  std::unordered_map<std::size_t, std::vector<DeviceBuffer>> free_;
  std::atomic<int64_t> allocatedBytes_ = 0;
};

}  // namespace

struct GpuExecutable::Device {
  CudaDriver* driver = nullptr;
  std::optional<CudaModule> module;
  std::unordered_map<std::string, CUfunction> functions;
  std::shared_ptr<BufferPool> buffers = std::make_shared<BufferPool>();
  std::optional<DeviceBuffer> arena;  // the memory plan's, when the entry has one
  std::optional<StagedCopies> copies;
  std::optional<CudaEvent> stepsStart, stepsEnd;  // around a run's steps (MemoryStats::deviceSeconds)
  std::unordered_map<const Instruction*, std::shared_ptr<const Value>> constants;
  std::mutex runs;  // this device's runs, one at a time
};

struct GpuExecutable::RunState {
  RunState(Device& d, collectives::Participant* p) : device(d), participant(p) {}
  Device& device;
  collectives::Participant* participant;  // in a run on several devices; else null
  int64_t kernelBytes = 0, uploadedBytes = 0, downloadedBytes = 0;  // kernelBytes: the arrays kernels made
  double uploadSeconds = 0, downloadSeconds = 0;
  // With --profile: an event recorded as the run starts (and the trace
  // clock then), and events around every kernel launch.
  struct Timed {
    const Instruction* instr;
    CudaEvent start, end;
  };
  std::optional<CudaEvent> origin;
  double originUs = 0;
  std::vector<Timed> timed;
};

namespace {

using ValuePtr = std::shared_ptr<const GpuExecutable::Value>;

int64_t arrayBytes(const Shape& shape) { return shape.elementCount() * storageBytes(shape.type()); }

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

GpuExecutable::GpuExecutable(GpuCompiled compiled, const jit::CompileOptions& options)
    : compiled_(std::move(compiled)), options_(options) {}

GpuExecutable::~GpuExecutable() = default;

jit::MemoryStats GpuExecutable::memoryStats() const {
  std::lock_guard<std::mutex> lock(statsMutex_);
  return lastStats_;
}

StatusOr<GpuExecutable::Device*> GpuExecutable::device(int64_t index) {
  std::lock_guard<std::mutex> lock(devicesMutex_);
  if (auto it = devices_.find(index); it != devices_.end()) return it->second.get();
  HLO_ASSIGN_OR_RETURN(CudaDriver * driver, cudaDriver());
  auto device = std::make_unique<Device>();
  device->driver = driver;
  device->copies.emplace(*driver);
  HLO_ASSIGN_OR_RETURN(CudaEvent stepsStart, CudaEvent::create(*driver));
  HLO_ASSIGN_OR_RETURN(CudaEvent stepsEnd, CudaEvent::create(*driver));
  device->stepsStart.emplace(std::move(stepsStart));
  device->stepsEnd.emplace(std::move(stepsEnd));
  if (compiled_.entry->memory && compiled_.memory.arenaBytes > 0) {
    HLO_ASSIGN_OR_RETURN(DeviceBuffer arena,
                         DeviceBuffer::allocate(*driver, static_cast<std::size_t>(compiled_.memory.arenaBytes)));
    device->arena.emplace(std::move(arena));
  }
  HLO_ASSIGN_OR_RETURN(CudaModule module, CudaModule::loadPtx(*driver, compiled_.ptx));
  device->module.emplace(std::move(module));
  for (const auto& program : compiled_.programs)
    for (const GpuStep& step : program->steps)
      if (step.kind == GpuStep::Kind::kKernel && !device->functions.count(step.kernelName)) {
        HLO_ASSIGN_OR_RETURN(CUfunction f, device->module->function(step.kernelName));
        device->functions[step.kernelName] = f;
      }
  Device* made = device.get();
  devices_[index] = std::move(device);
  return made;
}

namespace {

// A device array of `shape` from the pool (at least one byte: the driver
// allocates no empty buffers).
StatusOr<std::shared_ptr<GpuExecutable::Value>> newArray(GpuExecutable::Device& device, const Shape& shape) {
  auto value = std::make_shared<GpuExecutable::Value>();
  value->shape = shape;
  HLO_ASSIGN_OR_RETURN(value->buffer,
                       device.buffers->take(*device.driver,
                                            static_cast<std::size_t>(std::max<int64_t>(arrayBytes(shape), 1))));
  value->ptr = value->buffer->ptr();
  return value;
}

// Where a program's values go: its plan and its arena base, or none (each
// value in a buffer of its own).
struct Frame {
  const jit::ProgramMemory* memory = nullptr;
  CUdeviceptr base = 0;
  // The place of array leaf `leaf` of step `step`'s result, or null.
  const jit::LeafPlace* place(size_t step, size_t leaf) const {
    if (!memory || step >= memory->leaves.size() || leaf >= memory->leaves[step].size()) return nullptr;
    return &memory->leaves[step][leaf];
  }
  // The arena base of the callees of step `step` (its scratch range), or 0.
  CUdeviceptr calleeBase(size_t step) const {
    if (!memory || !base || step >= memory->scratch.size() || memory->scratch[step] < 0) return 0;
    return base + static_cast<CUdeviceptr>(memory->scratch[step]);
  }
};

// A device array of `shape` at `place` in the frame's arena, or from the pool.
StatusOr<std::shared_ptr<GpuExecutable::Value>> placedArray(GpuExecutable::Device& device, const Shape& shape,
                                                           const jit::LeafPlace* place, CUdeviceptr base) {
  if (!place || !base || place->where != jit::LeafPlace::Where::kArena) return newArray(device, shape);
  auto value = std::make_shared<GpuExecutable::Value>();
  value->shape = shape;
  value->ptr = base + static_cast<CUdeviceptr>(place->offset);
  return value;
}

// A copy of `from` whose array leaves, from number `leaf` on, lie at step
// `step`'s places in `frame` (or in buffers of their own).
StatusOr<std::shared_ptr<const GpuExecutable::Value>> copyOf(GpuExecutable::Device& device,
                                                            const GpuExecutable::Value& from, const Frame& frame,
                                                            size_t step, size_t& leaf) {
  auto copy = std::make_shared<GpuExecutable::Value>();
  copy->shape = from.shape;
  if (from.shape.isTuple()) {
    for (const auto& e : from.elements) {
      HLO_ASSIGN_OR_RETURN(auto element, copyOf(device, *e, frame, step, leaf));
      copy->elements.push_back(std::move(element));
    }
    return std::shared_ptr<const GpuExecutable::Value>(std::move(copy));
  }
  if (!from.shape.isArray()) return std::shared_ptr<const GpuExecutable::Value>(std::move(copy));  // a token
  HLO_ASSIGN_OR_RETURN(copy, placedArray(device, from.shape, frame.place(step, leaf++), frame.base));
  if (int64_t bytes = arrayBytes(from.shape); bytes > 0 && copy->ptr != from.ptr)
    HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*device.driver, cuMemcpyDtoDAsync, copy->ptr, from.ptr,
                                      static_cast<std::size_t>(bytes), nullptr));
  return std::shared_ptr<const GpuExecutable::Value>(std::move(copy));
}

// The array leaves of a value, depth first.
void arrayLeaves(const GpuExecutable::Value& v, std::vector<const GpuExecutable::Value*>& out) {
  if (v.shape.isArray()) out.push_back(&v);
  for (const auto& e : v.elements) arrayLeaves(*e, out);
}

// Copies `from`'s array leaves over `to`'s (a loop state's). A leaf of
// `from` that is another leaf of `to` (a body that swaps two elements of
// its state) is first copied aside, so that no leaf is read after it is
// overwritten.
Status copyOver(GpuExecutable::Device& device, const GpuExecutable::Value& to, const GpuExecutable::Value& from) {
  std::vector<const GpuExecutable::Value*> targets, sources;
  arrayLeaves(to, targets);
  arrayLeaves(from, sources);
  if (targets.size() != sources.size())
    return errorStatus("gpu: internal error: a loop body's result has " + std::to_string(sources.size()) +
                       " arrays, its state " + std::to_string(targets.size()));
  std::vector<std::shared_ptr<GpuExecutable::Value>> aside(sources.size());
  for (size_t i = 0; i < sources.size(); ++i)
    for (size_t j = 0; j < targets.size(); ++j)
      if (j != i && sources[i]->ptr == targets[j]->ptr) {
        HLO_ASSIGN_OR_RETURN(aside[i], newArray(device, sources[i]->shape));
        HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*device.driver, cuMemcpyDtoDAsync, aside[i]->ptr, sources[i]->ptr,
                                          static_cast<std::size_t>(arrayBytes(sources[i]->shape)), nullptr));
        break;
      }
  for (size_t i = 0; i < sources.size(); ++i) {
    CUdeviceptr source = aside[i] ? aside[i]->ptr : sources[i]->ptr;
    if (int64_t bytes = arrayBytes(sources[i]->shape); bytes > 0 && source != targets[i]->ptr)
      HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*device.driver, cuMemcpyDtoDAsync, targets[i]->ptr, source,
                                        static_cast<std::size_t>(bytes), nullptr));
  }
  return okStatus();
}

}  // namespace

static StatusOr<ValuePtr> upload(GpuExecutable::RunState& run, const Literal& literal);
static StatusOr<Literal> download(GpuExecutable::RunState& run, const GpuExecutable::Value& value);

static StatusOr<ValuePtr> upload(GpuExecutable::RunState& run, const Literal& literal) {
  if (!literal.shape().isTuple() && !literal.shape().isArray()) {  // a token
    auto token = std::make_shared<GpuExecutable::Value>();
    token->shape = literal.shape();
    return ValuePtr(std::move(token));
  }
  if (literal.shape().isTuple()) {
    auto tuple = std::make_shared<GpuExecutable::Value>();
    tuple->shape = literal.shape();
    for (const Literal& e : literal.tupleElements()) {
      HLO_ASSIGN_OR_RETURN(ValuePtr v, upload(run, e));
      tuple->elements.push_back(std::move(v));
    }
    return ValuePtr(std::move(tuple));
  }
  auto start = std::chrono::steady_clock::now();
  HLO_ASSIGN_OR_RETURN(auto value, newArray(run.device, literal.shape()));
  std::size_t bytes = static_cast<std::size_t>(arrayBytes(literal.shape()));
  if (bytes > literal.byteSize())
    return errorStatus("gpu: internal error: " + literal.shape().toString(false) + " holds " +
                       std::to_string(literal.byteSize()) + " bytes, " + std::to_string(bytes) + " expected");
  if (bytes > 0) HLO_RETURN_IF_ERROR(run.device.copies->toDevice(value->ptr, literal.untypedData(), bytes));
  run.uploadedBytes += static_cast<int64_t>(bytes);
  run.uploadSeconds += secondsSince(start);
  return ValuePtr(std::move(value));
}

static StatusOr<Literal> download(GpuExecutable::RunState& run, const GpuExecutable::Value& value) {
  if (value.shape.isTuple()) {
    Literal tuple;
    tuple.mutableShape() = value.shape;
    for (const ValuePtr& e : value.elements) {
      HLO_ASSIGN_OR_RETURN(Literal element, download(run, *e));
      tuple.tupleElements().push_back(std::move(element));
    }
    return tuple;
  }
  if (!value.shape.isArray()) return Literal(value.shape);  // a token: no elements
  auto start = std::chrono::steady_clock::now();
  Literal out = Literal::uninitialized(value.shape);
  std::size_t bytes = static_cast<std::size_t>(arrayBytes(value.shape));
  if (bytes > 0) HLO_RETURN_IF_ERROR(run.device.copies->toHost(out.untypedData(), value.ptr, bytes));
  run.downloadedBytes += static_cast<int64_t>(bytes);
  run.downloadSeconds += secondsSince(start);
  return out;
}

StatusOr<Literal> GpuExecutable::run(std::span<const Literal> args, collectives::Participant* participant) {
  HLO_ASSIGN_OR_RETURN(Device * device, this->device(participant ? participant->device : 0));
  std::lock_guard<std::mutex> lock(device->runs);
  HLO_RETURN_IF_ERROR(device->driver->makeCurrent());  // this thread may be new to the context
  const Computation& entry = *compiled_.entry->computation;
  if (static_cast<int>(args.size()) != entry.parameterCount())
    return errorStatus("gpu: ENTRY takes " + std::to_string(entry.parameterCount()) + " arguments, " +
                       std::to_string(args.size()) + " given");
  RunState run(*device, participant);
  if (options_.profile) {
    HLO_ASSIGN_OR_RETURN(CudaEvent origin, CudaEvent::create(*device->driver));
    HLO_RETURN_IF_ERROR(origin.record(nullptr));
    run.origin.emplace(std::move(origin));
    run.originUs = jit::traceNowUs();
  }
  std::vector<ValuePtr> uploaded;
  for (int p = 0; p < entry.parameterCount(); ++p) {
    if (!args[p].shape().sameTypeAndDims(entry.parameter(p)->shape()))
      return errorStatus("gpu: argument " + std::to_string(p) + " is " + args[p].shape().toString(false) +
                         " but parameter %" + entry.parameter(p)->name() + " is " +
                         entry.parameter(p)->shape().toString(false));
    HLO_ASSIGN_OR_RETURN(ValuePtr v, upload(run, args[p]));
    uploaded.push_back(std::move(v));
  }
  CUdeviceptr base = device->arena ? device->arena->ptr() : 0;
  HLO_RETURN_IF_ERROR(device->stepsStart->record(nullptr));
  HLO_ASSIGN_OR_RETURN(ValuePtr result, runProgram(*compiled_.entry, uploaded, run, base));
  HLO_RETURN_IF_ERROR(device->stepsEnd->record(nullptr));
  HLO_RETURN_IF_ERROR(device->driver->synchronize());
  HLO_ASSIGN_OR_RETURN(float stepsMs, CudaEvent::elapsedMs(*device->stepsStart, *device->stepsEnd));
  HLO_ASSIGN_OR_RETURN(Literal out, download(run, *result));
  std::lock_guard<std::mutex> statsLock(statsMutex_);
  // Each kernel on the trace's GPU track, placed by the device's clock
  // from the run's first event.
  for (const RunState::Timed& t : run.timed) {
    HLO_ASSIGN_OR_RETURN(float sinceOrigin, CudaEvent::elapsedMs(*run.origin, t.start));
    HLO_ASSIGN_OR_RETURN(float took, CudaEvent::elapsedMs(t.start, t.end));
    mutableTrace().push_back({t.instr->name(), "kernel", std::string(opcodeName(t.instr->opcode())),
                              run.originUs + sinceOrigin * 1e3, took * 1e3, kGpuTraceTrack});
  }
  lastStats_.onDevice = true;
  lastStats_.runOutputBytes = run.downloadedBytes;
  lastStats_.runHeapBytes = run.kernelBytes;
  lastStats_.deviceBytes = device->buffers->allocatedBytes() + (device->arena ? compiled_.memory.arenaBytes : 0);
  lastStats_.arenaBytes = device->arena ? compiled_.memory.arenaBytes : 0;
  lastStats_.plannedPeakBytes = compiled_.memory.peakBytes;
  lastStats_.plannedNoReuseBytes = compiled_.memory.noReuseBytes;
  lastStats_.pinnedBytes = static_cast<int64_t>(device->copies->pinnedBytes());
  lastStats_.uploadBytes = run.uploadedBytes;
  lastStats_.uploadSeconds = run.uploadSeconds;
  lastStats_.downloadBytes = run.downloadedBytes;
  lastStats_.downloadSeconds = run.downloadSeconds;
  lastStats_.deviceSeconds = stepsMs / 1e3;
  if (options_.verbose)
    jit::report(options_, jit::formatted("gpu: run: %lld bytes up in %.3g ms, %lld bytes down in %.3g ms, %lld bytes of "
                 "arrays made by kernels",
                 static_cast<long long>(run.uploadedBytes), run.uploadSeconds * 1e3,
                 static_cast<long long>(run.downloadedBytes), run.downloadSeconds * 1e3,
                 static_cast<long long>(run.kernelBytes)));
  return out;
}

// One run of one program, the GPU's side of jit/step_walk.h.
struct GpuExecutable::ProgramRun {
  using Value = ValuePtr;
  using Step = GpuStep;
  using Program = GpuProgram;

  ProgramRun(GpuExecutable& exe, const Program& program, std::span<const ValuePtr> args, RunState& run,
             CUdeviceptr base)
      : values(program.steps.size()), program(program), maxWhileIterations(exe.options_.maxWhileIterations),
        exe(exe), args(args), run(run), driver(*run.device.driver), frame{base && program.memory ? program.memory.get() : nullptr, base} {}

  std::vector<Value> values;
  const Program& program;
  const std::string backend = "gpu";
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
      case K::kKernel: case K::kGemm: case K::kHost: case K::kInterpreter:
        break;
    }
    return jit::HostStep::kNone;
  }

  size_t argumentCount() const { return args.size(); }
  Value argument(size_t n) const { return args[n]; }

  // Uploaded by the first run that reaches it, and kept.
  StatusOr<Value> constant(const Instruction& instr) {
    auto& cached = run.device.constants[&instr];
    if (!cached) {
      HLO_ASSIGN_OR_RETURN(cached, upload(run, instr.literal()));
    }
    return cached;
  }

  Value tuple(size_t s) const {
    auto tuple = std::make_shared<GpuExecutable::Value>();
    tuple->shape = program.steps[s].instr->shape();
    for (int op : program.steps[s].operands) tuple->elements.push_back(values[op]);
    return tuple;
  }

  static int64_t tupleSize(const Value& tuple) { return static_cast<int64_t>(tuple->elements.size()); }
  static Value element(const Value& tuple, int64_t index) { return tuple->elements[index]; }

  // With a plan, a tuple's copy has buffers of its own, and its operand's
  // may be reused after it; without, values are never written after they
  // are made, so the copy is the value.
  StatusOr<Value> copyTuple(size_t s, const Value& from) { return frame.memory ? ownCopy(s, *from) : from; }

  static Value token(const Shape& shape) {
    auto token = std::make_shared<GpuExecutable::Value>();
    token->shape = shape;
    return token;
  }

  static Status reserve(size_t) { return okStatus(); }
  static void made(size_t) {}

  // With a plan, the loop state is the while's own buffers, which the
  // body's result is copied over; without, the body's result is the next
  // state as it is.
  StatusOr<Value> loopState(size_t s, const Value& init) { return frame.memory ? ownCopy(s, *init) : init; }

  StatusOr<Value> runCallee(size_t s, const Program& callee, std::span<const Value> calleeArgs) {
    return exe.runProgram(callee, calleeArgs, run, frame.calleeBase(s));
  }

  // A device value copied back (predicates, selectors).
  StatusOr<const Literal*> onHost(const Value& v) {
    HLO_ASSIGN_OR_RETURN(hostCopy, toHost(v));
    return &hostCopy;
  }

  Status iterate(size_t s, const Program& body, Value& state) {
    HLO_ASSIGN_OR_RETURN(ValuePtr next, runCallee(s, body, std::span<const Value>(&state, 1)));
    if (frame.memory) return copyOver(run.device, *state, *next);
    state = std::move(next);
    return okStatus();
  }

  StatusOr<Value> keep(size_t s, Value result) { return frame.memory ? ownCopy(s, *result) : result; }

  // Kernels are profiled by CUDA events around their launches (timed).
  struct NoSpan {};
  static NoSpan traceStep(size_t) { return {}; }
  static void stepDone(size_t) {}

  Status runStep(size_t s);

 private:
  // A callee's result copied into step s's own buffers (see the top of this file).
  StatusOr<Value> ownCopy(size_t s, const GpuExecutable::Value& result) {
    size_t leaf = 0;
    return copyOf(run.device, result, frame, s, leaf);
  }

  // The host's copy of a device value.
  StatusOr<Literal> toHost(const Value& v) {
    HLO_RETURN_IF_ERROR(driver.synchronize());
    return download(run, *v);
  }

  // launch(), between CUDA events when the run is profiled.
  Status timed(const Instruction& instr, const std::function<Status()>& launch) {
    if (!run.origin) return launch();
    HLO_ASSIGN_OR_RETURN(CudaEvent start, CudaEvent::create(driver));
    HLO_ASSIGN_OR_RETURN(CudaEvent end, CudaEvent::create(driver));
    HLO_RETURN_IF_ERROR(start.record(nullptr));
    HLO_RETURN_IF_ERROR(launch());
    HLO_RETURN_IF_ERROR(end.record(nullptr));
    run.timed.push_back({&instr, std::move(start), std::move(end)});
    return okStatus();
  }

  Status runKernel(size_t s, const std::vector<ValuePtr>& ops);
  Status runGemm(size_t s, const std::vector<ValuePtr>& ops);
  Status runOnHost(size_t s, const std::vector<ValuePtr>& ops);

  GpuExecutable& exe;
  std::span<const ValuePtr> args;
  RunState& run;
  const CudaDriver& driver;
  const Frame frame;
  Literal hostCopy;  // onHost's
};

Status GpuExecutable::ProgramRun::runStep(size_t s) {
  const GpuStep& step = program.steps[s];
  std::vector<ValuePtr> ops;
  for (int op : step.operands) ops.push_back(values[op]);
  using Kind = GpuStep::Kind;
  switch (step.kind) {
    case Kind::kKernel: return runKernel(s, ops);
    case Kind::kGemm: return runGemm(s, ops);
    case Kind::kHost: case Kind::kInterpreter: return runOnHost(s, ops);
    case Kind::kParameter: case Kind::kConstant: case Kind::kTuple: case Kind::kGetTupleElement:
    case Kind::kForward: case Kind::kToken: case Kind::kWhile: case Kind::kConditional: case Kind::kCall:
      break;
  }
  return errorStatus("gpu: internal error: host step %" + step.instr->name() + " run as the backend's own");
}

Status GpuExecutable::ProgramRun::runKernel(size_t s, const std::vector<ValuePtr>& ops) {
  const GpuStep& step = program.steps[s];
  const Instruction& instr = *step.instr;
  std::vector<CUdeviceptr> pointers;
  for (const ValuePtr& op : ops) pointers.push_back(op->ptr);
  std::vector<std::shared_ptr<GpuExecutable::Value>> outs;
  std::vector<const Shape*> outShapes;
  if (step.kernel.outputs == 1) outShapes.push_back(&instr.shape());
  else
    for (const Shape& e : instr.shape().tupleElements()) outShapes.push_back(&e);
  for (const Shape* shape : outShapes) {
    HLO_ASSIGN_OR_RETURN(auto out, placedArray(run.device, *shape, frame.place(s, outs.size()), frame.base));
    pointers.push_back(out->ptr);
    run.kernelBytes += arrayBytes(*shape);
    outs.push_back(std::move(out));
  }
  std::vector<void*> params;
  for (CUdeviceptr& p : pointers) params.push_back(&p);
  if (step.kernel.blocks > 0)
    HLO_RETURN_IF_ERROR(timed(instr, [&] {
      return driver.launch(run.device.functions.at(step.kernelName), {static_cast<unsigned>(step.kernel.blocks), 1, 1},
                           {static_cast<unsigned>(kThreadsPerBlock), 1, 1}, 0, nullptr, params.data());
    }));
  if (outs.size() == 1 && step.kernel.outputs == 1) {
    values[s] = std::move(outs[0]);
  } else {
    auto tuple = std::make_shared<GpuExecutable::Value>();
    tuple->shape = instr.shape();
    for (auto& o : outs) tuple->elements.push_back(std::move(o));
    values[s] = std::move(tuple);
  }
  return okStatus();
}

Status GpuExecutable::ProgramRun::runGemm(size_t s, const std::vector<ValuePtr>& ops) {
  const GpuStep& step = program.steps[s];
  const Instruction& instr = *step.instr;
  HLO_ASSIGN_OR_RETURN(auto out, placedArray(run.device, instr.shape(), frame.place(s, 0), frame.base));
  run.kernelBytes += arrayBytes(instr.shape());
  const GemmPlan& g = step.gemm;
  if (g.batch > 0 && g.m > 0 && g.n > 0) {
    if (g.k == 0) {  // a sum of nothing
      HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(driver, cuMemsetD8Async, out->ptr, 0,
                                        static_cast<std::size_t>(arrayBytes(instr.shape())), nullptr));
    } else {
      HLO_ASSIGN_OR_RETURN(Cublas * cublas, Cublas::get(driver));
      HLO_RETURN_IF_ERROR(timed(instr, [&] { return cublas->gemm(g, ops[0]->ptr, ops[1]->ptr, out->ptr); }));
    }
  }
  values[s] = std::move(out);
  return okStatus();
}

// Host steps (hlo/shared_semantics.h) and the interpreter fallback: the
// operands copied back, the result up.
Status GpuExecutable::ProgramRun::runOnHost(size_t s, const std::vector<ValuePtr>& ops) {
  const GpuStep& step = program.steps[s];
  const Instruction& instr = *step.instr;
  std::vector<Literal> hostOps;
  for (const ValuePtr& op : ops) {
    HLO_ASSIGN_OR_RETURN(Literal l, toHost(op));
    hostOps.push_back(std::move(l));
  }
  std::vector<const Literal*> pointers;
  for (const Literal& l : hostOps) pointers.push_back(&l);
  StatusOr<Literal> result = errorStatus("gpu: internal error: no host semantics");
  if (step.kind == GpuStep::Kind::kHost) {
    EngineHooks hooks{
        [&](const Computation&, Values callArgs) -> StatusOr<Literal> {
          if (step.callees.empty())
            return errorStatus("gpu: %" + instr.name() + " has no compiled computation to run", instr.loc());
          std::vector<ValuePtr> up;
          for (const Literal* a : callArgs) {
            HLO_ASSIGN_OR_RETURN(ValuePtr v, upload(run, *a));
            up.push_back(std::move(v));
          }
          HLO_ASSIGN_OR_RETURN(ValuePtr r, exe.runProgram(*step.callees[0], up, run, /*base=*/0));
          return toHost(r);
        },
        [](const Instruction& i, const std::string& why) {
          return errorStatus("gpu: " + std::string(opcodeName(i.opcode())) + " (%" + i.name() + "): " + why, i.loc());
        },
        {},
        run.participant};
    result = step.shared(instr, pointers, hooks);
  } else {
    result = jit::interpretStep(instr, pointers, exe.options_);
  }
  if (!result.ok()) return result.status();
  HLO_ASSIGN_OR_RETURN(values[s], upload(run, *result));
  return okStatus();
}

StatusOr<ValuePtr> GpuExecutable::runProgram(const GpuProgram& program, std::span<const ValuePtr> args, RunState& run,
                                             CUdeviceptr base) {
  ProgramRun programRun(*this, program, args, run, base);
  return jit::walkSteps(programRun);
}

}  // namespace hlo::gpu
