// The CUDA driver API, opened with dlopen when a GPU is first needed.
//
// Never linked: a build machine without a GPU (or with only the CUDA
// toolkit, whose libcuda.so is a stub that fails every call) must still
// build, test and compile modules to PTX (`--compile-only`). So this header
// declares the few driver types and constants it uses instead of including
// <cuda.h>, and every entry point is a function pointer resolved by dlsym.
//
// Use: `HLO_ASSIGN_OR_RETURN(CudaDriver * driver, cudaDriver());`, then the
// small owners below (DeviceBuffer, PinnedHostBuffer, CudaModule, CudaStream,
// CudaEvent), or `HLO_CUDA_CALL(*driver, cuXxx, args...)` for anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "hlo/status.h"

namespace hlo::gpu {

// --- Driver types, as <cuda.h> declares them (ABI-compatible). ---------------
// They live in hlo::gpu, apart from the global ones <cuda.h> declares.
using CUresult = int;                   // an enum in <cuda.h>; 0 is success
using CUdevice = int;                   // a device ordinal handle
using CUdeviceptr = std::uint64_t;      // a device address (64-bit builds)
using CUcontext = struct CUctx_st*;     // opaque handles
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;   // null is the default stream
using CUevent = struct CUevent_st*;
using CUjit_option = int;               // an enum in <cuda.h>

// Constants keep their <cuda.h> spelling so they can be looked up in the
// driver's documentation.
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;  // the toolkit's stub libcuda.so
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
// CUdevice_attribute values queried for DeviceProperties.
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
constexpr int CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
// CUfunction_attribute: dynamic shared memory a kernel may ask for; above
// 48 KiB it must be raised explicitly.
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
// CUjit_option values for cuModuleLoadDataEx's error log.
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

// Every entry point we use: member name (the API name), the symbol dlsym
// resolves (the versioned one <cuda.h> maps the name to), and its type.
// cuEventElapsedTime is resolved separately (see cuda_driver.cc).
#define HLO_CUDA_DRIVER_FUNCTIONS(X)                                                                   \
  X(cuInit, "cuInit", CUresult(unsigned flags))                                                        \
  X(cuDriverGetVersion, "cuDriverGetVersion", CUresult(int* version))                                  \
  X(cuGetErrorName, "cuGetErrorName", CUresult(CUresult, const char**))                                \
  X(cuGetErrorString, "cuGetErrorString", CUresult(CUresult, const char**))                            \
  X(cuDeviceGetCount, "cuDeviceGetCount", CUresult(int* count))                                        \
  X(cuDeviceGet, "cuDeviceGet", CUresult(CUdevice*, int ordinal))                                      \
  X(cuDeviceGetName, "cuDeviceGetName", CUresult(char* name, int length, CUdevice))                    \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult(int* value, int attribute, CUdevice))       \
  X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult(std::size_t* bytes, CUdevice))                   \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult(CUcontext*, CUdevice))              \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", CUresult(CUdevice))                     \
  X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult(CUcontext))                                           \
  X(cuCtxSynchronize, "cuCtxSynchronize", CUresult())                                                  \
  X(cuMemAlloc, "cuMemAlloc_v2", CUresult(CUdeviceptr*, std::size_t))                                  \
  X(cuMemFree, "cuMemFree_v2", CUresult(CUdeviceptr))                                                  \
  X(cuMemAllocHost, "cuMemAllocHost_v2", CUresult(void**, std::size_t))                                \
  X(cuMemFreeHost, "cuMemFreeHost", CUresult(void*))                                                   \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUresult(CUdeviceptr, const void*, std::size_t))                  \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", CUresult(void*, CUdeviceptr, std::size_t))                        \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", CUresult(CUdeviceptr, CUdeviceptr, std::size_t))                  \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUresult(CUdeviceptr, const void*, std::size_t, CUstream)) \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult(void*, CUdeviceptr, std::size_t, CUstream))    \
  X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult(CUdeviceptr, CUdeviceptr, std::size_t, CUstream)) \
  X(cuMemsetD8, "cuMemsetD8_v2", CUresult(CUdeviceptr, unsigned char, std::size_t))                    \
  X(cuMemsetD8Async, "cuMemsetD8Async", CUresult(CUdeviceptr, unsigned char, std::size_t, CUstream))    \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                                          \
    CUresult(CUmodule*, const void* image, unsigned numOptions, CUjit_option*, void** optionValues))   \
  X(cuModuleUnload, "cuModuleUnload", CUresult(CUmodule))                                              \
  X(cuModuleGetFunction, "cuModuleGetFunction", CUresult(CUfunction*, CUmodule, const char* name))     \
  X(cuFuncSetAttribute, "cuFuncSetAttribute", CUresult(CUfunction, int attribute, int value))          \
  X(cuLaunchKernel, "cuLaunchKernel",                                                                  \
    CUresult(CUfunction, unsigned gridX, unsigned gridY, unsigned gridZ, unsigned blockX,              \
             unsigned blockY, unsigned blockZ, unsigned sharedBytes, CUstream, void** args,            \
             void** extra))                                                                            \
  X(cuStreamCreate, "cuStreamCreate", CUresult(CUstream*, unsigned flags))                             \
  X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult(CUstream))                                         \
  X(cuStreamSynchronize, "cuStreamSynchronize", CUresult(CUstream))                                    \
  X(cuEventCreate, "cuEventCreate", CUresult(CUevent*, unsigned flags))                                \
  X(cuEventDestroy, "cuEventDestroy_v2", CUresult(CUevent))                                            \
  X(cuEventRecord, "cuEventRecord", CUresult(CUevent, CUstream))                                       \
  X(cuEventSynchronize, "cuEventSynchronize", CUresult(CUevent))

