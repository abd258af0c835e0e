// The JIT driver: copy the module, run the target's pass pipeline, hand the
// result to the target's backend.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "backends/cpu/program.h"
#include "hlo/passes/pass.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "jit/executable.h"

namespace hlo::jit {

std::string defaultCacheDir() {
  if (const char* dir = std::getenv("HLO_CACHE_DIR"); dir && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/hlo";
  return "";
}

namespace {

// Compiled code runs every array at its bounds: a dynamic dimension holds its
// bound's worth of elements and get-dimension-size answers the bound. That
// is the module's meaning only while every runtime size is its bound (the
// interpreter, interp/dynamic.cc, models runtime sizes), so a
// set-dimension-size or dynamic-reshape whose sizes are not constants equal
// to the bounds cannot be compiled, not even with the interpreter fallback
// (the compiled code around it would ignore the sizes).
Status checkStaticSizes(const Module& module) {
  auto constantIs = [](const Instruction* size, int64_t want) {
    return size->opcode() == Opcode::kConstant && size->hasLiteral() && size->shape().isScalar() &&
           !size->literal().elided() && size->literal().elementCount() == 1 &&
           static_cast<int64_t>(size->literal().toDouble(0)) == want;
  };
  auto refuse = [](const Instruction& instr, const std::string& why) {
    return errorStatus("cannot compile " + std::string(opcodeName(instr.opcode())) + " (%" + instr.name() +
                           "): " + why + "; compiled code runs dynamic dimensions at their bounds",
                       instr.loc());
  };
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == Opcode::kSetDimensionSize) {
        const std::vector<int64_t>& dims = instr->attrs().getInts(AttrKey::kDimensions);
        const Shape& x = instr->operand(0)->shape();
        if (dims.size() != 1 || dims[0] < 0 || dims[0] >= x.rank() ||
            !constantIs(instr->operand(1), x.dim(static_cast<int>(dims[0]))))
          return refuse(*instr, "the size is not a constant equal to the bound");
      } else if (instr->opcode() == Opcode::kDynamicReshape) {
        for (int d = 1; d < instr->operandCount(); ++d)
          if (d - 1 >= instr->shape().rank() || !constantIs(instr->operand(d), instr->shape().dim(d - 1)))
            return refuse(*instr, "the sizes are not constants equal to the bounds");
      }
    }
  return okStatus();
}

}  // namespace

StatusOr<std::unique_ptr<Executable>> compile(const Module& module, Target target, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  // The passes rewrite in place; the caller's module stays as it was.
  std::unique_ptr<Module> copy = module.clone();
  interp::installConstantFolding();  // the `fold` pass evaluates with the interpreter
  const char* targetName = "cpu";
  switch (target) {
    case Target::kCpu: targetName = "cpu"; break;
  }
  std::optional<std::vector<std::string>> passes = pipelineFor(targetName);
  if (!passes) return errorStatus(std::string("jit: no pass pipeline for ") + targetName);
  if (!options.fuse) std::erase(*passes, std::string("fusion"));
  std::vector<TraceEvent> phases;
  {
    TraceScope scope(&phases, "pass pipeline", "compile");
    HLO_RETURN_IF_ERROR(runPipeline(*copy, *passes));
  }
  Status verified = verify(*copy);
  if (!verified.ok()) return errorStatus("jit: internal error: the pipeline left an invalid module: " + verified.message());
  HLO_RETURN_IF_ERROR(checkStaticSizes(*copy));
  if (options.verbose)
    std::fprintf(stderr, "hlo-run: %s: pass pipeline %.3g ms\n", targetName,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() * 1e3);
  if (!options.dumpDir.empty()) {
    std::ofstream out(options.dumpDir + "/module.after-passes.hlo", std::ios::trunc);
    out << printModule(*copy);
    if (!out) return errorStatus("jit: cannot write " + options.dumpDir + "/module.after-passes.hlo");
  }
  StatusOr<std::unique_ptr<Executable>> exe = errorStatus("jit: unknown target");
  switch (target) {
    case Target::kCpu: exe = cpu::compileModule(std::move(copy), options); break;
  }
  if (exe.ok()) {
    std::vector<TraceEvent>& trace = (*exe)->mutableTrace();
    trace.insert(trace.begin(), phases.begin(), phases.end());
  }
  return exe;
  return errorStatus("jit: unknown target");
}

}  // namespace hlo::jit
