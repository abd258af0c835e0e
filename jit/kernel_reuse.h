// Kernel deduplication, shared by the backends: a kernel emitted for one
// instruction computes every instruction of the same structure
// (hlo/structural_equality.h) whose operands have the same shapes and
// layouts and repeat in the same places (a kernel reads an operand named
// twice, as in add(%p, %p), through one input). A model's repeated layers
// then compile once.
#pragma once
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "hlo/instruction.h"
#include "hlo/structural_equality.h"

namespace hlo::jit {

class KernelReuse {
 public:
  // The name of a kernel recorded before whose code computes `instr` too, or null.
  const std::string* find(const Instruction& instr);
  // Records that kernel `name` computes `instr`.
  void add(const Instruction& instr, std::string name);

 private:
  struct Kernel {
    const Instruction* instr;
    std::string name;
  };
  // structuralHash and the operands' shapes: what a kernel's code depends on.
  static size_t hash(const Instruction& instr);

  std::vector<Kernel> kernels_;
  std::unordered_map<size_t, std::vector<size_t>> byHash_;  // hash -> positions in kernels_
  StructuralMatcher matcher_;
};

}  // namespace hlo::jit
