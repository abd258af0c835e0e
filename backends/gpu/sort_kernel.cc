// A block per slice, a bitonic network over the slice's positions
// (sort_kernel.h).
#include "backends/gpu/sort_kernel.h"

#include "hlo/computation.h"

namespace hlo::gpu {

StatusOr<SortPlan> sortPlanOf(const Instruction& sort) {
  const std::vector<Shape> results = sort.shape().elementsOrSelf();
  const Computation* comparator = sort.attrs().getComputation(AttrKey::kToApply);
  const size_t n = results.size();
  if (!comparator || sort.operandCount() != static_cast<int>(n) ||
      comparator->parameterCount() != static_cast<int>(2 * n) ||
      comparator->root()->shape().type() != ElementType::kPred || comparator->root()->shape().rank() != 0)
    return jit::cannotCompile(sort, "a sort takes an operand per result and a comparator of two parameters per "
                                    "operand, returning pred[]");
  const std::vector<int64_t>& dims = results[0].dims();
  for (size_t i = 0; i < n; ++i) {
    const Shape& operand = sort.operand(static_cast<int>(i))->shape();
    if (!results[i].isArray() || !operand.isArray() || operand.dims() != dims || results[i].dims() != dims ||
        operand.type() != results[i].type() ||
        comparator->parameter(static_cast<int>(2 * i))->shape().type() != operand.type() ||
        comparator->parameter(static_cast<int>(2 * i + 1))->shape().type() != operand.type())
      return jit::cannotCompile(sort, "its operands, results and comparator do not agree in shape and type");
  }
  const std::vector<int64_t> sorted = sort.attrs().getInts(AttrKey::kDimensions);
  if (sorted.size() != 1 || sorted[0] < 0 || sorted[0] >= static_cast<int64_t>(dims.size()))
    return jit::cannotCompile(sort, "it names no sort dimension of its operands");
  SortPlan plan;
  plan.dimension = static_cast<int>(sorted[0]);
  plan.length = dims[static_cast<size_t>(plan.dimension)];
  if (plan.length > kMaxSortSlice)
    return jit::cannotCompile(sort, "slices of " + std::to_string(plan.length) + " elements: a block sorts at most " +
                                        std::to_string(kMaxSortSlice));
  while (plan.padded < plan.length) plan.padded *= 2;
  plan.slices = plan.length == 0 ? 0 : results[0].elementCount() / plan.length;
  return plan;
}

Status emitSortKernel(ThreadBlock& tb, jit::ElementalEmitter& e, llvm::IRBuilder<>& b, const Instruction& sort,
                      const SortPlan& plan, const std::vector<llvm::Value*>& outputBases) {
  const std::vector<Shape> results = sort.shape().elementsOrSelf();
  const Computation& comparator = *sort.attrs().getComputation(AttrKey::kToApply);
  const std::vector<int64_t>& dims = results[0].dims();
  std::vector<int64_t> others = dims;
  others.erase(others.begin() + plan.dimension);
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Value* positions = tb.shared(i32, plan.padded, "sort_positions");
  auto slot = [&](llvm::Value* i) { return b.CreateInBoundsGEP(i32, positions, i); };
  // The index of the slice's element at `position` (an i64).
  auto at = [&](llvm::Value* position) {
    jit::IrIndex slice = e.delinearize(tb.block(), others);
    jit::IrIndex index{dims, slice.multi, nullptr};
    index.multi.insert(index.multi.begin() + plan.dimension, position);
    return index;
  };
  // A phase in which every thread takes its share of `count` items.
  auto strided = [&](int64_t count, const std::function<Status(llvm::Value*)>& body) {
    return tb.forEachThread([&](llvm::Value* thread) { return tb.forEachItem(thread, count, body); });
  };
  // Whether position x (an i32) goes before position y.
  auto before = [&](llvm::Value* x, llvm::Value* y) -> StatusOr<llvm::Value*> {
    llvm::Value* last = b.getInt32(static_cast<uint32_t>(plan.length - 1));
    llvm::Value* xIn = b.CreateICmpULT(x, b.getInt32(static_cast<uint32_t>(plan.length)));
    llvm::Value* yIn = b.CreateICmpULT(y, b.getInt32(static_cast<uint32_t>(plan.length)));
    // Padding is never read: its positions are clamped to the last element's
    // and the comparison then ignored.
    jit::IrIndex xi = at(b.CreateZExt(b.CreateSelect(xIn, x, last), b.getInt64Ty()));
    jit::IrIndex yi = at(b.CreateZExt(b.CreateSelect(yIn, y, last), b.getInt64Ty()));
    std::vector<llvm::Value*> xy, yx;
    for (int o = 0; o < sort.operandCount(); ++o) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * xv, e.emit(*sort.operand(o), xi));
      HLO_ASSIGN_OR_RETURN(llvm::Value * yv, e.emit(*sort.operand(o), yi));
      xy.insert(xy.end(), {xv, yv});
      yx.insert(yx.end(), {yv, xv});
    }
    HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> less, e.callScalar(comparator, xy));
    HLO_ASSIGN_OR_RETURN(std::vector<llvm::Value*> greater, e.callScalar(comparator, yx));
    llvm::Value* earlier = b.CreateICmpULT(x, y);
    llvm::Value* ordered = b.CreateOr(less[0], b.CreateAnd(b.CreateNot(greater[0]), earlier));
    llvm::Value* padded = b.CreateSelect(xIn, b.getTrue(), b.CreateAnd(b.CreateNot(yIn), earlier));
    return b.CreateSelect(b.CreateAnd(xIn, yIn), ordered, padded);
  };

  HLO_RETURN_IF_ERROR(strided(plan.padded, [&](llvm::Value* q) -> Status {
    b.CreateStore(b.CreateTrunc(q, i32), slot(q));
    return okStatus();
  }));
  tb.barrier();
  // Stage s merges runs of 2^s; its steps exchange at distance 2^(s-1), ..., 1.
  int64_t stages = 0;
  while ((int64_t{1} << stages) < plan.padded) ++stages;
  HLO_RETURN_IF_ERROR(e.emitLoop(b.getInt64(1), b.getInt64(stages + 1), "stage", [&](llvm::Value* s) -> Status {
    return e.emitLoop(b.getInt64(0), s, "step", [&](llvm::Value* t) -> Status {
      llvm::Value* shift = b.CreateSub(b.CreateSub(s, b.getInt64(1)), t);  // log2 of the distance
      llvm::Value* distance = b.CreateShl(b.getInt64(1), shift);
      llvm::Value* run = b.CreateShl(b.getInt64(1), s);
      HLO_RETURN_IF_ERROR(strided(plan.padded / 2, [&](llvm::Value* q) -> Status {
        // Pair q: position i with bit `shift` clear, and i + distance.
        llvm::Value* high = b.CreateShl(b.CreateLShr(q, shift), b.CreateAdd(shift, b.getInt64(1)));
        llvm::Value* i = b.CreateOr(high, b.CreateAnd(q, b.CreateSub(distance, b.getInt64(1))));
        llvm::Value* l = b.CreateOr(i, distance);
        llvm::Value* ascending = b.CreateICmpEQ(b.CreateAnd(i, run), b.getInt64(0));
        llvm::Value* x = b.CreateLoad(i32, slot(i));
        llvm::Value* y = b.CreateLoad(i32, slot(l));
        // The order is total and x != y: y goes first exactly when x does not.
        HLO_ASSIGN_OR_RETURN(llvm::Value * xFirst, before(x, y));
        llvm::Value* swap = b.CreateSelect(ascending, b.CreateNot(xFirst), xFirst);
        b.CreateStore(b.CreateSelect(swap, y, x), slot(i));
        b.CreateStore(b.CreateSelect(swap, x, y), slot(l));
        return okStatus();
      }));
      tb.barrier();
      return okStatus();
    }, /*unroll=*/false);
  }, /*unroll=*/false));
  return strided(plan.length, [&](llvm::Value* i) -> Status {
    llvm::Value* from = b.CreateZExt(b.CreateLoad(i32, slot(i)), b.getInt64Ty());
    llvm::Value* to = e.linearize(at(i));
    for (int o = 0; o < sort.operandCount(); ++o) {
      HLO_ASSIGN_OR_RETURN(llvm::Value * v, e.emit(*sort.operand(o), at(from)));
      e.store(v, outputBases[static_cast<size_t>(o)], to, results[static_cast<size_t>(o)].type());
    }
    return okStatus();
  });
}

}  // namespace hlo::gpu
