// Whether two instructions, or two computations, compute the same thing:
// the structure of the text, not the names. CSE merges instructions with it;
// the CPU backend compiles one kernel for fusions of the same structure (the
// same layer repeated through a model).
#pragma once

#include <functional>
#include <map>
#include <utility>

#include "hlo/computation.h"

namespace hlo {

// Mixes v into the hash h.
inline void hashCombine(size_t& h, size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); }

// A hash of what sameInstruction compares besides the operands: the
// opcode, the shape's type and dimensions, and the size of each called
// computation. Instructions it pairs hash alike; a caller mixes in what it
// pairs their operands by (hashCombine).
size_t structuralHash(const Instruction& instr);

class StructuralMatcher {
 public:
  // Same opcode, shape (with layout), parameter number, literal (never one
  // whose values the text elided) and attributes — metadata aside, called
  // computations by sameComputation — and operands that `sameOperand` pairs
  // (in either order for a commutative binary opcode).
  bool sameInstruction(const Instruction& a, const Instruction& b,
                       const std::function<bool(const Instruction*, const Instruction*)>& sameOperand);
  // Same instructions in the same order, with the same wiring, control
  // edges and root. Answers are remembered per pair of computations, so
  // neither may change while the matcher is in use.
  bool sameComputation(const Computation* a, const Computation* b);

 private:
  bool sameAttributes(const Attributes& a, const Attributes& b);

  std::map<std::pair<const Computation*, const Computation*>, bool> known_;
};

}  // namespace hlo
