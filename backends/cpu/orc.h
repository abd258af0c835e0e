// The CPU backend's ORC LLJIT: optimizes an LLVM module for the host CPU
// (its own vector extensions, AVX-512 where present) and turns it into
// callable machine code in this process.
#pragma once
#include <memory>
#include <string>

#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "hlo/status.h"

namespace hlo::cpu {

class OrcJit {
 public:
  static StatusOr<std::unique_ptr<OrcJit>> create();

  // The data layout and triple kernels must be emitted for.
  void configure(llvm::Module& module) const;
  struct AddOptions {
    bool useCache = true;     // the in-memory cache, and the disk one when cacheDir is set
    std::string cacheDir;     // compile_cache.h; empty: memory only
    std::string irPath;       // the optimized IR, when not empty
    std::string dumpDir;      // module.ll, module.opt.ll and module.s, when not empty
  };
  struct AddReport {
    bool cacheHit = false;
    double fingerprintMs = 0, optimizeMs = 0, codegenMs = 0, loadMs = 0;
    std::string cacheProblem;  // an unusable disk entry found (and rebuilt), or a failed write
  };
  // Compiles the module to an object file — LLVM's O3 pipeline for the host,
  // then code generation — unless the compile cache has it, and hands the
  // object to the JIT.
  StatusOr<AddReport> add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
                          const AddOptions& options);
  // The address of a compiled function (compiling the module on first use).
  StatusOr<void*> lookup(const std::string& name);

 private:
  // LLVM's O3 pipeline for the host (with the vector math library).
  void optimize(llvm::Module& module) const;
  // Code generation into an object file or assembly text.
  StatusOr<std::string> emit(llvm::Module& module, llvm::CodeGenFileType type) const;

  std::unique_ptr<llvm::TargetMachine> machine_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  // glibc's vector math library (libmvec) is loaded: loops calling expf, logf,
  // sinf, ... are vectorized with its variants.
  bool vectorMath_ = false;
};

}  // namespace hlo::cpu
