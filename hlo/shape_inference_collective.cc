// Shape inference for collectives: all-gather, all-reduce, reduce-scatter,
// all-to-all, ragged-all-to-all, collective-permute, collective-broadcast and
// the -start/-done halves.
//
// The number of participants is not always in the text (it can come from the
// module's replica and partition counts); where it is needed and absent, the
// declared result shape decides it.
#include <algorithm>

#include "hlo/shape_inference_internal.h"

namespace hlo::inference {
namespace {

std::string idx(int64_t i) { return std::to_string(i); }

// One shape for one operand, a tuple for several.
Shape oneOrTuple(std::vector<Shape> shapes) {
  if (shapes.size() == 1) return shapes[0];
  return Shape::tuple(std::move(shapes));
}

std::vector<Shape> operandShapes(const Ctx& c) {
  std::vector<Shape> out;
  for (int i = 0; i < c.operandCount(); ++i) out.push_back(c.operand(i));
  return out;
}

Status expectArrays(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected at least one operand");
  for (int i = 0; i < c.operandCount(); ++i)
    if (!c.operand(i).isArray())
      return c.error("operand " + idx(i) + " must be an array, got " + str(c.operand(i)));
  return okStatus();
}

// The participants of one group when the text says it: explicit replica
// groups in a mode whose group is exactly the listed devices.
int64_t knownGroupSize(const Ctx& c) {
  bool hasChannel = c.attrs().has(AttrKey::kChannelId);
  bool globalIds = c.attrs().getBool(AttrKey::kUseGlobalDeviceIds, false);
  if (hasChannel && !globalIds && c.op() != Opcode::kAllToAll) return -1;
  return replicaGroupSize(c.attrs());
}

// The collective dimension `dimensions={d}`, checked against every operand.
StatusOr<int64_t> collectiveDim(const Ctx& c) {
  const std::vector<int64_t>& dims = c.attrs().getInts(AttrKey::kDimensions);
  if (dims.size() != 1) return c.error("expected dimensions={d} with one dimension");
  for (int i = 0; i < c.operandCount(); ++i)
    if (dims[0] < 0 || dims[0] >= c.operand(i).rank())
      return c.error("dimension " + idx(dims[0]) + " is out of range for " + str(c.operand(i)));
  return dims[0];
}

// The declared result for operand 0 of all-gather / reduce-scatter.
const Shape* declaredFirst(const Ctx& c) {
  if (!c.declared) return nullptr;
  const Shape* s = c.declared;
  if (c.op() == Opcode::kAllGatherStart)
    s = s->isTuple() && s->tupleSize() == 2 ? &s->tupleElement(1) : nullptr;
  if (s && c.operandCount() > 1)
    s = s->isTuple() && s->tupleSize() > 0 ? &s->tupleElement(0) : nullptr;
  return s && s->isArray() ? s : nullptr;
}

int64_t ceilDiv(int64_t a, int64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

// Written-out replica groups name each of the devices 0..n-1 once, in
// non-empty groups. (XLA also wants groups of one size outside all-reduce;
// test modules break that, so it is left alone.) With use_global_device_ids
// the groups are flattened ids: they need a channel_id and must be written.
Status checkReplicaGroups(const Ctx& c) {
  if (c.attrs().has(AttrKey::kMode)) {
    // `mode=`, which XLA printed on all-reduce and reduce-scatter for a
    // while; it still reads it, and ignores it (the mode follows from
    // channel_id and use_global_device_ids).
    std::string_view mode = c.attrs().getString(AttrKey::kMode);
    if (mode != "cross_replica" && mode != "cross_partition" && mode != "cross_replica_and_partition" &&
        mode != "flattened_id")
      return c.error("unknown collective mode '" + std::string(mode) +
                     "' (cross_replica, cross_partition, cross_replica_and_partition or flattened_id)");
  }
  const AttrValue* v = c.attrs().find(AttrKey::kReplicaGroups);
  bool written = v && (!v->intLists.empty() || !v->s.empty());
  if (c.attrs().getBool(AttrKey::kUseGlobalDeviceIds, false)) {
    if (!c.attrs().has(AttrKey::kChannelId))
      return c.error("use_global_device_ids needs a channel_id");
    if (!written) return c.error("use_global_device_ids needs replica_groups");
  }
  if (!v || v->intLists.empty()) return okStatus();
  size_t total = 0;
  for (const auto& group : v->intLists) {
    if (group.empty()) return c.error("replica groups must not be empty");
    total += group.size();
  }
  std::vector<bool> seen(total, false);
  for (const auto& group : v->intLists)
    for (int64_t id : group) {
      if (id < 0 || id >= static_cast<int64_t>(total) || seen[id])
        return c.error("replica groups must name each of the devices 0.." + idx(total - 1) +
                       " once; " + idx(id) + " is out of range or repeated");
      seen[id] = true;
    }
  return okStatus();
}

}  // namespace

StatusOr<Shape> inferAllGather(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArrays(c));
  HLO_RETURN_IF_ERROR(checkReplicaGroups(c));
  HLO_ASSIGN_OR_RETURN(int64_t dim, collectiveDim(c));
  int d = static_cast<int>(dim);
  int64_t group = knownGroupSize(c);
  int64_t shards = group;
  const Shape* out0 = declaredFirst(c);
  if (out0 && out0->rank() > d && c.operand(0).dim(d) > 0)
    shards = ceilDiv(out0->dim(d), c.operand(0).dim(d));
  // Nothing to gather: any number of participants gives the declared size.
  if (shards < 1 && out0 && out0->rank() > d && c.operand(0).dim(d) == 0 && out0->dim(d) == 0) shards = 1;
  if (shards < 1) return c.cannotInfer();
  std::vector<Shape> gathered;
  for (int i = 0; i < c.operandCount(); ++i) {
    Shape s = c.operand(i);
    int64_t size = s.dim(d) == Shape::kUnboundedDim ? Shape::kUnboundedDim : s.dim(d) * shards;
    s.setDim(d, size, s.isDynamicDim(d));
    gathered.push_back(s);
  }
  // all-gather-start is (inputs, outputs); older text declares the outputs only.
  if (c.op() == Opcode::kAllGather || (c.declared && !c.declared->isTuple()))
    return oneOrTuple(gathered);
  return Shape::tuple({oneOrTuple(operandShapes(c)), oneOrTuple(gathered)});
}

StatusOr<Shape> inferAllReduce(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArrays(c));
  HLO_RETURN_IF_ERROR(checkReplicaGroups(c));
  const Computation* fn = c.attrs().getComputation(AttrKey::kToApply);
  HLO_ASSIGN_OR_RETURN(Shape root, rootShape(c, fn, "to_apply"));
  if (fn->parameterCount() != 2 || !root.isScalar())
    return c.error("to_apply '" + fn->name() + "' must take two scalars and return a scalar");
  // Like XLA, the reducer's element type is not matched against the operands.
  for (int p = 0; p < 2; ++p)
    if (!fn->parameter(p) || !fn->parameter(p)->shape().isScalar())
      return c.error("to_apply '" + fn->name() + "' parameter " + idx(p) + " must be a scalar");
  Shape result = oneOrTuple(operandShapes(c));
  // Older text declares all-reduce-start as (operand, result).
  if (c.op() == Opcode::kAllReduceStart && c.operandCount() == 1 && c.declared &&
      c.declared->isTuple() && c.declared->tupleSize() == 2)
    return Shape::tuple({result, result});
  return result;
}

