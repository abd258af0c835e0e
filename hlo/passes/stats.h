// Counts that show what the passes did (`hlo-opt --stats`, `hlo-pass-corpus
// --stats`): instructions per opcode, fusions and their sizes, the memory
// traffic of the kernels, and the buffer bytes one execution needs.
//
// Memory traffic, the one model of it: a kernel is each instruction of a
// computation that runs as a program (ENTRY, and what a while, conditional
// or call runs, each counted once however often it runs) that does work. A
// kernel reads every array of its distinct operands once and writes every
// array of its result once, so it moves the bytes of its operands plus those
// of its result. What moves nothing: parameter, constant, tuple, get-tuple-element,
// bitcast, opt-barrier, domain, add-dependency, after-all, and while,
// conditional and call themselves (their computations are counted instead). A
// fusion is one kernel: what stays inside it is never written to memory.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/module.h"

namespace hlo {

struct ModuleStats {
  int64_t computations = 0;
  int64_t instructions = 0;
  std::map<std::string, int64_t> perOpcode;  // by opcode name
  // Instructions of the program computations (above), and how many of them
  // are elementwise (the opcode table's category).
  int64_t programInstructions = 0;
  int64_t elementwise = 0;
  // For each fusion instruction, the instructions of its fused computation
  // other than parameters.
  std::vector<int64_t> fusionSizes;
  double bytesRead = 0, bytesWritten = 0;  // by the kernels
  // From buffer assignment; -1 when it fails on the module.
  int64_t arenaBytes = -1, peakBytes = -1, noReuseBytes = -1;
};

ModuleStats moduleStats(const Module& module);

// Whether elementwise ops are at least half of the program instructions,
// and at least two (a lone op has nothing to fuse with): the modules on which
// fusion should cut memory traffic the most.
bool elementwiseHeavy(const ModuleStats& stats);

// A table of counts before and after, one row per opcode present in either,
// then fusions by size, traffic and buffer bytes.
std::string formatStats(std::string_view moduleName, const ModuleStats& before,
                        const ModuleStats& after);

}  // namespace hlo
