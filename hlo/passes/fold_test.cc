// Tests for the fold pass's evaluator hook: no evaluator, no folding; with
// the interpreter's, values are bit for bit what evaluation gives.
#include "hlo/passes/fold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "hlo/passes/pass.h"
#include "hlo/printer.h"
#include "interp/evaluator.h"
#include "parser/parser.h"

namespace hlo {
namespace {

constexpr const char* kModule = R"(
HloModule m

ENTRY %main () -> f32[2] {
  %a = f32[2] constant({-0, 1})
  %b = f32[2] constant({-0, 2})
  ROOT %sum = f32[2] add(%a, %b)
}
)";

std::unique_ptr<Module> parse(const char* text) {
  auto module = parseModule(text);
  EXPECT_TRUE(module.ok()) << module.status().message();
  return std::move(*module);
}

TEST(FoldTest, DoesNothingWithoutAnEvaluator) {
  auto module = parse(kModule);
  std::string before = printModule(*module);
  EXPECT_FALSE(runFold(*module));
  EXPECT_EQ(printModule(*module), before);
}

TEST(FoldTest, APipelineWithFoldNeedsAnEvaluator) {
  auto module = parse(kModule);
  Status refused = runPipeline(*module, {"simplify", "fold"});
  EXPECT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("pass 'fold' needs a constant evaluator"), std::string::npos) << refused.message();
  PipelineOptions options;
  options.constantEvaluator = interp::constantEvaluator();
  EXPECT_TRUE(runPipeline(*module, {"simplify", "fold"}, options).ok());
  EXPECT_EQ(module->entry()->root()->opcode(), Opcode::kConstant);
}

TEST(FoldTest, FoldsWithTheInterpreter) {
  ConstantEvaluatorScope scope(interp::constantEvaluator());
  auto module = parse(kModule);
  EXPECT_TRUE(runFold(*module));
  const Instruction* root = module->entry()->root();
  ASSERT_EQ(root->opcode(), Opcode::kConstant);
  EXPECT_EQ(root->name(), "sum");
  // -0 + -0 is -0 (sign bit set), 1 + 2 is 3.
  const float* values = root->literal().data<float>();
  EXPECT_TRUE(values[0] == 0 && std::signbit(values[0]));
  EXPECT_EQ(values[1], 3.0f);
  EXPECT_FALSE(runFold(*module));  // a fixed point after one run
}

TEST(FoldTest, CallsTheInstalledEvaluatorOnConstantsOnly) {
  int calls = 0;
  ConstantEvaluatorScope scope(
      [&](const Instruction& instr, std::span<const Literal* const> operands) -> StatusOr<Literal> {
        ++calls;
        EXPECT_EQ(static_cast<int>(operands.size()), instr.operandCount());
        return errorStatus("declined");
      });
  auto module = parse(R"(
HloModule m

ENTRY %main (x: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %c = f32[] constant(1)
  %y = f32[] add(%c, %c)
  ROOT %z = f32[] add(%x, %y)
}
)");
  std::string before = printModule(*module);
  EXPECT_FALSE(runFold(*module));  // the evaluator declined %y; %z reads a parameter
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(printModule(*module), before);
}

}  // namespace
}  // namespace hlo
