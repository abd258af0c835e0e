// libFuzzer entry point for the HLO text parser (`make fuzz-parser`).
//
// For any input: parse; if that succeeds, verify; if that succeeds, print,
// parse the print again and check that printing is a fixed point. Nothing
// may crash, leak, hang or trip a sanitizer on the way; a module that
// verifies but does not survive printing is a bug too, so it aborts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "parser/parser.h"

namespace {

int64_t elementsOf(const hlo::Literal& literal) {
  if (literal.elided()) return 0;  // printed as {...}
  if (!literal.shape().isTuple()) return literal.elementCount();
  int64_t n = 0;
  for (const hlo::Literal& e : literal.tupleElements()) n += elementsOf(e);
  return n;
}

int64_t constantElements(const hlo::Module& module) {
  int64_t n = 0;
  for (const auto& c : module.computations())
    for (const auto& i : c->instructions())
      if (i->hasLiteral()) n += elementsOf(i->literal());
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = hlo::parseModule(text);
  if (!module.ok()) {
    // Errors must be printable with their caret, whatever the input.
    std::string message = hlo::formatError(module.status(), "fuzz", text);
    (void)message;
    return 0;
  }
  if (!hlo::verify(**module).ok()) return 0;
  // Printing is linear in the constants' size, but under the sanitizers it
  // costs some 25 us an element, so the corpus's large splats (400K and 5M
  // elements) would outlast the fuzzer's 10 s per input; skip such modules.
  if (constantElements(**module) > (int64_t{1} << 16)) return 0;
  std::string once = hlo::printModule(**module);
  auto again = hlo::parseModule(once);
  if (!again.ok()) {
    std::fprintf(stderr, "printed module does not parse:\n%s\n%s", once.c_str(),
                 hlo::formatError(again.status(), "printed", once).c_str());
    std::abort();
  }
  if (hlo::printModule(**again) != once) {
    std::fprintf(stderr, "printing is not a fixed point for:\n%s", once.c_str());
    std::abort();
  }
  return 0;
}
