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
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/SubtargetFeature.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include "jit/compile_cache.h"
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

double decodeSmallFloatForJit(int32_t type, uint32_t bits) {
  return decodeSmallFloat(static_cast<ElementType>(type), bits);
}

uint32_t encodeSmallFloatForJit(int32_t type, double value) {
  return encodeSmallFloat(static_cast<ElementType>(type), value);
}

void complexUnaryForJit(int32_t op, int32_t type, double re, double im, double* out) {
  const double x[2] = {re, im};
  if (!applyComplexUnary(static_cast<Opcode>(op), static_cast<ElementType>(type), x, out))
    out[0] = out[1] = std::nan("");  // unreachable: the emitter checks the opcode first
}

void complexBinaryForJit(int32_t op, int32_t type, double reA, double imA, double reB, double imB, double* out) {
  const double a[2] = {reA, imA}, b[2] = {reB, imB};
  if (!applyComplexBinary(static_cast<Opcode>(op), static_cast<ElementType>(type), a, b, out))
    out[0] = out[1] = std::nan("");  // unreachable: the emitter checks the opcode first
}

uint64_t reducePrecisionForJit(int32_t type, uint64_t bits, int32_t exponentBits, int32_t mantissaBits) {
  return reducePrecisionOf(static_cast<ElementType>(type), bits, exponentBits, mantissaBits);
}

int64_t stochasticRoundForJit(double x, uint64_t random, int32_t randomBits, int32_t targetBits) {
  return stochasticRound(x, random, randomBits, targetBits);
}

// The runtime functions compiled code calls, by address.
llvm::Error defineRuntimeFunctions(llvm::orc::LLJIT& jit) {
  llvm::orc::SymbolMap symbols;
  auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
  symbols[jit.mangleAndIntern(jit::kDecodeSmallFloat)] = {
      llvm::orc::ExecutorAddr::fromPtr(&decodeSmallFloatForJit), flags};
  symbols[jit.mangleAndIntern(jit::kEncodeSmallFloat)] = {
      llvm::orc::ExecutorAddr::fromPtr(&encodeSmallFloatForJit), flags};
  symbols[jit.mangleAndIntern(jit::kReducePrecision)] = {llvm::orc::ExecutorAddr::fromPtr(&reducePrecisionForJit), flags};
  symbols[jit.mangleAndIntern(jit::kStochasticRound)] = {llvm::orc::ExecutorAddr::fromPtr(&stochasticRoundForJit), flags};
  symbols[jit.mangleAndIntern(jit::kComplexUnary)] = {llvm::orc::ExecutorAddr::fromPtr(&complexUnaryForJit), flags};
  symbols[jit.mangleAndIntern(jit::kComplexBinary)] = {llvm::orc::ExecutorAddr::fromPtr(&complexBinaryForJit), flags};
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
    result->vectorMath_ = true;
    llvm::sys::DynamicLibrary library = llvm::sys::DynamicLibrary::getPermanentLibrary("libmvec.so.1");
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    result->libraryVariants_ = libmvecVariants(
        [&](const std::string& symbol) { return library.getAddressOfSymbol(symbol.c_str()) != nullptr; },
        [&](const std::string& feature) { return host.lookup(feature); });
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
  // Every function targets the host; with AVX-512 the vectorizer may use
  // full 512-bit vectors (LLVM otherwise prefers 256 bits on these CPUs).
  bool avx512 = machine.getTargetFeatureString().contains("+avx512f");
  for (llvm::Function& f : module) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", machine.getTargetCPU());
    f.addFnAttr("target-features", machine.getTargetFeatureString());
    if (avx512) f.addFnAttr("prefer-vector-width", "512");
  }
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
                         emit(*llvm::CloneModule(module), machine, llvm::CodeGenFileType::AssemblyFile));
    HLO_RETURN_IF_ERROR(writeFile(options.dumpDir + "/module" + suffix + ".s", assembly));
  }
  start = std::chrono::steady_clock::now();
  HLO_ASSIGN_OR_RETURN(out.object, emit(module, machine, llvm::CodeGenFileType::ObjectFile));
  out.codegenMs = msSince(start);
  if (options.useCache)
    if (std::optional<std::string> failed = cache.store(out.key, out.object)) out.cacheProblem = *failed;
  return out;
}

StatusOr<OrcJit::AddReport> OrcJit::add(std::vector<Part> parts, const AddOptions& options) {
  AddReport report;
  report.parts = static_cast<int>(parts.size());
  std::vector<std::optional<StatusOr<CompiledPart>>> compiled(parts.size());
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
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder passes(&machine);
  llvm::Triple triple(machine.getTargetTriple());
  llvm::TargetLibraryInfoImpl library(triple);
  if (vectorMath_) {
    library.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, triple);
    addLibraryVariants(library, libraryVariants_);
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

StatusOr<std::string> OrcJit::emit(llvm::Module& module, llvm::TargetMachine& machine, llvm::CodeGenFileType type) {
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
