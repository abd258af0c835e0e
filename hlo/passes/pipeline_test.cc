// Tests for the pass registry and the pipeline driver.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "hlo/passes/pass.h"
#include "hlo/printer.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr const char* kModule = R"(
HloModule m

ENTRY %main (x: s32[4]) -> s32[4] {
  %x = s32[4] parameter(0)
  %zero = s32[4] constant({0, 0, 0, 0})
  %dead = s32[4] negate(%x)
  ROOT %sum = s32[4] add(%x, %zero)
}
)";

std::unique_ptr<Module> parse(const char* text) {
  auto module = parseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return std::move(*module);
}

TEST(PassRegistryTest, NamesAreUniqueSortedAndDocumented) {
  std::string previous;
  for (const PassInfo& p : registeredPasses()) {
    EXPECT_LT(previous, std::string(p.name)) << "registry not sorted at " << p.name;
    EXPECT_FALSE(p.help.empty()) << p.name;
    EXPECT_NE(p.run, nullptr) << p.name;
    EXPECT_EQ(findPass(p.name), &p);
    previous = std::string(p.name);
  }
  EXPECT_EQ(findPass("no-such-pass"), nullptr);
}

TEST(PassRegistryTest, PipelinesNameOnlyRegisteredPasses) {
  for (const char* target : {"cpu", "gpu"}) {
    auto passes = pipelineFor(target);
    ASSERT_TRUE(passes.has_value()) << target;
    EXPECT_FALSE(passes->empty());
    for (const std::string& name : *passes) EXPECT_NE(findPass(name), nullptr) << name;
  }
  EXPECT_FALSE(pipelineFor("tpu").has_value());
}

TEST(PipelineTest, ReportsEachPassInOrder) {
  auto module = parse(kModule);
  std::vector<std::string> seen;
  PipelineOptions options;
  options.verifyEach = true;
  options.afterPass = [&](const PassEvent& e) {
    seen.push_back(std::to_string(e.index) + ":" + std::string(e.pass) + ":" +
                   (e.changed ? "changed" : "same"));
    return okStatus();
  };
  Status s = runPipeline(*module, {"cse", "simplify", "dce", "dce"}, options);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(seen, (std::vector<std::string>{"1:cse:same", "2:simplify:changed", "3:dce:changed",
                                            "4:dce:same"}));
  EXPECT_EQ(module->entry()->instructionCount(), 1);
  EXPECT_EQ(module->entry()->root()->name(), "x");
}

TEST(PipelineTest, UnknownPassFailsBeforeAnyPassRuns) {
  auto module = parse(kModule);
  std::string before = printModule(*module);
  int calls = 0;
  PipelineOptions options;
  options.afterPass = [&](const PassEvent&) {
    ++calls;
    return okStatus();
  };
  Status s = runPipeline(*module, {"simplify", "bogus"}, options);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "unknown pass 'bogus' (see --list-passes)");
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(printModule(*module), before);
}

TEST(PipelineTest, CallbackErrorStopsThePipeline) {
  auto module = parse(kModule);
  std::vector<std::string> seen;
  PipelineOptions options;
  options.afterPass = [&](const PassEvent& e) {
    seen.emplace_back(e.pass);
    return e.pass == "simplify" ? errorStatus("stop") : okStatus();
  };
  Status s = runPipeline(*module, {"cse", "simplify", "dce"}, options);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "stop");
  EXPECT_EQ(seen, (std::vector<std::string>{"cse", "simplify"}));
}

TEST(PipelineTest, EmptyPipelineDoesNothing) {
  auto module = parse(kModule);
  std::string before = printModule(*module);
  EXPECT_TRUE(runPipeline(*module, {}).ok());
  EXPECT_EQ(printModule(*module), before);
}

// A pass given as it is, not registered: it runs among registered ones, its
// own name is reported, and a verifier failure it causes names it.
TEST(PipelineTest, RunsPassesNotInTheRegistry) {
  auto module = parse(kModule);
  const PassFn breakRoot = [](Module& m) {
    Computation& entry = *m.entry();
    entry.add(Opcode::kNegate, "bad", Shape(ElementType::kF32, {4}), {entry.parameters()[0]});  // s32 operand
    return true;
  };
  const PassInfo passes[] = {*findPass("dce"), {"break-root", breakRoot, "an f32 negate of an s32 value"}};
  std::vector<std::string> seen;
  PipelineOptions options;
  options.verifyEach = true;
  options.afterPass = [&](const PassEvent& e) {
    seen.emplace_back(e.pass);
    return okStatus();
  };
  Status s = runPasses(*module, passes, options);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("after pass 'break-root': the module does not verify: ", 0), 0u) << s.message();
  EXPECT_EQ(seen, (std::vector<std::string>{"dce"}));
}

TEST(PipelineTest, GivenPassNeedingAnEvaluatorIsRefusedBeforeAnyRuns) {
  auto module = parse(kModule);
  const std::string before = printModule(*module);
  const PassInfo passes[] = {*findPass("dce"), *findPass("fold")};
  Status s = runPasses(*module, passes);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("pass 'fold' needs a constant evaluator", 0), 0u) << s.message();
  EXPECT_EQ(printModule(*module), before);  // dce did not run: %dead is still there
}

}  // namespace
}  // namespace hlo
