// A module read back from its bytes must print exactly as the original
// (over testdata/ and a sample of the XLA corpus), and damaged bytes must
// give an error, never a crash.
#include "hlo/module_binary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "hlo/file_io.h"
#include "hlo/printer.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// Round-trips the modules that parse under `dir` (at most `limit`, in
// name order); returns how many.
int checkFolder(const std::filesystem::path& dir, int limit) {
  if (!std::filesystem::is_directory(dir)) return 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.path().extension() == ".hlo") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int compared = 0;
  for (const auto& path : files) {
    if (compared >= limit) break;
    auto module = parseModule(readInput(path.string()).value_or(""));
    if (!module.ok()) continue;
    StatusOr<std::unique_ptr<Module>> back = readModuleBinary(writeModuleBinary(**module));
    EXPECT_TRUE(back.ok()) << path << ": " << back.status().message();
    if (back.ok()) EXPECT_EQ(printModule(**back), printModule(**module)) << path;
    ++compared;
  }
  return compared;
}

TEST(ModuleBinaryTest, PrintsAsTheOriginal) { EXPECT_GT(checkFolder("testdata", 5000), 50); }

TEST(ModuleBinaryTest, PrintsAsTheOriginalOverTheCorpus) {
  std::filesystem::path corpus = "../shared/corpus/xla/visible";
  if (!std::filesystem::is_directory(corpus)) GTEST_SKIP() << "no corpus at " << corpus;
  EXPECT_GT(checkFolder(corpus, 1500), 1000);
}

constexpr const char* kModule = R"(HloModule m, entry_computation_layout={(f32[4]{0}, s32[])->f32[]}
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (x: f32[4], k: s32[]) -> f32[] {
  %x = f32[4]{0} parameter(0)
  %k = s32[] parameter(1)
  %c = f32[4]{0} constant({1, 2.5, -3, 4})
  %m = f32[4]{0} multiply(%x, %c)
  %z = f32[] constant(0)
  %d = f32[2]{0} dynamic-slice(%m, %k), dynamic_slice_sizes={2}
  ROOT %r = f32[] reduce(%d, %z), dimensions={0}, to_apply=%add
}
)";

TEST(ModuleBinaryTest, KeepsConstantsAttributesAndCallees) {
  auto module = parseModule(kModule);
  ASSERT_TRUE(module.ok()) << module.status().message();
  StatusOr<std::unique_ptr<Module>> back = readModuleBinary(writeModuleBinary(**module));
  ASSERT_TRUE(back.ok()) << back.status().message();
  const Computation* entry = (*back)->entry();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name(), "e");
  const Instruction* reduce = entry->root();
  EXPECT_EQ(reduce->opcode(), Opcode::kReduce);
  // The callee is the module's own computation, not a copy.
  EXPECT_EQ(reduce->attrs().getComputation(AttrKey::kToApply), (*back)->find("add"));
  const Instruction* c = entry->find("c");
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->hasLiteral());
  EXPECT_EQ(c->literal().data<float>()[1], 2.5f);
  EXPECT_EQ(entry->find("d")->attrs().getInts(AttrKey::kDynamicSliceSizes), std::vector<int64_t>{2});
  EXPECT_EQ(entry->parameterCount(), 2);
  EXPECT_EQ(printModule(**back), printModule(**module));
}

TEST(ModuleBinaryTest, RefusesEveryTruncationAndOtherBytes) {
  auto module = parseModule(kModule);
  ASSERT_TRUE(module.ok());
  std::string bytes = writeModuleBinary(**module);
  for (size_t n = 0; n < bytes.size(); ++n) {
    StatusOr<std::unique_ptr<Module>> back = readModuleBinary(std::string_view(bytes).substr(0, n));
    EXPECT_FALSE(back.ok()) << "truncated to " << n << " bytes";
  }
  EXPECT_FALSE(readModuleBinary(bytes + "x").ok());
  StatusOr<std::unique_ptr<Module>> text = readModuleBinary(kModule);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not a module image"), std::string::npos);
}

TEST(ModuleBinaryTest, DamagedBytesGiveErrorsNotCrashes) {
  auto module = parseModule(kModule);
  ASSERT_TRUE(module.ok());
  const std::string bytes = writeModuleBinary(**module);
  // Every byte in turn set to 0xff (huge counts, unknown names, out-of-range
  // positions): each read either fails or gives a module; none crashes.
  for (size_t at = 16; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(0xff);
    (void)readModuleBinary(damaged);
  }
}

}  // namespace
}  // namespace hlo
