#include <cstdarg>
#include <cstdio>

#include "jit/executable.h"

namespace hlo::jit {

void report(const CompileOptions& options, const std::string& line) {
  if (options.report)
    options.report(line);
  else
    std::fprintf(stderr, "%s\n", line.c_str());
}

std::string formatted(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  int n = std::vsnprintf(nullptr, 0, format, args);
  va_end(args);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, again);
  va_end(again);
  return out;
}

}  // namespace hlo::jit
