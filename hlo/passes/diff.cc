// Unified line diff.
//
// Algorithm:
//   1. Split both texts into lines; strip the common prefix and suffix.
//   2. Find a shortest edit script of the middle with Myers' greedy O(ND)
//      search, keeping the furthest-reaching x of each diagonal per step
//      (O(D^2) memory), then backtrack from the end to list equal, deleted
//      and inserted lines. Past a fixed number of differences, the whole
//      middle is reported as replaced instead.
//   3. Group changes whose gap of equal lines is at most 2 * context into
//      hunks and print them in the usual unified format.
#include "hlo/passes/diff.h"

#include <algorithm>
#include <vector>

namespace hlo {
namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = std::min(text.find('\n', pos), text.size());
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

// One line of the edit script: ' ' kept, '-' only in a, '+' only in b.
struct Edit {
  char kind;
  std::string_view line;
};

// The search keeps O(D^2) integers; past this many differences it gives up.
constexpr long kMaxDifferences = 3000;

// Appends the edit script from a to b (Myers, with backtracking).
void myers(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b,
           std::vector<Edit>& out) {
  long n = static_cast<long>(a.size()), m = static_cast<long>(b.size());
  long max = n + m;
  std::vector<long> v(2 * max + 3, 0);  // v[k + max + 1]: furthest x on diagonal k
  auto at = [&](long k) -> long& { return v[k + max + 1]; };
  std::vector<std::vector<int>> trace;  // trace[d][k + d + 1]: v before step d
  long found = -1;
  for (long d = 0; d <= std::min(max, kMaxDifferences) && found < 0; ++d) {
    std::vector<int> window(2 * d + 3);
    for (long k = -d - 1; k <= d + 1; ++k) window[k + d + 1] = static_cast<int>(at(k));
    trace.push_back(std::move(window));
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? at(k + 1) : at(k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      at(k) = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) {  // too different: replace everything
    for (auto line : a) out.push_back({'-', line});
    for (auto line : b) out.push_back({'+', line});
    return;
  }
  std::vector<Edit> reversed;
  long x = n, y = m;
  for (long d = found; d > 0; --d) {
    const std::vector<int>& w = trace[d];
    auto prev = [&](long k) -> long { return w[k + d + 1]; };
    long k = x - y;
    long prevK = (k == -d || (k != d && prev(k - 1) < prev(k + 1))) ? k + 1 : k - 1;
    long prevX = prev(prevK), prevY = prevX - prevK;
    while (x > prevX && y > prevY) reversed.push_back({' ', a[--x]}), --y;
    if (x == prevX) reversed.push_back({'+', b[--y]});
    else reversed.push_back({'-', a[--x]});
  }
  while (x > 0 && y > 0) reversed.push_back({' ', a[--x]}), --y;
  out.insert(out.end(), reversed.rbegin(), reversed.rend());
}

std::string range(long start, long count) {
  // A hunk with no lines on one side names the line before it.
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

}  // namespace

std::string unifiedDiff(std::string_view before, std::string_view after,
                        std::string_view beforeName, std::string_view afterName, int context) {
  std::vector<std::string_view> a = splitLines(before), b = splitLines(after);
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix])
    ++suffix;
  if (prefix == a.size() && prefix == b.size()) return "";

  std::vector<Edit> edits;
  for (size_t i = 0; i < prefix; ++i) edits.push_back({' ', a[i]});
  myers(std::vector<std::string_view>(a.begin() + prefix, a.end() - suffix),
        std::vector<std::string_view>(b.begin() + prefix, b.end() - suffix), edits);
  for (size_t i = a.size() - suffix; i < a.size(); ++i) edits.push_back({' ', a[i]});

  std::string out = "--- " + std::string(beforeName) + "\n+++ " + std::string(afterName) + "\n";
  long count = static_cast<long>(edits.size());
  long aLine = 0, bLine = 0;  // lines of a and b before edits[i]
  long i = 0;
  while (i < count) {
    // Find the next change and the end of its hunk.
    long first = i;
    long aAt = aLine, bAt = bLine;
    while (first < count && edits[first].kind == ' ') ++first, ++aAt, ++bAt;
    if (first == count) break;
    long start = std::max(i, first - context);
    long last = first;  // one past the last change in the hunk
    for (long j = first, gap = 0; j < count; ++j) {
      if (edits[j].kind == ' ') {
        if (++gap > 2 * context) break;
      } else {
        gap = 0;
        last = j + 1;
      }
    }
    long end = std::min(count, last + context);
    long hunkA = aAt - (first - start), hunkB = bAt - (first - start);
    long aCount = 0, bCount = 0;
    for (long j = start; j < end; ++j) {
      aCount += edits[j].kind != '+';
      bCount += edits[j].kind != '-';
    }
    out += "@@ -" + range(hunkA, aCount) + " +" + range(hunkB, bCount) + " @@\n";
    for (long j = start; j < end; ++j) {
      out += edits[j].kind;
      out += edits[j].line;
      out += '\n';
    }
    // Advance the line counters to `end`.
    for (long j = i; j < end; ++j) {
      aLine += edits[j].kind != '+';
      bLine += edits[j].kind != '-';
    }
    i = end;
  }
  return out;
}

}  // namespace hlo
