// Runs the per-op test files testdata/ops/*.hlo (conformance/op_cases.h)
// through the CPU JIT, against the same hand-worked expectations the
// interpreter meets: one test per case.
//
// A case whose module the JIT cannot compile yet is reported as skipped,
// with the reason. Float results may differ from the expectation by the
// harness's tolerance for their type (vectorized and library code need not
// round exactly as the written semantics do); integers and pred are exact.
// An ERROR case passes when the JIT refuses the module or the run fails.
#include <gtest/gtest.h>

#include "conformance/op_case_tests.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace hlo {
namespace {

Tolerance widen(Tolerance t, ElementType type) {
  Tolerance d = defaultTolerance(type);
  return {std::max(t.absolute, d.absolute), std::max(t.relative, d.relative)};
}

// Compares array by array, each with its type's tolerance.
Comparison compareAll(const Literal& actual, const Literal& expected, Tolerance tolerance) {
  if (actual.shape().isTuple() && expected.shape().isTuple() &&
      actual.tupleElements().size() == expected.tupleElements().size()) {
    Comparison total;
    for (size_t i = 0; i < actual.tupleElements().size(); ++i) {
      Comparison c = compareAll(actual.tupleElements()[i], expected.tupleElements()[i], tolerance);
      if (!c.equal && total.equal) total.firstMismatch = "element " + std::to_string(i) + " " + c.firstMismatch;
      total.equal = total.equal && c.equal;
    }
    return total;
  }
  ElementType t = expected.shape().isArray() ? expected.type() : ElementType::kPred;
  return compareLiterals(actual, expected, widen(tolerance, t));
}

void runCase(const conformance::OpCase& c) {
  auto module = parseModule(c.text);
  ASSERT_TRUE(module.ok()) << formatError(module.status(), c.file, c.text);
  auto spec = conformance::readOpCase(c);
  ASSERT_TRUE(spec.ok()) << c.file << ": " << spec.status().message();
  jit::CompileOptions options;
  options.threads = 1;
  auto exe = jit::compile(**module, jit::Target::kCpu, options);
  if (!exe.ok() && exe.status().message().find("cannot compile") != std::string::npos) {
    if (spec->error) return;  // refused, as it should be
    GTEST_SKIP() << exe.status().message();
  }
  StatusOr<Literal> result = exe.ok() ? (*exe)->run(spec->args) : StatusOr<Literal>(exe.status());
  if (spec->error) {
    EXPECT_FALSE(result.ok()) << "expected an error like '" << *spec->error << "', got " << result->toString();
    return;
  }
  ASSERT_TRUE(result.ok()) << formatError(result.status(), c.file, c.text);
  Comparison cmp = compareAll(*result, *spec->expected, spec->tolerance);
  EXPECT_TRUE(cmp.equal) << c.file << " " << c.name << ": " << cmp.firstMismatch << "\n  got      "
                         << result->toString() << "\n  expected " << spec->expected->toString();
}

const int kRegistered = conformance::registerOpCaseTests("JitOpTests", runCase);

}  // namespace
}  // namespace hlo
