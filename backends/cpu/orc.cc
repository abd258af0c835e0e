// ORC LLJIT set up for the host, with the C library's symbols (expf, fmod,
// ...) resolved from this process, and the runtime functions compiled code
// calls (the f8/f4 codecs, reduce-precision, stochastic-convert's rounding
// and the complex functions of jit/elemental_emitter.h)
// defined by address.
#include "backends/cpu/orc.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <mutex>
#include <thread>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "jit/compile_cache.h"
#include "backends/cpu/host_helpers.h"
#include "backends/cpu/kernel_emitter.h"
#include "backends/cpu/vector_math.h"
#include "hlo/complex_math.h"
#include "hlo/float_formats.h"
#include "hlo/reduce_precision.h"
#include "hlo/stochastic_round.h"
#include "jit/elemental_emitter.h"

namespace hlo::cpu {
namespace {

Status llvmError(const std::string& what, llvm::Error e) {
  return errorStatus("cpu: " + what + ": " + llvm::toString(std::move(e)));
}

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The host runtime's helpers the kernels call, by name.
llvm::Error defineRuntimeFunctions(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap symbols;
  auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  for (const HostHelper& helper : hostHelpers())
    symbols[jit.mangleAndIntern(helper.name)] = {llvm::orc::ExecutorAddr::fromPtr(helper.address), flags};
  return jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols)));
}

std::string printed(const llvm::Module& module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

Status writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return errorStatus("cpu: cannot write " + path);
  return okStatus();
}

// Every function targets `machine`'s CPU; with AVX-512 the vectorizer may
// use full 512-bit vectors (LLVM otherwise prefers 256 bits on these CPUs).
void targetFunctions(llvm::Module& module, const llvm::TargetMachine& machine) {
  bool avx512 = machine.getTargetFeatureString().contains("+avx512f");
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", machine.getTargetCPU());
    f.addFnAttr("target-features", machine.getTargetFeatureString());
    if (avx512) f.addFnAttr("prefer-vector-width", "512");
  }
}

// LLVM's O3 pipeline for `machine`, with the vector math library's variants
// when it is loaded, then the CPU backend's own rewrites.
void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine, bool vectorMath,
                    const std::vector<LibraryVariant>& variants) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder passes(&machine);
  llvm::Triple triple(machine.getTargetTriple());
  llvm::TargetLibraryInfoImpl library(triple);
  if (vectorMath) {
    library.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    addLibraryVariants(library, variants);
  }
  fam.registerPass([&] { return llvm::TargetLibraryAnalysis(library); });
  passes.registerModuleAnalyses(mam);
  passes.registerCGSCCAnalyses(cgam);
  passes.registerFunctionAnalyses(fam);
  passes.registerLoopAnalyses(lam);
  passes.crossRegisterProxies(lam, fam, cgam, mam);
  addMathVectorVariants(module, machine);
  passes.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
  inlineMathFunctions(module);
  markStreamingStores(module);
  prefetchNextRows(module);
}

// libmvec's variants beyond LLVM's table that this process's libmvec
// defines, in the instruction sets `hasFeature` says the target has; none
// when libmvec cannot be loaded (`loaded` false).
std::vector<LibraryVariant> loadedLibmvecVariants(const std::function<bool(const std::string&)>& hasFeature,
                                                  bool& loaded) {
  std::string error;
  llvm::sys::DynamicLibrary library = llvm::sys::DynamicLibrary::getPermanentLibrary("libmvec.so.1", &error);
  loaded = library.isValid();
  if (!loaded) return {};
  return libmvecVariants(
      [&](const std::string& symbol) { return library.getAddressOfSymbol(symbol.c_str()) != nullptr; }, hasFeature);
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
  if (llvm::Error e = defineRuntimeFunctions(**jit)) return llvmError("cannot define the runtime functions", std::move(e));
  auto result = std::make_unique<OrcJit>();
  // The vector math library, when the C library has it (glibc's libmvec).
  auto vectorMath = llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1",
                                                                  (*jit)->getDataLayout().getGlobalPrefix());
  if (vectorMath) {
    (*jit)->getMainJITDylib().addGenerator(std::move(*vectorMath));
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    result->libraryVariants_ =
        loadedLibmvecVariants([&](const std::string& feature) { return host.lookup(feature); }, result->vectorMath_);
  } else {
    llvm::consumeError(vectorMath.takeError());
  }
  result->machine_ = std::move(*machine);
  result->machineBuilder_ = std::move(*builder);
  result->jit_ = std::move(*jit);
  return result;
}

