// A module as every program reads one: from a file or standard input ("-"),
// parsed, and (unless asked not to) verified. The text is kept, so errors
// found later (compiling, running) can be shown at their source line too.
#pragma once

#include <memory>
#include <string>

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo {

struct LoadedModule {
  std::string shownName;  // the path, or "<stdin>"
  std::string text;
  std::unique_ptr<Module> module;

  // `shownName:line:col: error: message`, the source line and a caret
  // (formatError, parser.h), for an error located in `text`.
  std::string locate(const Status& error) const;
};

enum class Verify { kYes, kNo };

// On failure the message is what to print, newline included: "FILE: error:
// cannot read file", or the parse or verifier error located in the text.
StatusOr<LoadedModule> loadModule(const std::string& path, Verify verify = Verify::kYes);

}  // namespace hlo
