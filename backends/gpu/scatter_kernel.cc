// One block: copy, barrier, the updates in the interpreter's order
// (scatter_kernel.h).
#include "backends/gpu/scatter_kernel.h"

#include <algorithm>

#include "hlo/computation.h"
#include "hlo/gather_indices.h"

namespace hlo::gpu {
namespace {

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// The scatter's dimension numbers, resolved against its shapes.
struct Geometry {
  std::vector<int64_t> operandDims, updateDims, indexDims;
  int64_t vectorDim = 0;  // in indexDims (a trailing 1 is added when it equals the rank)
  std::vector<int64_t> windowDims, toOperand, operandBatching, indicesBatching;
  std::vector<int64_t> windowOperandDims;        // operand dimension of each window dimension
  std::vector<int64_t> scatterUpdateDims;        // update dimensions that are scatter positions
  std::vector<int64_t> scatterSizes, windowSizes;
  std::vector<int64_t> extent;                   // the window's extent in each operand dimension

  explicit Geometry(const Instruction& s) {
    const Attributes& a = s.attrs();
    const size_t n = static_cast<size_t>(s.operandCount() / 2);
    operandDims = s.operand(0)->shape().dims();
    updateDims = s.operand(static_cast<int>(n + 1))->shape().dims();
    indexDims = s.operand(static_cast<int>(n))->shape().dims();
    vectorDim = a.getInt(AttrKey::kIndexVectorDim);
    if (vectorDim == static_cast<int64_t>(indexDims.size())) indexDims.push_back(1);
    windowDims = a.getInts(AttrKey::kUpdateWindowDims);
    toOperand = a.getInts(AttrKey::kScatterDimsToOperandDims);
    operandBatching = a.getInts(AttrKey::kInputBatchingDims);
    indicesBatching = a.getInts(AttrKey::kScatterIndicesBatchingDims);
    windowOperandDims = remainingDims(static_cast<int64_t>(operandDims.size()),
                                      a.getInts(AttrKey::kInsertedWindowDims), operandBatching);
    for (int64_t d = 0; d < static_cast<int64_t>(updateDims.size()); ++d)
      if (!contains(windowDims, d)) {
        scatterUpdateDims.push_back(d);
        scatterSizes.push_back(updateDims[static_cast<size_t>(d)]);
      }
    extent.assign(operandDims.size(), 1);
    for (size_t k = 0; k < windowDims.size() && k < windowOperandDims.size(); ++k) {
      windowSizes.push_back(updateDims[static_cast<size_t>(windowDims[k])]);
      extent[static_cast<size_t>(windowOperandDims[k])] = windowSizes.back();
    }
  }

  // Whether two landings on one element always have the same window offset:
  // the window is 1 wide in every dimension the index vectors move it in.
  bool offsetsApart() const {
    for (int64_t d : toOperand)
      if (d < 0 || d >= static_cast<int64_t>(extent.size()) || extent[static_cast<size_t>(d)] != 1) return false;
    return true;
  }

