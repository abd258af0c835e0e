// Runs the per-op test files testdata/ops/*.hlo (conformance/op_cases.h)
// through the CPU JIT (JitOpTests) and through the GPU backend's kernels on
// the host grid runner (GpuHostOpTests), against the same hand-worked
// expectations the interpreter meets: one test per case and backend.
//
// A case whose module the JIT cannot compile yet is reported as skipped,
// with the reason. Float results may differ from the expectation by the
// harness's tolerance for their type (vectorized and library code need not
// round exactly as the written semantics do); integers and pred are exact.
// An ERROR case passes when the JIT refuses the module or the run fails.
// Modules with runtime sizes compile when a run binds their sizes
// (jit/specialize_sizes.h), so their refusals come from run().
#include <gtest/gtest.h>

#include "backends/cpu/cpu_options.h"
#include "conformance/op_case_tests.h"
#include "jit/executable.h"
#include "parser/parser.h"

namespace hlo {
namespace {

void runCase(const conformance::OpCase& c, const char* backend) {
  auto module = parseModule(c.text);
  ASSERT_TRUE(module.ok()) << formatError(module.status(), c.file, c.text);
  auto spec = conformance::readOpCase(c);
  ASSERT_TRUE(spec.ok()) << c.file << ": " << spec.status().message();
  jit::CompileOptions options;
  // gpu-host runs on the CPU backend's runtime, with its options.
  auto exe = jit::compile(**module, backend, cpu::withCpuOptions(options, cpu::cpuThreads(1)));
  if (!exe.ok() && exe.status().message().find("cannot compile") != std::string::npos) {
    if (spec->error) return;  // refused, as it should be
    GTEST_SKIP() << exe.status().message();
  }
  StatusOr<Literal> result = exe.ok() ? (*exe)->run(spec->args) : StatusOr<Literal>(exe.status());
  if (!spec->error && !result.ok() && result.status().message().find("cannot compile") != std::string::npos)
    GTEST_SKIP() << result.status().message();
  if (spec->error) {
    EXPECT_FALSE(result.ok()) << "expected an error like '" << *spec->error << "', got " << result->toString();
    return;
  }
  ASSERT_TRUE(result.ok()) << formatError(result.status(), c.file, c.text);
  Comparison cmp = compareWithTypeTolerances(*result, *spec->expected, spec->tolerance);
  EXPECT_TRUE(cmp.equal) << c.file << " " << c.name << ": " << cmp.firstMismatch << "\n  got      "
                         << result->toString() << "\n  expected " << spec->expected->toString();
}

const int kRegistered = conformance::registerOpCaseTests("JitOpTests", [](const conformance::OpCase& c) { runCase(c, "cpu"); });
const int kRegisteredGpuHost =
    conformance::registerOpCaseTests("GpuHostOpTests", [](const conformance::OpCase& c) { runCase(c, "gpu-host"); });

}  // namespace
}  // namespace hlo
