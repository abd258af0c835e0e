// The CPU backend's entry in the JIT's registry (jit/backend.h): the "cpu"
// pass pipeline, then cpu_compiler.cc.
#include "backends/cpu/program.h"
#include "jit/backend.h"

namespace hlo::cpu {
namespace {

class CpuBackend final : public jit::Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view pipeline() const override { return "cpu"; }
  StatusOr<std::unique_ptr<jit::Executable>> compile(std::unique_ptr<Module> optimized,
                                                     const jit::CompileOptions& options) const override {
    return compileModule(std::move(optimized), options);
  }
};

const jit::BackendRegistration registration(std::make_unique<CpuBackend>());

}  // namespace
}  // namespace hlo::cpu
