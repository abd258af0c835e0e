// PTX from IR built by hand: kernel marking, libdevice inlined with IEEE
// results, shared memory, barriers and warp shuffles; ptxas as the judge.
#include "backends/gpu/nvptx.h"

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "backends/gpu/libdevice.h"
#include "backends/gpu/ptxas.h"

namespace hlo::gpu {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string without(std::string text, const std::string& part) {
  for (size_t at; (at = text.find(part)) != std::string::npos;) text.erase(at, part.size());
  return text;
}

// i = ctaid.x * ntid.x + tid.x, as an i64.
llvm::Value* globalThreadIndex(llvm::IRBuilder<>& b, llvm::Module& m) {
  auto sreg = [&](llvm::Intrinsic::ID id) {
    return b.CreateZExt(b.CreateCall(llvm::Intrinsic::getDeclaration(&m, id)), b.getInt64Ty());
  };
  return b.CreateAdd(b.CreateMul(sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                 sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
                     sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
}

// void k(float* in, float* out, i64 n) { if (i < n) out[i] = __nv_expf(in[i]); }
std::unique_ptr<llvm::Module> expKernel(llvm::LLVMContext& context) {
  auto m = std::make_unique<llvm::Module>("exp", context);
  llvm::IRBuilder<> b(context);
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy(), b.getInt64Ty()}, false);
  llvm::Function* k = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "k", *m);
  llvm::FunctionCallee expf =
      m->getOrInsertFunction("__nv_expf", llvm::FunctionType::get(b.getFloatTy(), {b.getFloatTy()}, false));
  auto* entry = llvm::BasicBlock::Create(context, "entry", k);
  auto* body = llvm::BasicBlock::Create(context, "body", k);
  auto* exit = llvm::BasicBlock::Create(context, "exit", k);
  b.SetInsertPoint(entry);
  llvm::Value* i = globalThreadIndex(b, *m);
  b.CreateCondBr(b.CreateICmpSLT(i, k->getArg(2)), body, exit);
  b.SetInsertPoint(body);
  llvm::Value* x = b.CreateLoad(b.getFloatTy(), b.CreateGEP(b.getFloatTy(), k->getArg(0), i));
  b.CreateStore(b.CreateCall(expf, {x}), b.CreateGEP(b.getFloatTy(), k->getArg(1), i));
  b.CreateBr(exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  markKernel(*k, 256);
  return m;
}

// Each block stages 256 values in shared memory, then each thread adds its
// mirror element and the value 16 lanes down:
//   tile[t] = in[i]; barrier; v = tile[255 - t]; out[i] = v + shfl.down(v, 16)
std::unique_ptr<llvm::Module> sharedKernel(llvm::LLVMContext& context) {
  auto m = std::make_unique<llvm::Module>("shared", context);
  llvm::IRBuilder<> b(context);
  auto* tileType = llvm::ArrayType::get(b.getFloatTy(), 256);
  auto* tile = new llvm::GlobalVariable(*m, tileType, false, llvm::GlobalValue::InternalLinkage,
                                        llvm::PoisonValue::get(tileType), "tile", nullptr,
                                        llvm::GlobalValue::NotThreadLocal, /*AddressSpace=*/3);
  tile->setAlignment(llvm::Align(4));
  auto* type = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy()}, false);
  llvm::Function* k = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, "mirror", *m);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", k));
  llvm::Value* i = globalThreadIndex(b, *m);
  llvm::Value* t = b.CreateCall(llvm::Intrinsic::getDeclaration(m.get(), llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
  llvm::Value* x = b.CreateLoad(b.getFloatTy(), b.CreateGEP(b.getFloatTy(), k->getArg(0), i));
  b.CreateStore(x, b.CreateInBoundsGEP(tileType, tile, {b.getInt32(0), t}));
  b.CreateCall(llvm::Intrinsic::getDeclaration(m.get(), llvm::Intrinsic::nvvm_barrier0));
  llvm::Value* v = b.CreateLoad(b.getFloatTy(),
                                b.CreateInBoundsGEP(tileType, tile, {b.getInt32(0), b.CreateSub(b.getInt32(255), t)}));
  llvm::Value* down = b.CreateCall(llvm::Intrinsic::getDeclaration(m.get(), llvm::Intrinsic::nvvm_shfl_sync_down_f32),
                                   {b.getInt32(-1), v, b.getInt32(16), b.getInt32(31)});
  b.CreateStore(b.CreateFAdd(v, down), b.CreateGEP(b.getFloatTy(), k->getArg(1), i));
  b.CreateRetVoid();
  markKernel(*k, 256);
  return m;
}

// ptxas is part of the CUDA toolkit, which a build machine need not have.
#define ASSEMBLE_OR_SKIP(ptx, arch)                                                             \
  do {                                                                                          \
    if (!findCudaTool("ptxas").ok()) GTEST_SKIP() << "ptxas not found (" << findCudaTool("ptxas").status().message() \
                                        << "); the PTX was not assembled";                      \
    Status assembled = assembleWithPtxas(ptx, arch);                                            \
    EXPECT_TRUE(assembled.ok()) << assembled.message() << "\n" << ptx;                          \
  } while (0)

#define SKIP_WITHOUT_LIBDEVICE()                                                                \
  do {                                                                                          \
    if (!findLibdevice().ok()) GTEST_SKIP() << findLibdevice().status().message();              \
  } while (0)

// Sets an environment variable for one test and restores it after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(NvptxTest, ExpKernelForSm90InlinesLibdeviceWithoutFlushToZero) {
  SKIP_WITHOUT_LIBDEVICE();
  llvm::LLVMContext context;
  auto m = expKernel(context);
  PtxDumps dumps;
  StatusOr<std::string> ptx = compileToPtx(*m, PtxTarget{"sm_90", ""}, &dumps);
  ASSERT_TRUE(ptx.ok()) << ptx.status().message();
  EXPECT_TRUE(contains(*ptx, ".target sm_90")) << *ptx;
  EXPECT_TRUE(contains(*ptx, ".entry k(")) << *ptx;
  EXPECT_TRUE(contains(*ptx, ".maxntid 256, 1, 1")) << *ptx;
  EXPECT_TRUE(contains(*ptx, "ex2.approx")) << *ptx;  // libdevice's expf
  EXPECT_FALSE(contains(*ptx, "__nv_expf")) << *ptx;  // inlined, not called
  EXPECT_FALSE(contains(*ptx, "call")) << *ptx;
  // nvvm-reflect-ftz = 0 picked libdevice's IEEE branches. Its expf calls
  // ex2.approx.ftz on either branch, on a reduced argument whose result is
  // near 1, so flushing there cannot change the result.
  EXPECT_TRUE(contains(*ptx, "fma.rn.f32")) << *ptx;
  EXPECT_FALSE(contains(without(*ptx, "ex2.approx.ftz.f32"), ".ftz")) << *ptx;
  // NVVMReflect ran: no reflect query is left for the back end.
  EXPECT_TRUE(contains(dumps.ir, "declare float @__nv_expf(float)"));
  EXPECT_FALSE(contains(dumps.optimizedIr, "__nvvm_reflect")) << dumps.optimizedIr;
  EXPECT_FALSE(contains(dumps.optimizedIr, "@__nv_")) << dumps.optimizedIr;  // internalized, then dropped
  ASSEMBLE_OR_SKIP(*ptx, "sm_90");
}

