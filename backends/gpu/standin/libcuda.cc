// A stand-in for the CUDA driver (libcuda.so.1): "device" memory is host
// memory and no kernel runs. With it the GPU runtime's own work can be
// tested where there is no GPU (testdata/lit/gpu/runtime-*.hlo): the
// arena and the copies in and out of scratch ranges, arguments up and
// results down through pinned staging, decisions taken on the host,
// tuples, host steps, --stats and --iterations. A kernel launch fails
// (CUDA_ERROR_NOT_SUPPORTED), so a module that needs one cannot pass
// with made-up results.
//
// Every entry point backends/gpu/cuda_driver.h resolves is defined here,
// under the symbol it resolves, with the driver's C types. Copies and
// memsets are done at once (an asynchronous call may complete before it
// returns), so events and synchronization only keep the time.
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace {

using CUresult = int;
using CUdeviceptr = std::uint64_t;
constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotSupported = 801;

// The results this driver gives, as the real one names them.
struct Error {
  CUresult code;
  const char* name;
  const char* text;
};
constexpr Error kErrors[] = {
    {kSuccess, "CUDA_SUCCESS", "no error"},
    {kInvalidValue, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {kNotSupported, "CUDA_ERROR_NOT_SUPPORTED", "the stand-in driver runs no kernels"},
};
const Error* errorOf(CUresult code) {
  for (const Error& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}

// Device allocations: aligned as the driver aligns them (256 bytes).
void* allocate(std::size_t bytes) {
  std::size_t size = (bytes + 255) / 256 * 256;
  return std::aligned_alloc(256, size == 0 ? 256 : size);
}

struct Event {
  double us = 0;
};

double nowUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Handles the runtime only passes back: any distinct non-null pointers.
int contextObject, moduleObject, functionObject, streamObject;

}  // namespace

extern "C" {

CUresult cuInit(unsigned) { return kSuccess; }
CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return kSuccess;
}

CUresult cuGetErrorName(CUresult result, const char** name) {
  const Error* e = errorOf(result);
  if (!e) return kInvalidValue;
  *name = e->name;
  return kSuccess;
}

CUresult cuGetErrorString(CUresult result, const char** text) {
  const Error* e = errorOf(result);
  if (!e) return kInvalidValue;
  *text = e->text;
  return kSuccess;
}

CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return kSuccess;
}

CUresult cuDeviceGet(int* device, int ordinal) {
  if (ordinal != 0) return kInvalidValue;
  *device = 0;
  return kSuccess;
}

CUresult cuDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "stand-in CUDA driver (host memory, no kernels)", static_cast<std::size_t>(length));
  return kSuccess;
}

// An sm_90 device's figures, by CUdevice_attribute; 0 for the others.
constexpr std::pair<int, int> kAttributes[] = {
    {1, 1024},     // max threads per block
    {8, 49152},    // shared memory per block
    {10, 32},      // warp size
    {16, 132},     // multiprocessors
    {75, 9},       // compute capability, major
    {76, 0},       //   and minor
    {97, 232448},  // shared memory per block, opted in
};

CUresult cuDeviceGetAttribute(int* value, int attribute, int) {
  *value = 0;
  for (auto [listed, v] : kAttributes)
    if (listed == attribute) *value = v;
  return kSuccess;
}

CUresult cuDeviceTotalMem_v2(std::size_t* bytes, int) {
  *bytes = std::size_t{1} << 30;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(void** context, int) {
  *context = &contextObject;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
CUresult cuCtxSetCurrent(void*) { return kSuccess; }
CUresult cuCtxSynchronize() { return kSuccess; }

CUresult cuMemAlloc_v2(CUdeviceptr* pointer, std::size_t bytes) {
  void* memory = allocate(bytes);
  if (!memory) return kOutOfMemory;
  *pointer = reinterpret_cast<CUdeviceptr>(memory);
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::free(reinterpret_cast<void*>(pointer));
  return kSuccess;
}
CUresult cuMemAllocHost_v2(void** pointer, std::size_t bytes) {
  *pointer = allocate(bytes);
  return *pointer ? kSuccess : kOutOfMemory;
}
CUresult cuMemFreeHost(void* pointer) {
  std::free(pointer);
  return kSuccess;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void* from, std::size_t bytes) {
  std::memcpy(reinterpret_cast<void*>(to), from, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void* to, CUdeviceptr from, std::size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr to, CUdeviceptr from, std::size_t bytes) {
  std::memmove(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes);
  return kSuccess;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr to, const void* from, std::size_t bytes, void*) {
  return cuMemcpyHtoD_v2(to, from, bytes);
}
CUresult cuMemcpyDtoHAsync_v2(void* to, CUdeviceptr from, std::size_t bytes, void*) {
  return cuMemcpyDtoH_v2(to, from, bytes);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, std::size_t bytes, void*) {
  return cuMemcpyDtoD_v2(to, from, bytes);
}
CUresult cuMemsetD8_v2(CUdeviceptr to, unsigned char value, std::size_t bytes) {
  std::memset(reinterpret_cast<void*>(to), value, bytes);
  return kSuccess;
}
CUresult cuMemsetD8Async(CUdeviceptr to, unsigned char value, std::size_t bytes, void*) {
  return cuMemsetD8_v2(to, value, bytes);
}

// PTX is accepted unread; its kernels cannot run.
CUresult cuModuleLoadDataEx(void** module, const void*, unsigned, int*, void**) {
  *module = &moduleObject;
  return kSuccess;
}
CUresult cuModuleUnload(void*) { return kSuccess; }
CUresult cuModuleGetFunction(void** function, void*, const char*) {
  *function = &functionObject;
  return kSuccess;
}
CUresult cuFuncSetAttribute(void*, int, int) { return kSuccess; }
CUresult cuLaunchKernel(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**,
                        void**) {
  return kNotSupported;
}

CUresult cuStreamCreate(void** stream, unsigned) {
  *stream = &streamObject;
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void*) { return kSuccess; }
CUresult cuStreamSynchronize(void*) { return kSuccess; }

CUresult cuEventCreate(void** event, unsigned) {
  *event = new (std::nothrow) Event;
  return *event ? kSuccess : kOutOfMemory;
}
CUresult cuEventDestroy_v2(void* event) {
  delete static_cast<Event*>(event);
  return kSuccess;
}
CUresult cuEventRecord(void* event, void*) {
  static_cast<Event*>(event)->us = nowUs();
  return kSuccess;
}
CUresult cuEventSynchronize(void*) { return kSuccess; }
CUresult cuEventElapsedTime_v2(float* milliseconds, void* start, void* end) {
  *milliseconds = static_cast<float>((static_cast<Event*>(end)->us - static_cast<Event*>(start)->us) / 1e3);
  return kSuccess;
}

}  // extern "C"
