// Which library ops the elemental emitter computes instead, and the compiled
// scalar functions library ops call.
#include "backends/cpu/runtime_ops.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "backends/cpu/kernel_emitter.h"
#include "hlo/computation.h"
#include "hlo/lapack_call.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {

namespace {

bool always(const Instruction&) { return true; }
bool smallDot(const Instruction& instr) { return jit::emitsDot(instr, kElementDotProducts); }
bool notLapackCall(const Instruction& instr) { return !isLapackCall(instr); }

// The library ops (libraryPlanner) with instances the elemental emitter
// computes instead: inside a fusion, and, unless `libraryAlone`, on their own
// too. A transpose is a library call only unfused; a reduce only when the
// emitter cannot fold it (several inputs, another reducer), a reduce-window
// only when it has several inputs or mixes types, a select-and-scatter only
// with base dilation; a dot only when it is not small (smallDot); a
// bitcast-convert only between widths or to and from pred or complex; a
// custom call only for LAPACK's routines (the other custom calls the engines
// run are host steps or rewritten away).
struct ElementalForm {
  Opcode opcode;
  bool (*elemental)(const Instruction&);
  bool libraryAlone = false;
};
constexpr ElementalForm kElementalForms[] = {
    {Opcode::kDot, smallDot},
    {Opcode::kSelectAndScatter, jit::emitsSelectAndScatter},
    {Opcode::kCustomCall, notLapackCall},
    {Opcode::kTranspose, always, /*libraryAlone=*/true},
    {Opcode::kReduce, jit::emitsReduce},
    {Opcode::kReduceWindow, jit::emitsReduceWindow},
    {Opcode::kBitcastConvert, sameWidthBitcastConvert},
};

const ElementalForm* elementalForm(Opcode opcode) {
  for (const ElementalForm& form : kElementalForms)
    if (form.opcode == opcode) return &form;
  return nullptr;
}

// Helpers emitted into an LLVM module.
class LlvmHelpers : public HelperModule {
 public:
  explicit LlvmHelpers(llvm::Module& module) : module_(module) {}
  Status scalarFunction(const Computation& computation, const std::string& name,
                        const std::vector<ElementType>& argTypes,
                        const std::vector<ElementType>& resultTypes) override {
    return emitScalarFunction(module_, computation, name, argTypes, resultTypes);
  }
  Status convertFunction(const Instruction& instr, const std::string& name, const std::vector<ElementType>& from,
                         const std::vector<ElementType>& to) override {
    return emitConvertFunction(module_, instr, name, from, to);
  }

 private:
  llvm::Module& module_;
};

}  // namespace

bool isLibraryOp(const Instruction& instr) {
  const ElementalForm* form = elementalForm(instr.opcode());
  return libraryPlanner(instr.opcode()) && !(form && form->elemental(instr));
}

StatusOr<RuntimePlan> planRuntimeOp(llvm::Module& module, const Instruction& instr, const std::string& prefix) {
  PlanFn plan = libraryPlanner(instr.opcode());
  const ElementalForm* form = elementalForm(instr.opcode());
  if (!plan || (form && !form->libraryAlone && form->elemental(instr))) return RuntimePlan{};  // a kernel
  LlvmHelpers helpers(module);
  return plan(helpers, instr, prefix);
}

