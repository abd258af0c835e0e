// The header hlo-aot writes beside its object file: the runtime's C
// interface (hlo_rt.h, copied in so the header stands alone), a typed C
// entry point, and a C++ class with an argument and a result accessor per
// array. Free of LLVM, so it is tested on its own.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo::cpu {

// The text of backends/cpu/hlo_rt.h, which every header starts with (a unit
// test checks the two agree).
extern const char kRuntimeHeader[];

struct AotHeaderInput {
  std::string name;          // the class and the prefix of the C names
  std::string cppNamespace;  // empty: the global namespace
  std::string sourceName;
  int64_t arenaBytes = 0;
};

// Whether `name` is a C identifier (letters, digits, underscores, not
// starting with a digit).
bool isCIdentifier(const std::string& name);

// Checks that `module`'s entry takes arrays and gives an array or a tuple of
// arrays (what the header can type), naming what does not fit.
Status checkAotSignature(const Module& module);

StatusOr<std::string> aotHeader(const Module& module, const AotHeaderInput& input);

}  // namespace hlo::cpu
