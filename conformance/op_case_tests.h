// GoogleTest registration of the per-op cases (op_cases.h): one test per
// case of testdata/ops/, for any engine. Included by test files only.
#pragma once

#include <gtest/gtest.h>

#include <functional>

#include "conformance/op_cases.h"

namespace hlo::conformance {

// Registers `suite`.<case name> for every case under testdata/ops (relative
// to the working directory, which `make check` sets to the project root),
// each running `run` on its case; returns how many.
inline int registerOpCaseTests(const char* suite, std::function<void(const OpCase&)> run) {
  std::vector<OpCase> cases = loadOpCases("testdata/ops");
  for (const OpCase& c : cases)
    ::testing::RegisterTest(suite, c.name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [c, run]() -> ::testing::Test* {
                              struct T : ::testing::Test {
                                OpCase c;
                                std::function<void(const OpCase&)> run;
                                T(OpCase c, std::function<void(const OpCase&)> run)
                                    : c(std::move(c)), run(std::move(run)) {}
                                void TestBody() override { run(c); }
                              };
                              return new T(c, run);
                            });
  return static_cast<int>(cases.size());
}

}  // namespace hlo::conformance
