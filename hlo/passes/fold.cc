// fold: constant folding through the reference interpreter's semantics.
//
// An instruction whose operands are all constants, whose opcode is pure and
// deterministic, and whose result is a small array becomes a `constant` that
// holds its value. The value comes from the pipeline's evaluator (fold.h),
// the interpreter's own dispatch, so a folded module computes bit for bit
// what the unfolded one does.
//
// Algorithm:
//   1. Walk each computation's instructions in def-before-use order, so every
//      instruction sees its operands already folded: ((1+2)*4) becomes 12 in
//      one run, and a second run finds nothing to do.
//   2. Skip what must not fold (foldableOpcode, PureCallees, shouldFold);
//      evaluate the rest on their operands' literals.
//   3. Add a constant with the instruction's shape (layout included), name,
//      metadata and location; point every use at it; remove the instruction.
//   4. Re-sort the computation so the new constants precede their users.
//
// Left alone on purpose:
//   - Results with more than kMaxFoldedElements (1024) elements. A literal is
//     held in memory and written out in full in the module text, so folding
//     broadcast(scalar) into f32[1000000] or a large iota would trade one
//     cheap instruction for megabytes of text. The cap looks at the result
//     only: scalar and small-array work always folds, and reducing a large
//     constant to a scalar folds too.
//   - Tuple, token and dynamic-shaped results: a tuple constant helps no pass
//     here, and dynamic sizes are not values a literal can carry. Empty
//     results too: they hold no value, and the printer writes f32[2,0] as
//     `{}`, which the parser does not read back.
//   - Side effects and non-determinism: rng, rng-bit-generator, custom-call,
//     infeed/outfeed/send/recv, collectives; partition-id and replica-id,
//     whose values depend on the device.
//   - Control flow, calls and async pairs (while, conditional, call, fusion,
//     async-*, copy-start/done): inline and while-simplify deal with them, and
//     no size cap bounds the work of a loop.
//   - Barriers and token plumbing (opt-barrier, add-dependency, domain,
//     after-all): they exist to order or hide values.
//   - Instructions with control edges, unused ones (dce's job), operands
//     whose values were elided (`{...}`), called computations that contain
//     anything above, and anything the evaluator reports an error for:
//     running the module reports it instead.
//   - The operands of a folded instruction, even when they become dead: dce
//     removes them.
#include "hlo/passes/fold.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hlo/passes/pass.h"
#include "hlo/passes/pass_util.h"

