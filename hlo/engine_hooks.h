// What semantics shared by the interpreter and the CPU runtime (the
// hlo/single_device.h ops, scan) need from the engine running them: how to
// run a computation, how to word a refusal, and how to account for memory.
#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo {

class Computation;
class Instruction;
namespace collectives {
struct Participant;
}

using Values = std::span<const Literal* const>;

struct EngineHooks {
  // Runs `computation` on `args` (the interpreter evaluates it; the CPU
  // runtime runs its compiled program).
  std::function<StatusOr<Literal>(const Computation& computation, Values args)> call;
  // The engine's error for an instance it cannot run.
  std::function<Status(const Instruction& instr, const std::string& why)> refuse;
  // Checks that a value of `shape` may be allocated for `instr`; may be empty.
  std::function<Status(const Instruction& instr, const Shape& shape)> checkMemory;
  // The device this run is, in a run on several (hlo/transport.h); null on
  // one device.
  collectives::Participant* participant = nullptr;
};

// A value computed from operands with the engine's help.
using SharedSemantics = StatusOr<Literal> (*)(const Instruction& instr, Values operands, const EngineHooks& hooks);

}  // namespace hlo
