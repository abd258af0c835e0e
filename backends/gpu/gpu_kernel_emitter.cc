// GPU kernels from the shared elemental emitter (gpu_kernel_emitter.h).
//
// A kernel whose reductions fold rows is a row kernel (row_kernel.h), one
// whose reductions fold leading dimensions a column kernel
// (column_kernel.h), one that writes a transpose moving the minor dimension
// a transpose kernel (transpose_kernel.h). Otherwise each thread computes
// up to 4 neighbouring output positions (emitElementKernel), delinearized
// into the output's dimensions, of every output of a multi-output fusion;
// reductions and small dots there are the emitter's serial loops, one per
// output element.
#include "backends/gpu/gpu_kernel_emitter.h"

#include <functional>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "backends/gpu/column_kernel.h"
#include "backends/gpu/linalg_kernel.h"
#include "backends/gpu/nvptx.h"
#include "backends/gpu/reduce_kernel.h"
#include "backends/gpu/row_kernel.h"
#include "backends/gpu/scatter_kernel.h"
#include "backends/gpu/sort_kernel.h"
#include "backends/gpu/thread_block.h"
#include "backends/gpu/transpose_kernel.h"
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

// The outputs a kernel for `fusion` writes: its root, or a root tuple's elements.
std::vector<const Instruction*> fusionOutputs(const Instruction& fusion) {
  const Instruction* root = fusion.calledComputations()[0]->root();
  if (root->opcode() == Opcode::kTuple) return {root->operands().begin(), root->operands().end()};
  return {root};
}

// The arrays a kernel reads, and the instructions its outputs compute.
struct KernelShape {
  std::vector<const Instruction*> inputs;   // bound to kernel arguments, in order
  std::vector<const Instruction*> outputs;  // emitted, in order (none for a serial reduce)
  std::vector<Shape> results;               // the outputs' shapes
  // The root, when it is a reduce of reduce_kernel.h: the kernel writes its
  // results.
  const Instruction* serialReduce = nullptr;
  // The instruction, when it is a sort (sort_kernel.h): the kernel writes
  // its results.
  const Instruction* sort = nullptr;
  SortPlan sortPlan;
  // The instruction, when it is a scatter (scatter_kernel.h).
  const Instruction* scatter = nullptr;
  // The instruction, when it is a triangular-solve or cholesky (linalg_kernel.h).
  const Instruction* linalg = nullptr;
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
  if (root->opcode() == Opcode::kSort && instr.opcode() == Opcode::kSort) {
    HLO_ASSIGN_OR_RETURN(k.sortPlan, sortPlanOf(*root));
    k.sort = root;
    k.results = root->shape().elementsOrSelf();
    return k;
  }
  if (root->opcode() == Opcode::kScatter && instr.opcode() == Opcode::kScatter) {
    HLO_RETURN_IF_ERROR(checkScatterKernel(*root));
    k.scatter = root;
    k.results = root->shape().elementsOrSelf();
    return k;
  }
  if ((root->opcode() == Opcode::kTriangularSolve || root->opcode() == Opcode::kCholesky) && root == &instr) {
    HLO_RETURN_IF_ERROR(checkLinalgKernel(*root));
    k.linalg = root;
    k.results = {root->shape()};
    return k;
  }
  if (isSerialReduce(*root)) {
    k.serialReduce = root;
    k.results = root->shape().elementsOrSelf();
    for (const Shape& r : k.results)
      if (!r.isArray()) return jit::cannotCompile(instr, "a kernel writes arrays, not tuples");
    return k;
  }
  k.outputs = instr.opcode() == Opcode::kFusion ? fusionOutputs(instr) : std::vector<const Instruction*>{root};
  if (k.outputs.empty()) return jit::cannotCompile(instr, "a kernel needs at least one output");
  for (const Instruction* out : k.outputs) {
    if (!out->shape().isArray()) return jit::cannotCompile(instr, "a kernel writes arrays, not tuples");
    k.results.push_back(out->shape());
  }
  return k;
}

// Consecutive elements an element kernel's thread computes: as many as
// fill 16 bytes of the widest output type (at most 4), so that where the
// arrays allow (kNvptx marks them aligned and apart) a thread loads and
// stores 128 bits at a time; 1 when the outputs differ in size.
int elementsPerThread(const KernelShape& k, int64_t elements) {
  int64_t widest = 1;
  for (const Instruction* out : k.outputs) {
    if (out->shape().elementCount() != elements) return 1;
    widest = std::max<int64_t>(widest, storageBytes(out->shape().type()));
  }
  return static_cast<int>(std::clamp<int64_t>(16 / widest, 1, 4));
}