namespace hlo {
namespace {

// The innermost ConstantEvaluatorScope's evaluator on this thread, or null.
thread_local const ConstantEvaluator* currentEvaluator = nullptr;

// Whether an opcode is a pure, deterministic function of its operands that is
// worth replacing by its value. No default: a new opcode must be decided here.
bool foldableOpcode(Opcode op) {
  switch (op) {
    case Opcode::kAbs: case Opcode::kAcos: case Opcode::kAcosh: case Opcode::kAdd:
    case Opcode::kAnd: case Opcode::kAsin: case Opcode::kAsinh: case Opcode::kAtan:
    case Opcode::kAtan2: case Opcode::kAtanh: case Opcode::kBitcastConvert: case Opcode::kCbrt:
    case Opcode::kCeil: case Opcode::kClamp: case Opcode::kClz: case Opcode::kCompare:
    case Opcode::kComplex: case Opcode::kConvert: case Opcode::kCos: case Opcode::kCosh:
    case Opcode::kDivide: case Opcode::kErf: case Opcode::kExp: case Opcode::kExpm1:
    case Opcode::kFloor: case Opcode::kImag: case Opcode::kIsFinite: case Opcode::kLog:
    case Opcode::kLog1p: case Opcode::kLogistic: case Opcode::kMap: case Opcode::kMaximum:
    case Opcode::kMinimum: case Opcode::kMulhi: case Opcode::kMultiply: case Opcode::kNegate:
    case Opcode::kNot: case Opcode::kOr: case Opcode::kPopulationCount: case Opcode::kPower:
    case Opcode::kReal: case Opcode::kReducePrecision: case Opcode::kRemainder:
    case Opcode::kRoundNearestAfz: case Opcode::kRoundNearestEven: case Opcode::kRsqrt:
    case Opcode::kSelect: case Opcode::kShiftLeft: case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical: case Opcode::kSign: case Opcode::kSin: case Opcode::kSinh:
    case Opcode::kSqrt: case Opcode::kStochasticConvert: case Opcode::kSubtract:
    case Opcode::kTan: case Opcode::kTanh: case Opcode::kXor:
    // Data movement.
    case Opcode::kBitcast: case Opcode::kBroadcast: case Opcode::kConcatenate:
    case Opcode::kCopy: case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice:
    case Opcode::kGather: case Opcode::kGetDimensionSize: case Opcode::kGetTupleElement:
    case Opcode::kIota: case Opcode::kPad: case Opcode::kReshape: case Opcode::kReverse:
    case Opcode::kScatter: case Opcode::kSlice: case Opcode::kSort: case Opcode::kTopK:
    case Opcode::kTranspose:
    // Reductions and linear algebra.
    case Opcode::kReduce: case Opcode::kReduceWindow: case Opcode::kSelectAndScatter:
    case Opcode::kScan: case Opcode::kDot: case Opcode::kRaggedDot: case Opcode::kScaledDot:
    case Opcode::kConvolution: case Opcode::kFft: case Opcode::kTriangularSolve:
    case Opcode::kCholesky: case Opcode::kBatchNormInference: case Opcode::kBatchNormTraining:
    case Opcode::kBatchNormGrad:
      return true;

    // Leaves: nothing to fold, or not a constant.
    case Opcode::kParameter: case Opcode::kConstant:
    // A tuple result; dynamic shapes; no interpreter semantics.
    case Opcode::kTuple: case Opcode::kDynamicReshape: case Opcode::kSetDimensionSize:
    case Opcode::kShuffle:
    // Side effects, randomness, opaque targets, device-dependent values.
    case Opcode::kRng: case Opcode::kRngBitGenerator: case Opcode::kRngGetAndUpdateState:
    case Opcode::kCustomCall: case Opcode::kPartitionId: case Opcode::kReplicaId:
    case Opcode::kInfeed: case Opcode::kOutfeed: case Opcode::kSend: case Opcode::kSendDone:
    case Opcode::kRecv: case Opcode::kRecvDone:
    case Opcode::kAllGather: case Opcode::kAllGatherDone: case Opcode::kAllGatherStart:
    case Opcode::kAllReduce: case Opcode::kAllReduceDone: case Opcode::kAllReduceStart:
    case Opcode::kAllToAll: case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteDone: case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectiveReduce: case Opcode::kRaggedAllToAll: case Opcode::kReduceScatter:
    // Control flow, calls, async pairs.
    case Opcode::kCall: case Opcode::kFusion: case Opcode::kWhile: case Opcode::kConditional:
    case Opcode::kAsyncStart: case Opcode::kAsyncUpdate: case Opcode::kAsyncDone:
    case Opcode::kCopyStart: case Opcode::kCopyDone:
    // Barriers and tokens.
    case Opcode::kOptimizationBarrier: case Opcode::kAddDependency: case Opcode::kDomain:
    case Opcode::kAfterAll:
      return false;
  }
  return false;
}

// Whether the computations an instruction calls (reduce's to_apply, sort's
// comparator, ...) hold only foldable opcodes, parameters, constants and
// tuples, transitively. Cached per computation.
class PureCallees {
 public:
  bool of(const Instruction& instr) {
    for (const Computation* callee : instr.calledComputations())
      if (!callee || !of(*callee)) return false;
    return true;
  }

 private:
  bool of(const Computation& comp) {
    auto it = cache_.find(&comp);
    if (it != cache_.end()) return it->second;
    cache_[&comp] = false;  // the call graph is acyclic; this only guards bad input
    bool pure = true;
    for (const auto& instr : comp.instructions()) {
      Opcode op = instr->opcode();
      bool leaf = op == Opcode::kParameter || op == Opcode::kConstant || op == Opcode::kTuple;
      if ((!leaf && !foldableOpcode(op)) || !of(*instr)) {
        pure = false;
        break;
      }
    }
    cache_[&comp] = pure;
    return pure;
  }

