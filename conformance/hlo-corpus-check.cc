// hlo-corpus-check: parses, verifies and round-trips every module of the XLA
// corpus and compares each outcome with the checked-in expectations.
//
// Expected outcome per module, unless the expectations file says otherwise:
//   visible/, expect_error empty   -> ok         (parses, verifies, printing is a fixed point)
//   visible/, expect_error=other   -> rejected   (the verifier catches it)
//   negative_parse/                -> rejected   (with a located error)
// The expectations file lists the exceptions, one per line:
//   <file> <TAB> <outcome> <TAB> <reason>
// where outcome is ok, rejected, parse-error, verify-error or not-fixed-point.
// Any module whose outcome differs from its expectation fails, so a change of
// status in either direction is noticed. --update rewrites the file.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

namespace {

struct Outcome {
  std::string status;  // ok, rejected, parse-error, verify-error, not-fixed-point
  std::string detail;  // the first line of the error
};

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// Runs one module through parse -> verify -> print -> parse -> print.
Outcome check(const std::string& text, bool expectRejection) {
  auto module = hlo::parseModule(text);
  if (!module.ok()) {
    if (expectRejection && module.status().loc().known()) return {"rejected", module.status().message()};
    return {"parse-error", firstLine(hlo::formatError(module.status(), "", text))};
  }
  hlo::Status verified = hlo::verify(**module);
  if (!verified.ok()) {
    if (expectRejection && verified.loc().known()) return {"rejected", verified.message()};
    return {"verify-error", firstLine(hlo::formatError(verified, "", text))};
  }
  std::string once = hlo::printModule(**module);
  auto again = hlo::parseModule(once);
  if (!again.ok())
    return {"not-fixed-point", "printed form does not parse: " + again.status().message()};
  std::string twice = hlo::printModule(**again);
  if (once != twice) return {"not-fixed-point", "printing the reparsed module differs"};
  return {"ok", ""};
}

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, '\t')) out.push_back(field);
  if (!line.empty() && line.back() == '\t') out.push_back("");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus, expectationsPath;
  bool update = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--corpus=", 0) == 0) corpus = arg.substr(9);
    else if (arg.rfind("--expectations=", 0) == 0) expectationsPath = arg.substr(15);
    else if (arg == "--update") update = true;
    else {
      std::fprintf(stderr, "usage: hlo-corpus-check --corpus=DIR [--expectations=FILE] [--update]\n");
      return 2;
    }
  }
  // Accept either the corpus root or its xla/ folder.
  std::string root = corpus + "/xla";
  if (!hlo::readInput(root + "/MANIFEST.tsv")) root = corpus;
  std::optional<std::string> manifest = hlo::readInput(root + "/MANIFEST.tsv");
  if (!manifest) {
    std::printf("corpus not found at %s: corpus checks skipped\ncorpus: 0 passed, 0 failed, 1 skipped\n",
                corpus.c_str());
    return 0;
  }
  std::map<std::string, std::pair<std::string, std::string>> expected;  // file -> outcome, reason
  if (!expectationsPath.empty()) {
    std::ifstream in(expectationsPath);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto f = splitTabs(line);
      if (f.size() >= 2) expected[f[0]] = {f[1], f.size() > 2 ? f[2] : ""};
    }
  }

  std::stringstream rows(*manifest);
  std::string line;
  std::getline(rows, line);  // header
  int passed = 0, failed = 0, total = 0;
  int parsed = 0, verified = 0, roundTripped = 0, accepted = 0, negatives = 0, negativesRejected = 0;
  size_t bytes = 0;
  std::vector<std::string> newExpectations;
  auto start = std::chrono::steady_clock::now();
  while (std::getline(rows, line)) {
    auto f = splitTabs(line);
    if (f.size() < 9) continue;
    const std::string& file = f[0];
    const std::string& expectError = f[8];
    bool negative = file.rfind("negative_parse/", 0) == 0;
    std::optional<std::string> text = hlo::readInput(root + "/" + file);
    if (!text) {
      std::printf("FAIL %s: cannot read\n", file.c_str());
      ++failed;
      continue;
    }
    ++total;
    bytes += text->size();
    bool expectRejection = negative || !expectError.empty();
    Outcome got = check(*text, expectRejection);
    if (!negative && expectError.empty()) {
      accepted += got.status == "ok";
      parsed += got.status != "parse-error";
      verified += got.status == "ok" || got.status == "not-fixed-point";
      roundTripped += got.status == "ok";
    }
    if (negative) {
      ++negatives;
      negativesRejected += got.status == "rejected";
    }
    std::string want = expectRejection ? "rejected" : "ok";
    std::string reason;
    auto it = expected.find(file);
    if (it != expected.end()) {
      want = it->second.first;
      reason = it->second.second;
    }
    if (got.status != (expectRejection ? "rejected" : "ok")) {
      std::string why = got.status == want && !reason.empty() ? reason : got.detail;
      if (why.empty()) why = "accepted: the test expects an error from a later stage, not from parsing or verification";
      newExpectations.push_back(file + "\t" + got.status + "\t" + why);
    }
    if (got.status == want) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s: expected %s, got %s%s%s\n", file.c_str(), want.c_str(),
                  got.status.c_str(), got.detail.empty() ? "" : ": ", got.detail.c_str());
    }
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (update && !expectationsPath.empty()) {
    std::ofstream out(expectationsPath);
    out << "# Corpus modules whose outcome differs from the default (see conformance/hlo-corpus-check.cc).\n"
           "# file\toutcome\treason\n";
    for (const std::string& e : newExpectations) out << e << "\n";
  }
  int valid = total - negatives;
  std::printf("corpus modules: %d (%d valid-or-other, %d negative)\n", total, valid, negatives);
  std::printf("  accepted modules: parsed %d, verified %d, round-tripped %d\n", parsed, verified,
              roundTripped);
  std::printf("  negative modules rejected with a location: %d of %d\n", negativesRejected, negatives);
  std::printf("  %.1f MB in %.2f s (parse + verify + print twice)\n", bytes / 1e6, seconds);
  (void)accepted;
  std::printf("corpus: %d passed, %d failed, 0 skipped\n", passed, failed);
  return failed ? 1 : 0;
}