void OrcJit::configure(llvm::Module& module) const {
  module.setDataLayout(machine_->createDataLayout());
  module.setTargetTriple(machine_->getTargetTriple().str());
}

struct OrcJit::CompiledPart {
  std::string object;
  bool cacheHit = false;
  double fingerprintMs = 0, optimizeMs = 0, codegenMs = 0;
  std::string optimizedIr;  // for AddOptions::irPath
  std::string cacheProblem;
  jit::CacheKey key;
};

StatusOr<OrcJit::CompiledPart> OrcJit::compilePart(Part& part, llvm::TargetMachine& machine,
                                                   const AddOptions& options, const std::string& suffix) const {
  CompiledPart out;
  llvm::Module& module = *part.module;
  targetFunctions(module, machine);
  // The cache key: the emitted IR and everything else the code depends on.
  auto start = std::chrono::steady_clock::now();
  std::string ir = printed(module);
  out.key = jit::cacheKeyOf({ir, machine.getTargetTriple().str(), machine.getTargetCPU(),
                             machine.getTargetFeatureString(), LLVM_VERSION_STRING,
                             vectorMath_ ? "libmvec" : "no vector math", std::to_string(libraryVariants_.size()),
                             std::to_string(jit::kCacheVersion)});
  jit::CompileCache cache(options.cacheDir);
  std::optional<std::string> object;
  // Dumps of the optimized IR and the assembly come from compiling: when
  // they are asked for, the cache is written but not read.
  const bool dumps = !options.dumpDir.empty() || !options.irPath.empty();
  if (options.useCache && !dumps) object = cache.lookup(out.key, &out.cacheProblem);
  out.fingerprintMs = msSince(start);
  if (!options.dumpDir.empty()) HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module" + suffix + ".ll", ir));
  if (object) {
    out.cacheHit = true;
    out.object = std::move(*object);
    return out;
  }
  start = std::chrono::steady_clock::now();
  optimize(module, machine);
  out.optimizeMs = msSince(start);
  if (!options.irPath.empty()) out.optimizedIr = printed(module);
  if (!options.dumpDir.empty()) {
    HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module" + suffix + ".opt.ll", printed(module)));
    // Code generation changes the module it runs on: the assembly comes from a copy.
    HLO_ASSIGN_OR_RETURN(std::string assembly,
                         emitFile(*llvm::CloneModule(module), machine, llvm::CodeGenFileType::AssemblyFile));
    HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module" + suffix + ".s", assembly));
  }
  start = std::chrono::steady_clock::now();
  HLO_ASSIGN_OR_RETURN(out.object, emitFile(module, machine, llvm::CodeGenFileType::ObjectFile));
  out.codegenMs = msSince(start);
  if (options.useCache)
    if (std::optional<std::string> failed = cache.store(out.key, out.object)) out.cacheProblem = *failed;
  return out;
}