  std::unordered_map<const Computation*, bool> cache_;
};

}  // namespace

bool pureFunctionOfOperands(const Instruction& instr) {
  PureCallees pureCallees;
  return foldableOpcode(instr.opcode()) && pureCallees.of(instr);
}

namespace {

// The checks that need no evaluation: opcode, result shape and size, uses,
// control edges, called computations.
bool shouldFold(const Instruction& instr, PureCallees& pureCallees) {
  const Shape& shape = instr.shape();
  if (!foldableOpcode(instr.opcode())) return false;
  if (!shape.isArray() || shape.isDynamic()) return false;
  if (shape.elementCount() == 0 || shape.elementCount() > kMaxFoldedElements) return false;
  if (instr.users().empty() && instr.parent()->root() != &instr) return false;
  if (instr.hasControlEdges()) return false;
  return pureCallees.of(instr);
}

// Folds `instr` if every operand is a constant with known values and the
// evaluator computes a value of its shape. Returns whether it did.
bool foldOne(Computation& comp, Instruction* instr, const ConstantEvaluator& evaluate) {
  // Operand values as the interpreter sees them: the literal under the
  // constant's own shape (a layout can matter, e.g. for bitcast).
  std::vector<Literal> relabeled;
  relabeled.reserve(instr->operandCount());
  std::vector<const Literal*> values;
  for (const Instruction* op : instr->operands()) {
    const Literal* lit = knownLiteral(*op);
    if (!lit) return false;
    if (!(lit->shape() == op->shape())) {
      relabeled.push_back(*lit);
      relabeled.back().mutableShape() = op->shape();
      lit = &relabeled.back();
    }
    values.push_back(lit);
  }
  StatusOr<Literal> value = evaluate(*instr, values);
  if (!value.ok()) return false;
  const Shape& shape = instr->shape();
  if (!value->shape().isArray() || value->type() != shape.type() || value->shape().dims() != shape.dims())
    return false;
  value->mutableShape() = shape;

  Instruction* folded = comp.add(Opcode::kConstant, instr->name() + ".folded", shape);
  folded->setLiteral(std::move(value).value());
  folded->setLoc(instr->loc());
  if (const AttrValue* metadata = instr->attrs().find(AttrKey::kMetadata))
    folded->attrs().set(AttrKey::kMetadata, *metadata);
  std::string name = instr->name();
  comp.replaceAllUses(instr, folded);
  comp.remove(instr);
  folded->setName(std::move(name));
  return true;
}

bool foldComputation(Computation& comp, const ConstantEvaluator& evaluate, PureCallees& pureCallees) {
  std::vector<Instruction*> order;
  for (const auto& instr : comp.instructions()) order.push_back(instr.get());
  bool changed = false;
  for (Instruction* instr : order)
    if (shouldFold(*instr, pureCallees)) changed |= foldOne(comp, instr, evaluate);
  if (changed) {
    Status sorted = comp.sortTopologically();
    assert(sorted.ok() && "a constant cannot close a cycle");
    (void)sorted;
  }
  return changed;
}

}  // namespace

ConstantEvaluatorScope::ConstantEvaluatorScope(ConstantEvaluator evaluator)
    : evaluator_(std::move(evaluator)), outer_(currentEvaluator) {
  currentEvaluator = &evaluator_;
}

ConstantEvaluatorScope::~ConstantEvaluatorScope() { currentEvaluator = outer_; }

bool runFold(Module& module) {
  if (!currentEvaluator || !*currentEvaluator) return false;
  const ConstantEvaluator& evaluate = *currentEvaluator;
  PureCallees pureCallees;
  bool changed = false;
  for (const auto& comp : module.computations()) changed |= foldComputation(*comp, evaluate, pureCallees);
  return changed;
}

}  // namespace hlo
