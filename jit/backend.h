// The seam between the JIT driver and its backends.
//
// A backend (backends/cpu, backends/gpu, ...) registers itself under a name
// with a BackendRegistration object; the driver (jit/compile.cc) runs the
// pass pipeline the backend names on a copy of the module, then hands the
// result to the backend's compile(). jit/ never includes a backend: the
// programs that run the JIT link the backends' libraries whole (see the
// Makefile), so their registrations run before main.
//
// This header is free of LLVM, like jit/executable.h.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/module.h"
#include "hlo/status.h"
#include "jit/executable.h"

namespace hlo::jit {

class Backend {
 public:
  virtual ~Backend() = default;
  // The name hlo-run's --engine= and compile() take ("cpu", "gpu", ...).
  virtual std::string_view name() const = 0;
  // The pass pipeline it compiles after, by its name in hlo/passes/pass.h's
  // table (hlo-opt --pipeline= shows the same one).
  virtual std::string_view pipeline() const = 0;
  // Compiles a module the pipeline has run on. `options.backendOptions`, when
  // set, are of this backend's own type (backendOptionsFor).
  virtual StatusOr<std::unique_ptr<Executable>> compile(std::unique_ptr<Module> optimized,
                                                        const CompileOptions& options) const = 0;
};

// Adds `backend` to the registry; a second backend of the same name is a
// programming error and aborts.
void registerBackend(std::unique_ptr<Backend> backend);
// The backend registered under `name`, or null.
const Backend* findBackend(std::string_view name);
// The registered names, sorted.
std::vector<std::string> backendNames();

// A namespace-scope object of this type registers a backend at start-up:
//   static jit::BackendRegistration registration(std::make_unique<CpuBackend>());
struct BackendRegistration {
  explicit BackendRegistration(std::unique_ptr<Backend> backend) { registerBackend(std::move(backend)); }
};

// The options of type T a backend reads from `options` (set by
// withBackendOptions, jit/executable.h): T's defaults when none are set, an
// error when options meant for another backend are.
template <typename T>
StatusOr<T> backendOptionsFor(const CompileOptions& options) {
  if (!options.backendOptions) return T{};
  if (const auto* own = dynamic_cast<const BackendOptionsOf<T>*>(options.backendOptions.get())) return own->value;
  return errorStatus("jit: options for the " + std::string(options.backendOptions->backend()) +
                     " backend given to the " + std::string(T::kBackend) + " backend");
}

}  // namespace hlo::jit
