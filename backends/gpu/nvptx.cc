// LLVM IR to PTX: an NVPTX target machine, kernel annotations, the O3
// pipeline of the new pass manager and the assembly printer.
//
// Two things LLVM 19 does for us, which the tests check:
//  - The target machine adds NVVMReflect to the pipeline (through
//    PassBuilder's callbacks), so libdevice's __nvvm_reflect("__CUDA_FTZ")
//    and "__CUDA_ARCH" queries fold to constants before inlining.
//  - The NVPTX back end reads kernels and launch bounds from the
//    nvvm.annotations named metadata.
#include "backends/gpu/nvptx.h"

#include <memory>
#include <mutex>

#include <llvm/ADT/STLExtras.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Triple.h>

#include "backends/gpu/libdevice.h"

namespace hlo::gpu {
namespace {

constexpr const char* kTriple = "nvptx64-nvidia-cuda";

// Only NVPTX: the CPU backend initializes the host target on its own, and
// no other target is needed to print PTX.
void initializeNvptx() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

// LLVM only warns on stderr about an unknown processor or feature and then
// emits PTX for its defaults; refuse instead, naming what it knows.
Status checkKnown(const llvm::Target& nvptx, const PtxTarget& target) {
  std::unique_ptr<llvm::MCSubtargetInfo> info(nvptx.createMCSubtargetInfo(kTriple, "", ""));
  if (!info) return errorStatus("gpu: cannot describe the NVPTX subtargets");
  if (!info->isCPUStringValid(target.sm))
    return errorStatus("gpu: LLVM's NVPTX target does not know '" + target.sm + "' (expected e.g. sm_80 or sm_90)");
  if (target.ptxVersion.empty()) return okStatus();
  llvm::StringRef feature(target.ptxVersion);
  bool known = feature.consume_front("+") && feature.starts_with("ptx") &&
               llvm::any_of(info->getAllProcessorFeatures(),
                            [&](const llvm::SubtargetFeatureKV& kv) { return feature == kv.Key; });
  if (!known)
    return errorStatus("gpu: LLVM's NVPTX target does not know the PTX version '" + target.ptxVersion +
                       "' (expected e.g. +ptx78 or +ptx85)");
  return okStatus();
}

StatusOr<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const PtxTarget& target) {
  initializeNvptx();
  std::string error;
  const llvm::Target* nvptx = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!nvptx) return errorStatus("gpu: no NVPTX target in this LLVM: " + error);
  HLO_RETURN_IF_ERROR(checkKnown(*nvptx, target));
  std::unique_ptr<llvm::TargetMachine> machine(
      nvptx->createTargetMachine(kTriple, target.sm, target.ptxVersion, llvm::TargetOptions(), std::nullopt,
                                 std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) return errorStatus("gpu: cannot create an NVPTX target machine for " + target.sm);
  return machine;
}

std::string printed(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

void optimize(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // Given the machine, PassBuilder asks it for its pipeline additions:
  // NVVMReflect and NVVMIntrRange at the start of the pipeline.
  llvm::PassBuilder passes(&machine);
  passes.registerModuleAnalyses(mam);
  passes.registerCGSCCAnalyses(cgam);
  passes.registerFunctionAnalyses(fam);
  passes.registerLoopAnalyses(lam);
  passes.crossRegisterProxies(lam, fam, cgam, mam);
  passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

StatusOr<std::string> emitPtx(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> text;
  llvm::raw_svector_ostream os(text);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return errorStatus("gpu: the NVPTX target cannot print assembly");
  codegen.run(module);
  return std::string(text.data(), text.size());
}

}  // namespace

Status configureForNvptx(llvm::Module& module, const PtxTarget& target) {
  HLO_ASSIGN_OR_RETURN(auto machine, createTargetMachine(target));
  module.setTargetTriple(kTriple);
  module.setDataLayout(machine->createDataLayout());
  return okStatus();
}

void markKernel(llvm::Function& function, int maxThreadsPerBlock) {
  llvm::Module& module = *function.getParent();
  llvm::LLVMContext& context = module.getContext();
  llvm::NamedMDNode* annotations = module.getOrInsertNamedMetadata("nvvm.annotations");
  auto annotate = [&](const char* key, int value) {
    llvm::Metadata* operands[] = {
        llvm::ValueAsMetadata::get(&function), llvm::MDString::get(context, key),
        llvm::ValueAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(context), value))};
    annotations->addOperand(llvm::MDNode::get(context, operands));
  };
  // LLVM 19 takes either the "kernel" annotation or the ptx_kernel calling
  // convention as the mark of a kernel. LLVM 20 looks at the calling
  // convention and only upgrades annotations in IR it reads, not in a module
  // built in memory like ours, so set both. The launch bound LLVM 19 reads
  // only from the annotation (21 moved it to an "nvvm.maxntid" attribute).
  annotate("kernel", 1);
  function.setCallingConv(llvm::CallingConv::PTX_Kernel);
  function.setLinkage(llvm::GlobalValue::ExternalLinkage);
  if (maxThreadsPerBlock > 0) annotate("maxntidx", maxThreadsPerBlock);
}

StatusOr<std::string> compileToPtx(llvm::Module& module, const PtxTarget& target, PtxDumps* dumps) {
  HLO_ASSIGN_OR_RETURN(auto machine, createTargetMachine(target));
  module.setTargetTriple(kTriple);
  module.setDataLayout(machine->createDataLayout());
  if (dumps) dumps->ir = printed(module);
  HLO_RETURN_IF_ERROR(linkLibdevice(module));
  // A malformed module is an emitter bug; say so here rather than crash in
  // the back end.
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os)) return errorStatus("gpu: invalid LLVM IR for " + target.sm + ": " + problems);
  optimize(module, *machine);
  if (dumps) dumps->optimizedIr = printed(module);
  return emitPtx(module, *machine);
}

}  // namespace hlo::gpu