  bool wellFormed() const {
    auto inRange = [](const std::vector<int64_t>& v, size_t rank) {
      return std::all_of(v.begin(), v.end(), [&](int64_t d) { return d >= 0 && d < static_cast<int64_t>(rank); });
    };
    return windowOperandDims.size() == windowDims.size() && inRange(windowDims, updateDims.size()) &&
           inRange(toOperand, operandDims.size()) && inRange(operandBatching, operandDims.size()) &&
           inRange(indicesBatching, indexDims.size()) && operandBatching.size() == indicesBatching.size() &&
           vectorDim >= 0 && vectorDim < static_cast<int64_t>(indexDims.size()) &&
           static_cast<int64_t>(toOperand.size()) <= indexDims[static_cast<size_t>(vectorDim)] &&
           scatterSizes.size() + 1 == indexDims.size() && !contains(indicesBatching, vectorDim);
  }
};

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

}  // namespace

Status checkScatterKernel(const Instruction& s) {
  const std::vector<Shape> results = s.shape().elementsOrSelf();
  const size_t n = results.size();
  const Computation* combine = s.attrs().getComputation(AttrKey::kToApply);
  if (!combine || s.operandCount() != static_cast<int>(2 * n + 1) ||
      combine->parameterCount() != static_cast<int>(2 * n))
    return jit::cannotCompile(s, "a scatter takes an operand and an update per result, the indices, and a combiner "
                                 "of two parameters per result");
  const Shape& indices = s.operand(static_cast<int>(n))->shape();
  if (!indices.isArray() || !isInteger(indices.type()))
    return jit::cannotCompile(s, "its indices are not an integer array");
  for (size_t i = 0; i < n; ++i) {
    const Shape& operand = s.operand(static_cast<int>(i))->shape();
    const Shape& update = s.operand(static_cast<int>(n + 1 + i))->shape();
    if (!results[i].isArray() || operand.dims() != results[i].dims() || operand.type() != results[i].type() ||
        operand.dims() != s.operand(0)->shape().dims() || update.dims() != s.operand(static_cast<int>(n + 1))->shape().dims() ||
        update.type() != operand.type() || !combine->parameter(static_cast<int>(i))->shape().isArray() ||
        !combine->parameter(static_cast<int>(n + i))->shape().isArray())
      return jit::cannotCompile(s, "its operands, updates, results and combiner do not agree in shape and type");
  }
  if (!Geometry(s).wellFormed()) return jit::cannotCompile(s, "its dimension numbers do not fit its shapes");
  return okStatus();
}

Status emitScatterKernel(ThreadBlock& tb, jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const Instruction& s,
                         const std::vector<llvm::Value*>& outputBases) {
  const std::vector<Shape> results = s.shape().elementsOrSelf();
  const size_t n = results.size();
  const Computation& combine = *s.attrs().getComputation(AttrKey::kToApply);
  const Instruction& indices = *s.operand(static_cast<int>(n));
  const Geometry g(s);
  const int64_t elements = product(g.operandDims);
  const int64_t positions = product(g.scatterSizes), windows = product(g.windowSizes);
  llvm::Type* i64 = b.getInt64Ty();
  const ElementType indexType = indices.shape().type();
  auto parameterType = [&](size_t i) { return combine.parameter(static_cast<int>(i))->shape().type(); };

  // Combines the update at scatter position p (linear) and window offset w
  // (linear) into the results, when its window lies inside the operand.
  auto land = [&](llvm::Value* p, llvm::Value* w) -> Status {
    jit::IrIndex position = e.delinearize(p, g.scatterSizes);
    jit::IrIndex offset = e.delinearize(w, g.windowSizes);
    std::vector<llvm::Value*> start(g.operandDims.size(), b.getInt64(0));
    for (size_t k = 0; k < g.toOperand.size(); ++k) {
      jit::IrIndex at{g.indexDims, position.multi, nullptr};
      at.multi.insert(at.multi.begin() + g.vectorDim, b.getInt64(static_cast<int64_t>(k)));
      at.dims = indices.shape().dims();
      if (at.multi.size() > at.dims.size()) at.multi.pop_back();  // the implicit trailing 1
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, e.emit(indices, at));
      start[static_cast<size_t>(g.toOperand[k])] =
          isSigned(indexType) ? b.CreateSExtOrTrunc(v, i64) : b.CreateZExtOrTrunc(v, i64);
    }
    for (size_t i = 0; i < g.operandBatching.size(); ++i) {
      int64_t d = g.indicesBatching[i];
      start[static_cast<size_t>(g.operandBatching[i])] = position.multi[static_cast<size_t>(d < g.vectorDim ? d : d - 1)];
    }
    llvm::Value* inside = b.getTrue();
    for (size_t d = 0; d < start.size(); ++d)
      inside = b.CreateAnd(inside, b.CreateAnd(b.CreateICmpSGE(start[d], b.getInt64(0)),
                                               b.CreateICmpSLE(start[d], b.getInt64(g.operandDims[d] - g.extent[d]))));
    return e.emitWhen(inside, "inside", [&]() -> Status {
      jit::IrIndex to{g.operandDims, start, nullptr};
      jit::IrIndex from{g.updateDims, std::vector<llvm::Value*>(g.updateDims.size()), nullptr};
      for (size_t i = 0; i < g.scatterUpdateDims.size(); ++i)
        from.multi[static_cast<size_t>(g.scatterUpdateDims[i])] = position.multi[i];
      for (size_t k = 0; k < g.windowDims.size(); ++k) {
        from.multi[static_cast<size_t>(g.windowDims[k])] = offset.multi[k];
        llvm::Value*& at = to.multi[static_cast<size_t>(g.windowOperandDims[k])];
        at = b.CreateAdd(at, offset.multi[k]);
      }
      llvm::Value* linear = e.linearize(to);
      // A combiner declared in other types (bf16 values added in f32) takes
      // its arguments converted, and its results are converted back before
      // the next update reads them, as the interpreter does (convert keeps a
      // value already of the type asked).
      auto as = [&](llvm::Value* v, ElementType from, ElementType to) { return e.convert(s, from, to, v); };
      std::vector<llvm::Value*> args;
      for (size_t i = 0; i < n; ++i) {
        HLO_ASSIGN_OR_RETURN(llvm::Value * current, as(e.load(outputBases[i], linear, results[i].type()),
                                                       results[i].type(), parameterType(i)));
        args.push_back(current);
      }
      for (size_t i = 0; i < n; ++i) {
        HLO_ASSIGN_OR_RETURN(llvm::Value * u, e.emit(*s.operand(static_cast<int>(n + 1 + i)), from));
        HLO_ASSIGN_OR_RETURN(u, as(u, results[i].type(), parameterType(n + i)));
        args.push_back(u);
      }
      HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> combined, e.callScalar(combine, args));
      if (combined.size() != n) return jit::cannotCompile(s, "its combiner does not return one value per result");
      for (size_t i = 0; i < n; ++i) {
        const ElementType made = combine.root()->shape().elementsOrSelf()[i].type();
        if (combined[i]->getType() != e.valueType(made))
          return jit::cannotCompile(s, "its combiner's results are not of its declared types");
        HLO_ASSIGN_OR_RETURN(llvm::Value * value, as(combined[i], made, results[i].type()));
        e.store(value, outputBases[i], linear, results[i].type());
      }
      return okStatus();
    });
  };

  HLO_RETURN_IF_ERROR(tb.forEachThread([&](llvm::Value* thread) -> Status {
    return tb.forEachItem(thread, elements, [&](llvm::Value* i) -> Status {
      for (size_t k = 0; k < n; ++k) {
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, e.emit(*s.operand(static_cast<int>(k)), e.delinearize(i, g.operandDims)));
        e.store(v, outputBases[k], i, results[k].type());
      }
      return okStatus();
    });
  }));
  tb.barrier();
  if (positions == 0 || windows == 0) return okStatus();
  return tb.forEachThread([&](llvm::Value* thread) -> Status {
    if (g.offsetsApart())
      return tb.forEachItem(thread, windows, [&](llvm::Value* w) -> Status {
        return e.emitLoop(b.getInt64(0), b.getInt64(positions), "position",
                          [&](llvm::Value* p) { return land(p, w); }, /*unroll=*/false);
      });
    return e.emitWhen(b.CreateICmpEQ(thread, b.getInt64(0)), "serial", [&]() -> Status {
      return e.emitLoop(b.getInt64(0), b.getInt64(positions), "position", [&](llvm::Value* p) -> Status {
        return e.emitLoop(b.getInt64(0), b.getInt64(windows), "offset",
                          [&](llvm::Value* w) { return land(p, w); }, /*unroll=*/false);
      }, /*unroll=*/false);
    });
  });
}

}  // namespace hlo::gpu
