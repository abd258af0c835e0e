// One module through the reference interpreter and the CPU JIT on the same
// arguments, compared as conformance/contraction_bound.h's compareEngines
// does: what hlo-jit-corpus does to each corpus module and hlo-jit-fuzz to
// each random one. Each phase is announced (reportProgress), so a child
// that times out or crashes says where. Header-only: the conformance
// library does not link the JIT, the programs that call this do.
#pragma once

#include <span>
#include <string>

#include "conformance/child_runner.h"
#include "conformance/contraction_bound.h"
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

}  // namespace hlo::conformance