struct CudaApi {
#define HLO_CUDA_MEMBER(name, symbol, type) std::add_pointer_t<type> name = nullptr;
  HLO_CUDA_DRIVER_FUNCTIONS(HLO_CUDA_MEMBER)
#undef HLO_CUDA_MEMBER
  // "cuEventElapsedTime_v2" where the driver has it (CUDA 12.8 and later;
  // <cuda.h> 13 maps the name there), else the original, same signature.
  CUresult (*cuEventElapsedTime)(float* milliseconds, CUevent start, CUevent end) = nullptr;
};

struct DeviceProperties {
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int ordinal = 0;
  int computeMajor = 0;  // sm_90 is 9.0
  int computeMinor = 0;
  int smCount = 0;
  int maxThreadsPerBlock = 0;
  int maxSharedPerBlock = 0;       // bytes, without opting in
  int maxSharedPerBlockOptin = 0;  // bytes, the most setMaxDynamicSharedBytes allows
  int warpSize = 0;
  std::size_t totalMemory = 0;  // bytes
  int driverVersion = 0;        // 13000 for CUDA 13.0
};

// The loaded driver with device `ordinal`'s primary context retained.
class CudaDriver {
 public:
  CudaDriver(const CudaDriver&) = delete;
  CudaDriver& operator=(const CudaDriver&) = delete;
  ~CudaDriver();

  const CudaApi& api() const { return api_; }
  const DeviceProperties& properties() const { return properties_; }

  // The current context is per thread: every wrapper below calls this first,
  // so they work from any thread. Call it before using api() directly.
  Status makeCurrent() const;
  // `gpu: <what>: <error name> (<error string>)` for a failed call, else ok.
  Status check(CUresult result, std::string_view what) const;

  Status synchronize() const;  // waits for all work on the device
  // Kernels asking for more than 48 KiB of dynamic shared memory need this.
  Status setMaxDynamicSharedBytes(CUfunction function, int bytes) const;

  struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
  };
  // `args` holds one pointer per kernel parameter, pointing at its value.
  Status launch(CUfunction function, Dim3 grid, Dim3 block, unsigned sharedBytes, CUstream stream,
                void** args) const;

 private:
  friend StatusOr<std::unique_ptr<CudaDriver>> loadCudaDriver(const std::string& path, int ordinal);
  CudaDriver() = default;
  Status readProperties(int ordinal);

  void* library_ = nullptr;
  bool unloadable_ = true;  // false once cuInit has run in a real driver
  CudaApi api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  DeviceProperties properties_;
};

// `HLO_CUDA_CALL(driver, cuMemAlloc, &ptr, bytes)`: the call's Status.
#define HLO_CUDA_CALL(driver, function, ...) (driver).check((driver).api().function(__VA_ARGS__), #function)

inline constexpr const char* kDefaultCudaDriver = "libcuda.so.1";

