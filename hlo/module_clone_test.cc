// Module::clone must print exactly as the original: over the modules of
// testdata/ (those that parse alone) and a sample of the XLA corpus.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hlo/printer.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Clones every module that parses under `dir` (at most `limit` files) and
// compares the printed texts; returns how many were compared.
int checkFolder(const std::filesystem::path& dir, int limit) {
  if (!std::filesystem::is_directory(dir)) return 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.path().extension() == ".hlo") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int compared = 0;
  for (const auto& path : files) {
    if (compared >= limit) break;
    auto module = parseModule(readFile(path));
    if (!module.ok()) continue;
    std::unique_ptr<Module> copy = (*module)->clone();
    EXPECT_EQ(printModule(*copy), printModule(**module)) << path;
    ++compared;
  }
  return compared;
}

TEST(ModuleCloneTest, PrintsAsTheOriginal) {
  int compared = checkFolder("testdata", 5000);
  EXPECT_GT(compared, 50);
}

TEST(ModuleCloneTest, PrintsAsTheOriginalOverTheCorpus) {
  std::filesystem::path corpus = "../shared/corpus/xla/visible";
  if (!std::filesystem::is_directory(corpus)) GTEST_SKIP() << "no corpus at " << corpus;
  EXPECT_GT(checkFolder(corpus, 1500), 1000);
}

TEST(ModuleCloneTest, IsIndependentOfTheOriginal) {
  auto module = parseModule(R"(HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (x: f32[4]) -> f32[] {
  %x = f32[4] parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, to_apply=%add
})");
  ASSERT_TRUE(module.ok());
  std::unique_ptr<Module> copy = (*module)->clone();
  // The reduce of the copy calls the copy's %add, not the original's.
  const Instruction* reduce = copy->entry()->root();
  EXPECT_EQ(reduce->attrs().getComputation(AttrKey::kToApply), copy->find("add"));
  EXPECT_NE(reduce->attrs().getComputation(AttrKey::kToApply), (*module)->find("add"));
  EXPECT_EQ(copy->entry()->parameter(0)->users().size(), 1u);
  copy->entry()->setName("renamed");
  EXPECT_EQ((*module)->entry()->name(), "e");
}

}  // namespace
}  // namespace hlo
