// What a set of modules exercises: how many instructions of each opcode
// and element type (the type an op computes on: its first array operand's,
// past a select's or a conditional's chooser, or for ops without one the
// last array of its result), for hlo-fuzz --coverage.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "hlo/module.h"

namespace hlo::conformance::fuzz {

class Coverage {
 public:
  void add(const Module& module);
  int64_t modules() const { return modules_; }
  // Distinct opcode × type pairs and opcodes seen.
  int64_t pairs() const { return static_cast<int64_t>(hits_.size()); }
  int64_t opcodes() const;
  // One line per opcode of the table: the types seen with their counts, or
  // why the generator writes none (fuzz_generator.h's notGenerated).
  std::string report() const;

 private:
  std::map<std::pair<Opcode, ElementType>, int64_t> hits_;
  int64_t modules_ = 0;
};

}  // namespace hlo::conformance::fuzz
