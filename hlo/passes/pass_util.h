// Small helpers the passes share: side effects, removing dead instructions
// and computations, fresh names, cloning, and reading constants.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "hlo/module.h"

namespace hlo {

// Whether an instruction must run even when nothing uses its result: a
// side-effecting opcode (opcodes.def), a custom-call marked
// custom_call_has_side_effect=true, or any instruction that calls a
// computation containing one. Results per computation are cached.
class SideEffects {
 public:
  bool of(const Instruction& instr);
  bool of(const Computation& comp);

 private:
  std::unordered_map<const Computation*, bool> cache_;
};

// True when `instr` may be deleted once nothing uses it: not a parameter, not
// its computation's root, no control edges, no side effect.
bool isRemovableWhenUnused(const Instruction& instr, SideEffects& effects);

// Removes each of `candidates` that is unused and removable, then every
// operand that becomes unused and removable in turn. Candidates may repeat.
// Returns the number removed.
int removeDeadChains(Computation& comp, std::vector<Instruction*> candidates,
                     SideEffects& effects);

// Computations the entry calls, directly or through other computations.
std::unordered_set<const Computation*> reachableComputations(const Module& module);
// Removes every computation not reachable from the entry; true if any.
bool removeUnreachableComputations(Module& module);

// Fresh instruction names for one computation: `base` if free, else the
// first free `root.1`, `root.2`, ... where root is base less any `.N` suffix.
class NameUniquer {
 public:
  explicit NameUniquer(const Computation& comp);
  std::string make(std::string_view base);

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, int> next_;  // the first suffix worth trying per base
};

// Appends a copy of `src` (opcode, shape, attributes, literal, parameter
// number, location) to `into`, with the given operands and name.
Instruction* cloneInstruction(Computation& into, const Instruction& src,
                              std::vector<Instruction*> operands, std::string name);

// True when a value of shape `b` may stand in for one of shape `a`: the same
// shape up to layouts, and the same minor-to-major order wherever both are
// arrays (an absent layout counts as the default one).
bool interchangeable(const Shape& a, const Shape& b);

// The literal of a constant whose values are known (not elided), else nullptr.
const Literal* knownLiteral(const Instruction& instr);

}  // namespace hlo
