// Library op: select-and-scatter (the gradient of a max pool), its select
// and scatter computations compiled into scalar functions
// (runtime_ops.h: emitScalarFunction).
//
// Semantics (the interpreter's, interp/reduce.cc): the result starts as
// init_value everywhere. For each source element, in row-major order, its
// window over the operand is walked row-major with padding skipped — the
// order hlo/fold_order.h gives a reduce-window whose result has the
// source's shape. The window's first element is the selection, and each
// later element e replaces it when select(selected, e) is false, so with
// select = GE the first of equal maxima wins. Then result[selected] =
// scatter(result[selected], source element). A window lying wholly in
// padding selects nothing, and its source element is dropped.
//
// Algorithm:
//   1. The selection of every source element is found first, the source
//      split across the thread pool: selecting only reads the operand.
//   2. The scatters then run on one thread, in row-major source order:
//      windows overlap, and the order in which source values combine into
//      one result element is the semantics' order.
#include <cstring>
#include <vector>

#include "backends/cpu/runtime_ops.h"
#include "backends/cpu/thread_pool.h"
#include "hlo/computation.h"
#include "hlo/fold_order.h"
#include "hlo/indexing.h"
#include "jit/refusal.h"

namespace hlo::cpu {
namespace {

constexpr int64_t kNothing = -1;  // a window wholly in padding

// Step 1: selected[s] = the operand offset that source element s selects.
void selectAll(const RuntimeCall& call, const FoldOrder& order, std::vector<int64_t>& selected) {
  auto select = reinterpret_cast<ScalarFn>(call.helpers[0]);
  const Literal& x = *call.operands[0];
  const std::vector<int64_t>& sourceDims = call.operands[1]->shape().dims();
  const char* data = reinterpret_cast<const char*>(x.untypedData());
  int bytes = storageBytes(x.type());
  int64_t total = static_cast<int64_t>(selected.size());
  int chunks = static_cast<int>(std::min<int64_t>(total, total >= 4096 ? 4 * (call.pool.workers() + 1) : 1));
  call.pool.parallelFor(total, std::max(chunks, 1), [&](int64_t begin, int64_t end) {
    FoldOrder::Scratch scratch;
    std::vector<int64_t> index = unravelRowMajor(begin, sourceDims);
    const char* args[2];
    char keep = 0;
    char* results[] = {&keep};
    for (int64_t s = begin; s < end; ++s, advanceRowMajor(index, sourceDims)) {
      int64_t chosen = kNothing;
      order.forEachInput(index, scratch, [&](int64_t offset) {
        if (chosen != kNothing) {
          args[0] = data + chosen * bytes;
          args[1] = data + offset * bytes;
          select(args, results);
          if (keep) return;
        }
        chosen = offset;
      });
      selected[s] = chosen;
    }
  });
}

// Step 2, after the result has been filled with init_value.
void scatterAll(const RuntimeCall& call, const std::vector<int64_t>& selected) {
  auto scatter = reinterpret_cast<ScalarFn>(call.helpers[1]);
  const char* source = reinterpret_cast<const char*>(call.operands[1]->untypedData());
  char* out = reinterpret_cast<char*>(call.result.untypedData());
  int bytes = storageBytes(call.result.type());
  alignas(16) char combined[16];
  char* results[] = {combined};
  const char* args[2];
  for (size_t s = 0; s < selected.size(); ++s) {
    if (selected[s] == kNothing) continue;
    char* target = out + selected[s] * bytes;
    args[0] = target;
    args[1] = source + static_cast<int64_t>(s) * bytes;
    scatter(args, results);
    std::memcpy(target, combined, bytes);
  }
}

Status runSelectAndScatter(const RuntimeCall& call) {
  const Instruction& instr = call.instr;
  const std::vector<int64_t>& xDims = call.operands[0]->shape().dims();
  const std::vector<int64_t>& sourceDims = call.operands[1]->shape().dims();
  StatusOr<FoldOrder> order = FoldOrder::forReduceWindow(instr, xDims, sourceDims);
  if (!order.ok()) return errorStatus("cpu: %" + instr.name() + ": " + order.status().message(), instr.loc());
  Literal& out = call.result;
  int bytes = storageBytes(out.type());
  const uint8_t* init = call.operands[2]->untypedData();
  for (int64_t i = 0; i < out.elementCount(); ++i) std::memcpy(out.untypedData() + i * bytes, init, bytes);
  std::vector<int64_t> selected(static_cast<size_t>(call.operands[1]->elementCount()), kNothing);
  if (out.elementCount() == 0 || selected.empty()) return okStatus();
  selectAll(call, *order, selected);
  scatterAll(call, selected);
  return okStatus();
}

// Whether `c` takes two scalars of type `params` and returns a scalar of
// type `result`.
bool scalarBinary(const Computation& c, ElementType params, ElementType result) {
  if (c.parameterCount() != 2) return false;
  for (int i = 0; i < 2; ++i) {
    const Shape& p = c.parameter(i)->shape();
    if (!p.isArray() || p.rank() != 0 || p.type() != params) return false;
  }
  const Shape& r = c.root()->shape();
  return r.isArray() && r.rank() == 0 && r.type() == result;
}

}  // namespace

StatusOr<RuntimePlan> planSelectAndScatter(HelperModule& helpers, const Instruction& instr, const std::string& prefix) {
  const Computation* select = instr.attrs().getComputation(AttrKey::kSelect);
  const Computation* scatter = instr.attrs().getComputation(AttrKey::kScatter);
  if (!select || !scatter) return jit::cannotCompile(instr, "missing select or scatter");
  if (instr.operandCount() != 3) return jit::cannotCompile(instr, "expected operand, source and init_value");
  const Shape& x = instr.operand(0)->shape();
  const Shape& source = instr.operand(1)->shape();
  const Shape& init = instr.operand(2)->shape();
  const Shape& out = instr.shape();
  if (!x.isArray() || !source.isArray() || source.rank() != x.rank() ||
      !init.isArray() || init.rank() != 0 || !out.isArray() || out.dims() != x.dims() || init.type() != out.type() ||
      source.type() != out.type())
    return jit::cannotCompile(instr, "operand, source and init_value do not fit together");
  StatusOr<FoldOrder> order = FoldOrder::forReduceWindow(instr, x.dims(), source.dims());
  if (!order.ok()) return jit::cannotCompile(instr, order.status().message());
  if (!scalarBinary(*select, x.type(), ElementType::kPred))
    return jit::cannotCompile(instr, "select must take two scalars of the operand type and return pred[]");
  if (!scalarBinary(*scatter, out.type(), out.type()))
    return jit::cannotCompile(instr, "scatter must take and return scalars of the result type");
  std::string selectName = prefix + ".helper.0", scatterName = prefix + ".helper.1";
  HLO_RETURN_IF_ERROR(helpers.scalarFunction(*select, selectName));
  HLO_RETURN_IF_ERROR(helpers.scalarFunction(*scatter, scatterName));
  return RuntimePlan{runSelectAndScatter, {selectName, scatterName}};
}

}  // namespace hlo::cpu
