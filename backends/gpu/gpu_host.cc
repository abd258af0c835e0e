// The host grid runner, registered as the "gpu-host" backend: the GPU
// backend's kernels (gpu_kernel_emitter.h, GridForm::kHost) run on the CPU,
// a block at a time (its threads phase by phase, thread_block.h), under the CPU backend's runtime
// (backends/cpu/program.h: steps, arenas, control flow, threads). The
// pipeline, the choice of kernels and the refusals are the GPU's, so a
// module checked here is checked as the GPU compiles it; libdevice's math
// functions are the C library's of the same name (__nv_expf is expf).
//
// What it cannot catch: NVPTX or ptxas bugs, libdevice's own rounding,
// warp-synchronous assumptions, and speed.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "backends/cpu/program.h"
#include "backends/gpu/gpu_kernel_emitter.h"
#include "hlo/computation.h"
#include "jit/backend.h"

namespace hlo::gpu {
namespace {

// Defines each libdevice function the module declares as a call of the C
// library's function of the same name without the prefix.
void mapLibdeviceToHost(llvm::Module& module) {
  const std::string prefix = kGpuEmitterTarget.mathPrefix;
  for (llvm::Function& fn : module.functions()) {
    if (!fn.isDeclaration() || !fn.getName().starts_with(prefix)) continue;
    std::string host = fn.getName().substr(prefix.size()).str();
    llvm::FunctionCallee callee = module.getOrInsertFunction(host, fn.getFunctionType());
    fn.setLinkage(llvm::GlobalValue::InternalLinkage);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.getContext(), "entry", &fn));
    std::vector<llvm::Value*> args;
    for (llvm::Argument& a : fn.args()) args.push_back(&a);
    b.CreateRet(b.CreateCall(callee, args));
  }
}

// The kernel as the CPU runtime calls it (cpu::KernelFn): work unit i is
// block i, whose threads the block function runs phase by phase.
StatusOr<cpu::KernelInfo> emitHostGridKernel(llvm::Module& module, const Instruction& instr, const std::string& name) {
  HLO_ASSIGN_OR_RETURN(GpuKernelInfo info, emitGpuKernel(module, instr, name, GridForm::kHost));
  mapLibdeviceToHost(module);
  llvm::Function* blockFn = module.getFunction(name + ".block");
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr, i64, i64}, false);
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  std::vector<llvm::Value*> args;
  for (int i = 0; i < info.inputs; ++i)
    args.push_back(b.CreateLoad(ptr, b.CreateInBoundsGEP(ptr, fn->getArg(0), b.getInt64(i))));
  for (int k = 0; k < info.outputs; ++k)
    args.push_back(b.CreateLoad(ptr, b.CreateInBoundsGEP(ptr, fn->getArg(1), b.getInt64(k))));
  // for (block = begin; block < end; ++block) name.block(args..., block)
  llvm::BasicBlock* entry = b.GetInsertBlock();
  auto* blockHead = llvm::BasicBlock::Create(ctx, "block", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  b.CreateCondBr(b.CreateICmpSLT(fn->getArg(2), fn->getArg(3)), blockHead, exit);
  b.SetInsertPoint(blockHead);
  llvm::PHINode* blockIndex = b.CreatePHI(i64, 2, "block.index");
  blockIndex->addIncoming(fn->getArg(2), entry);
  std::vector<llvm::Value*> callArgs = args;
  callArgs.push_back(b.CreateTrunc(blockIndex, b.getInt32Ty()));
  b.CreateCall(blockFn, callArgs);
  llvm::Value* nextBlock = b.CreateAdd(blockIndex, b.getInt64(1));
  blockIndex->addIncoming(nextBlock, blockHead);
  b.CreateCondBr(b.CreateICmpSLT(nextBlock, fn->getArg(3)), blockHead, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  cpu::KernelInfo result;
  result.units = info.blocks;
  result.workPerUnit = kThreadsPerBlock;
  return result;
}

// No library calls: what the kernels cannot compute is refused by name.
StatusOr<cpu::RuntimePlan> noLibraryOps(llvm::Module&, const Instruction&, const std::string&) {
  return cpu::RuntimePlan{};
}

class GpuHostBackend final : public jit::Backend {
 public:
  std::string_view name() const override { return "gpu-host"; }
  std::string_view pipeline() const override { return "gpu"; }
  StatusOr<std::unique_ptr<jit::Executable>> compile(std::unique_ptr<Module> optimized,
                                                     const jit::CompileOptions& options) const override {
    static const cpu::KernelSource source{"gpu-host", emitHostGridKernel, gpuOneKernel, noLibraryOps};
    return cpu::compileModule(std::move(optimized), options, source);
  }
};

const jit::BackendRegistration registration(std::make_unique<GpuHostBackend>());

}  // namespace
}  // namespace hlo::gpu