TEST(NvptxTest, ExpKernelForSm80) {
  SKIP_WITHOUT_LIBDEVICE();
  llvm::LLVMContext context;
  auto m = expKernel(context);
  StatusOr<std::string> ptx = compileToPtx(*m, PtxTarget{"sm_80", ""});
  ASSERT_TRUE(ptx.ok()) << ptx.status().message();
  EXPECT_TRUE(contains(*ptx, ".target sm_80")) << *ptx;
  EXPECT_TRUE(contains(*ptx, ".entry k(")) << *ptx;
  EXPECT_TRUE(contains(*ptx, "ex2.approx")) << *ptx;
  ASSEMBLE_OR_SKIP(*ptx, "sm_80");
}

TEST(NvptxTest, ChosenPtxVersionIsPrinted) {
  llvm::LLVMContext context;
  auto m = sharedKernel(context);
  StatusOr<std::string> ptx = compileToPtx(*m, PtxTarget{"sm_90", "+ptx85"});
  ASSERT_TRUE(ptx.ok()) << ptx.status().message();
  EXPECT_TRUE(contains(*ptx, ".version 8.5")) << *ptx;
  ASSEMBLE_OR_SKIP(*ptx, "sm_90");
}

TEST(NvptxTest, SharedMemoryBarrierAndShuffle) {
  llvm::LLVMContext context;
  auto m = sharedKernel(context);
  StatusOr<std::string> ptx = compileToPtx(*m, PtxTarget{});
  ASSERT_TRUE(ptx.ok()) << ptx.status().message();
  EXPECT_TRUE(contains(*ptx, ".entry mirror(")) << *ptx;
  EXPECT_TRUE(contains(*ptx, ".shared .align 4 .b8 tile[1024]")) << *ptx;
  EXPECT_TRUE(contains(*ptx, "st.shared.f32")) << *ptx;
  EXPECT_TRUE(contains(*ptx, "bar.sync")) << *ptx;
  EXPECT_TRUE(contains(*ptx, "shfl.sync.down.b32")) << *ptx;
  ASSEMBLE_OR_SKIP(*ptx, "sm_90");
}

