// Runs the per-op test files testdata/ops/*.hlo through the interpreter.
//
// A file holds cases separated by `// -----`. Each case is an HLO module with
// comment lines giving its inputs and expected result, worked out by hand or
// from the written semantics:
//   // INPUT: f32[2] {1, 2}          one per ENTRY parameter, in order
//   // EXPECT: f32[2] {2, 4}         the result (tuples as `(f32[] 1, s32[] 2)`)
//   // TOLERANCE: 1e-6               optional: absolute and relative error allowed
//   // ERROR: unsupported            optional instead of EXPECT: the run must fail
//                                    with a message containing this text
// Without TOLERANCE floats must match bit for bit (NaN matches any NaN).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "conformance/compare.h"
#include "interp/evaluator.h"
#include "parser/parser.h"

namespace hlo {
namespace {

struct OpCase {
  std::string file;
  int index;
  std::string text;
};

std::vector<std::string> commentValues(const std::string& text, const std::string& key) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  std::string prefix = "// " + key + ":";
  while (std::getline(in, line)) {
    size_t start = line.find_first_not_of(" \t");
    if (start != std::string::npos && line.compare(start, prefix.size(), prefix) == 0)
      out.push_back(line.substr(start + prefix.size()));
  }
  return out;
}

void runCase(const OpCase& c) {
  auto module = parseModule(c.text);
  ASSERT_TRUE(module.ok()) << formatError(module.status(), c.file, c.text);
  std::vector<Literal> args;
  for (const std::string& input : commentValues(c.text, "INPUT")) {
    auto lit = parseLiteral(input);
    ASSERT_TRUE(lit.ok()) << "bad INPUT '" << input << "': " << lit.status().message();
    args.push_back(std::move(lit).value());
  }
  auto result = interp::evaluate(**module, args);
  std::vector<std::string> errors = commentValues(c.text, "ERROR");
  if (!errors.empty()) {
    ASSERT_FALSE(result.ok()) << "expected an error containing '" << errors[0] << "'";
    EXPECT_NE(result.status().message().find(errors[0].substr(errors[0].find_first_not_of(' '))),
              std::string::npos)
        << result.status().message();
    return;
  }
  ASSERT_TRUE(result.ok()) << formatError(result.status(), c.file, c.text);
  std::vector<std::string> expects = commentValues(c.text, "EXPECT");
  ASSERT_EQ(expects.size(), 1u) << "a case needs exactly one EXPECT (or ERROR)";
  auto expected = parseLiteral(expects[0]);
  ASSERT_TRUE(expected.ok()) << "bad EXPECT: " << expected.status().message();
  Tolerance tol;
  for (const std::string& t : commentValues(c.text, "TOLERANCE")) tol.absolute = tol.relative = std::stod(t);
  Comparison cmp = compareLiterals(*result, *expected, tol);
  EXPECT_TRUE(cmp.equal) << c.file << " case " << c.index << ": " << cmp.firstMismatch
                         << "\n  got      " << result->toString() << "\n  expected "
                         << expected->toString();
}

// Registers one test per case found under testdata/ops (relative to the
// working directory, which `make check` sets to the project root).
int registerOpTests() {
  std::filesystem::path dir = "testdata/ops";
  if (!std::filesystem::is_directory(dir)) return 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".hlo") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int count = 0;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    int index = 0;
    size_t start = 0;
    while (start <= text.size()) {
      size_t sep = text.find("// -----", start);
      std::string piece = text.substr(start, sep == std::string::npos ? std::string::npos : sep - start);
      start = sep == std::string::npos ? text.size() + 1 : text.find('\n', sep) + 1;
      if (start == 0) start = text.size() + 1;
      if (piece.find("ENTRY") == std::string::npos && piece.find('{') == std::string::npos) continue;
      OpCase c{path.string(), index, piece};
      std::string name = path.stem().string() + "_" + std::to_string(index++);
      for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      ::testing::RegisterTest("OpTests", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                              [c]() -> ::testing::Test* {
                                struct T : ::testing::Test {
                                  OpCase c;
                                  explicit T(OpCase c) : c(std::move(c)) {}
                                  void TestBody() override { runCase(c); }
                                };
                                return new T(c);
                              });
      ++count;
    }
  }
  return count;
}

const int kRegistered = registerOpTests();

}  // namespace
}  // namespace hlo
