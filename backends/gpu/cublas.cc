// dot through cuBLAS (cublas.h).
#include "backends/gpu/cublas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <optional>
#include <mutex>
#include <numeric>
#include <vector>

#include "hlo/contraction.h"
#include "jit/elemental_emitter.h"

namespace hlo::gpu {

namespace {

// Whether `perm` is 0, 1, ..., n-1.
bool identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

// The element types cuBLAS multiplies: cuBLAS's name for each
// (cudaDataType_t), whether it computes in f64 (else f32), and whether its
// products may also be written as f32.
struct CublasType {
  ElementType type;
  int cudaDataType;
  bool computesInF64;
  bool intoF32;
};
constexpr CublasType kCublasTypes[] = {
    {ElementType::kF32, 0, false, false},   // CUDA_R_32F
    {ElementType::kF64, 1, true, false},    // CUDA_R_64F
    {ElementType::kF16, 2, false, true},    // CUDA_R_16F
    {ElementType::kC64, 4, false, false},   // CUDA_C_32F
    {ElementType::kC128, 5, true, false},   // CUDA_C_64F
    {ElementType::kBF16, 14, false, true},  // CUDA_R_16BF
};

const CublasType* cublasType(ElementType t) {
  for (const CublasType& c : kCublasTypes)
    if (c.type == t) return &c;
  return nullptr;
}

bool supportedTypes(ElementType lhs, ElementType rhs, ElementType result) {
  const CublasType* c = cublasType(lhs);
  return c && rhs == lhs && (result == lhs || (c->intoF32 && result == ElementType::kF32));
}

// cublasComputeType_t, cublasOperation_t, cublasGemmAlgo_t.
constexpr int kComputeF32 = 68;  // CUBLAS_COMPUTE_32F: no TF32
constexpr int kComputeF64 = 70;  // CUBLAS_COMPUTE_64F
constexpr int kOpN = 0, kOpT = 1;
constexpr int kGemmDefault = -1;  // CUBLAS_GEMM_DEFAULT

// Dots of at most this many multiply-adds are kernels (a thread per output
// element): a library call costs more than they do.
constexpr int64_t kElementDotProducts = int64_t{1} << 15;

}  // namespace

StatusOr<GemmPlan> gemmPlanOf(const Instruction& dot) {
  if (dot.opcode() != Opcode::kDot || dot.operandCount() != 2 || !dot.shape().isArray())
    return errorStatus("not a dot of two operands");
  const Shape& lhs = dot.operand(0)->shape();
  const Shape& rhs = dot.operand(1)->shape();
  HLO_ASSIGN_OR_RETURN(DotDims d, dotDims(dot.attrs(), lhs, rhs));
  GemmPlan plan;
  plan.lhsType = lhs.type();
  plan.rhsType = rhs.type();
  plan.resultType = dot.shape().type();
  if (!supportedTypes(plan.lhsType, plan.rhsType, plan.resultType))
    return errorStatus("cuBLAS multiplies f32, f64, c64, c128, and f16 or bf16 into themselves or f32");
  const std::vector<int64_t>& lb = dot.attrs().getInts(AttrKey::kLhsBatchDims);
  const std::vector<int64_t>& rb = dot.attrs().getInts(AttrKey::kRhsBatchDims);
  const std::vector<int64_t>& lc = dot.attrs().getInts(AttrKey::kLhsContractingDims);
  const std::vector<int64_t>& rc = dot.attrs().getInts(AttrKey::kRhsContractingDims);
  // Batch dimensions leading, in the same order on both sides.
  std::vector<int64_t> leading(lb.size());
  std::iota(leading.begin(), leading.end(), 0);
  if (lb != leading || rb != leading) return errorStatus("the batch dimensions do not lead both operands");
  std::vector<int64_t> lhsAlternative = lb, rhsAlternative = rb;
  lhsAlternative.insert(lhsAlternative.end(), lc.begin(), lc.end());
  lhsAlternative.insert(lhsAlternative.end(), d.lhsFree.begin(), d.lhsFree.end());
  rhsAlternative.insert(rhsAlternative.end(), d.rhsFree.begin(), d.rhsFree.end());
  rhsAlternative.insert(rhsAlternative.end(), rc.begin(), rc.end());
  if (identity(d.lhsPerm)) plan.lhsTransposed = false;
  else if (identity(lhsAlternative)) plan.lhsTransposed = true;
  else return errorStatus("the lhs is not [batch, m, k] or [batch, k, m] in memory");
  if (identity(d.rhsPerm)) plan.rhsTransposed = false;
  else if (identity(rhsAlternative)) plan.rhsTransposed = true;
  else return errorStatus("the rhs is not [batch, k, n] or [batch, n, k] in memory");
  plan.batch = d.batch;
  plan.m = d.m;
  plan.n = d.n;
  plan.k = d.k;
  constexpr int64_t kIntMax = 0x7fffffff;
  if (plan.batch > kIntMax || plan.m > kIntMax || plan.n > kIntMax || plan.k > kIntMax)
    return errorStatus("a dimension beyond cuBLAS's 32-bit sizes");
  return plan;
}

std::optional<GemmPlan> cublasDotOf(const Instruction& instr) {
  if (instr.opcode() != Opcode::kDot || jit::emitsDot(instr, kElementDotProducts)) return std::nullopt;
  StatusOr<GemmPlan> plan = gemmPlanOf(instr);
  if (!plan.ok()) return std::nullopt;
  return *plan;
}

// The entry points, resolved from the library.
struct Cublas::Api {
  int (*create)(void** handle) = nullptr;
  int (*setStream)(void* handle, CUstream stream) = nullptr;
  int (*gemmStridedBatchedEx)(void* handle, int transa, int transb, int m, int n, int k, const void* alpha,
                              const void* a, int aType, int lda, long long strideA, const void* b, int bType, int ldb,
                              long long strideB, const void* beta, void* c, int cType, int ldc, long long strideC,
                              int batchCount, int computeType, int algo) = nullptr;
  const char* (*statusString)(int status) = nullptr;  // may be absent
};

namespace {

std::string dlerrorText() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

// The library's handle and the path it came from, or why none opened.
StatusOr<std::pair<void*, std::string>> openCublas() {
  std::vector<std::string> candidates;
  if (const char* own = std::getenv("HLO_CUBLAS"); own && *own) {
    candidates.push_back(own);
  } else {
    candidates = {"libcublas.so.13", "libcublas.so.12"};
    const char* home = std::getenv("CUDA_HOME");
    for (std::string root : {std::string(home ? home : ""), std::string("/usr/local/cuda")})
      if (!root.empty()) candidates.push_back(root + "/lib64/libcublas.so.13");
  }
  std::string tried;
  for (const std::string& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)) return std::make_pair(h, c);
    tried += (tried.empty() ? "" : "; ") + dlerrorText();
  }
  return errorStatus("gpu: cannot open cuBLAS for dot (" + tried + "); give its path in HLO_CUBLAS");
}

}  // namespace