TEST(NvptxTest, MissingLibdeviceIsAClearErrorWhenNeeded) {
  ScopedEnv env("HLO_LIBDEVICE", "/nonexistent");
  llvm::LLVMContext context;
  auto m = expKernel(context);
  StatusOr<std::string> ptx = compileToPtx(*m, PtxTarget{});
  ASSERT_FALSE(ptx.ok());
  EXPECT_TRUE(contains(ptx.status().message(), "libdevice not found")) << ptx.status().message();
  EXPECT_TRUE(contains(ptx.status().message(), "HLO_LIBDEVICE=/nonexistent")) << ptx.status().message();
}

TEST(NvptxTest, MissingLibdeviceIsNoErrorWhenNotNeeded) {
  ScopedEnv env("HLO_LIBDEVICE", "/nonexistent");
  llvm::LLVMContext context;
  auto m = sharedKernel(context);
  StatusOr<std::string> ptx = compileToPtx(*m, PtxTarget{});
  EXPECT_TRUE(ptx.ok()) << ptx.status().message();
}

TEST(NvptxTest, UnknownSmIsRefused) {
  llvm::LLVMContext context;
  auto m = sharedKernel(context);
  StatusOr<std::string> ptx = compileToPtx(*m, PtxTarget{"sm_1000", ""});
  ASSERT_FALSE(ptx.ok());
  EXPECT_TRUE(contains(ptx.status().message(), "'sm_1000'")) << ptx.status().message();
}

TEST(NvptxTest, UnknownPtxVersionIsRefused) {
  llvm::LLVMContext context;
  llvm::Module m("empty", context);
  Status status = configureForNvptx(m, PtxTarget{"sm_90", "+ptx99"});
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(contains(status.message(), "'+ptx99'")) << status.message();
}

TEST(NvptxTest, ConfigureSetsTripleAndDataLayout) {
  llvm::LLVMContext context;
  llvm::Module m("empty", context);
  ASSERT_TRUE(configureForNvptx(m, PtxTarget{}).ok());
  EXPECT_EQ(m.getTargetTriple(), "nvptx64-nvidia-cuda");
  EXPECT_TRUE(m.getDataLayout().getPointerSizeInBits() == 64);
}

TEST(NvptxTest, PtxasReportsItsErrors) {
  if (!findCudaTool("ptxas").ok()) GTEST_SKIP() << findCudaTool("ptxas").status().message();
  Status status = assembleWithPtxas(".version 7.8\n.target sm_90\n.address_size 64\nnot ptx;\n", "sm_90");
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(contains(status.message(), "ptxas -arch=sm_90 failed")) << status.message();
  EXPECT_TRUE(contains(status.message(), "error")) << status.message();
}

}  // namespace
}  // namespace hlo::gpu
