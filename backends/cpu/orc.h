// The CPU backend's ORC LLJIT: optimizes an LLVM module for the host CPU
// (its own vector extensions, AVX-512 where present) and turns it into
// callable machine code in this process.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "backends/cpu/vector_math.h"
#include "hlo/status.h"

namespace hlo::cpu {

class OrcJit {
 public:
  static StatusOr<std::unique_ptr<OrcJit>> create();

  // The data layout and triple kernels must be emitted for.
  void configure(llvm::Module& module) const;
  struct AddOptions {
    bool useCache = true;     // the in-memory cache, and the disk one when cacheDir is set
    std::string cacheDir;     // jit/compile_cache.h; empty: memory only
    std::string irPath;       // the optimized IR, when not empty
    std::string dumpDir;      // module.ll, module.opt.ll and module.s, when not empty
    // When set, each part's LLVM module as bitcode, before optimization
    // (what hlo-aot compiles again into an object file of its own).
    std::vector<std::string>* bitcode = nullptr;
  };
  struct AddReport {
    bool cacheHit = false;     // every part came from the cache
    int parts = 1;             // LLVM modules compiled side by side
    // Summed over the parts (CPU time); wallMs: from the first part's start
    // to the last one's end.
    double fingerprintMs = 0, optimizeMs = 0, codegenMs = 0, wallMs = 0, loadMs = 0;
    std::string cacheProblem;  // an unusable disk entry found (and rebuilt), or a failed write
  };
  // One LLVM module and the context that owns its types.
  struct Part {
    std::unique_ptr<llvm::LLVMContext> context;
    std::unique_ptr<llvm::Module> module;
  };
  // Compiles each part to an object file — LLVM's O3 pipeline for the host,
  // then code generation — unless the compile cache has it, and hands the
  // objects to the JIT. Several parts compile at once, one thread each, each
  // with a target machine of its own (LLVM contexts and target machines are
  // not shared between threads).
  StatusOr<AddReport> add(std::vector<Part> parts, const AddOptions& options);
  // The address of a compiled function (compiling the module on first use).
  StatusOr<void*> lookup(const std::string& name);
  // Code generation into an object file or assembly text.
  static StatusOr<std::string> emitFile(llvm::Module& module, llvm::TargetMachine& machine,
                                        llvm::CodeGenFileType type);

 private:
  struct CompiledPart;
  // One part's fingerprint, cache lookup, optimization and code generation;
  // `suffix` tells its dump files apart.
  StatusOr<CompiledPart> compilePart(Part& part, llvm::TargetMachine& machine, const AddOptions& options,
                                     const std::string& suffix) const;
  // LLVM's O3 pipeline for the host (with the vector math library).
  void optimize(llvm::Module& module, llvm::TargetMachine& machine) const;

  std::optional<llvm::orc::JITTargetMachineBuilder> machineBuilder_;  // a target machine per extra part
  std::unique_ptr<llvm::TargetMachine> machine_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  // glibc's vector math library (libmvec) is loaded: loops calling expf, logf,
  // sinf, ... are vectorized with its variants (LLVM's table of them, and
  // libraryVariants_, vector_math.h).
  bool vectorMath_ = false;
  std::vector<LibraryVariant> libraryVariants_;
};

// Ahead of time (hlo-aot): `module` optimized as the JIT optimizes its
// parts, for CPU `cpu` ("native": this machine's CPU and features; else an
// LLVM CPU name such as x86-64-v3, with that CPU's features), as a
// relocatable, position-independent object file.
StatusOr<std::string> compileObject(llvm::Module& module, const std::string& cpu);

}  // namespace hlo::cpu
