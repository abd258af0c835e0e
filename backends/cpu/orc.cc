// ORC LLJIT set up for the host, with the C library's symbols (expf, fmod,
// ...) resolved from this process.
#include "backends/cpu/orc.h"

#include <mutex>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Function.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>

namespace hlo::cpu {
namespace {

Status llvmError(const std::string& what, llvm::Error e) {
  return errorStatus("cpu: " + what + ": " + llvm::toString(std::move(e)));
}

}  // namespace

StatusOr<std::unique_ptr<OrcJit>> OrcJit::create() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder) return llvmError("cannot describe the host CPU", builder.takeError());
  // The host's own CPU and features, so the vectorizer uses all of them.
  builder->setCPU(llvm::sys::getHostCPUName().str());
  llvm::SubtargetFeatures features;
  for (const auto& [name, enabled] : llvm::sys::getHostCPUFeatures()) features.AddFeature(name, enabled);
  builder->getFeatures() = features;
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto machine = builder->createTargetMachine();
  if (!machine) return llvmError("cannot create a target machine", machine.takeError());
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(*builder).create();
  if (!jit) return llvmError("cannot create the JIT", jit.takeError());
  auto search = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!search) return llvmError("cannot search this process's symbols", search.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*search));
  auto result = std::make_unique<OrcJit>();
  result->machine_ = std::move(*machine);
  result->jit_ = std::move(*jit);
  return result;
}

void OrcJit::configure(llvm::Module& module) const {
  module.setDataLayout(machine_->createDataLayout());
  module.setTargetTriple(machine_->getTargetTriple().str());
}

Status OrcJit::add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                   const std::string& irPath) {
  // Every function targets the host; with AVX-512 the vectorizer may use
  // full 512-bit vectors (LLVM otherwise prefers 256 bits on these CPUs).
  bool avx512 = machine_->getTargetFeatureString().contains("+avx512f");
  for (llvm::Function& f : *module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", machine_->getTargetCPU());
    f.addFnAttr("target-features", machine_->getTargetFeatureString());
    if (avx512) f.addFnAttr("prefer-vector-width", "512");
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder passes(machine_.get());
  passes.registerModuleAnalyses(mam);
  passes.registerCGSCCAnalyses(cgam);
  passes.registerFunctionAnalyses(fam);
  passes.registerLoopAnalyses(lam);
  passes.crossRegisterProxies(lam, fam, cgam, mam);
  passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(*module, mam);
  if (!irPath.empty()) {
    std::error_code error;
    llvm::raw_fd_ostream out(irPath, error);
    if (error) return errorStatus("cpu: cannot write " + irPath + ": " + error.message());
    module->print(out, nullptr);
  }
  if (llvm::Error e = jit_->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context))))
    return llvmError("cannot add the module", std::move(e));
  return okStatus();
}

StatusOr<void*> OrcJit::lookup(const std::string& name) {
  auto address = jit_->lookup(name);
  if (!address) return llvmError("cannot find " + name, address.takeError());
  return address->toPtr<void*>();
}

}  // namespace hlo::cpu