StatusOr<Shape> inferReduceScatter(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArrays(c));
  HLO_RETURN_IF_ERROR(checkReplicaGroups(c));
  HLO_ASSIGN_OR_RETURN(int64_t dim, collectiveDim(c));
  int d = static_cast<int>(dim);
  int64_t group = knownGroupSize(c);
  int64_t shards = group;
  const Shape* out0 = declaredFirst(c);
  if (out0 && out0->rank() > d && out0->dim(d) > 0)
    shards = ceilDiv(c.operand(0).dim(d), out0->dim(d));
  // Nothing to scatter: any number of participants gives the declared size.
  if (shards < 1 && out0 && out0->rank() > d && c.operand(0).dim(d) == 0 && out0->dim(d) == 0) shards = 1;
  if (shards < 1) return c.cannotInfer();
  std::vector<Shape> out;
  for (int i = 0; i < c.operandCount(); ++i) {
    Shape s = c.operand(i);
    if (s.dim(d) != Shape::kUnboundedDim && s.dim(d) % shards != 0)
      return c.error("dimension " + idx(d) + " of " + str(s) + " does not divide into " +
                     idx(shards) + " shards");
    s.setDim(d, s.dim(d) == Shape::kUnboundedDim ? s.dim(d) : s.dim(d) / shards,
             s.isDynamicDim(d));
    out.push_back(s);
  }
  return oneOrTuple(out);
}

