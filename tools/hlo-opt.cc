// hlo-opt: parse, verify and print an HLO module in canonical form.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "parser/parser.h"
#include "tools/tool_io.h"

namespace {

constexpr const char* kUsage =
    "usage: hlo-opt [options] FILE.hlo   (FILE may be - for standard input)\n"
    "  -o FILE     write the module to FILE instead of standard output\n"
    "  --help      show this help\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "hlo-opt: %s\n%s", message.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "-o") {
      if (i + 1 >= argc) return usageError("-o needs a file name");
      output = argv[++i];
    } else if (arg.rfind("-o", 0) == 0 && arg.size() > 2) {
      output = arg.substr(2);
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (input.empty() || (arg == "-" && input.empty())) {
      input = arg;
    } else {
      return usageError("more than one input file");
    }
  }
  if (input.empty()) return usageError("no input file");
  std::optional<std::string> text = hlo::readInput(input);
  std::string shownName = input == "-" ? "<stdin>" : input;
  if (!text) {
    std::fprintf(stderr, "%s: error: cannot read file\n", shownName.c_str());
    return 1;
  }
  auto module = hlo::parseModule(*text);
  if (!module.ok()) {
    std::fputs(hlo::formatError(module.status(), shownName, *text).c_str(), stderr);
    return 1;
  }
  hlo::Status verified = hlo::verify(**module);
  if (!verified.ok()) {
    std::fputs(hlo::formatError(verified, shownName, *text).c_str(), stderr);
    return 1;
  }
  std::string printed = hlo::printModule(**module);
  if (output.empty()) {
    std::fwrite(printed.data(), 1, printed.size(), stdout);
    return 0;
  }
  std::ofstream out(output, std::ios::binary);
  out << printed;
  if (!out) {
    std::fprintf(stderr, "%s: error: cannot write file\n", output.c_str());
    return 1;
  }
  return 0;
}
