#include "conformance/fuzz_generator.h"

#include <vector>

#include "conformance/fuzz_ops.h"

namespace hlo::conformance::fuzz {
namespace {

// How the generator writes an instance of an opcode: a writer, which
// returns false when the module gives it nothing to work on, or why it
// writes none.
struct Plan {
  using Writer = bool (*)(Builder& b, Opcode op);
  Writer write;
  std::string_view whyNot;
  static Plan writes(Writer w) { return {w, {}}; }
};

// Every opcode of the table has its case, so a new opcode is a compile
// error here until the generator writes it or says why not.
#define WRITER Plan::writes([](Builder& b, [[maybe_unused]] Opcode op) -> bool
Plan planOf(Opcode op) {
  switch (op) {
    case Opcode::kAbs: case Opcode::kAcos: case Opcode::kAcosh: case Opcode::kAdd: case Opcode::kAnd:
    case Opcode::kAsin: case Opcode::kAsinh: case Opcode::kAtan: case Opcode::kAtan2: case Opcode::kAtanh:
    case Opcode::kBitcastConvert: case Opcode::kCbrt: case Opcode::kCeil: case Opcode::kClamp: case Opcode::kClz:
    case Opcode::kCompare: case Opcode::kComplex: case Opcode::kConvert: case Opcode::kCos: case Opcode::kCosh:
    case Opcode::kDivide: case Opcode::kErf: case Opcode::kExp: case Opcode::kExpm1: case Opcode::kFloor:
    case Opcode::kImag: case Opcode::kIsFinite: case Opcode::kLog: case Opcode::kLog1p: case Opcode::kLogistic:
    case Opcode::kMap: case Opcode::kMaximum: case Opcode::kMinimum: case Opcode::kMulhi: case Opcode::kMultiply:
    case Opcode::kNegate: case Opcode::kNot: case Opcode::kOr: case Opcode::kPopulationCount: case Opcode::kPower:
    case Opcode::kReal: case Opcode::kReducePrecision: case Opcode::kRemainder: case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven: case Opcode::kRsqrt: case Opcode::kSelect: case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic: case Opcode::kShiftRightLogical: case Opcode::kSign: case Opcode::kSin:
    case Opcode::kSinh: case Opcode::kSqrt: case Opcode::kSubtract: case Opcode::kTan: case Opcode::kTanh:
    case Opcode::kXor:
      return WRITER { return writeElementwise(b, op); });
    case Opcode::kStochasticConvert: return WRITER { return writeStochasticConvert(b); });
    case Opcode::kBroadcast: return WRITER { return writeBroadcast(b); });
    case Opcode::kReshape: return WRITER { return writeReshape(b, false); });
    case Opcode::kBitcast: return WRITER { return writeReshape(b, true); });
    case Opcode::kTranspose: return WRITER { return writeTranspose(b); });
    case Opcode::kSlice: return WRITER { return writeSlice(b); });
    case Opcode::kConcatenate: return WRITER { return writeConcatenate(b); });
    case Opcode::kPad: return WRITER { return writePad(b); });
    case Opcode::kReverse: return WRITER { return writeReverse(b); });
    case Opcode::kDynamicSlice: return WRITER { return writeDynamicSlice(b); });
    case Opcode::kDynamicUpdateSlice: return WRITER { return writeDynamicUpdateSlice(b); });
    case Opcode::kGather: return WRITER { return writeGather(b); });
    case Opcode::kScatter: return WRITER { return writeScatter(b); });
    case Opcode::kIota: return WRITER { return writeIota(b); });
    case Opcode::kConstant: return WRITER { return writeConstant(b); });
    case Opcode::kParameter: return WRITER { b.parameter(b.mainType(), b.someDims()); return true; });
    case Opcode::kCopy: return WRITER { return writeCopy(b); });
    case Opcode::kTuple: case Opcode::kGetTupleElement: return WRITER { return writeTuple(b, false); });
    case Opcode::kOptimizationBarrier: return WRITER { return writeTuple(b, true); });
    case Opcode::kGetDimensionSize: return WRITER { return writeGetDimensionSize(b); });
    case Opcode::kSetDimensionSize: return WRITER { return writeSetDimensionSize(b); });
    case Opcode::kReduce: return WRITER { return writeReduce(b); });
    case Opcode::kReduceWindow: return WRITER { return writeReduceWindow(b); });
    case Opcode::kSelectAndScatter: return WRITER { return writeSelectAndScatter(b); });
    case Opcode::kSort: return WRITER { return writeSort(b); });
    case Opcode::kTopK: return WRITER { return writeTopK(b, false); });
    case Opcode::kScan: return WRITER { return writeScan(b); });
    case Opcode::kDot: return WRITER { return writeDot(b); });
    case Opcode::kRaggedDot: return WRITER { return writeRaggedDot(b); });
    case Opcode::kConvolution: return WRITER { return writeConvolution(b); });
    case Opcode::kFft: return WRITER { return writeFft(b); });
    case Opcode::kCholesky: return WRITER { return writeCholesky(b); });
    case Opcode::kTriangularSolve: return WRITER { return writeTriangularSolve(b); });
    case Opcode::kBatchNormGrad: case Opcode::kBatchNormInference: case Opcode::kBatchNormTraining:
      return WRITER { return writeBatchNorm(b, op); });
    case Opcode::kRng: return WRITER { return writeRng(b); });
    case Opcode::kRngBitGenerator: return WRITER { return writeRngBitGenerator(b); });
    case Opcode::kRngGetAndUpdateState: return WRITER { return writeRngState(b); });
    case Opcode::kCall: return WRITER { return writeCall(b); });
    case Opcode::kFusion: return WRITER { return writeFusion(b); });
    case Opcode::kWhile: return WRITER { return writeWhile(b); });
    case Opcode::kConditional: return WRITER { return writeConditional(b); });
    case Opcode::kAsyncStart: case Opcode::kAsyncUpdate: case Opcode::kAsyncDone: return WRITER { return writeAsync(b); });
    case Opcode::kCopyStart: case Opcode::kCopyDone: return WRITER { return writeCopyStartDone(b); });
    case Opcode::kAddDependency: case Opcode::kAfterAll: return WRITER { return writeAddDependency(b); });
    case Opcode::kDomain: return WRITER { return writeDomain(b); });
    case Opcode::kCustomCall: return WRITER { return b.oneIn(2) ? writeAnnotation(b) : writeTopK(b, true); });
    case Opcode::kReplicaId: case Opcode::kPartitionId: return WRITER { return writeDeviceId(b, op); });
    case Opcode::kAllGather: case Opcode::kAllGatherDone: case Opcode::kAllGatherStart: case Opcode::kAllReduce:
    case Opcode::kAllReduceDone: case Opcode::kAllReduceStart: case Opcode::kAllToAll:
    case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute: case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectivePermuteStart: case Opcode::kReduceScatter:
      return WRITER { return writeCollective(b, op); });
    case Opcode::kInfeed: case Opcode::kOutfeed:
      return {nullptr, "reads or writes the host's feed queue"};
    case Opcode::kSend: case Opcode::kSendDone: case Opcode::kRecv: case Opcode::kRecvDone:
      return {nullptr, "transfers data to or from another device or the host"};
    case Opcode::kCollectiveReduce: case Opcode::kRaggedAllToAll: case Opcode::kShuffle:
      return {nullptr, "has no single-device meaning defined here"};
    case Opcode::kScaledDot:
      return {nullptr, "not written yet: block-scaled operands need scale shapes tied to the block size"};
    case Opcode::kDynamicReshape:
      return {nullptr, "not written yet: runtime sizes come from set-dimension-size"};
  }
  return {nullptr, "not in the opcode table"};
}
#undef WRITER

}  // namespace

