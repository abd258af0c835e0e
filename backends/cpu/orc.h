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
  // Runs LLVM's O3 pipeline for the host (writing the result to `irPath`
  // when it is not empty), then hands the module to the JIT.
  Status add(std::unique_ptr<llvm::Module> module, std::unique_ptr<llvm::LLVMContext> context,
             const std::string& irPath = "");
  // The address of a compiled function (compiling the module on first use).
  StatusOr<void*> lookup(const std::string& name);

 private:
  std::unique_ptr<llvm::TargetMachine> machine_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
};

}  // namespace hlo::cpu
