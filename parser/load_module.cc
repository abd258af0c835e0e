#include "parser/load_module.h"

#include "hlo/file_io.h"
#include "hlo/verifier.h"
#include "parser/parser.h"

namespace hlo {

std::string LoadedModule::locate(const Status& error) const { return formatError(error, shownName, text); }

StatusOr<LoadedModule> loadModule(const std::string& path, Verify verify) {
  LoadedModule loaded;
  loaded.shownName = path == "-" ? "<stdin>" : path;
  std::optional<std::string> text = readInput(path);
  if (!text) return errorStatus(loaded.shownName + ": error: cannot read file\n");
  loaded.text = std::move(*text);
  auto parsed = parseModule(loaded.text);
  if (!parsed.ok()) return errorStatus(loaded.locate(parsed.status()));
  loaded.module = std::move(*parsed);
  if (verify == Verify::kYes)
    if (Status verified = hlo::verify(*loaded.module); !verified.ok()) return errorStatus(loaded.locate(verified));
  return loaded;
}

}  // namespace hlo
