// Ahead-of-time compilation (hlo-aot): a module compiled by the CPU
// backend's pipeline and emitter, as the JIT compiles it, written as a
// relocatable object file and a C/C++ header instead of loaded into this
// process.
//
// Algorithm:
//   1. Compile the module with the JIT (one LLVM module of kernels), keeping
//      that LLVM module's bitcode from before optimization, and write the
//      executable's plan (aot_image.h).
//   2. Into the kernels' LLVM module, add the image: the plan as read-only
//      bytes, the table of the compiled functions' addresses, and the
//      HloAotImage `hlo_aot_<name>` pointing at both. Every other definition
//      becomes internal, so several models link into one program.
//   3. Optimize and generate code for the target CPU (orc.h's compileObject),
//      position-independent.
//   4. Write the header (aot_header.h).
#pragma once
#include <cstdint>
#include <string>

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo::cpu {

struct AotOptions {
  std::string name;          // the C++ class; the C symbols are hlo_aot_<name> and <name>_run
  std::string cppNamespace;  // empty: the global namespace
  std::string cpu = "native";
  std::string sourceName;    // named in the header's first comment
};

struct AotOutput {
  std::string object;  // an ELF relocatable object
  std::string header;
  int64_t arenaBytes = 0;
  size_t planBytes = 0;
  size_t functions = 0;
};

StatusOr<AotOutput> compileAheadOfTime(const Module& module, const AotOptions& options);

}  // namespace hlo::cpu
