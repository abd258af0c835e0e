// Library ops: reduce-window, and the reduces the elemental emitter does not
// fold itself (several inputs, as an argmax carries value and index; or any
// other to_apply computation).
//
// Algorithm:
//   1. Compile to_apply (acc_0..acc_{n-1}, x_0..x_{n-1}) -> (acc'_0..acc'_{n-1})
//      into a scalar function (runtime_ops.h: emitScalarFunction).
//   2. For each output element, start from the init values and fold in the
//      input elements in the order of hlo/fold_order.h (row-major over the
//      reduced dimensions or the window; padding skipped), one call per
//      element. This is the reference interpreter's order, so a reducer that
//      is not associative gives the same answer on both.
//   3. Output elements are split across the thread pool.
// A float sum (to_apply one add of floats) is the exception, computed
// exactly and rounded once as the interpreter computes it (hlo/exact_sum.h):
// no reducer is compiled for it.
#include <cstring>
#include <vector>

#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/computation.h"
#include "hlo/exact_sum.h"
#include "hlo/float_formats.h"
#include "hlo/fold_order.h"
#include "hlo/indexing.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

// Bytes of the widest element a reducer carries (c128 would need 16).
constexpr int kMaxElementBytes = 16;

// Calls fold(linear, inputs) for every output element of `call`'s reduce or
// reduce-window, split across the thread pool; inputs(visit) calls
// visit(offset) for the input elements that output element folds, in
// hlo/fold_order.h's order. makeFold() is called once per share of the
// outputs, so each thread's fold has scratch of its own.
template <typename MakeFold>
Status foldEachOutput(const RuntimeCall& call, const std::vector<int64_t>& outDims, MakeFold&& makeFold) {
  const Instruction& instr = call.instr;
  const std::vector<int64_t>& inDims = call.operands[0]->shape().dims();
  StatusOr<FoldOrder> order = instr.opcode() == Opcode::kReduce ? FoldOrder::forReduce(instr, inDims, outDims)
                                                                 : FoldOrder::forReduceWindow(instr, inDims, outDims);
  if (!order.ok()) return errorStatus("cpu: %" + instr.name() + ": " + order.status().message(), instr.loc());
  int64_t total = 1;
  for (int64_t d : outDims) total *= d;
  if (total == 0) return okStatus();
  int64_t work = call.operands[0]->elementCount() + total;
  int chunks = static_cast<int>(std::min<int64_t>(total, work >= (int64_t{1} << 15) ? 4 * (call.pool.workers() + 1) : 1));
  call.pool.parallelFor(total, std::max(chunks, 1), [&](int64_t begin, int64_t end) {
    auto fold = makeFold();
    FoldOrder::Scratch scratch;
    std::vector<int64_t> index = unravelRowMajor(begin, outDims);
    for (int64_t linear = begin; linear < end; ++linear, advanceRowMajor(index, outDims))
      fold(linear, [&](auto&& visit) { order->forEachInput(index, scratch, visit); });
  });
  return okStatus();
}

Status runFold(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  auto reducer = reinterpret_cast<ScalarFn>(call.helpers[0]);
  // Mixed precision: the inits convert to the accumulators' types, and the
  // accumulators to the results' at the end (planReduce).
  bool mixed = call.helpers.size() == 3;
  auto toAccumulators = mixed ? reinterpret_cast<ScalarFn>(call.helpers[1]) : nullptr;
  auto toResults = mixed ? reinterpret_cast<ScalarFn>(call.helpers[2]) : nullptr;
  std::vector<Literal*> outs = resultArrays(call.result);
  size_t n = outs.size();
  std::vector<int> bytes(n), inputBytes(n), accBytes(n);
  std::vector<const char*> inputs(n), inits(n);
  const Computation* fold = instr.attrs().getComputation(AttrKey::kToApply);
  for (size_t i = 0; i < n; ++i) {
    bytes[i] = storageBytes(outs[i]->type());
    inputBytes[i] = storageBytes(call.operands[i]->type());
    accBytes[i] = mixed ? storageBytes(fold->parameter(static_cast<int>(i))->shape().type()) : bytes[i];
    inputs[i] = reinterpret_cast<const char*>(call.operands[i]->untypedData());
    inits[i] = reinterpret_cast<const char*>(call.operands[n + i]->untypedData());
  }
  return foldEachOutput(call, outs[0]->shape().dims(), [&] {
    // The accumulators and the reducer's answers live apart: the compiled
    // function may read a parameter after it has stored an earlier result.
    std::vector<char> acc(n * kMaxElementBytes), next(n * kMaxElementBytes);
    std::vector<const char*> args(2 * n);
    std::vector<char*> results(n), accPointers(n), outPointers(n);
    for (size_t i = 0; i < n; ++i) {
      args[i] = accPointers[i] = &acc[i * kMaxElementBytes];
      results[i] = &next[i * kMaxElementBytes];
    }
    return [&, acc = std::move(acc), next = std::move(next), args = std::move(args), results = std::move(results),
            accPointers = std::move(accPointers), outPointers = std::move(outPointers)](int64_t linear,
                                                                                         auto&& forEachInput) mutable {
      if (mixed) {
        toAccumulators(inits.data(), accPointers.data());
      } else {
        for (size_t i = 0; i < n; ++i) std::memcpy(accPointers[i], inits[i], bytes[i]);
      }
      forEachInput([&](int64_t offset) {
        for (size_t i = 0; i < n; ++i) args[n + i] = inputs[i] + offset * inputBytes[i];
        reducer(args.data(), results.data());
        for (size_t i = 0; i < n; ++i) std::memcpy(accPointers[i], results[i], accBytes[i]);
      });
      for (size_t i = 0; i < n; ++i) outPointers[i] = reinterpret_cast<char*>(outs[i]->untypedData()) + linear * bytes[i];
      if (mixed) {
        toResults(accPointers.data(), outPointers.data());
      } else {
        for (size_t i = 0; i < n; ++i) std::memcpy(outPointers[i], accPointers[i], bytes[i]);
      }
    };
  });
}

