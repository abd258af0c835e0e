// One module through the reference interpreter and the CPU JIT on the same
// arguments, compared as conformance/contraction_bound.h's compareEngines
// does: what hlo-jit-corpus does to each corpus module and hlo-fuzz to
// each random one. Each phase is announced (reportProgress), so a child
// that times out or crashes says where. Header-only: the conformance
// library does not link the JIT, the programs that call this do.
#pragma once

#include <span>
#include <string>

#include "conformance/child_runner.h"
#include "conformance/contraction_bound.h"
#include "conformance/multi_device.h"
#include "hlo/module.h"
#include "interp/evaluator.h"
#include "jit/executable.h"

namespace hlo::conformance {

// A compile error's category: "cpu: cannot compile sort (%x): ..." ->
// "cannot-compile: sort"; "error" for any other message.
inline std::string compileCategory(const std::string& message) {
  const std::string marker = "cannot compile ";
  size_t at = message.find(marker);
  if (at == std::string::npos) return "error";
  size_t begin = at + marker.size();
  size_t end = message.find(' ', begin);
  return "cannot-compile: " + message.substr(begin, end == std::string::npos ? end : end - begin);
}

// The outcome:
//   <referenceFailure>        the interpreter failed: no answer to compare
//                             with (detail "interpreter: <message>")
//   cannot-compile: <opcode>  the JIT refused an instruction (compileCategory)
//   error                     the JIT failed to compile otherwise, or at run time
//   disagree                  the results differ (detail: the first mismatch)
//   ok                        they agree
inline Outcome runAgainstInterpreter(const Module& module, std::span<const Literal> args,
                                     const interp::Options& interpOptions, const jit::CompileOptions& compileOptions,
                                     const std::string& referenceFailure, std::string_view backend = "cpu") {
  // The reference first: a module the interpreter cannot run has no answer
  // to compare with.
  reportProgress("interpreter");
  auto expected = interp::evaluate(module, args, interpOptions);
  if (!expected.ok()) return {referenceFailure, "interpreter: " + expected.status().message()};
  reportProgress("compile");
  auto exe = jit::compile(module, backend, compileOptions);
  if (!exe.ok()) return {compileCategory(exe.status().message()), exe.status().message()};
  reportProgress("run");
  auto actual = (*exe)->run(args);
  if (!actual.ok()) return {"error", actual.status().message()};
  // (A float dot's or convolution's values within their sums' rounding
  // bound agree: conformance/contraction_bound.h.)
  reportProgress("compare");
  auto c = compareEngines(module, args, interpOptions, *actual, *expected);
  if (c.agree) return {"ok", ""};
  return {"disagree", c.plain.firstMismatch};
}

// The same on several devices, device d on deviceArgs[d], each device's
// result compared; the memory limits are the whole run's.
inline Outcome runAgainstInterpreterOnDevices(const Module& module, const collectives::Topology& topology,
                                              std::span<const std::vector<Literal>> deviceArgs,
                                              interp::Options interpOptions, jit::CompileOptions compileOptions,
                                              const std::string& referenceFailure, std::string_view backend = "cpu") {
  auto onDevice = [](const std::pair<int64_t, Status>& failed) {
    return "device " + std::to_string(failed.first) + ": " + failed.second.message();
  };
  interpOptions.maxMemoryBytes /= topology.devices();
  compileOptions.maxMemoryBytes /= topology.devices();
  reportProgress("interpreter");
  auto expected = runOnEveryDevice(module, topology, deviceArgs, nullptr, interpOptions);
  if (auto failed = firstFailure(expected)) return {referenceFailure, "interpreter: " + onDevice(*failed)};
  reportProgress("compile");
  auto exe = jit::compile(module, backend, compileOptions);
  if (!exe.ok()) return {compileCategory(exe.status().message()), exe.status().message()};
  reportProgress("run");
  auto actual = runOnEveryDevice(module, topology, deviceArgs, exe->get(), interpOptions);
  if (auto failed = firstFailure(actual)) return {"error", onDevice(*failed)};
  reportProgress("compare");
  for (size_t d = 0; d < actual.size(); ++d) {
    auto c = compareEngines(module, deviceArgs[d], interpOptions, *actual[d], *expected[d]);
    if (!c.agree) return {"disagree", "device " + std::to_string(d) + ": " + c.plain.firstMismatch};
  }
  return {"ok", "on " + topology.toString()};
}

}  // namespace hlo::conformance
