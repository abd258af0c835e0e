// Runs the per-op test files testdata/ops/*.hlo (conformance/op_cases.h)
// through the interpreter: one test per case.
#include <gtest/gtest.h>

#include "conformance/op_case_tests.h"
#include "interp/evaluator.h"
#include "parser/parser.h"

namespace hlo {
namespace {

void runCase(const conformance::OpCase& c) {
  auto module = parseModule(c.text);
  ASSERT_TRUE(module.ok()) << formatError(module.status(), c.file, c.text);
  auto spec = conformance::readOpCase(c);
  ASSERT_TRUE(spec.ok()) << c.file << ": " << spec.status().message();
  auto result = interp::evaluate(**module, spec->args);
  if (spec->error) {
    ASSERT_FALSE(result.ok()) << "expected an error containing '" << *spec->error << "'";
    EXPECT_NE(result.status().message().find(*spec->error), std::string::npos) << result.status().message();
    return;
  }
  ASSERT_TRUE(result.ok()) << formatError(result.status(), c.file, c.text);
  Comparison cmp = compareLiterals(*result, *spec->expected, spec->tolerance);
  EXPECT_TRUE(cmp.equal) << c.file << " " << c.name << ": " << cmp.firstMismatch << "\n  got      "
                         << result->toString() << "\n  expected " << spec->expected->toString();
}

const int kRegistered = conformance::registerOpCaseTests("OpTests", runCase);

}  // namespace
}  // namespace hlo