StatusOr<Cublas*> Cublas::get(const CudaDriver& driver) {
  static std::mutex mutex;
  static Cublas* opened = nullptr;
  static std::optional<Status> failed;
  std::lock_guard<std::mutex> lock(mutex);
  if (opened) return opened;
  if (failed) return *failed;
  auto fail = [&](Status s) -> StatusOr<Cublas*> {
    failed = s;
    return s;
  };
  StatusOr<std::pair<void*, std::string>> library = openCublas();
  if (!library.ok()) return fail(library.status());
  auto [handle, path] = *library;
  auto api = std::make_unique<Api>();
  auto resolve = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
    return fn != nullptr;
  };
  if (!resolve(api->create, "cublasCreate_v2") || !resolve(api->setStream, "cublasSetStream_v2") ||
      !resolve(api->gemmStridedBatchedEx, "cublasGemmStridedBatchedEx"))
    return fail(errorStatus("gpu: " + path + " is no cuBLAS (cublasCreate_v2, cublasSetStream_v2 or "
                                             "cublasGemmStridedBatchedEx missing)"));
  resolve(api->statusString, "cublasGetStatusString");
  HLO_RETURN_IF_ERROR(driver.makeCurrent());
  void* h = nullptr;
  if (int status = api->create(&h); status != 0)
    return fail(errorStatus("gpu: cublasCreate failed (status " + std::to_string(status) + ") with " + path));
  if (int status = api->setStream(h, nullptr); status != 0)
    return fail(errorStatus("gpu: cublasSetStream failed (status " + std::to_string(status) + ")"));
  auto* cublas = new Cublas();  // lives as long as the process, as the driver does
  cublas->driver_ = &driver;
  cublas->api_ = api.release();
  cublas->handle_ = h;
  opened = cublas;
  return opened;
}

Status Cublas::gemm(const GemmPlan& p, CUdeviceptr lhs, CUdeviceptr rhs, CUdeviceptr out) const {
  HLO_RETURN_IF_ERROR(driver_->makeCurrent());
  // alpha = 1, beta = 0 in the compute type (complex ones as two of it).
  const bool f64 = cublasType(p.lhsType)->computesInF64;
  const double one64[2] = {1, 0}, zero64[2] = {0, 0};
  const float one32[2] = {1, 0}, zero32[2] = {0, 0};
  const void* alpha = f64 ? static_cast<const void*>(one64) : one32;
  const void* beta = f64 ? static_cast<const void*>(zero64) : zero32;
  const int m = static_cast<int>(p.n), n = static_cast<int>(p.m), k = static_cast<int>(p.k);
  // Column-major: out^T (n x m) = rhs^T (n x k) lhs^T (k x m).
  const int opRhs = p.rhsTransposed ? kOpT : kOpN, opLhs = p.lhsTransposed ? kOpT : kOpN;
  const int ldRhs = static_cast<int>(p.rhsTransposed ? p.k : p.n);
  const int ldLhs = static_cast<int>(p.lhsTransposed ? p.m : p.k);
  int status = api_->gemmStridedBatchedEx(
      handle_, opRhs, opLhs, m, n, k, alpha, reinterpret_cast<const void*>(rhs), cublasType(p.rhsType)->cudaDataType,
      ldRhs, static_cast<long long>(p.k * p.n), reinterpret_cast<const void*>(lhs),
      cublasType(p.lhsType)->cudaDataType, ldLhs, static_cast<long long>(p.m * p.k), beta,
      reinterpret_cast<void*>(out), cublasType(p.resultType)->cudaDataType, m,
      static_cast<long long>(p.m * p.n), static_cast<int>(p.batch), f64 ? kComputeF64 : kComputeF32, kGemmDefault);
  if (status == 0) return okStatus();
  std::string text = api_->statusString ? api_->statusString(status) : "status " + std::to_string(status);
  return errorStatus("gpu: cublasGemmStridedBatchedEx failed: " + text);
}

}  // namespace hlo::gpu
