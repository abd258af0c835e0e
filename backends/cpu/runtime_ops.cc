// The table of library ops, and the compiled scalar functions they call.
#include "backends/cpu/runtime_ops.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "hlo/computation.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {

namespace {

using PlanFn = StatusOr<RuntimePlan> (*)(llvm::Module&, const Instruction&, const std::string&);

bool always(const Instruction&) { return true; }

// The library ops, one line each: opcode -> its planner (runtime_<op>.cc),
// and which instances the elemental emitter also computes inside a fusion
// (none when null). A transpose is a library call only unfused; a reduce
// only when the emitter cannot fold it (several inputs, another reducer); a
// bitcast-convert only between widths.
struct LibraryOp {
  Opcode opcode;
  PlanFn plan;
  bool (*elementalInFusions)(const Instruction&) = nullptr;
};
constexpr LibraryOp kLibraryOps[] = {
    {Opcode::kDot, planDot},
    {Opcode::kRaggedDot, planRaggedDot},
    {Opcode::kScaledDot, planScaledDot},
    {Opcode::kConvolution, planConvolution},
    {Opcode::kSort, planSort},
    {Opcode::kTopK, planTopK},
    {Opcode::kFft, planFft},
    {Opcode::kGather, planGather},
    {Opcode::kScatter, planScatter},
    {Opcode::kSelectAndScatter, planSelectAndScatter},
    {Opcode::kTriangularSolve, planTriangularSolve},
    {Opcode::kCholesky, planCholesky},
    {Opcode::kTranspose, planTranspose, always},
    {Opcode::kReduce, planReduce, jit::emitsReduce},
    {Opcode::kReduceWindow, planReduce},
    {Opcode::kBitcastConvert, planBitcastConvert, sameWidthBitcastConvert},
};

const LibraryOp* find(Opcode opcode) {
  for (const LibraryOp& op : kLibraryOps)
    if (op.opcode == opcode) return &op;
  return nullptr;
}

}  // namespace

bool isLibraryOp(const Instruction& instr) {
  const LibraryOp* op = find(instr.opcode());
  return op && !(op->elementalInFusions && op->elementalInFusions(instr));
}

StatusOr<RuntimePlan> planRuntimeOp(llvm::Module& module, const Instruction& instr, const std::string& prefix) {
  const LibraryOp* op = find(instr.opcode());
  if (!op) return RuntimePlan{};
  return op->plan(module, instr, prefix);
}

Status emitScalarFunction(llvm::Module& module, const Computation& computation, const std::string& name,
                          const std::vector<ElementType>& argTypes, const std::vector<ElementType>& resultTypes) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  jit::ElementalEmitter emitter(b, module);
  auto fail = [&](Status s) {
    fn->eraseFromParent();
    return s;
  };
  auto pointerAt = [&](llvm::Value* array, int i) {
    return b.CreateLoad(ptr, b.CreateInBoundsGEP(ptr, array, b.getInt64(i)));
  };
  for (int i = 0; i < computation.parameterCount(); ++i) {
    const Instruction* p = computation.parameter(i);
    if (!p->shape().isArray() || p->shape().rank() != 0)
      return fail(jit::cannotCompile(*p, "a scalar function's parameter must be a scalar"));
    ElementType declared = p->shape().type();
    ElementType stored = i < static_cast<int>(argTypes.size()) ? argTypes[i] : declared;
    if (stored == declared) {
      emitter.bindArray(p, pointerAt(fn->getArg(0), i));
      continue;
    }
    // Converted into a local of the declared type, which the body reads.
    llvm::Value* raw = emitter.load(pointerAt(fn->getArg(0), i), b.getInt64(0), stored);
    StatusOr<llvm::Value*> converted = emitter.convert(*p, stored, declared, raw);
    if (!converted.ok()) return fail(converted.status());
    llvm::AllocaInst* local = emitter.entryAlloca(emitter.storageType(declared), p->name());
    emitter.store(*converted, local, b.getInt64(0), declared);
    emitter.bindArray(p, local);
  }
  // The results: the root, or the elements of a tuple it returns (built by
  // a tuple, or by a fusion whose root is one).
  const Instruction* root = computation.root();
  std::vector<Shape> results = root->shape().isTuple() ? root->shape().tupleElements() : std::vector<Shape>{root->shape()};
  for (size_t k = 0; k < results.size(); ++k) {
    if (!results[k].isArray() || results[k].rank() != 0)
      return fail(jit::cannotCompile(*root, "a scalar function's result must be scalars"));
    StatusOr<llvm::Value*> v = root->shape().isTuple()
                                   ? emitter.emitTupleElement(*root, static_cast<int64_t>(k), emitter.scalarIndex())
                                   : emitter.emit(*root, emitter.scalarIndex());
    if (!v.ok()) return fail(v.status());
    ElementType declared = results[k].type();
    ElementType stored = k < resultTypes.size() ? resultTypes[k] : declared;
    if (stored != declared) v = emitter.convert(*root, declared, stored, *v);
    if (!v.ok()) return fail(v.status());
    emitter.store(*v, pointerAt(fn->getArg(1), static_cast<int>(k)), b.getInt64(0), stored);
  }
  b.CreateRetVoid();
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyFunction(*fn, &os))
    return fail(errorStatus("internal error: bad IR for " + computation.name() + ": " + problems));
  return okStatus();
}

Status emitConvertFunction(llvm::Module& module, const Instruction& instr, const std::string& name,
                           const std::vector<ElementType>& from, const std::vector<ElementType>& to) {
  llvm::LLVMContext& ctx = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  auto* type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr, ptr}, false);
  llvm::Function* fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  jit::ElementalEmitter emitter(b, module);
  auto pointerAt = [&](llvm::Value* array, size_t i) {
    return b.CreateLoad(ptr, b.CreateInBoundsGEP(ptr, array, b.getInt64(static_cast<int64_t>(i))));
  };
  for (size_t k = 0; k < from.size() && k < to.size(); ++k) {
    StatusOr<llvm::Value*> v = emitter.load(pointerAt(fn->getArg(0), k), b.getInt64(0), from[k]);
    if (from[k] != to[k]) v = emitter.convert(instr, from[k], to[k], *v);
    if (!v.ok()) {
      fn->eraseFromParent();
      return v.status();
    }
    emitter.store(*v, pointerAt(fn->getArg(1), k), b.getInt64(0), to[k]);
  }
  b.CreateRetVoid();
  return okStatus();
}

}  // namespace hlo::cpu