// One element of a real float type, as a double, and back (rounded once).
double loadReal(ElementType t, const char* at) {
  if (t == ElementType::kF32) return *reinterpret_cast<const float*>(at);
  if (t == ElementType::kF64) return *reinterpret_cast<const double*>(at);
  uint32_t bits = 0;
  std::memcpy(&bits, at, storageBytes(t));
  return decodeSmallFloat(t, bits);
}
void storeReal(ElementType t, double v, char* at) {
  if (t == ElementType::kF32) {
    *reinterpret_cast<float*>(at) = static_cast<float>(v);
  } else if (t == ElementType::kF64) {
    *reinterpret_cast<double*>(at) = v;
  } else {
    uint32_t bits = encodeSmallFloat(t, v);
    std::memcpy(at, &bits, storageBytes(t));
  }
}

Status runExactSum(const RuntimeCall& call) {
  Literal& out = *resultArrays(call.result)[0];
  ElementType t = out.type();
  int bytes = storageBytes(t);
  const char* input = reinterpret_cast<const char*>(call.operands[0]->untypedData());
  double init = loadReal(t, reinterpret_cast<const char*>(call.operands[1]->untypedData()));
  char* output = reinterpret_cast<char*>(out.untypedData());
  return foldEachOutput(call, out.shape().dims(), [&] {
    return [&](int64_t linear, auto&& forEachInput) {
      ExactSum sum(init);
      forEachInput([&](int64_t offset) { sum.add(loadReal(t, input + offset * bytes)); });
      storeReal(t, sum.value(), output + linear * bytes);
    };
  });
}

}  // namespace

// Shared by reduce and reduce-window: N inputs of one shape, N scalar
// inits, N results, a reducer over 2N scalars returning N; the types of a
// position i may differ (mixed precision: converted as runFold says).
StatusOr<RuntimePlan> planReduce(HelperModule& helpers, const Instruction& instr, const std::string& prefix) {
  int count = instr.operandCount();
  const Computation* reducer = instr.attrs().getComputation(AttrKey::kToApply);
  std::vector<Shape> results = instr.shape().isTuple() ? instr.shape().tupleElements() : std::vector<Shape>{instr.shape()};
  size_t n = results.size();
  if (count < 2 || count % 2 != 0 || static_cast<size_t>(count) != 2 * n || !reducer ||
      reducer->parameterCount() != count)
    return jit::cannotCompile(instr, "expected N inputs, N init values, N results and a reducer of 2N parameters");
  const Shape& first = instr.operand(0)->shape();
  const Shape& root = reducer->root()->shape();
  // One input may still have its reducer return a 1-tuple.
  if ((n > 1 || root.isTuple()) && (!root.isTuple() || root.tupleElements().size() != n))
    return jit::cannotCompile(instr, "the reducer must return one value per input");
  bool mixed = false;
  std::vector<ElementType> inputTypes, initTypes, accTypes, resultTypes;
  for (size_t i = 0; i < n; ++i) {
    const Shape& input = instr.operand(static_cast<int>(i))->shape();
    const Shape& init = instr.operand(static_cast<int>(n + i))->shape();
    const Shape& returned = root.isTuple() ? root.tupleElements()[i] : root;
    ElementType t = results[i].type();
    if (!input.isArray() || input.dims() != first.dims() || !results[i].isArray() ||
        results[i].dims() != results[0].dims() || !init.isScalar() || storageBytes(t) > kMaxElementBytes)
      return jit::cannotCompile(instr, "inputs must be arrays of one shape, init values scalars");
    const Shape& acc = reducer->parameter(static_cast<int>(i))->shape();
    const Shape& value = reducer->parameter(static_cast<int>(n + i))->shape();
    if (!acc.isScalar() || !value.isScalar() || !returned.isArray() || storageBytes(acc.type()) > kMaxElementBytes)
      return jit::cannotCompile(instr, "the reducer's parameters and results must be scalars");
    if (input.type() != t || init.type() != t || returned.type() != t || acc.type() != t || value.type() != t)
      mixed = true;
    inputTypes.push_back(input.type());
    initTypes.push_back(init.type());
    accTypes.push_back(acc.type());
    resultTypes.push_back(t);
  }
  if (sumsExactly(instr)) return RuntimePlan{runExactSum, {}};
  std::string name = prefix + ".helper.0";
  if (!mixed) {
    HLO_RETURN_IF_ERROR(helpers.scalarFunction(*reducer, name));
    return RuntimePlan{runFold, {name}};
  }
  // Mixed precision, as the interpreter folds: accumulators of the types
  // the reducer declares for them, starting from the inits converted, each
  // input element converted to its parameter's type, each answer to its
  // accumulator's, and the accumulators converted to the results at the end.
  std::vector<ElementType> argTypes = accTypes;
  argTypes.insert(argTypes.end(), inputTypes.begin(), inputTypes.end());
  HLO_RETURN_IF_ERROR(helpers.scalarFunction(*reducer, name, argTypes, accTypes));
  HLO_RETURN_IF_ERROR(helpers.convertFunction(instr, prefix + ".helper.1", initTypes, accTypes));
  HLO_RETURN_IF_ERROR(helpers.convertFunction(instr, prefix + ".helper.2", accTypes, resultTypes));
  return RuntimePlan{runFold, {name, prefix + ".helper.1", prefix + ".helper.2"}};
}

}  // namespace hlo::cpu
