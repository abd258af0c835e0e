// Tests for the unified line diff; expected outputs written by hand.
#include "hlo/passes/diff.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace hlo {
namespace {

std::string lines(int from, int to) {  // "from\n...to\n"
  std::string s;
  for (int i = from; i <= to; ++i) s += std::to_string(i) + "\n";
  return s;
}

TEST(DiffTest, EqualTextsGiveNothing) {
  EXPECT_EQ(unifiedDiff("a\nb\n", "a\nb\n", "x", "y"), "");
  EXPECT_EQ(unifiedDiff("", "", "x", "y"), "");
}

TEST(DiffTest, OneChangedLineWithContext) {
  EXPECT_EQ(unifiedDiff("a\nb\nc\n", "a\nB\nc\n", "before", "after"),
            "--- before\n+++ after\n"
            "@@ -1,3 +1,3 @@\n"
            " a\n-b\n+B\n c\n");
}

TEST(DiffTest, InsertionIntoEmpty) {
  EXPECT_EQ(unifiedDiff("", "a\nb\n", "x", "y"), "--- x\n+++ y\n@@ -0,0 +1,2 @@\n+a\n+b\n");
}

TEST(DiffTest, DeletionOfEverything) {
  EXPECT_EQ(unifiedDiff("a\nb\n", "", "x", "y"), "--- x\n+++ y\n@@ -1,2 +0,0 @@\n-a\n-b\n");
}

TEST(DiffTest, ContextIsLimitedToThreeLines) {
  // 1..10, line 5 removed: context 2,3,4 before and 6,7,8 after.
  std::string before = lines(1, 10);
  std::string after = lines(1, 4) + lines(6, 10);
  EXPECT_EQ(unifiedDiff(before, after, "x", "y"),
            "--- x\n+++ y\n@@ -2,7 +2,6 @@\n 2\n 3\n 4\n-5\n 6\n 7\n 8\n");
}

TEST(DiffTest, DistantChangesMakeTwoHunks) {
  // 1..20 with 2 and 19 replaced: gaps larger than 2 * 3 lines split hunks.
  std::string before = lines(1, 20);
  std::string after = "1\nTWO\n" + lines(3, 18) + "NINETEEN\n20\n";
  EXPECT_EQ(unifiedDiff(before, after, "x", "y"),
            "--- x\n+++ y\n"
            "@@ -1,5 +1,5 @@\n 1\n-2\n+TWO\n 3\n 4\n 5\n"
            "@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+NINETEEN\n 20\n");
}

TEST(DiffTest, NearbyChangesShareAHunk) {
  // Changes at lines 2 and 7: the gap of four equal lines is within 2 * 3.
  std::string before = lines(1, 8);
  std::string after = "1\nb\n3\n4\n5\n6\ng\n8\n";
  EXPECT_EQ(unifiedDiff(before, after, "x", "y"),
            "--- x\n+++ y\n@@ -1,8 +1,8 @@\n 1\n-2\n+b\n 3\n 4\n 5\n 6\n-7\n+g\n 8\n");
}

TEST(DiffTest, ShortestEditKeepsCommonLines) {
  // a b c a b b a -> c b a b a c (the example of Myers' paper): 5 edits.
  std::string diff = unifiedDiff("a\nb\nc\na\nb\nb\na\n", "c\nb\na\nb\na\nc\n", "x", "y", 0);
  int edits = 0;
  for (size_t i = 0; i < diff.size(); ++i)
    if ((i == 0 || diff[i - 1] == '\n') && (diff[i] == '+' || diff[i] == '-') &&
        diff.compare(i, 4, "--- ") != 0 && diff.compare(i, 4, "+++ ") != 0)
      ++edits;
  EXPECT_EQ(edits, 5);
}

TEST(DiffTest, ZeroContext) {
  EXPECT_EQ(unifiedDiff("a\nb\nc\n", "a\nc\n", "x", "y", 0), "--- x\n+++ y\n@@ -2,1 +1,0 @@\n-b\n");
}

TEST(DiffTest, LastLineWithoutNewline) {
  EXPECT_EQ(unifiedDiff("a\nb", "a\nc", "x", "y"), "--- x\n+++ y\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
}

// Applies a unified diff to `before`; checks the context and deleted lines.
std::string applyDiff(const std::string& before, const std::string& diff) {
  std::vector<std::string> a;
  std::stringstream in(before);
  for (std::string line; std::getline(in, line);) a.push_back(line);
  std::vector<std::string> out;
  size_t next = 0;  // first line of a not yet copied
  std::stringstream d(diff);
  std::string line;
  std::getline(d, line);  // ---
  std::getline(d, line);  // +++
  while (std::getline(d, line)) {
    if (line.rfind("@@ -", 0) == 0) {
      long start = std::stol(line.substr(4));
      long count = std::stol(line.substr(line.find(',') + 1));
      size_t first = count == 0 ? start : start - 1;  // 0-based first line of the hunk
      while (next < first) out.push_back(a[next++]);
      continue;
    }
    std::string text = line.substr(1);
    if (line[0] == '+') {
      out.push_back(text);
      continue;
    }
    EXPECT_LT(next, a.size());
    if (next >= a.size()) return "";
    EXPECT_EQ(a[next], text) << "context or deleted line differs";
    if (line[0] == ' ') out.push_back(text);
    ++next;
  }
  while (next < a.size()) out.push_back(a[next++]);
  std::string result;
  for (const std::string& l : out) result += l + "\n";
  return result;
}

// Fewest insertions plus deletions, from the longest common subsequence.
int minimumEdits(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::vector<int>> lcs(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j)
      lcs[i][j] = a[i - 1] == b[j - 1] ? lcs[i - 1][j - 1] + 1 : std::max(lcs[i - 1][j], lcs[i][j - 1]);
  return static_cast<int>(a.size() + b.size()) - 2 * lcs[a.size()][b.size()];
}

TEST(DiffTest, RandomDiffsApplyAndAreShortest) {
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    auto randomLines = [&] {
      std::vector<std::string> v(rng() % 12);
      for (std::string& l : v) l = std::string(1, static_cast<char>('a' + rng() % 4));
      return v;
    };
    std::vector<std::string> a = randomLines(), b = randomLines();
    std::string before, after;
    for (const auto& l : a) before += l + "\n";
    for (const auto& l : b) after += l + "\n";
    int context = static_cast<int>(rng() % 4);
    std::string diff = unifiedDiff(before, after, "x", "y", context);
    EXPECT_EQ(applyDiff(before, diff), after) << diff;
    int edits = 0;
    std::stringstream d(diff);
    std::string line;
    for (int n = 0; std::getline(d, line); ++n)
      if (n >= 2 && (line[0] == '+' || line[0] == '-')) ++edits;
    EXPECT_EQ(edits, minimumEdits(a, b)) << diff;
  }
}

}  // namespace
}  // namespace hlo
