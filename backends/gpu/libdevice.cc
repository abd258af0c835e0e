// libdevice: looked up from the environment on each use, read lazily, and
// linked function by function into the module that calls it.
#include "backends/gpu/libdevice.h"

#include <cstdlib>
#include <memory>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/Internalize.h>

namespace hlo::gpu {
namespace {

constexpr const char* kRelativePath = "nvvm/libdevice/libdevice.10.bc";
// The toolkit's documented default install location.
constexpr const char* kDefaultToolkit = "/usr/local/cuda";

std::string join(const std::string& a, const std::string& b) {
  llvm::SmallString<256> path(a);
  llvm::sys::path::append(path, b);
  return std::string(path);
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

bool usesLibdevice(const llvm::Module& module) {
  for (const llvm::Function& f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_") && !f.use_empty()) return true;
  return false;
}

StatusOr<std::string> findLibdevice() {
  // An explicit choice is the only one: a wrong path there is a mistake to
  // report, not a reason to pick some other toolkit's copy.
  if (std::string path = environment("HLO_LIBDEVICE"); !path.empty()) {
    if (llvm::sys::fs::is_regular_file(path)) return path;
    return errorStatus("gpu: libdevice not found: HLO_LIBDEVICE=" + path + " is not a file");
  }
  std::vector<std::string> candidates;
  if (std::string home = environment("CUDA_HOME"); !home.empty()) candidates.push_back(join(home, kRelativePath));
  if (auto ptxas = llvm::sys::findProgramByName("ptxas")) {
    // <toolkit>/bin/ptxas -> <toolkit>/nvvm/libdevice/
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(*ptxas, real)) real = *ptxas;
    candidates.push_back(join(std::string(llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))),
                              kRelativePath));
  }
  candidates.push_back(join(kDefaultToolkit, kRelativePath));
  std::string looked;
  for (const std::string& path : candidates) {
    if (llvm::sys::fs::is_regular_file(path)) return path;
    looked += (looked.empty() ? "" : ", ") + path;
  }
  return errorStatus("gpu: libdevice not found (the module calls __nv_* math functions); looked at " + looked +
                     "; set HLO_LIBDEVICE to libdevice.10.bc or CUDA_HOME to the CUDA toolkit");
}

Status linkLibdevice(llvm::Module& module) {
  if (!usesLibdevice(module)) return okStatus();
  HLO_ASSIGN_OR_RETURN(std::string path, findLibdevice());
  // Lazily: the linker then reads only the functions the module needs.
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> libdevice = llvm::getLazyIRFileModule(path, diagnostic, module.getContext());
  if (!libdevice) {
    std::string message;
    llvm::raw_string_ostream os(message);
    diagnostic.print("libdevice", os, /*ShowColors=*/false);
    return errorStatus("gpu: cannot read libdevice " + path + ": " + message);
  }
  // libdevice says nvptx64-nvidia-gpulibs; take ours so the linker has
  // nothing to warn about.
  libdevice->setTargetTriple(module.getTargetTriple());
  libdevice->setDataLayout(module.getDataLayout());
  auto internalizeLinked = [](llvm::Module& linked, const llvm::StringSet<>& fromLibdevice) {
    llvm::internalizeModule(linked, [&](const llvm::GlobalValue& value) {
      return !value.hasName() || !fromLibdevice.contains(value.getName());
    });
  };
  if (llvm::Linker::linkModules(module, std::move(libdevice), llvm::Linker::Flags::LinkOnlyNeeded,
                                internalizeLinked))
    return errorStatus("gpu: cannot link libdevice " + path + " into the module");
  // libdevice asks __nvvm_reflect("__CUDA_FTZ") whether to flush denormals;
  // NVVMReflect answers from this flag. IEEE results, like the interpreter's.
  module.setModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", 0u);
  return okStatus();
}

}  // namespace hlo::gpu
