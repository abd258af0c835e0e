// The shared step walk (jit/step_walk.h), run by a toy runtime whose values
// are host literals and whose own steps the interpreter computes: what a
// loop, a conditional, a call and the bookkeeping steps do is the walk's,
// the same for every backend. Expected values are worked by hand.
#include "jit/step_walk.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "hlo/computation.h"
#include "interp/evaluator.h"
#include "parser/parser.h"

namespace hlo::jit {
namespace {

struct ToyProgram;

struct ToyStep {
  const Instruction* instr = nullptr;
  std::vector<int> operands;
  std::vector<const ToyProgram*> callees;
};

struct ToyProgram {
  std::vector<ToyStep> steps;
  int root = 0;
};

// Programs for a computation and everything its host steps call.
class ToyCompiler {
 public:
  const ToyProgram& build(const Computation& computation) {
    if (auto it = built_.find(&computation); it != built_.end()) return *it->second;
    auto program = std::make_unique<ToyProgram>();
    std::map<const Instruction*, int> slot;
    for (const auto& owned : computation.instructions()) {
      ToyStep step;
      step.instr = owned.get();
      for (const Instruction* op : owned->operands()) step.operands.push_back(slot.at(op));
      auto callees = controlFlowCallees(*owned, "toy");
      EXPECT_TRUE(callees.ok());
      for (const Computation* c : *callees) step.callees.push_back(&build(*c));
      slot[owned.get()] = static_cast<int>(program->steps.size());
      program->steps.push_back(std::move(step));
    }
    program->root = slot.at(computation.root());
    const ToyProgram* result = program.get();
    built_[&computation] = std::move(program);
    return *result;
  }

 private:
  std::map<const Computation*, std::unique_ptr<ToyProgram>> built_;
};

// What the walk did, for the tests to check.
struct ToyLog {
  int bodyRuns = 0;       // loop iterations
  int hostReads = 0;      // predicates and selectors read on the host
  std::vector<std::string> ownSteps;  // the steps the runtime ran itself, in order
};

struct ToyRun {
  using Value = std::shared_ptr<const Literal>;
  using Step = ToyStep;
  using Program = ToyProgram;

  ToyRun(const ToyProgram& program, std::vector<Value> args, ToyLog& log, int64_t maxWhileIterations)
      : values(program.steps.size()), program(program), maxWhileIterations(maxWhileIterations),
        args(std::move(args)), log(log) {}

  std::vector<Value> values;
  const ToyProgram& program;
  const std::string backend = "toy";
  int64_t maxWhileIterations;

  static HostStep hostStep(const Step& step) { return hostStepOf(step.instr->opcode()); }
  size_t argumentCount() const { return args.size(); }
  Value argument(size_t n) const { return args[n]; }
  static StatusOr<Value> constant(const Instruction& instr) { return Value(Value(), &instr.literal()); }
  Value tuple(size_t s) const {
    auto tuple = std::make_shared<Literal>();
    tuple->mutableShape() = program.steps[s].instr->shape();
    for (int op : program.steps[s].operands) tuple->tupleElements().push_back(*values[op]);
    return tuple;
  }
  static int64_t tupleSize(const Value& v) { return static_cast<int64_t>(v->tupleElements().size()); }
  static Value element(const Value& v, int64_t i) { return Value(v, &v->tupleElements()[i]); }
  static StatusOr<Value> copyTuple(size_t, const Value& v) { return Value(std::make_shared<Literal>(*v)); }
  static Value token(const Shape& shape) { return std::make_shared<Literal>(shape); }
  static Status reserve(size_t) { return okStatus(); }
  static void made(size_t) {}
  static StatusOr<Value> loopState(size_t, const Value& init) { return init; }
  StatusOr<Value> runCallee(size_t, const ToyProgram& callee, std::span<const Value> calleeArgs) {
    ToyRun run(callee, std::vector<Value>(calleeArgs.begin(), calleeArgs.end()), log, maxWhileIterations);
    return walkSteps(run);
  }
  StatusOr<const Literal*> onHost(const Value& v) {
    ++log.hostReads;
    return v.get();
  }
  Status iterate(size_t s, const ToyProgram& body, Value& state) {
    ++log.bodyRuns;
    HLO_ASSIGN_OR_RETURN(state, runCallee(s, body, std::span<const Value>(&state, 1)));
    return okStatus();
  }
  static StatusOr<Value> keep(size_t, Value result) { return result; }
  static int traceStep(size_t) { return 0; }
  static void stepDone(size_t) {}
  Status runStep(size_t s) {
    const ToyStep& step = program.steps[s];
    log.ownSteps.push_back(step.instr->name());
    std::vector<const Literal*> ops;
    for (int op : step.operands) ops.push_back(values[op].get());
    HLO_ASSIGN_OR_RETURN(Literal result, interp::evaluateInstruction(*step.instr, ops));
    values[s] = std::make_shared<Literal>(std::move(result));
    return okStatus();
  }