StatusOr<OrcJit::AddReport> OrcJit::add(std::vector<Part> parts, const AddOptions& options) {
  AddReport report;
  report.parts = static_cast<int>(parts.size());
  std::vector<std::optional<StatusOr<CompiledPart>>> compiled(parts.size());
  if (options.bitcode)
    for (const Part& part : parts) {
      std::string bytes;
      llvm::raw_string_ostream os(bytes);
      llvm::WriteBitcodeToFile(*part.module, os);
      os.flush();
      options.bitcode->push_back(std::move(bytes));
    }
  auto start = std::chrono::steady_clock::now();
  if (parts.size() == 1) {
    compiled[0] = compilePart(parts[0], *machine_, options, "");
  } else {
    // Part i is written module.<i>.ll, ... in dumps.
    std::vector<std::unique_ptr<llvm::TargetMachine>> machines;
    for (size_t i = 0; i < parts.size(); ++i) {
      auto machine = machineBuilder_->createTargetMachine();
      if (!machine) return llvmError("cannot create a target machine", machine.takeError());
      machines.push_back(std::move(*machine));
    }
    std::vector<std::thread> threads;
    for (size_t i = 0; i < parts.size(); ++i)
      threads.emplace_back([&, i] { compiled[i] = compilePart(parts[i], *machines[i], options, "." + std::to_string(i)); });
    for (std::thread& t : threads) t.join();
  }
  report.wallMs = msSince(start);
  report.cacheHit = true;
  std::string optimizedIr;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!compiled[i]->ok()) return compiled[i]->status();
    CompiledPart& c = compiled[i]->value();
    report.cacheHit = report.cacheHit && c.cacheHit;
    report.fingerprintMs += c.fingerprintMs;
    report.optimizeMs += c.optimizeMs;
    report.codegenMs += c.codegenMs;
    if (!c.cacheProblem.empty()) report.cacheProblem = c.cacheProblem;
    optimizedIr += c.optimizedIr;
  }
  if (!options.irPath.empty() && !optimizedIr.empty()) HLO_RETURN_IF_ERROR(writeFile(options.irPath, optimizedIr));
  start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < parts.size(); ++i) {
    CompiledPart& c = compiled[i]->value();
    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(c.object, "hlo-module-" + jit::toHex(c.key).substr(0, 16) + ".o");
    if (llvm::Error e = jit_->addObjectFile(std::move(buffer))) return llvmError("cannot load the object", std::move(e));
  }
  report.loadMs = msSince(start);
  // The IR is no longer needed once it is machine code; each module goes
  // before the context that owns its types.
  for (Part& part : parts) {
    part.module.reset();
    part.context.reset();
  }
  return report;
}

void OrcJit::optimize(llvm::Module& module, llvm::TargetMachine& machine) const {
  optimizeModule(module, machine, vectorMath_, libraryVariants_);
}

StatusOr<std::string> OrcJit::emitFile(llvm::Module& module, llvm::TargetMachine& machine, llvm::CodeGenFileType type) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr, type))
    return errorStatus("cpu: the target cannot write this kind of file");
  codegen.run(module);
  return std::string(bytes.data(), bytes.size());
}

StatusOr<void*> OrcJit::lookup(const std::string& name) {
  auto address = jit_->lookup(name);
  if (!address) return llvmError("cannot find " + name, address.takeError());
  return address->toPtr<void*>();
}

}  // namespace hlo::cpu

namespace hlo::cpu {

StatusOr<std::string> compileObject(llvm::Module& module, const std::string& cpu) {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
  const std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return errorStatus("cpu: no target for " + triple + ": " + error);
  const bool native = cpu == "native";
  std::string features;
  if (native) {
    llvm::SubtargetFeatures host;
    for (const auto& [name, enabled] : llvm::sys::getHostCPUFeatures()) host.AddFeature(name, enabled);
    features = host.getString();
  }
  const std::string cpuName = native ? llvm::sys::getHostCPUName().str() : cpu;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpuName, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine) return errorStatus("cpu: cannot create a target machine for " + cpuName);
  if (!machine->getMCSubtargetInfo()->isCPUStringValid(cpuName))
    return errorStatus("cpu: unknown target CPU '" + cpuName + "' (LLVM's x86 names: x86-64-v3, skylake-avx512, znver4, ...)");
  module.setDataLayout(machine->createDataLayout());
  module.setTargetTriple(triple);
  targetFunctions(module, *machine);
  bool vectorMath = false;
  const llvm::MCSubtargetInfo& subtarget = *machine->getMCSubtargetInfo();
  std::vector<LibraryVariant> variants = loadedLibmvecVariants(
      [&](const std::string& feature) { return subtarget.checkFeatures("+" + feature); }, vectorMath);
  optimizeModule(module, *machine, vectorMath, variants);
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(module, &os)) return errorStatus("cpu: internal error: bad IR after optimization: " + problems);
  return OrcJit::emitFile(module, *machine, llvm::CodeGenFileType::ObjectFile);
}

}  // namespace hlo::cpu
