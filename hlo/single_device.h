// The values of the ops whose meaning on a single device is bookkeeping:
// replica-id and partition-id, collectives with one participant, the async wrappers (async-start/-update/
// -done, copy-start/-done) and the custom calls that only annotate. Both the
// reference interpreter and the CPU runtime run them through these
// functions, so the two engines cannot drift apart.
//
// In a run on several devices (EngineHooks::participant set), the
// collectives, replica-id, partition-id and send/recv between devices take
// their values from hlo/collectives.h instead. What one device cannot do (a
// group of several participants, a permute between devices, infeed,
// outfeed, send and recv, which need a host or other devices) is refused
// through `EngineHooks::refuse`, which each engine words in its own way;
// running a wrapped computation goes through `EngineHooks::call`, the
// engine's own.
#pragma once
#include "hlo/engine_hooks.h"

namespace hlo {

namespace single_device {

// Whether `instr` is an op this file gives a value to.
bool handles(const Instruction& instr);

// Refuses, before anything runs, what one device cannot do: collectives
// whose replica groups hold more than one participant, permutes that send
// between devices, custom calls other than the annotations, transfers with
// the host or other devices.
Status check(const Instruction& instr, const EngineHooks& hooks);

// The value of `instr` (for which handles() is true) from its operands.
StatusOr<Literal> evaluate(const Instruction& instr, Values operands, const EngineHooks& hooks);

}  // namespace single_device
}  // namespace hlo