  std::vector<Value> args;
  ToyLog& log;
};

struct Walked {
  StatusOr<ToyRun::Value> result = errorStatus("not run");
  ToyLog log;
};

Walked walk(std::string_view text, std::vector<Literal> args, int64_t maxWhileIterations = 0) {
  Walked out;
  auto module = parseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  if (!module.ok()) return out;
  ToyCompiler compiler;
  const ToyProgram& entry = compiler.build(*(*module)->entry());
  std::vector<ToyRun::Value> values;
  for (Literal& a : args) values.push_back(std::make_shared<Literal>(std::move(a)));
  ToyRun run(entry, values, out.log, maxWhileIterations);
  out.result = walkSteps(run);
  if (out.result.ok()) {  // the module goes away here: keep a copy of the value
    out.result = ToyRun::Value(std::make_shared<Literal>(**out.result));
  }
  return out;
}

Literal s32(int32_t v) {
  Literal l = Literal::uninitialized(Shape::scalar(ElementType::kS32));
  l.data<int32_t>()[0] = v;
  return l;
}

// Arguments: s32 scalars.
std::vector<Literal> s32s(std::initializer_list<int32_t> values) {
  std::vector<Literal> args;
  for (int32_t v : values) args.push_back(s32(v));
  return args;
}

int32_t s32Of(const Literal& l) { return l.data<int32_t>()[0]; }

// Sums 0 + 1 + ... + (n - 1): a loop of n iterations.
constexpr const char* kSumLoop = R"(HloModule sum
cond {
  p = (s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] get-tuple-element(p), index=2
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], s32[], s32[]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = s32[] get-tuple-element(p), index=1
  n = s32[] get-tuple-element(p), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  sum = s32[] add(acc, i)
  ROOT t = (s32[], s32[], s32[]) tuple(next, sum, n)
}
ENTRY e {
  n = s32[] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], s32[], s32[]) tuple(zero, zero, n)
  w = (s32[], s32[], s32[]) while(init), condition=cond, body=body
  ROOT acc = s32[] get-tuple-element(w), index=1
}
)";

TEST(StepWalk, WhileLoopRunsItsBodyWhileTheConditionHolds) {
  Walked w = walk(kSumLoop, s32s({5}));
  ASSERT_TRUE(w.result.ok()) << w.result.status().message();
  EXPECT_EQ(s32Of(**w.result), 0 + 1 + 2 + 3 + 4);
  EXPECT_EQ(w.log.bodyRuns, 5);
  EXPECT_EQ(w.log.hostReads, 6);  // the condition is read once more than the body runs
  // The runtime itself ran only the compare of each condition and the two
  // adds of each body: everything else is the walk's.
  EXPECT_EQ(w.log.ownSteps.size(), 6u + 2u * 5u);
}

TEST(StepWalk, IterationLimitAllowsExactlyThatManyIterations) {
  Walked ok = walk(kSumLoop, s32s({3}), /*maxWhileIterations=*/3);
  ASSERT_TRUE(ok.result.ok()) << ok.result.status().message();
  EXPECT_EQ(s32Of(**ok.result), 0 + 1 + 2);

  Walked over = walk(kSumLoop, s32s({4}), /*maxWhileIterations=*/3);
  ASSERT_FALSE(over.result.ok());
  EXPECT_EQ(over.result.status().message(), "toy: %w ran more than 3 iterations (--max-while-iterations)");
  EXPECT_EQ(over.result.status().loc().line, 22);
  EXPECT_EQ(over.log.bodyRuns, 3);
}

// Branch k adds 10^k to its operand.
constexpr const char* kThreeBranches = R"(HloModule pick
b0 {
  x = s32[] parameter(0)
  c = s32[] constant(1)
  ROOT r = s32[] add(x, c)
}
b1 {
  x = s32[] parameter(0)
  c = s32[] constant(10)
  ROOT r = s32[] add(x, c)
}
b2 {
  x = s32[] parameter(0)
  c = s32[] constant(100)
  ROOT r = s32[] add(x, c)
}
ENTRY e {
  k = s32[] parameter(0)
  x0 = s32[] parameter(1)
  x1 = s32[] parameter(2)
  x2 = s32[] parameter(3)
  ROOT c = s32[] conditional(k, x0, x1, x2), branch_computations={b0, b1, b2}
}
)";

int32_t pick(int32_t k) {
  Walked w = walk(kThreeBranches, s32s({k, 1000, 2000, 3000}));
  EXPECT_TRUE(w.result.ok()) << w.result.status().message();
  return w.result.ok() ? s32Of(**w.result) : -1;
}

TEST(StepWalk, ConditionalRunsTheSelectedBranchOnItsOwnOperand) {
  EXPECT_EQ(pick(0), 1000 + 1);
  EXPECT_EQ(pick(1), 2000 + 10);
  EXPECT_EQ(pick(2), 3000 + 100);
  // Out of range, either side: the last branch, as XLA does.
  EXPECT_EQ(pick(3), 3000 + 100);
  EXPECT_EQ(pick(-1), 3000 + 100);
}

TEST(StepWalk, CallRunsItsComputationOnAllOperands) {
  Walked w = walk(R"(HloModule call
f {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT d = s32[] subtract(a, b)
}
ENTRY e {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = s32[] call(a, b), to_apply=f
}
)",
                  s32s({7, 3}));
  ASSERT_TRUE(w.result.ok()) << w.result.status().message();
  EXPECT_EQ(s32Of(**w.result), 4);
}

TEST(StepWalk, MissingArgumentAndElidedConstantAreErrorsNamingTheInstruction) {
  Walked missing = walk("HloModule m\nENTRY e {\n  x = s32[] parameter(0)\n  ROOT n = s32[] negate(x)\n}\n", {});
  ASSERT_FALSE(missing.result.ok());
  EXPECT_EQ(missing.result.status().message(), "toy: parameter %x has no argument");
  EXPECT_EQ(missing.result.status().loc().line, 3);

  Walked elided = walk("HloModule m\nENTRY e {\n  c = s32[4] constant({...})\n  ROOT n = s32[4] negate(c)\n}\n", {});
  ASSERT_FALSE(elided.result.ok());
  EXPECT_EQ(elided.result.status().message(), "toy: constant %c has its values left out of the text ({...})");
  EXPECT_TRUE(elided.log.ownSteps.empty());
}

}  // namespace
}  // namespace hlo::jit
