// Reductions folded by one thread per output element (reduce_kernel.h).
#include "backends/gpu/reduce_kernel.h"

#include <algorithm>

#include "hlo/computation.h"

namespace hlo::gpu {

bool isSerialReduce(const Instruction& instr) {
  return instr.opcode() == Opcode::kReduce && !jit::emitsReduce(instr);
}

Status emitSerialReduceKernel(ThreadBlock& tb, jit::ElementalEmitter& e, llvm::IRBuilder<>& b,
                              const Instruction& reduce, const std::vector<llvm::Value*>& outputBases) {
  const std::vector<Shape> results = reduce.shape().elementsOrSelf();
  const size_t n = results.size();
  const Computation* reducer = reduce.attrs().getComputation(AttrKey::kToApply);
  if (!reducer || reduce.operandCount() != static_cast<int>(2 * n) || reducer->parameterCount() != static_cast<int>(2 * n))
    return jit::cannotCompile(reduce, "a reduce takes an input and an init value per result, and a reducer of "
                                      "two parameters per result");
  const std::vector<int64_t>& outDims = results[0].dims();
  const std::vector<int64_t>& inDims = reduce.operand(0)->shape().dims();
  std::vector<int64_t> reduced = reduce.attrs().getInts(AttrKey::kDimensions);
  std::sort(reduced.begin(), reduced.end());
  std::vector<int64_t> reducedDims;
  int64_t count = 1;
  for (int64_t d : reduced) {
    if (d < 0 || d >= static_cast<int64_t>(inDims.size())) return jit::cannotCompile(reduce, "dimension out of range");
    reducedDims.push_back(inDims[static_cast<size_t>(d)]);
    count *= inDims[static_cast<size_t>(d)];
  }
  for (size_t i = 0; i < n; ++i) {
    const Shape& in = reduce.operand(static_cast<int>(i))->shape();
    const Shape& init = reduce.operand(static_cast<int>(n + i))->shape();
    const Shape& acc = reducer->parameter(static_cast<int>(i))->shape();
    const Shape& x = reducer->parameter(static_cast<int>(n + i))->shape();
    if (!in.isArray() || in.dims() != inDims || !init.isArray() || init.rank() != 0 || results[i].dims() != outDims ||
        !acc.isArray() || !x.isArray() || inDims.size() != outDims.size() + reduced.size())
      return jit::cannotCompile(reduce, "its inputs, init values, reducer and results do not agree in shape and type");
  }
  int64_t elements = 1;
  for (int64_t d : outDims) elements *= d;
  // A reducer declared in other types than the values (bf16 folded by an
  // f32 add) accumulates in its own types: the init values and inputs are
  // converted to them, and the totals to the results' types at the end.
  // (ElementalEmitter::convert keeps a value already of the type asked.)
  auto parameterType = [&](size_t i) { return reducer->parameter(static_cast<int>(i))->shape().type(); };
  const std::vector<Shape> made = reducer->root()->shape().elementsOrSelf();

  return tb.forEachThread([&](llvm::Value* thread) -> Status {
    llvm::Value* linear = b.CreateAdd(b.CreateMul(tb.block(), b.getInt64(kThreadsPerBlock)), thread, "linear");
    return e.emitWhen(b.CreateICmpULT(linear, b.getInt64(elements)), "fold", [&]() -> Status {
      jit::IrIndex out = e.delinearize(linear, outDims);
      std::vector<llvm::AllocaInst*> accumulators;
      for (size_t i = 0; i < n; ++i) {
        accumulators.push_back(e.entryAlloca(e.valueType(parameterType(i)), "accumulator"));
        const Instruction& initValue = *reduce.operand(static_cast<int>(n + i));
        HLO_ASSIGN_OR_RETURN(llvm::Value * init, e.emit(initValue, e.scalarIndex()));
        HLO_ASSIGN_OR_RETURN(init, e.convert(reduce, initValue.shape().type(), parameterType(i), init));
        b.CreateStore(init, accumulators.back());
      }
      HLO_RETURN_IF_ERROR(e.emitLoop(
          b.getInt64(0), b.getInt64(count), "fold",
          [&](llvm::Value* j) -> Status {
            jit::IrIndex within = e.delinearize(j, reducedDims);
            jit::IrIndex in{inDims, std::vector<llvm::Value*>(inDims.size()), nullptr};
            for (size_t d = 0, k = 0, r = 0; d < inDims.size(); ++d)
              in.multi[d] = r < reduced.size() && reduced[r] == static_cast<int64_t>(d) ? within.multi[r++]
                                                                                        : out.multi[k++];
            std::vector<llvm::Value*> args;
            for (size_t i = 0; i < n; ++i) args.push_back(b.CreateLoad(e.valueType(parameterType(i)), accumulators[i]));
            for (size_t i = 0; i < n; ++i) {
              const Instruction& input = *reduce.operand(static_cast<int>(i));
              HLO_ASSIGN_OR_RETURN(llvm::Value * x, e.emit(input, in));
              HLO_ASSIGN_OR_RETURN(x, e.convert(reduce, input.shape().type(), parameterType(n + i), x));
              args.push_back(x);
            }
            HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> next, e.callScalar(*reducer, args));
            if (next.size() != n) return jit::cannotCompile(reduce, "its reducer returns " + std::to_string(next.size()) +
                                                                        " values for " + std::to_string(n) + " results");
            for (size_t i = 0; i < n; ++i) {
              if (next[i]->getType() != e.valueType(made[i].type()))
                return jit::cannotCompile(reduce, "its reducer's results are not of its declared types");
              HLO_ASSIGN_OR_RETURN(llvm::Value * value, e.convert(reduce, made[i].type(), parameterType(i), next[i]));
              b.CreateStore(value, accumulators[i]);
            }
            return okStatus();
          },
          /*unroll=*/false));
      for (size_t i = 0; i < n; ++i) {
        HLO_ASSIGN_OR_RETURN(llvm::Value * total, e.convert(reduce, parameterType(i), results[i].type(),
                                                            b.CreateLoad(e.valueType(parameterType(i)), accumulators[i])));
        e.store(total, outputBases[i], linear, results[i].type());
      }
      return okStatus();
    });
  });
}

}  // namespace hlo::gpu
