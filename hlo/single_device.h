// The values of the ops whose meaning on a single device is bookkeeping:
// replica-id and partition-id, collectives with one participant, the async wrappers (async-start/-update/
// -done, copy-start/-done) and the custom calls that only annotate. Both the
// reference interpreter and the CPU runtime run them through these
// functions, so the two engines cannot drift apart.
//
// What one device cannot do (a group of several participants, a permute
// between devices) is refused through `Hooks::refuse`, which each engine
// words in its own way; running a wrapped computation goes through
// `Hooks::call`, the engine's own.
#pragma once
#include <functional>
#include <span>
#include <string>

#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

class Computation;
class Instruction;

namespace single_device {

using Values = std::span<const Literal* const>;

struct Hooks {
  std::function<StatusOr<Literal>(const Computation&, Values)> call;
  std::function<Status(const Instruction&, const std::string& why)> refuse;
};

// Whether `instr` is an op this file gives a value to.
bool handles(const Instruction& instr);

// Refuses, before anything runs, what one device cannot do: collectives
// whose replica groups hold more than one participant, permutes that send
// between devices, custom calls other than the annotations.
Status check(const Instruction& instr, const Hooks& hooks);

// The value of `instr` (for which handles() is true) from its operands.
StatusOr<Literal> evaluate(const Instruction& instr, Values operands, const Hooks& hooks);

}  // namespace single_device
}  // namespace hlo
