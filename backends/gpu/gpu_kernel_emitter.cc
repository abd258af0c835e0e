// GPU kernels from the shared elemental emitter (gpu_kernel_emitter.h).
//
// A kernel whose reductions fold rows is a row kernel (row_kernel.h), one
// whose reductions fold leading dimensions a column kernel
// (column_kernel.h). Otherwise each thread computes one output position: linear = block *
// kThreadsPerBlock + thread, guarded by the element count, delinearized
// into the output's dimensions, and every output of a multi-output fusion
// at that position (outputs of fewer elements behind a guard of their
// own); reductions and small dots there are the emitter's serial loops,
// one per output element.
#include "backends/gpu/gpu_kernel_emitter.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "backends/gpu/column_kernel.h"
#include "backends/gpu/nvptx.h"
#include "backends/gpu/row_kernel.h"
#include "backends/gpu/thread_block.h"
#include "hlo/computation.h"
#include "hlo/shared_semantics.h"
#include "jit/elemental_emitter.h"

namespace hlo::gpu {
namespace {

// A host runtime function the kernel calls (declared, not defined, and one
// of the runtime's hlo_* helpers), or empty. GPU code cannot reach the host.
std::string hostRuntimeCall(const llvm::Function& fn) {
  for (const llvm::BasicBlock& block : fn)
    for (const llvm::Instruction& i : block)
      if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&i))
        if (const llvm::Function* callee = call->getCalledFunction())
          if (callee->isDeclaration() && callee->getName().starts_with("hlo_")) return callee->getName().str();
  return "";
}

// The arrays a kernel reads, and the instructions its outputs compute.
struct KernelShape {
  std::vector<const Instruction*> inputs;   // bound to kernel arguments, in order
  std::vector<const Instruction*> outputs;  // emitted, in order
};

StatusOr<KernelShape> kernelShape(const Instruction& instr) {
  KernelShape k;
  const Instruction* root = &instr;
  if (instr.opcode() == Opcode::kFusion) {
    const Computation* fused = instr.calledComputations().empty() ? nullptr : instr.calledComputations()[0];
    if (!fused || fused->parameterCount() != instr.operandCount())
      return jit::cannotCompile(instr, "malformed fusion");
    for (int i = 0; i < fused->parameterCount(); ++i) k.inputs.push_back(fused->parameter(i));
    root = fused->root();
  } else {
    k.inputs.assign(instr.operands().begin(), instr.operands().end());
  }
  for (const Instruction* in : k.inputs)
    if (!in->shape().isArray()) return jit::cannotCompile(instr, "a kernel reads arrays, not tuples");
  k.outputs = {root};
  if (root->opcode() == Opcode::kTuple && instr.opcode() == Opcode::kFusion)
    k.outputs.assign(root->operands().begin(), root->operands().end());
  if (k.outputs.empty()) return jit::cannotCompile(instr, "a kernel needs at least one output");
  for (const Instruction* out : k.outputs)
    if (!out->shape().isArray()) return jit::cannotCompile(instr, "a kernel writes arrays, not tuples");
  return k;
}

// One thread per output element: the element at linear position
// block * kThreadsPerBlock + thread of every output (outputs of fewer
// elements behind a guard of their own). `bases` are the outputs' arrays.
Status emitElementKernel(ThreadBlock& tb, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const KernelShape& k,
                         const std::vector<llvm::Value*>& bases, int64_t threads) {
  return tb.forEachThread([&](llvm::Value* thread) -> Status {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::LLVMContext& ctx = fn->getContext();
    llvm::Value* linear = b.CreateAdd(b.CreateMul(tb.block(), b.getInt64(kThreadsPerBlock)), thread, "linear",
                                      /*HasNUW=*/true, /*HasNSW=*/true);
    auto* work = llvm::BasicBlock::Create(ctx, "work", fn);
    auto* done = llvm::BasicBlock::Create(ctx, "done", fn);
    b.CreateCondBr(b.CreateICmpULT(linear, b.getInt64(threads)), work, done);
    b.SetInsertPoint(work);
    for (size_t o = 0; o < k.outputs.size(); ++o) {
      const Instruction& out = *k.outputs[o];
      auto store = [&]() -> Status {
        jit::IrIndex index = emitter.delinearize(linear, out.shape().dims());
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, emitter.emit(out, index));
        emitter.store(v, bases[o], linear, out.shape().type());
        return okStatus();
      };
      int64_t elements = out.shape().elementCount();
      if (elements == threads) {
        HLO_RETURN_IF_ERROR(store());
        continue;
      }
      // A smaller output: its own guard, and values made inside stay inside.
      auto* own = llvm::BasicBlock::Create(ctx, "output", fn);
      auto* next = llvm::BasicBlock::Create(ctx, "next", fn);
      b.CreateCondBr(b.CreateICmpULT(linear, b.getInt64(elements)), own, next);
      b.SetInsertPoint(own);
      HLO_RETURN_IF_ERROR(emitter.inScope(store));
      b.CreateBr(next);
      b.SetInsertPoint(next);
    }
    b.CreateBr(done);
    b.SetInsertPoint(done);
    return okStatus();
  });
}

