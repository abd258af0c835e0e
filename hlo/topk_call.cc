// The TopK custom call's form (topk_call.h).
#include "hlo/topk_call.h"

#include "hlo/computation.h"

namespace hlo {

bool isTopKCall(const Instruction& instr) {
  return instr.opcode() == Opcode::kCustomCall && instr.attrs().getString(AttrKey::kCustomCallTarget) == "TopK";
}

StatusOr<TopKCall> topKCallOf(const Instruction& instr) {
  auto bad = [&](const std::string& why) { return errorStatus("TopK custom call %" + instr.name() + ": " + why); };
  if (instr.operandCount() != 1 || !instr.operand(0)->shape().isArray() || instr.operand(0)->shape().rank() == 0)
    return bad("takes one array of rank 1 or more");
  const Shape& x = instr.operand(0)->shape();
  TopKCall call;
  const Shape* values = &instr.shape();
  if (instr.shape().isTuple()) {
    if (instr.shape().tupleSize() != 2) return bad("returns (values, indices) or the values alone");
    values = &instr.shape().tupleElement(0);
    const Shape& indices = instr.shape().tupleElement(1);
    if (!indices.isArray() || indices.type() != ElementType::kS32 || indices.dims() != values->dims())
      return bad("its indices are s32 of the values' shape");
  } else {
    call.withIndices = false;
  }
  if (!values->isArray() || values->type() != x.type() || values->rank() != x.rank())
    return bad("its values have the operand's element type and rank");
  for (int d = 0; d + 1 < x.rank(); ++d)
    if (values->dim(d) != x.dim(d)) return bad("its values keep every dimension but the last");
  call.k = values->dims().back();
  if (call.k > x.dims().back()) return bad("k = " + std::to_string(call.k) + " is more than the last dimension");
  const AttrValue* called = instr.attrs().find(AttrKey::kCalledComputations);
  if (called && called->comps.size() > 1) return bad("takes one comparator");
  call.comparator = called && !called->comps.empty() ? called->comps[0] : instr.attrs().getComputation(AttrKey::kToApply);
  if (!call.comparator && isComplex(x.type())) return bad("complex values have no order without a comparator");
  if (const Computation* c = call.comparator) {
    int n = c->parameterCount();
    if (n != 2 && n != 4) return bad("its comparator takes (x, x) or (x, x, s32, s32)");
    for (int p = 0; p < n; ++p) {
      const Shape& s = c->parameter(p)->shape();
      if (!s.isScalar() || s.type() != (p < 2 ? x.type() : ElementType::kS32))
        return bad("its comparator takes (x, x) or (x, x, s32, s32) scalars");
    }
    const Shape& r = c->root()->shape();
    if (!r.isScalar() || r.type() != ElementType::kPred) return bad("its comparator returns pred[]");
  }
  return call;
}

}  // namespace hlo
