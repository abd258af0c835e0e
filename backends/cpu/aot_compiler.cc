#include "backends/cpu/aot_compiler.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include "backends/cpu/aot_header.h"
#include "backends/cpu/aot_image.h"
#include "backends/cpu/cpu_options.h"
#include "backends/cpu/orc.h"
#include "jit/executable.h"

namespace hlo::cpu {
namespace {

// The kernels' LLVM modules from their bitcode, linked into one.
StatusOr<std::unique_ptr<llvm::Module>> linkedKernels(const std::vector<std::string>& bitcode,
                                                      llvm::LLVMContext& context) {
  std::unique_ptr<llvm::Module> linked;
  for (const std::string& part : bitcode) {
    auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(part, "kernels"), context);
    if (!parsed) return errorStatus("cpu: cannot read back the kernels' bitcode: " + llvm::toString(parsed.takeError()));
    if (!linked) {
      linked = std::move(*parsed);
      continue;
    }
    if (llvm::Linker::linkModules(*linked, std::move(*parsed)))
      return errorStatus("cpu: cannot link the kernels' LLVM modules");
  }
  if (!linked) return errorStatus("cpu: the compile kept no kernel module");
  return linked;
}

// Step 2: the image and its tables; every other definition internal.
Status addImage(llvm::Module& module, const AotPlan& plan, const std::string& symbol) {
  llvm::LLVMContext& context = module.getContext();
  for (llvm::Function& f : module)
    if (!f.isDeclaration()) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::GlobalVariable& g : module.globals())
    if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
  if (module.getNamedValue(symbol)) return errorStatus("hlo-aot: the name " + symbol + " is taken inside the module");

  llvm::Constant* planBytes = llvm::ConstantDataArray::getString(context, plan.record, /*AddNull=*/false);
  auto* planGlobal = new llvm::GlobalVariable(module, planBytes->getType(), /*isConstant=*/true,
                                              llvm::GlobalValue::PrivateLinkage, planBytes, symbol + ".plan");
  llvm::PointerType* ptr = llvm::PointerType::get(context, 0);
  std::vector<llvm::Constant*> functions;
  for (const std::string& name : plan.functionNames) {
    llvm::Function* f = module.getFunction(name);
    if (!f || f->isDeclaration()) return errorStatus("cpu: internal error: no compiled function " + name);
    functions.push_back(f);
  }
  llvm::ArrayType* tableType = llvm::ArrayType::get(ptr, functions.size());
  auto* table = new llvm::GlobalVariable(module, tableType, true, llvm::GlobalValue::PrivateLinkage,
                                         llvm::ConstantArray::get(tableType, functions), symbol + ".functions");
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::StructType* imageType = llvm::StructType::get(context, {i64, ptr, i64, ptr, i64});
  llvm::Constant* image = llvm::ConstantStruct::get(
      imageType, {llvm::ConstantInt::get(i64, kAotImageVersion), planGlobal, llvm::ConstantInt::get(i64, plan.record.size()),
                  table, llvm::ConstantInt::get(i64, functions.size())});
  new llvm::GlobalVariable(module, imageType, true, llvm::GlobalValue::ExternalLinkage, image, symbol);
  return okStatus();
}

}  // namespace

StatusOr<AotOutput> compileAheadOfTime(const Module& module, const AotOptions& options) {
  if (!isCIdentifier(options.name))
    return errorStatus("hlo-aot: --name=" + options.name + " is not a C identifier");
  HLO_RETURN_IF_ERROR(checkAotSignature(module));
  // 1.
  std::vector<std::string> bitcode;
  CpuOptions cpu;
  cpu.llvmParts = 1;
  cpu.llvmBitcode = &bitcode;
  jit::CompileOptions compile;
  compile.useCache = false;
  HLO_ASSIGN_OR_RETURN(std::unique_ptr<jit::Executable> exe,
                       jit::compile(module, "cpu", withCpuOptions(std::move(compile), cpu)));
  const auto* compiled = dynamic_cast<const CpuExecutable*>(exe.get());
  if (!compiled)
    return errorStatus("hlo-aot: the module has runtime sizes, which ahead-of-time code does not take");
  HLO_ASSIGN_OR_RETURN(AotPlan plan, writeAotPlan(*compiled));
  // 2.
  llvm::LLVMContext context;
  HLO_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> kernels, linkedKernels(bitcode, context));
  HLO_RETURN_IF_ERROR(addImage(*kernels, plan, "hlo_aot_" + options.name));
  // 3.
  AotOutput out;
  HLO_ASSIGN_OR_RETURN(out.object, compileObject(*kernels, options.cpu));
  // 4.
  out.arenaBytes = compiled->arenaBytes();
  out.planBytes = plan.record.size();
  out.functions = plan.functionNames.size();
  HLO_ASSIGN_OR_RETURN(out.header, aotHeader(module, {options.name, options.cppNamespace, options.sourceName,
                                                       out.arenaBytes}));
  return out;
}

}  // namespace hlo::cpu
