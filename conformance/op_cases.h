// The per-op test cases of testdata/ops/*.hlo, read for any engine.
//
// A file holds cases separated by `// -----`. Each case is an HLO module with
// comment lines giving its inputs and expected result, worked out by hand or
// from the written semantics:
//   // INPUT: f32[2] {1, 2}          one per ENTRY parameter, in order
//   // EXPECT: f32[2] {2, 4}         the result (tuples as `(f32[] 1, s32[] 2)`)
//   // TOLERANCE: 1e-6               optional: absolute and relative error allowed
//   // ERROR: unsupported            optional instead of EXPECT: the run must fail
//                                    with a message containing this text
// Without TOLERANCE floats must match bit for bit (NaN matches any NaN).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/compare.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo::conformance {

struct OpCase {
  std::string file;  // testdata/ops/add.hlo
  std::string name;  // add_0: a test name (file stem and index, alphanumerics and _)
  std::string text;  // the module and its comment lines
};

// Every case of every .hlo file in `dir`, files in name order; none when the
// folder is absent.
std::vector<OpCase> loadOpCases(const std::string& dir);

// What a case asks for.
struct OpCaseSpec {
  std::vector<Literal> args;
  std::optional<Literal> expected;   // EXPECT
  std::optional<std::string> error;  // ERROR: text the failure message must contain
  Tolerance tolerance;               // TOLERANCE, else exact
};

// Reads the INPUT / EXPECT / ERROR / TOLERANCE lines; an error says which line is bad.
StatusOr<OpCaseSpec> readOpCase(const OpCase& c);

}  // namespace hlo::conformance