// The outputs a kernel for `fusion` writes: its root, or a root tuple's elements.
std::vector<const Instruction*> fusionOutputs(const Instruction& fusion) {
  const Instruction* root = fusion.calledComputations()[0]->root();
  if (root->opcode() == Opcode::kTuple) return {root->operands().begin(), root->operands().end()};
  return {root};
}

}  // namespace

bool gpuOneKernel(const Instruction& fusion) {
  std::string_view kind = fusion.attrs().getString(AttrKey::kKind);
  if (kind != "kLoop" && kind != "kInput") return false;
  if (fusion.calledComputations().empty()) return true;
  // A kernel reads arrays and writes an array or a flat tuple of them.
  for (const Instruction* operand : fusion.operands())
    if (!operand->shape().isArray()) return false;
  if (fusion.shape().isTuple())
    for (const Shape& e : fusion.shape().tupleElements())
      if (!e.isArray()) return false;
  const Computation& fused = *fusion.calledComputations()[0];
  if (fused.root()->opcode() != Opcode::kTuple && !fused.root()->shape().isArray()) return false;
  const Instruction* root = fused.root();
  bool readsReduce = false;
  for (const auto& i : fused.instructions()) {
    if (sharedSemanticsOf(*i) || i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kCall) return false;
    if (i->opcode() == Opcode::kReduce && i.get() != root)
      for (const Instruction* user : i->users()) readsReduce |= user != root || root->opcode() != Opcode::kTuple;
  }
  // A reduce that other fused ops read (softmax's row maximum) is one
  // kernel only as a row fusion, where a row's threads fold it once; one
  // thread per element would fold it again for each.
  return !readsReduce || rowPlanOf(fusion, fusionOutputs(fusion)).has_value();
}

StatusOr<GpuKernelInfo> emitGpuKernel(llvm::Module& module, const Instruction& instr, const std::string& name,
                                      GridForm form) {
  HLO_ASSIGN_OR_RETURN(KernelShape k, kernelShape(instr));
  std::optional<RowPlan> rows = rowPlanOf(instr, k.outputs);
  std::optional<ColumnPlan> columns = rows ? std::nullopt : columnPlanOf(instr, k.outputs);
  GpuKernelInfo info;
  info.inputs = static_cast<int>(k.inputs.size());
  info.outputs = static_cast<int>(k.outputs.size());
  int64_t threads = 0;  // of an element kernel: the largest output's element count
  for (const Instruction* out : k.outputs) threads = std::max(threads, out->shape().elementCount());
  info.blocks = rows      ? rows->blocks()
                : columns ? columns->blocks()
                          : (threads + kThreadsPerBlock - 1) / kThreadsPerBlock;
  info.shape = rows ? (rows->group == kWarpSize ? "warp rows" : "block rows") : columns ? "column tiles" : "elements";
  if (info.blocks > int64_t{0x7fffffff}) return jit::cannotCompile(instr, "more blocks than a grid holds");

  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  std::vector<llvm::Type*> params(k.inputs.size() + k.outputs.size(), ptr);
  if (form == GridForm::kHost) params.push_back(llvm::Type::getInt32Ty(ctx));
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false);
  const std::string fnName = form == GridForm::kHost ? name + ".block" : name;
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, fnName, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  jit::ElementalEmitter emitter(b, module, kGpuEmitterTarget);
  for (size_t i = 0; i < k.inputs.size(); ++i) emitter.bindArray(k.inputs[i], fn->getArg(static_cast<unsigned>(i)));
  std::vector<llvm::Value*> bases;
  for (size_t o = 0; o < k.outputs.size(); ++o) bases.push_back(fn->getArg(static_cast<unsigned>(k.inputs.size() + o)));
  llvm::Value* block;
  if (form == GridForm::kHost) {
    block = fn->getArg(static_cast<unsigned>(params.size() - 1));
  } else {
    block = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {});
    markKernel(*fn, kThreadsPerBlock);
  }
  ThreadBlock tb(emitter, b, form, block);
  Status body = rows      ? emitRowKernel(tb, emitter, b, *rows, k.outputs, bases)
                : columns ? emitColumnKernel(tb, emitter, b, *columns, bases)
                          : emitElementKernel(tb, emitter, b, k, bases, threads);
  if (body.ok()) {
    tb.finish();
    b.CreateRetVoid();
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  // Ill-typed HLO the verifier lets through (a broadcast that changes the
  // element type) makes ill-typed IR: refused here, naming the instruction.
  if (body.ok() && llvm::verifyFunction(*fn, &os))
    body = jit::cannotCompile(instr, "internal error: the kernel's IR is invalid: " + problems);
  if (body.ok())
    if (std::string helper = hostRuntimeCall(*fn); !helper.empty())
      body = jit::cannotCompile(instr, "needs the host runtime's " + helper +
                                           ", which GPU code cannot call (complex functions beyond arithmetic "
                                           "have no device form yet)");
  if (!body.ok()) {
    // Shared arrays of a kernel that is not kept go with it.
    std::vector<llvm::GlobalVariable*> orphans;
    fn->eraseFromParent();
    for (llvm::GlobalVariable& g : module.globals()) {
      g.removeDeadConstantUsers();
      if (g.getAddressSpace() == 3 && g.use_empty()) orphans.push_back(&g);
    }
    for (llvm::GlobalVariable* g : orphans) g->eraseFromParent();
    return body;
  }
  return info;
}

}  // namespace hlo::gpu
