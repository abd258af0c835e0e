// Vector variants of the emitter's math functions, and their inlining
// (vector_math.h).
#include "backends/cpu/vector_math.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include <algorithm>
#include <string>
#include <vector>

#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

constexpr int kLanes[] = {4, 8, 16};

std::string variantName(const char* scalar, int lanes) { return std::string(scalar) + "_v" + std::to_string(lanes); }

// vscalefps: p * 2^floor(n), one rounding; NaN in, NaN out. 512-bit vectors
// need AVX-512F, narrower ones AVX-512VL.
jit::Pow2Scale x86Scalef(int lanes) {
  return [lanes](llvm::IRBuilder<>& b, llvm::Value* p, llvm::Value* n) -> llvm::Value* {
    llvm::Value* all = llvm::Constant::getAllOnesValue(lanes == 16 ? b.getInt16Ty() : b.getInt8Ty());
    llvm::Value* passThrough = llvm::PoisonValue::get(p->getType());
    if (lanes == 16)  // rounding: the current direction (4)
      return b.CreateIntrinsic(llvm::Intrinsic::x86_avx512_mask_scalef_ps_512, {},
                               {p, n, passThrough, all, b.getInt32(4)});
    auto id = lanes == 8 ? llvm::Intrinsic::x86_avx512_mask_scalef_ps_256
                         : llvm::Intrinsic::x86_avx512_mask_scalef_ps_128;
    return b.CreateIntrinsic(id, {}, {p, n, passThrough, all});
  };
}

// <lanes x float> exp: the scalar function's algorithm on vectors.
llvm::Function* defineExpVariant(llvm::Module& module, const llvm::Function& scalar, int lanes, bool avx512f,
                                 bool avx512vl) {
  llvm::LLVMContext& context = module.getContext();
  llvm::Type* vector = llvm::FixedVectorType::get(llvm::Type::getFloatTy(context), lanes);
  auto* f = llvm::Function::Create(llvm::FunctionType::get(vector, {vector}, false),
                                   llvm::GlobalValue::InternalLinkage, variantName(jit::kExpF32, lanes), module);
  f->setDoesNotThrow();
  f->setDoesNotAccessMemory();
  f->setWillReturn();
  f->addFnAttr(llvm::Attribute::NoInline);
  // The scalar function's target (CPU, features, vector width).
  for (const char* kind : {"target-cpu", "target-features", "prefer-vector-width"})
    if (scalar.hasFnAttribute(kind)) f->addFnAttr(scalar.getFnAttribute(kind));
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(context, "entry", f));
  bool scalef = lanes == 16 ? avx512f : avx512vl;
  b.CreateRet(jit::emitExpF32(b, f->getArg(0), scalef ? x86Scalef(lanes) : jit::Pow2Scale{}));
  return f;
}

bool hasFeature(const llvm::TargetMachine& machine, const char* feature) {
  return machine.getTargetFeatureString().contains(std::string("+") + feature);
}

}  // namespace

void addMathVectorVariants(llvm::Module& module, const llvm::TargetMachine& machine) {
  llvm::Function* exp = module.getFunction(jit::kExpF32);
  if (!exp) return;
  bool avx512f = hasFeature(machine, "avx512f"), avx512vl = hasFeature(machine, "avx512vl");
  std::string variants;
  std::vector<llvm::GlobalValue*> keep;
  for (int lanes : kLanes) {
    llvm::Function* variant = defineExpVariant(module, *exp, lanes, avx512f, avx512vl);
    keep.push_back(variant);
    // The vector function ABI's name for "lanes lanes, one vector argument,
    // unmasked", with the variant's own name in parentheses.
    if (!variants.empty()) variants += ",";
    variants += "_ZGV_LLVM_N" + std::to_string(lanes) + "v_" + jit::kExpF32 + "(" + variant->getName().str() + ")";
  }
  exp->addFnAttr("vector-function-abi-variant", variants);
  // Nothing calls a variant until the vectorizer does: kept alive till then.
  llvm::appendToCompilerUsed(module, keep);
}

void inlineMathFunctions(llvm::Module& module) {
  std::vector<std::string> names = {jit::kExpF32};
  for (int lanes : kLanes) names.push_back(variantName(jit::kExpF32, lanes));
  std::vector<llvm::Function*> math;
  for (const std::string& name : names)
    if (llvm::Function* f = module.getFunction(name)) math.push_back(f);
  if (math.empty()) return;
  llvm::removeFromUsedLists(module, [&](llvm::Constant* c) {
    return std::find(math.begin(), math.end(), c) != math.end();
  });
  for (llvm::Function* f : math) {
    f->removeFnAttr(llvm::Attribute::NoInline);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
  }
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder passes;
  passes.registerModuleAnalyses(modules);
  passes.registerCGSCCAnalyses(sccs);
  passes.registerFunctionAnalyses(functions);
  passes.registerLoopAnalyses(loops);
  passes.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager inliner;
  inliner.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  inliner.run(module, modules);
  // The inliner deletes the functions it emptied of callers; what is left
  // (a variant the vectorizer never called) goes here.
  for (const std::string& name : names)
    if (llvm::Function* f = module.getFunction(name); f && f->use_empty()) f->eraseFromParent();
}

std::vector<LibraryVariant> libmvecVariants(const std::function<bool(const std::string&)>& has,
                                            const std::function<bool(const std::string&)>& hostHas) {
  // One argument each; LLVM's table has the SSE and AVX2 forms of the last
  // five, not their AVX-512 ones.
  static const char* const kUnary[] = {"acos", "acosh", "asin", "asinh", "atan",  "atanh", "cbrt",  "cosh", "erf",
                                       "erfc", "exp10", "exp2", "expm1", "log10", "log1p", "log2",  "sinh", "tanh",
                                       "sin",  "cos",   "tan",  "exp",   "log"};
  constexpr int kInLlvmTable = 5;
  // libmvec's instruction sets by their mangled letter: SSE4 ('b'), AVX2
  // ('d'), AVX-512 ('e'); lanes of f32 (f64 has half); the host feature
  // each needs (SSE4's forms choose their code at load time, on any x86-64).
  struct Isa {
    char letter;
    int floatLanes;
    const char* feature;
  };
  static const Isa kIsas[] = {{'b', 4, nullptr}, {'d', 8, "avx2"}, {'e', 16, "avx512f"}};
  std::vector<LibraryVariant> out;
  const int count = static_cast<int>(std::size(kUnary));
  for (int i = 0; i < count; ++i)
    for (const Isa& isa : kIsas) {
      if (i >= count - kInLlvmTable && isa.letter != 'e') continue;
      if (isa.feature && !hostHas(isa.feature)) continue;
      for (bool single : {true, false}) {
        const std::string scalar = std::string(kUnary[i]) + (single ? "f" : "");
        const int lanes = single ? isa.floatLanes : isa.floatLanes / 2;
        const std::string n = std::to_string(lanes);
        LibraryVariant v{scalar, std::string("_ZGV") + isa.letter + "N" + n + "v_" + scalar, lanes,
                         "_ZGV_LLVM_N" + n + "v"};
        if (has(v.vector)) out.push_back(std::move(v));
      }
    }
  return out;
}

void addLibraryVariants(llvm::TargetLibraryInfoImpl& library, const std::vector<LibraryVariant>& variants) {
  std::vector<llvm::VecDesc> descriptions;
  for (const LibraryVariant& v : variants)
    descriptions.emplace_back(v.scalar, v.vector, llvm::ElementCount::getFixed(v.lanes), false, v.abi);
  library.addVectorizableFunctions(descriptions);
}

}  // namespace hlo::cpu