namespace {

// A ScalarFn being emitted: void fn(const char* const* args, char* const*
// results), with the emitter that writes its body.
class ScalarFnBuilder {
 public:
  ScalarFnBuilder(llvm::Module& module, const std::string& name)
      : ptr_(llvm::PointerType::get(module.getContext(), 0)),
        fn_(llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(module.getContext()), {ptr_, ptr_}, false),
                                   llvm::Function::ExternalLinkage, name, module)),
        b_(llvm::BasicBlock::Create(module.getContext(), "entry", fn_)),
        emitter_(b_, module, kCpuEmitterTarget) {
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
  }
  jit::ElementalEmitter& emitter() { return emitter_; }
  llvm::IRBuilder<>& builder() { return b_; }
  llvm::Value* arg(size_t i) { return pointerAt(fn_->getArg(0), i); }
  llvm::Value* result(size_t i) { return pointerAt(fn_->getArg(1), i); }
  // Argument i, stored as `stored`, as a value of type `wanted` (converted
  // as convert does; `instr` names the op in errors).
  StatusOr<llvm::Value*> loadArg(size_t i, ElementType stored, ElementType wanted, const Instruction& instr) {
    llvm::Value* v = emitter_.load(arg(i), b_.getInt64(0), stored);
    return stored == wanted ? v : emitter_.convert(instr, stored, wanted, v);
  }
  // Stores `v` of type `type` as result i, converted to `stored`.
  Status storeResult(size_t i, llvm::Value* v, ElementType type, ElementType stored, const Instruction& instr) {
    if (stored != type) {
      HLO_ASSIGN_OR_RETURN(v, emitter_.convert(instr, type, stored, v));
    }
    emitter_.store(v, result(i), b_.getInt64(0), stored);
    return okStatus();
  }
  // Ends the function and checks its IR; on `failure` (or bad IR) removes it.
  Status finish(Status failure, const std::string& what) {
    if (failure.ok()) {
      b_.CreateRetVoid();
      std::string problems;
      llvm::raw_string_ostream os(problems);
      if (!llvm::verifyFunction(*fn_, &os)) return okStatus();
      failure = errorStatus("internal error: bad IR for " + what + ": " + problems);
    }
    fn_->eraseFromParent();
    return failure;
  }

 private:
  llvm::Value* pointerAt(llvm::Value* array, size_t i) {
    return b_.CreateLoad(ptr_, b_.CreateInBoundsGEP(ptr_, array, b_.getInt64(static_cast<int64_t>(i))));
  }
  llvm::Type* ptr_;
  llvm::Function* fn_;
  llvm::IRBuilder<> b_;
  jit::ElementalEmitter emitter_;
};

Status emitScalarBody(ScalarFnBuilder& f, const Computation& computation, const std::vector<ElementType>& argTypes,
                      const std::vector<ElementType>& resultTypes) {
  jit::ElementalEmitter& emitter = f.emitter();
  for (int i = 0; i < computation.parameterCount(); ++i) {
    const Instruction* p = computation.parameter(i);
    if (!p->shape().isArray() || p->shape().rank() != 0)
      return jit::cannotCompile(*p, "a scalar function's parameter must be a scalar");
    ElementType declared = p->shape().type();
    ElementType stored = i < static_cast<int>(argTypes.size()) ? argTypes[i] : declared;
    if (stored == declared) {
      emitter.bindArray(p, f.arg(i));
      continue;
    }
    // Converted into a local of the declared type, which the body reads.
    HLO_ASSIGN_OR_RETURN(llvm::Value * converted, f.loadArg(i, stored, declared, *p));
    llvm::AllocaInst* local = emitter.entryAlloca(emitter.storageType(declared), p->name());
    emitter.store(converted, local, f.builder().getInt64(0), declared);
    emitter.bindArray(p, local);
  }
  // The results: the root, or the elements of a tuple it returns (built by
  // a tuple, or by a fusion whose root is one).
  const Instruction* root = computation.root();
  std::vector<Shape> results = root->shape().isTuple() ? root->shape().tupleElements() : std::vector<Shape>{root->shape()};
  for (size_t k = 0; k < results.size(); ++k) {
    if (!results[k].isArray() || results[k].rank() != 0)
      return jit::cannotCompile(*root, "a scalar function's result must be scalars");
    HLO_ASSIGN_OR_RETURN(llvm::Value * v, root->shape().isTuple()
                                              ? emitter.emitTupleElement(*root, static_cast<int64_t>(k), emitter.scalarIndex())
                                              : emitter.emit(*root, emitter.scalarIndex()));
    ElementType declared = results[k].type();
    HLO_RETURN_IF_ERROR(f.storeResult(k, v, declared, k < resultTypes.size() ? resultTypes[k] : declared, *root));
  }
  return okStatus();
}

}  // namespace

Status emitScalarFunction(llvm::Module& module, const Computation& computation, const std::string& name,
                          const std::vector<ElementType>& argTypes, const std::vector<ElementType>& resultTypes) {
  ScalarFnBuilder f(module, name);
  return f.finish(emitScalarBody(f, computation, argTypes, resultTypes), computation.name());
}

Status emitConvertFunction(llvm::Module& module, const Instruction& instr, const std::string& name,
                           const std::vector<ElementType>& from, const std::vector<ElementType>& to) {
  ScalarFnBuilder f(module, name);
  Status body;
  for (size_t k = 0; k < from.size() && k < to.size() && body.ok(); ++k) {
    StatusOr<llvm::Value*> v = f.loadArg(k, from[k], to[k], instr);
    body = v.ok() ? f.storeResult(k, *v, to[k], to[k], instr) : v.status();
  }
  return f.finish(body, name);
}

}  // namespace hlo::cpu
