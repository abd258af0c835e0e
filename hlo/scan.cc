// scan, shared by the interpreter and the CPU runtime (which runs to_apply
// as a compiled program).
//
// scan(inputs..., inits...), dimensions={d}, num_carries=c, is_reverse=r,
// to_apply=f, where f maps (input slices..., carries...) to
// (output slices..., new carries...). As XLA's ScanExpander lowers it:
//   1. carries = inits.
//   2. For t = 0, 1, ..., L-1 (L = size of dimension d; with is_reverse the
//      slice index is L-1-t): call f on the inputs' slices at that index
//      along d (dimension d removed) and the carries; store each output slice
//      at the same index of its output; the new carries replace the old.
//   3. The result is (outputs..., final carries...), or the single output
//      when there is one result and it is not a tuple.
// is_associative is a hint for backends and changes nothing here.
#include "hlo/scan.h"

#include "hlo/computation.h"
#include "hlo/indexing.h"
#include "hlo/instruction.h"

namespace hlo {
namespace {

// The row-major layout of an array around dimension d: outer * size * inner.
struct Around {
  int64_t outer = 1, size = 1, inner = 1;
};

Around around(const Shape& s, int d) {
  Around a;
  for (int i = 0; i < s.rank(); ++i) {
    if (i < d) a.outer *= s.dim(i);
    if (i == d) a.size = s.dim(i);
    if (i > d) a.inner *= s.dim(i);
  }
  return a;
}

Shape withoutDim(const Shape& s, int d) {
  std::vector<int64_t> dims = s.dims();
  dims.erase(dims.begin() + d);
  return Shape(s.type(), dims);
}

// Copies the slice at index t along d between `array` and `slice`.
void copySlice(const Literal& from, Literal& to, const Around& a, int64_t t, bool intoArray) {
  for (int64_t o = 0; o < a.outer; ++o)
    for (int64_t i = 0; i < a.inner; ++i) {
      int64_t arrayIndex = (o * a.size + t) * a.inner + i;
      int64_t sliceIndex = o * a.inner + i;
      if (intoArray) copyElement(from, sliceIndex, to, arrayIndex);
      else copyElement(from, arrayIndex, to, sliceIndex);
    }
}

}  // namespace

StatusOr<Literal> evaluateScan(const Instruction& instr, Values ops, const EngineHooks& hooks) {
  const Computation* body = instr.attrs().getComputation(AttrKey::kToApply);
  const std::vector<int64_t>& dimAttr = instr.attrs().getInts(AttrKey::kDimensions);
  int64_t carries = instr.attrs().getInt(AttrKey::kNumCarries, 0);
  bool reverse = instr.attrs().getBool(AttrKey::kIsReverse, false);
  if (!body) return hooks.refuse(instr, "missing to_apply");
  if (dimAttr.size() != 1 || dimAttr[0] < 0) return hooks.refuse(instr, "expected dimensions={d}");
  int d = static_cast<int>(dimAttr[0]);
  std::vector<Shape> resultShapes =
      instr.shape().isTuple() ? instr.shape().tupleElements() : std::vector<Shape>{instr.shape()};
  int64_t inputs = static_cast<int64_t>(ops.size()) - carries;
  int64_t outputs = static_cast<int64_t>(resultShapes.size()) - carries;
  if (carries < 0 || inputs < 0 || outputs < 0)
    return hooks.refuse(instr, "num_carries does not fit the operands and results");
  for (int64_t i = 0; i < inputs; ++i)
    if (!ops[i]->shape().isArray() || ops[i]->shape().rank() <= d)
      return hooks.refuse(instr, "inputs must be arrays with the scan dimension");
  for (int64_t i = 0; i < outputs; ++i)
    if (!resultShapes[i].isArray() || resultShapes[i].rank() <= d)
      return hooks.refuse(instr, "outputs must be arrays with the scan dimension");
  int64_t length = inputs > 0 ? ops[0]->shape().dim(d) : outputs > 0 ? resultShapes[0].dim(d) : 0;
  for (int64_t i = 0; i < inputs; ++i)
    if (ops[i]->shape().dim(d) != length) return hooks.refuse(instr, "inputs differ in scan length");
  for (int64_t i = 0; i < outputs; ++i)
    if (resultShapes[i].dim(d) != length) return hooks.refuse(instr, "outputs differ in scan length");

  if (hooks.checkMemory) HLO_RETURN_IF_ERROR(hooks.checkMemory(instr, instr.shape()));
  std::vector<Literal> results;
  for (const Shape& s : resultShapes) results.emplace_back(s);
  std::vector<Literal> state;  // input slices, then carries
  for (int64_t i = 0; i < inputs; ++i) state.emplace_back(withoutDim(ops[i]->shape(), d));
  for (int64_t i = 0; i < carries; ++i) state.push_back(*ops[inputs + i]);
  std::vector<const Literal*> args;
  for (const Literal& s : state) args.push_back(&s);

  for (int64_t step = 0; step < length; ++step) {
    int64_t t = reverse ? length - 1 - step : step;
    for (int64_t i = 0; i < inputs; ++i) copySlice(*ops[i], state[i], around(ops[i]->shape(), d), t, false);
    HLO_ASSIGN_OR_RETURN(Literal r, hooks.call(*body, args));
    std::vector<Literal> parts;
    if (r.shape().isTuple()) parts = std::move(r.tupleElements());
    else parts.push_back(std::move(r));
    if (static_cast<int64_t>(parts.size()) != outputs + carries)
      return hooks.refuse(instr, "to_apply returns the wrong number of values");
    for (int64_t i = 0; i < outputs; ++i) {
      Around a = around(resultShapes[i], d);
      if (parts[i].type() != results[i].type() || parts[i].elementCount() != a.outer * a.inner)
        return hooks.refuse(instr, "to_apply output " + std::to_string(i) + " has the wrong shape");
      copySlice(parts[i], results[i], a, t, true);
    }
    for (int64_t i = 0; i < carries; ++i) {
      if (!parts[outputs + i].shape().compatible(state[inputs + i].shape()))
        return hooks.refuse(instr, "carry " + std::to_string(i) + " changes shape");
      state[inputs + i] = std::move(parts[outputs + i]);
    }
  }
  for (int64_t i = 0; i < carries; ++i) results[outputs + i] = std::move(state[inputs + i]);
  if (!instr.shape().isTuple()) return std::move(results[0]);
  Literal result(instr.shape());
  for (size_t i = 0; i < results.size(); ++i) result.tupleElements()[i] = std::move(results[i]);
  return result;
}

}  // namespace hlo