// Thread t of block b computes the `perThread` elements from linear
// position (b * kThreadsPerBlock + t) * perThread of every output; all of
// them when they are inside the outputs (their values first, then their
// stores, so neighbouring loads and stores can merge), else each behind a
// guard. With one element a thread, outputs of fewer elements than
// `elements` (the largest's) have a guard of their own.
Status emitElementKernel(ThreadBlock& tb, jit::ElementalEmitter& emitter, llvm::IRBuilder<>& b, const KernelShape& k,
                         const std::vector<llvm::Value*>& bases, int64_t elements, int perThread) {
  return tb.forEachThread([&](llvm::Value* thread) -> Status {
    llvm::Function* fn = b.GetInsertBlock()->getParent();
    llvm::LLVMContext& ctx = fn->getContext();
    llvm::Value* first =
        b.CreateMul(b.CreateAdd(b.CreateMul(tb.block(), b.getInt64(kThreadsPerBlock)), thread), b.getInt64(perThread),
                    "first", /*HasNUW=*/true, /*HasNSW=*/true);
    // Output o's element at `linear`, stored at once or kept for later.
    auto compute = [&](size_t o, llvm::Value* linear) -> StatusOr<llvm::Value*> {
      return emitter.emit(*k.outputs[o], emitter.delinearize(linear, k.outputs[o]->shape().dims()));
    };
    auto at = [&](int e) {
      return e == 0 ? first : b.CreateAdd(first, b.getInt64(e), "", /*HasNUW=*/true, /*HasNSW=*/true);
    };
    auto guarded = [&](llvm::Value* cond, const std::function<Status()>& body) {
      return emitter.emitWhen(cond, "element", body);
    };
    if (perThread == 1)
      return guarded(b.CreateICmpULT(first, b.getInt64(elements)), [&]() -> Status {
        for (size_t o = 0; o < k.outputs.size(); ++o) {
          auto store = [&]() -> Status {
            HLO_ASSIGN_OR_RETURN(llvm::Value * v, compute(o, first));
            emitter.store(v, bases[o], first, k.outputs[o]->shape().type());
            return okStatus();
          };
          int64_t own = k.outputs[o]->shape().elementCount();
          HLO_RETURN_IF_ERROR(own == elements ? store() : guarded(b.CreateICmpULT(first, b.getInt64(own)), store));
        }
        return okStatus();
      });
    auto wholeThread = [&]() -> Status {
      std::vector<std::vector<llvm::Value*>> values(k.outputs.size());
      for (size_t o = 0; o < k.outputs.size(); ++o)
        for (int e = 0; e < perThread; ++e) {
          HLO_ASSIGN_OR_RETURN(llvm::Value * v, compute(o, at(e)));
          values[o].push_back(v);
        }
      for (size_t o = 0; o < k.outputs.size(); ++o)
        for (int e = 0; e < perThread; ++e)
          emitter.store(values[o][static_cast<size_t>(e)], bases[o], at(e), k.outputs[o]->shape().type());
      return okStatus();
    };
    if (elements % perThread == 0) return guarded(b.CreateICmpULT(first, b.getInt64(elements)), wholeThread);
    // The last thread's elements, one after another (a loop: the code of the
    // whole threads stays apart from it, so LLVM does not merge their last
    // stores and lose the vector ones).
    llvm::Value* whole = b.CreateICmpULE(b.CreateAdd(first, b.getInt64(perThread)), b.getInt64(elements));
    auto* all = llvm::BasicBlock::Create(ctx, "elements", fn);
    auto* some = llvm::BasicBlock::Create(ctx, "elements.tail", fn);
    auto* done = llvm::BasicBlock::Create(ctx, "elements.end", fn);
    b.CreateCondBr(whole, all, some);
    b.SetInsertPoint(all);
    HLO_RETURN_IF_ERROR(emitter.inScope(wholeThread));
    b.CreateBr(done);
    b.SetInsertPoint(some);
    HLO_RETURN_IF_ERROR(emitter.emitLoop(first, b.getInt64(elements), "element", [&](llvm::Value* linear) -> Status {
      for (size_t o = 0; o < k.outputs.size(); ++o) {
        HLO_ASSIGN_OR_RETURN(llvm::Value * v, compute(o, linear));
        emitter.store(v, bases[o], linear, k.outputs[o]->shape().type());
      }
      return okStatus();
    }));
    b.CreateBr(done);
    b.SetInsertPoint(done);
    return okStatus();
  });
}

// How a kernel's threads share its work: its blocks, a name for --verbose
// and the code that emits its body into the given arrays.
struct KernelLayout {
  int64_t blocks = 0;
  std::string shape;
  std::function<Status(ThreadBlock&, jit::ElementalEmitter&, llvm::IRBuilder<>&, const std::vector<llvm::Value*>&)>
      emit;
};

