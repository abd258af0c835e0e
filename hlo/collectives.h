// Replicas, partitions and the collectives between them, with XLA's
// semantics: which devices form each group, and what every collective
// computes from the values the devices of its group contribute. Both
// engines run a multi-device module through this file; the values travel
// through a Transport (hlo/transport.h), so the result is the same on every
// engine and every transport.
//
// Devices: a module runs on replicas × partitions devices; device d is
// replica d / partitions, partition d % partitions (XLA's default device
// assignment). Each device runs the whole module on its own values.
//
// Groups: replica_groups lists ids whose meaning depends on channel_id and
// use_global_device_ids, as in XLA:
//   no channel_id                         cross-replica: replica ids, one
//                                         group per listed group and partition
//   channel_id, no use_global_device_ids  all-reduce, all-gather and
//                                         reduce-scatter: replica ids, each
//                                         group with every partition of its
//                                         replicas (cross-replica-and-partition);
//                                         all-to-all, collective-permute and
//                                         collective-broadcast: partition ids,
//                                         one group per listed group and replica
//   channel_id, use_global_device_ids     device ids (flattened)
// No groups means one group of all the replicas (or partitions).
//
// Order: a reduction folds the group's values from the left in group order,
// ((v0 ⊕ v1) ⊕ v2) ⊕ ..., applying to_apply element by element; a gather
// concatenates in group order. So every device of a group computes the same
// bits, whatever engine or transport.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hlo/engine_hooks.h"

namespace hlo {

class Module;

namespace collectives {

struct Topology {
  int64_t replicas = 1;
  int64_t partitions = 1;
  int64_t devices() const { return replicas * partitions; }
  int64_t device(int64_t replica, int64_t partition) const { return replica * partitions + partition; }
  std::string toString() const;
};

// What the header states of the topology: each count, when given.
struct StatedTopology {
  std::optional<int64_t> replicas, partitions;
};
StatusOr<StatedTopology> statedTopology(const Module& module);

// The smallest topology under which the module's collectives are well
// formed: for modules whose header states none, as XLA's tests set it in
// code. Replica ids in groups count replicas, partition ids partitions, and
// a group that is not written is sized by its shapes (an all-gather that
// grows a dimension four times is four devices).
Topology inferTopology(const Module& module);

enum class GroupMode { kCrossReplica, kCrossPartition, kCrossReplicaAndPartition, kFlattenedId };

StatusOr<GroupMode> groupModeOf(const Instruction& instr);

// replica_groups as written, explicit ({{0,1},{2,3}}) or iota
// ([2,2]<=[4], [2,2]<=[2,2]T(1,0)); empty when absent or `{}`.
StatusOr<std::vector<std::vector<int64_t>>> writtenGroups(const Instruction& instr);

// Expands an iota device list, `[groups,size]<=[d0,d1,...]` optionally
// followed by `T(permutation)`: iota over the product, reshaped to the d's,
// transposed, read out as `groups` lists of `size`.
StatusOr<std::vector<std::vector<int64_t>>> expandIotaGroups(const std::string& written);

// The groups of devices `instr` forms, each in combining order. A device in
// two groups or an id out of range is an error naming the instruction.
StatusOr<std::vector<std::vector<int64_t>>> deviceGroups(const Instruction& instr, const Topology& topology);

// Whether `instr` exchanges values between devices (or is replica-id /
// partition-id), and so needs a Participant to run on more than one device:
// all-reduce, all-gather, reduce-scatter, all-to-all, ragged-all-to-all,
// collective-permute, collective-broadcast and their -start forms.
bool isCollective(const Instruction& instr);

// Whether `instr` is a send, recv, send-done or recv-done between devices
// (not with the host): send leaves its operand for the device it sends to,
// without waiting; recv-done waits for what the device that sends to it
// sent, in order per channel. The pairs are the frontend attribute
// _xla_send_recv_source_target_pairs, in partition ids when the run has
// several partitions, else replica ids; a device no pair sends to receives
// zeros.
bool isPointToPoint(const Instruction& instr);

// The value of collective `instr` (or of a point-to-point op) on device hooks.participant->device, from
// its operands; exchanges with the other devices through the participant's
// transport.
StatusOr<Literal> evaluate(const Instruction& instr, Values operands, const EngineHooks& hooks);

}  // namespace collectives
}  // namespace hlo
