#include "conformance/op_cases.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "parser/parser.h"

namespace hlo::conformance {
namespace {

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

}  // namespace

std::vector<OpCase> loadOpCases(const std::string& dir) {
  std::vector<OpCase> cases;
  if (!std::filesystem::is_directory(dir)) return cases;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".hlo") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
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
      std::string name = path.stem().string() + "_" + std::to_string(index++);
      for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      cases.push_back({path.string(), name, piece});
    }
  }
  return cases;
}

StatusOr<OpCaseSpec> readOpCase(const OpCase& c) {
  OpCaseSpec spec;
  for (const std::string& input : commentValues(c.text, "INPUT")) {
    auto lit = parseLiteral(input);
    if (!lit.ok()) return errorStatus("bad INPUT '" + input + "': " + lit.status().message());
    spec.args.push_back(std::move(lit).value());
  }
  std::vector<std::string> errors = commentValues(c.text, "ERROR");
  if (!errors.empty()) {
    size_t first = errors[0].find_first_not_of(' ');
    spec.error = first == std::string::npos ? "" : errors[0].substr(first);
    return spec;
  }
  std::vector<std::string> expects = commentValues(c.text, "EXPECT");
  if (expects.size() != 1) return errorStatus("a case needs exactly one EXPECT (or ERROR)");
  auto expected = parseLiteral(expects[0]);
  if (!expected.ok()) return errorStatus("bad EXPECT: " + expected.status().message());
  spec.expected = std::move(expected).value();
  for (const std::string& t : commentValues(c.text, "TOLERANCE")) spec.tolerance.absolute = spec.tolerance.relative = std::stod(t);
  return spec;
}

}  // namespace hlo::conformance
