// Test-case reduction for HLO (tools/hlo-reduce.cc): the smallest module
// that still passes an interestingness test, as C-Reduce does for C.
//
// Starting from a module the test holds for, edits are tried one at a time
// on a copy, each followed by dce; an edit whose result verifies and still
// passes the test is kept. The edits, to a fixed point:
//   - the ENTRY's root becomes one of its operands (the ENTRY's result may
//     change shape);
//   - an instruction is replaced, in all its uses, by one of its operands of
//     the same shape, and removed (even one dce keeps for its side effects);
//   - an array instruction with operands is replaced by zeros of its shape
//     (a broadcast of a scalar constant);
//   - an ENTRY parameter nothing reads is removed, and so is any other
//     instruction nothing reads that dce keeps for its side effects (a
//     collective's start and done, a custom call);
//   - the ENTRY's result tuple loses an element;
//   - a conditional becomes one of its branches, inlined;
//   - an array constant's values become zeros;
//   - every instruction's metadata and frontend attributes go, and the
//     module header's attributes, one by one;
//   - every call is inlined (hlo/passes/inline.cc), and a fusion becomes
//     the instructions of its computation, so that they are open to the
//     edits too (a dump after XLA's passes is mostly fusions).
// Whatever the ENTRY's signature becomes, the header's
// entry_computation_layout, which would then disagree, is dropped.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo::conformance {

struct ReduceOptions {
  // Whether a candidate, given as module text, is still interesting.
  std::function<bool(const std::string& text)> interesting;
  // When set with jobs > 1: whether each of several candidates is, tested
  // side by side. The next `jobs` candidates are tested together and the
  // first interesting one in the order the edits are tried is kept, so the
  // result is the one a single job gives.
  std::function<std::vector<bool>(const std::vector<std::string>& texts)> interestingEach;
  int jobs = 1;
  // Stop after this many tests (0: no limit); the best module so far is the result.
  int64_t maxTests = 0;
  // Called after every kept edit, with the instructions left and the tests run.
  std::function<void(int64_t instructions, int64_t tests)> progress;
};

struct ReduceResult {
  std::unique_ptr<Module> module;
  int64_t instructionsBefore = 0, instructionsAfter = 0;
  int64_t tests = 0;
};

// The instructions of every computation of `module`.
int64_t instructionCount(const Module& module);

// Reduces `module`. An error when the test does not hold for it as given.
StatusOr<ReduceResult> reduceModule(const Module& module, const ReduceOptions& options);

}  // namespace hlo::conformance