// The first layout that fits: a sort, scatter, triangular-solve or
// cholesky, a serial reduce, row, column or transpose kernel, else an
// element kernel.
KernelLayout layoutOf(const Instruction& instr, const KernelShape& k) {
  int64_t elements = 0;  // the largest output's element count
  for (const Shape& result : k.results) elements = std::max(elements, result.elementCount());
  auto blocksOf = [](int64_t threads) { return (threads + kThreadsPerBlock - 1) / kThreadsPerBlock; };
  if (k.sort)
    return {k.sortPlan.slices, "a block a slice, bitonic", [&k](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
              return emitSortKernel(tb, e, b, *k.sort, k.sortPlan, bases);
            }};
  if (k.scatter)
    return {1, "one block, updates in order", [&k](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
              return emitScatterKernel(tb, e, b, *k.scatter, bases);
            }};
  if (k.linalg)
    return {blocksOf(linalgThreads(*k.linalg)), "a thread a problem",
            [&k](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
              return emitLinalgKernel(tb, e, b, *k.linalg, bases[0]);
            }};
  if (k.serialReduce)
    return {blocksOf(elements), "serial folds", [&k](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
              return emitSerialReduceKernel(tb, e, b, *k.serialReduce, bases);
            }};
  if (std::optional<RowPlan> rows = rowPlanOf(instr, k.outputs))
    return {rows->blocks(), rows->group == kWarpSize ? "warp rows" : "block rows",
            [plan = *rows, &k](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
              return emitRowKernel(tb, e, b, plan, k.outputs, bases);
            }};
  if (std::optional<ColumnPlan> columns = columnPlanOf(instr, k.outputs))
    return {columns->blocks(), "column tiles", [plan = *columns](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
              return emitColumnKernel(tb, e, b, plan, bases);
            }};
  if (std::optional<TransposePlan> transpose = transposePlanOf(k.outputs))
    return {transpose->blocks(), "transpose tiles",
            [plan = *transpose](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
              return emitTransposeKernel(tb, e, b, plan, bases[0]);
            }};
  const int perThread = elementsPerThread(k, elements);
  return {blocksOf((elements + perThread - 1) / perThread),
          std::to_string(perThread) + (perThread == 1 ? " element" : " elements") + " a thread",
          [&k, elements, perThread](ThreadBlock& tb, auto& e, auto& b, const auto& bases) {
            return emitElementKernel(tb, e, b, k, bases, elements, perThread);
          }};
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
  if (fused.root()->opcode() != Opcode::kTuple && !fused.root()->shape().isArray() && !isSerialReduce(*fused.root()))
    return false;
  const Instruction* root = fused.root();
  bool readsReduce = false;
  for (const auto& i : fused.instructions()) {
    if (sharedSemanticsOf(*i) || i->opcode() == Opcode::kWhile || i->opcode() == Opcode::kCall) return false;
    // A reduce of reduce_kernel.h is a kernel's only output.
    if (isSerialReduce(*i) && i.get() != root) return false;
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
  const KernelLayout layout = layoutOf(instr, k);
  GpuKernelInfo info;
  info.inputs = static_cast<int>(k.inputs.size());
  info.outputs = static_cast<int>(k.results.size());
  info.blocks = layout.blocks;
  info.shape = layout.shape;
  if (info.blocks > int64_t{0x7fffffff}) return jit::cannotCompile(instr, "more blocks than a grid holds");

  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  std::vector<llvm::Type*> params(k.inputs.size() + k.results.size(), ptr);
  if (form == GridForm::kHost) params.push_back(llvm::Type::getInt32Ty(ctx));
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), params, false);
  const std::string fnName = form == GridForm::kHost ? name + ".block" : name;
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, fnName, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  jit::ElementalEmitter emitter(b, module, kGpuEmitterTarget);
  for (size_t i = 0; i < k.inputs.size(); ++i) emitter.bindArray(k.inputs[i], fn->getArg(static_cast<unsigned>(i)));
  std::vector<llvm::Value*> bases;
  for (size_t o = 0; o < k.results.size(); ++o) bases.push_back(fn->getArg(static_cast<unsigned>(k.inputs.size() + o)));
  llvm::Value* block;
  if (form == GridForm::kHost) {
    block = fn->getArg(static_cast<unsigned>(params.size() - 1));
  } else {
    block = b.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {});
    markKernel(*fn, kThreadsPerBlock);
    // The runtime gives every array a device allocation of its own (aligned
    // to 256 bytes), never one an output shares: loads and stores may merge
    // into 128-bit ones, and inputs are read through the read-only cache.
    for (unsigned i = 0; i < fn->arg_size(); ++i) {
      fn->addParamAttr(i, llvm::Attribute::NoAlias);
      fn->addParamAttr(i, llvm::Attribute::getWithAlignment(ctx, llvm::Align(16)));
      if (i < k.inputs.size()) fn->addParamAttr(i, llvm::Attribute::ReadOnly);
    }
  }
  ThreadBlock tb(emitter, b, form, block);
  Status body = layout.emit(tb, emitter, b, bases);
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
      body = jit::cannotCompile(instr, "needs the host runtime's " + helper + ", which GPU code cannot call");
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
