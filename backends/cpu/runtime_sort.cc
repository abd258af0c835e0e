// Library ops: sort (with its comparator compiled) and topk.
//
// Algorithm (sort):
//   1. Compile the comparator (lhs_0, rhs_0, lhs_1, rhs_1, ... -> pred) into
//      a scalar function (runtime_ops.h: emitScalarFunction).
//   2. Every 1-D slice along the sort dimension is ordered as a list of
//      element positions by a stable bottom-up merge sort that asks the
//      comparator whether the right element goes strictly first. Not
//      std::sort: a comparator need not be a strict weak order (LE, or NaNs
//      under LT), and a merge stays in bounds and gives the same answer as
//      the reference interpreter whatever the comparator says.
//   3. Every operand is permuted by that order. Slices are split across the
//      thread pool.
// topk: per row of the last dimension, a partial sort by (value in total
// order, then index), so equal values keep index order and NaN is largest.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/computation.h"
#include "hlo/element_io.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

template <typename Before>
void mergeSort(std::vector<int64_t>& items, std::vector<int64_t>& merged, Before&& before) {
  size_t n = items.size();
  merged.resize(n);
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, out = lo;
      while (i < mid && j < hi) merged[out++] = before(items[j], items[i]) ? items[j++] : items[i++];
      while (i < mid) merged[out++] = items[i++];
      while (j < hi) merged[out++] = items[j++];
    }
    items.swap(merged);
  }
}

Status runSort(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  auto comparator = reinterpret_cast<ScalarFn>(call.helpers[0]);
  std::vector<Literal*> outs = resultArrays(call.result);
  size_t n = call.operands.size();
  if (outs.size() != n) return errorStatus("cpu: %" + instr.name() + ": one result per operand expected", instr.loc());
  const std::vector<int64_t>& dims = call.operands[0]->shape().dims();
  int64_t dim = instr.attrs().getInts(AttrKey::kDimensions)[0];
  int64_t length = dims[dim];
  int64_t step = 1;
  for (size_t d = dim + 1; d < dims.size(); ++d) step *= dims[d];
  int64_t total = call.operands[0]->elementCount();
  if (total == 0) return okStatus();
  int64_t slices = total / length;
  std::vector<int> bytes;
  for (const Literal* op : call.operands) bytes.push_back(storageBytes(op->type()));

  int chunks = static_cast<int>(std::min<int64_t>(slices, total >= (int64_t{1} << 15) ? 4 * (call.pool.workers() + 1) : 1));
  call.pool.parallelFor(slices, std::max(chunks, 1), [&](int64_t begin, int64_t end) {
    std::vector<const char*> args(2 * n);
    char answer = 0;
    char* results[] = {&answer};
    std::vector<int64_t> order(length), merged;
    auto before = [&](int64_t lhs, int64_t rhs) {
      for (size_t k = 0; k < n; ++k) {
        const char* data = reinterpret_cast<const char*>(call.operands[k]->untypedData());
        args[2 * k] = data + lhs * bytes[k];
        args[2 * k + 1] = data + rhs * bytes[k];
      }
      comparator(args.data(), results);
      return answer != 0;
    };
    for (int64_t s = begin; s < end; ++s) {
      // Slice s starts at (s / step) * length * step + s % step.
      int64_t base = (s / step) * length * step + s % step;
      for (int64_t i = 0; i < length; ++i) order[i] = base + i * step;
      mergeSort(order, merged, before);
      for (size_t k = 0; k < n; ++k) {
        const char* from = reinterpret_cast<const char*>(call.operands[k]->untypedData());
        char* to = reinterpret_cast<char*>(outs[k]->untypedData());
        for (int64_t i = 0; i < length; ++i)
          std::memcpy(to + (base + i * step) * bytes[k], from + order[i] * bytes[k], bytes[k]);
      }
    }
  });
  return okStatus();
}

Status runTopK(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  const Literal& x = *call.operands[0];
  int64_t k = instr.attrs().getInt(AttrKey::kK);
  bool largest = instr.attrs().getBool(AttrKey::kLargest, true);
  Literal& values = call.result.tupleElements()[0];
  Literal& indices = call.result.tupleElements()[1];
  int64_t n = x.shape().dims().back();
  int64_t rows = n == 0 ? 0 : x.elementCount() / n;
  int bytes = storageBytes(x.type());
  std::vector<int64_t> order(n), keys(n);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t base = row * n;
    for (int64_t i = 0; i < n; ++i) {
      order[i] = i;
      keys[i] = totalOrderKey(x, base + i);
    }
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
      if (keys[a] != keys[b]) return largest ? keys[a] > keys[b] : keys[a] < keys[b];
      return a < b;
    });
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(values.untypedData() + (row * k + i) * bytes, x.untypedData() + (base + order[i]) * bytes, bytes);
      indices.setBitsAt(row * k + i, static_cast<uint32_t>(order[i]));
    }
  }
  return okStatus();
}

}  // namespace

StatusOr<RuntimePlan> planSort(llvm::Module& module, const Instruction& instr, const std::string& prefix) {
  const Computation* comparator = instr.attrs().getComputation(AttrKey::kToApply);
  if (!comparator) return jit::cannotCompile(instr, "no comparator");
  if (instr.operandCount() == 0) return jit::cannotCompile(instr, "nothing to sort");
  const Shape& first = instr.operand(0)->shape();
  const std::vector<int64_t>& dimensions = instr.attrs().getInts(AttrKey::kDimensions);
  if (dimensions.size() != 1 || dimensions[0] < 0 || dimensions[0] >= first.rank())
    return jit::cannotCompile(instr, "needs one sort dimension");
  if (comparator->parameterCount() != 2 * instr.operandCount())
    return jit::cannotCompile(instr, "the comparator needs two parameters per operand");
  for (int i = 0; i < instr.operandCount(); ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.isArray() || s.dims() != first.dims())
      return jit::cannotCompile(instr, "operands must be arrays of one shape");
    for (int side = 0; side < 2; ++side) {
      const Shape& p = comparator->parameter(2 * i + side)->shape();
      if (!p.isArray() || p.rank() != 0 || p.type() != s.type())
        return jit::cannotCompile(instr, "comparator parameters must be scalars of the operand types");
    }
  }
  const Shape& root = comparator->root()->shape();
  if (!root.isArray() || root.rank() != 0 || root.type() != ElementType::kPred)
    return jit::cannotCompile(instr, "the comparator must return pred[]");
  std::string name = prefix + ".helper.0";
  HLO_RETURN_IF_ERROR(emitScalarFunction(module, *comparator, name));
  return RuntimePlan{runSort, {name}};
}

StatusOr<RuntimePlan> planTopK(llvm::Module&, const Instruction& instr, const std::string&) {
  if (instr.operandCount() != 1 || !instr.operand(0)->shape().isArray() || instr.operand(0)->shape().rank() < 1)
    return jit::cannotCompile(instr, "expected one array operand");
  const Shape& x = instr.operand(0)->shape();
  if (isComplex(x.type())) return jit::cannotCompile(instr, "needs ordered values");
  const Shape& out = instr.shape();
  int64_t k = instr.attrs().getInt(AttrKey::kK);
  if (!out.isTuple() || out.tupleElements().size() != 2 || k < 0 || k > x.dims().back() ||
      out.tupleElements()[1].type() != ElementType::kS32 || out.tupleElements()[0].type() != x.type())
    return jit::cannotCompile(instr, "expected (values, s32 indices) with k at most the last dimension");
  return RuntimePlan{runTopK, {}};
}

}  // namespace hlo::cpu
