// The backend registry (jit/backend.h).
#include "jit/backend.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace hlo::jit {
namespace {

// Function-local statics: registrations run while other translation units
// are still being initialized.
std::vector<std::unique_ptr<Backend>>& registry() {
  static std::vector<std::unique_ptr<Backend>> backends;
  return backends;
}

std::mutex& registryMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

void registerBackend(std::unique_ptr<Backend> backend) {
  std::lock_guard<std::mutex> lock(registryMutex());
  for (const auto& b : registry())
    if (b->name() == backend->name()) {
      std::fprintf(stderr, "jit: two backends registered as '%.*s'\n", static_cast<int>(b->name().size()),
                   b->name().data());
      std::abort();
    }
  registry().push_back(std::move(backend));
}

const Backend* findBackend(std::string_view name) {
  std::lock_guard<std::mutex> lock(registryMutex());
  for (const auto& b : registry())
    if (b->name() == name) return b.get();
  return nullptr;
}

std::vector<std::string> backendNames() {
  std::lock_guard<std::mutex> lock(registryMutex());
  std::vector<std::string> names;
  for (const auto& b : registry()) names.emplace_back(b->name());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace hlo::jit
