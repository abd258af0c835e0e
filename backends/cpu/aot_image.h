// An ahead-of-time library's image (HloAotImage, hlo_rt.h): what `hlo-aot` bakes into an object
// file beside the kernels' machine code, and what its runtime
// (build/lib/libhlo_rt.a: no LLVM, no parser, no interpreter) turns back into
// a CpuExecutable.
//
// The image holds the compiled module's plan as a flat record
// (hlo/byte_record.h):
//   magic | the module after the pipeline (hlo/module_binary.h) |
//   the names of the compiled functions, in the order of `functions` |
//   per program: its computation, root and steps (kind, instruction,
//   operand slots, kernel or helper names, work units, callees, last
//   readers, refusal) | the entry program | a checksum of all before it
// The steps are those the compiler planned; a library op's runtime function
// is a pointer, so the loader plans that op again (libraryPlanner) and checks
// that it names the same compiled helpers. The memory plan is made again
// from the module as the compiler made it.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "backends/cpu/hlo_rt.h"
#include "backends/cpu/program.h"
#include "hlo/status.h"

namespace hlo::cpu {

inline constexpr uint64_t kAotImageVersion = 2;

// The plan of `exe` (compiled for the CPU without interpreter fallback), and
// the names of its functions in the order the image's `functions` must list
// their addresses.
struct AotPlan {
  std::string record;
  std::vector<std::string> functionNames;
};
StatusOr<AotPlan> writeAotPlan(const CpuExecutable& exe);

// The executable an image describes, its work split over `threads` threads
// (0: one per core).
StatusOr<std::unique_ptr<CpuExecutable>> loadAotImage(const HloAotImage& image, int threads);

}  // namespace hlo::cpu