std::optional<std::string_view> notGenerated(Opcode op) {
  Plan plan = planOf(op);
  if (plan.write) return std::nullopt;
  return plan.whyNot;
}

std::string generateModule(uint64_t seed, Profile profile) {
  const bool xla = profile == Profile::kXla;
  auto written = [](bool xla) {
    std::vector<Opcode> ops;
    for (int i = 0; i < opcodeCount(); ++i) {
      const Opcode op = static_cast<Opcode>(i);
      // XLA:CPU runs no atan, mulhi, acos, acosh, asin, asinh, atanh, cosh,
      // sinh, copy-start or collective-broadcast, takes async wrappers in
      // its own forms only, and its rng's values are its own.
      const bool notXla =
          op == Opcode::kAtan || op == Opcode::kMulhi || op == Opcode::kAcos || op == Opcode::kAcosh ||
          op == Opcode::kAsin || op == Opcode::kAsinh || op == Opcode::kAtanh || op == Opcode::kCosh ||
          op == Opcode::kSinh || op == Opcode::kCopyStart || op == Opcode::kCopyDone ||
          op == Opcode::kCollectiveBroadcast || op == Opcode::kAsyncStart || op == Opcode::kAsyncUpdate ||
          op == Opcode::kAsyncDone || op == Opcode::kRng || op == Opcode::kRngGetAndUpdateState;
      if (!notGenerated(op) && !(xla && notXla)) ops.push_back(op);
    }
    return ops;
  };
  auto types = [](bool xla) {
    std::vector<ElementType> fit;
    for (ElementType t : Builder::arrayTypes())
      if (!xla || (bitWidth(t) > 2 && bitWidth(t) != 6 && t != ElementType::kF4E2M1FN && t != ElementType::kF8E8M0FNU))
        fit.push_back(t);
    return fit;
  };
  static const std::vector<Opcode> kAll = written(false), kForXla = written(true);
  static const std::vector<ElementType> kAllTypes = types(false), kXlaTypes = types(true);
  const std::vector<Opcode>& kWritten = xla ? kForXla : kAll;
  Builder b(seed, xla ? kXlaTypes : kAllTypes, xla);
  b.parameter(b.mainType(), b.mainDims());
  const int steps = 3 + static_cast<int>(b.pick(14));
  for (int step = 0; step < steps; ++step)
    for (int attempt = 0; attempt < 20; ++attempt) {
      const Opcode op = b.pickOf(kWritten);
      if (planOf(op).write(b, op)) break;
    }
  return b.text("fuzz_" + std::to_string(seed));
}

}  // namespace hlo::conformance::fuzz