// With dimensions={d}: one array split and concatenated along d (same shape
// out). Without: the operands exchanged as a tuple.
StatusOr<Shape> inferAllToAll(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArrays(c));
  HLO_RETURN_IF_ERROR(checkReplicaGroups(c));
  if (!c.attrs().has(AttrKey::kDimensions)) {
    for (int i = 1; i < c.operandCount(); ++i)
      if (!compatibleShapes(c.operand(i), c.operand(0), false))
        return c.error("operands " + str(c.operand(0)) + " and " + str(c.operand(i)) +
                       " must have the same shape");
    return Shape::tuple(operandShapes(c));
  }
  if (c.operandCount() != 1) return c.error("an all-to-all with dimensions takes one operand");
  HLO_ASSIGN_OR_RETURN(int64_t dim, collectiveDim(c));
  int64_t group = knownGroupSize(c);
  int64_t size = c.operand(0).dim(static_cast<int>(dim));
  if (group > 0 && size != Shape::kUnboundedDim && size % group != 0)
    return c.error("dimension " + idx(dim) + " of " + str(c.operand(0)) +
                   " does not split into " + idx(group) + " parts");
  return c.operand(0);
}

// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes) -> output.
StatusOr<Shape> inferRaggedAllToAll(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArrays(c));
  HLO_RETURN_IF_ERROR(checkReplicaGroups(c));
  for (int i = 2; i < 6; ++i) {
    const Shape& s = c.operand(i);
    if ((s.rank() != 1 && s.rank() != 2) || !compatibleShapes(s, c.operand(2), false))
      return c.error("offset and size operands must share one shape of rank 1 or 2, got " +
                     str(c.operand(2)) + " and " + str(s));
  }
  return c.operand(1);
}

StatusOr<Shape> inferCollectivePermute(const Ctx& c) {
  if (c.operandCount() < 1) return c.error("expected at least one operand");
  if (const AttrValue* v = c.attrs().find(AttrKey::kSourceTargetPairs)) {
    // A source may feed several targets; a target takes one value (the
    // in-place form writes slices, so it may repeat).
    bool inplaceForm = c.operandCount() == 4 && c.attrs().has(AttrKey::kSliceSizes);
    std::vector<int64_t> targets;
    for (const auto& pair : v->intLists) {
      if (pair.size() != 2 || pair[0] < 0 || pair[1] < 0)
        return c.error("source_target_pairs must be pairs of non-negative ids");
      if (!inplaceForm && std::find(targets.begin(), targets.end(), pair[1]) != targets.end())
        return c.error("target " + idx(pair[1]) + " appears twice in source_target_pairs");
      targets.push_back(pair[1]);
    }
  }
  Shape data;
  std::vector<Shape> start;
  if (c.operandCount() == 4 && c.attrs().has(AttrKey::kSliceSizes)) {
    // In-place form (input, output, input_offsets, output_offsets).
    data = c.operand(1);
    start = {c.operand(0), c.operand(1)};
  } else {
    // A combined collective-permute-start may move tuples.
    if (c.op() == Opcode::kCollectivePermute || c.operandCount() == 1)
      HLO_RETURN_IF_ERROR(expectArrays(c));
    data = oneOrTuple(operandShapes(c));
    start = {data, data};
  }
  if (c.op() == Opcode::kCollectivePermute) return data;
  // Current XLA also writes a start whose value is the permuted array itself.
  if (c.declared && c.declared->isArray() && compatibleShapes(*c.declared, data, true)) return data;
  if (c.declared && c.declared->isTuple())
    for (int i = 2; i < c.declared->tupleSize(); ++i) start.push_back(c.declared->tupleElement(i));
  return Shape::tuple(std::move(start));
}

// The broadcast value has the first operand's shape, as in XLA; a tuple
// result carries one value per operand.
StatusOr<Shape> inferCollectiveBroadcast(const Ctx& c) {
  HLO_RETURN_IF_ERROR(expectArrays(c));
  if (c.declared && c.declared->isTuple()) return Shape::tuple(operandShapes(c));
  return c.operand(0);
}

// all-gather-done and collective-permute-done: element 1 of the state;
// all-reduce-done: the operand. Older text writes all-reduce-start as
// (operand, result) and all-gather-start as just the result, and current
// XLA may write collective-permute-start as just the result; done then
// answers element 1, or the operand itself.
StatusOr<Shape> inferCollectiveDone(const Ctx& c) {
  const Shape& state = c.operand(0);
  bool pair = state.isTuple() && state.tupleSize() == 2;
  if (c.op() == Opcode::kAllReduceDone) {
    if (pair && c.declared && compatibleShapes(*c.declared, state.tupleElement(1), true))
      return state.tupleElement(1);
    return state;
  }
  if ((c.op() == Opcode::kAllGatherDone || c.op() == Opcode::kCollectivePermuteDone) && state.isArray())
    return state;
  if (!state.isTuple() || state.tupleSize() < 2)
    return c.error("operand must be a start state tuple, got " + str(state));
  return state.tupleElement(1);
}

}  // namespace hlo::inference