// Opens the driver at `path` (a file name searched like dlopen does, or a
// path), initializes it and retains device `ordinal`'s primary context.
// Uncached: each call loads anew (tests use it to try several paths).
StatusOr<std::unique_ptr<CudaDriver>> loadCudaDriver(const std::string& path, int ordinal = 0);

// The process's driver, device 0: $HLO_CUDA_DRIVER, else libcuda.so.1.
// Loaded on the first call (thread-safe); later calls return that result.
StatusOr<CudaDriver*> cudaDriver();

// --- Owners of driver objects: move-only, freed in the destructor. -----------

class DeviceBuffer {
 public:
  static StatusOr<DeviceBuffer> allocate(const CudaDriver& driver, std::size_t bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  ~DeviceBuffer() { reset(); }

  CUdeviceptr ptr() const { return ptr_; }
  std::size_t size() const { return size_; }

  // Copies `bytes` from the start of the buffer; they must fit in it.
  Status copyFromHost(const void* source, std::size_t bytes);
  Status copyToHost(void* destination, std::size_t bytes) const;
  Status copyFrom(const DeviceBuffer& source, std::size_t bytes);
  // Asynchronous on `stream`; the host memory should be pinned (else the
  // driver copies synchronously) and must live until the stream is synced.
  Status copyFromHostAsync(const void* source, std::size_t bytes, CUstream stream);
  Status copyToHostAsync(void* destination, std::size_t bytes, CUstream stream) const;
  Status memset(unsigned char value);  // every byte of the buffer

 private:
  DeviceBuffer() = default;
  void reset();
  // Checks that `bytes` fit in the buffer and makes the context current.
  Status readyFor(std::size_t bytes) const;

  const CudaDriver* driver_ = nullptr;
  CUdeviceptr ptr_ = 0;
  std::size_t size_ = 0;
};

// Page-locked host memory: what asynchronous copies need to overlap.
class PinnedHostBuffer {
 public:
  static StatusOr<PinnedHostBuffer> allocate(const CudaDriver& driver, std::size_t bytes);
  PinnedHostBuffer(PinnedHostBuffer&& other) noexcept { *this = std::move(other); }
  PinnedHostBuffer& operator=(PinnedHostBuffer&& other) noexcept;
  ~PinnedHostBuffer() { reset(); }

  void* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  PinnedHostBuffer() = default;
  void reset();

  const CudaDriver* driver_ = nullptr;
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// A module JIT-compiled by the driver from PTX text.
class CudaModule {
 public:
  // A PTX error carries the driver's compiler log in the message.
  static StatusOr<CudaModule> loadPtx(const CudaDriver& driver, const std::string& ptx);
  CudaModule(CudaModule&& other) noexcept { *this = std::move(other); }
  CudaModule& operator=(CudaModule&& other) noexcept;
  ~CudaModule() { reset(); }

  StatusOr<CUfunction> function(const std::string& name) const;

 private:
  CudaModule() = default;
  void reset();

  const CudaDriver* driver_ = nullptr;
  CUmodule module_ = nullptr;
};

class CudaStream {
 public:
  static StatusOr<CudaStream> create(const CudaDriver& driver);
  CudaStream(CudaStream&& other) noexcept { *this = std::move(other); }
  CudaStream& operator=(CudaStream&& other) noexcept;
  ~CudaStream() { reset(); }

  CUstream get() const { return stream_; }
  Status synchronize() const;

 private:
  CudaStream() = default;
  void reset();

  const CudaDriver* driver_ = nullptr;
  CUstream stream_ = nullptr;
};

// A timing event: record two on a stream, then elapsedMs(start, end).
class CudaEvent {
 public:
  static StatusOr<CudaEvent> create(const CudaDriver& driver);
  CudaEvent(CudaEvent&& other) noexcept { *this = std::move(other); }
  CudaEvent& operator=(CudaEvent&& other) noexcept;
  ~CudaEvent() { reset(); }

  CUevent get() const { return event_; }
  Status record(CUstream stream) const;
  Status synchronize() const;
  // Milliseconds between two recorded events; waits for `end`.
  static StatusOr<float> elapsedMs(const CudaEvent& start, const CudaEvent& end);

 private:
  CudaEvent() = default;
  void reset();

  const CudaDriver* driver_ = nullptr;
  CUevent event_ = nullptr;
};

}  // namespace hlo::gpu
