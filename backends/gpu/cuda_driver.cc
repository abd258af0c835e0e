#include "backends/gpu/cuda_driver.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <utility>

namespace hlo::gpu {
namespace {

constexpr const char* kCompileOnlyHint = "; --compile-only works without one";

// dlerror's text usually starts with the file name, which the message
// already gives; drop it so the name is not printed twice.
std::string dlopenError(const std::string& path) {
  const char* why = dlerror();
  std::string text = why ? why : "unknown dlopen error";
  if (text.starts_with(path + ": ")) text.erase(0, path.size() + 2);
  return text;
}

// The file dlopen actually loaded: a bare name is searched for, and the one
// found may be the toolkit's stub.
std::string loadedPath(void* library, const std::string& requested) {
  link_map* map = nullptr;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return map->l_name;
  return requested;
}

Status stubError(const std::string& path) {
  return errorStatus("gpu: " + path +
                     " is the CUDA toolkit's stub library, not a driver (it fails every call)" +
                     kCompileOnlyHint);
}

// Fills `api` from the library, failing on the first symbol it lacks.
Status resolveApi(void* library, const std::string& file, CudaApi& api) {
  auto resolve = [&](auto& function, const char* symbol) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, symbol));
    return function != nullptr;
  };
  auto lacks = [&](const char* symbol) {
    return errorStatus("gpu: " + file + " lacks " + symbol + "; not a CUDA driver, or too old");
  };
#define HLO_CUDA_RESOLVE(name, symbol, type) \
  if (!resolve(api.name, symbol)) return lacks(symbol);
  HLO_CUDA_DRIVER_FUNCTIONS(HLO_CUDA_RESOLVE)
#undef HLO_CUDA_RESOLVE
  if (!resolve(api.cuEventElapsedTime, "cuEventElapsedTime_v2") &&
      !resolve(api.cuEventElapsedTime, "cuEventElapsedTime"))
    return lacks("cuEventElapsedTime");
  return okStatus();
}

}  // namespace

CudaDriver::~CudaDriver() {
  if (context_) api_.cuDevicePrimaryCtxRelease(device_);
  // A real driver is left loaded once initialized: it has started threads
  // and registered exit handlers that must outlive it. The stub and other
  // failed loads are closed, since their soname (libcuda.so.1) would
  // otherwise answer every later dlopen("libcuda.so.1") in this process.
  if (library_ && unloadable_) dlclose(library_);
}

Status CudaDriver::check(CUresult result, std::string_view what) const {
  if (result == CUDA_SUCCESS) return okStatus();
  const char* name = nullptr;
  const char* text = nullptr;
  // Both fail for codes the driver does not know (and in the stub).
  if (api_.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) name = nullptr;
  if (api_.cuGetErrorString(result, &text) != CUDA_SUCCESS || !text) text = "unknown error";
  std::string nameText = name ? name : "CUresult " + std::to_string(result);
  return errorStatus("gpu: " + std::string(what) + ": " + nameText + " (" + text + ")");
}

Status CudaDriver::makeCurrent() const { return HLO_CUDA_CALL(*this, cuCtxSetCurrent, context_); }

Status CudaDriver::synchronize() const {
  HLO_RETURN_IF_ERROR(makeCurrent());
  return HLO_CUDA_CALL(*this, cuCtxSynchronize);
}

Status CudaDriver::setMaxDynamicSharedBytes(CUfunction function, int bytes) const {
  return HLO_CUDA_CALL(*this, cuFuncSetAttribute, function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
}

Status CudaDriver::launch(CUfunction function, Dim3 grid, Dim3 block, unsigned sharedBytes, CUstream stream,
                          void** args) const {
  HLO_RETURN_IF_ERROR(makeCurrent());
  return HLO_CUDA_CALL(*this, cuLaunchKernel, function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                       sharedBytes, stream, args, nullptr);
}

StatusOr<std::unique_ptr<CudaDriver>> loadCudaDriver(const std::string& path, int ordinal) {
  std::unique_ptr<CudaDriver> driver(new CudaDriver());
  driver->library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!driver->library_)
    return errorStatus("gpu: no CUDA driver (" + path + ": " + dlopenError(path) + ")" + kCompileOnlyHint);
  std::string file = loadedPath(driver->library_, path);
  if (file.find("/stubs/") != std::string::npos) return stubError(file);
  HLO_RETURN_IF_ERROR(resolveApi(driver->library_, file, driver->api_));

  CUresult init = driver->api_.cuInit(0);
  if (init == CUDA_ERROR_STUB_LIBRARY) return stubError(file);
  driver->unloadable_ = false;
  if (init == CUDA_ERROR_NO_DEVICE)
    return errorStatus("gpu: no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)" + std::string(kCompileOnlyHint));
  HLO_RETURN_IF_ERROR(driver->check(init, "cuInit"));

  int count = 0;
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*driver, cuDeviceGetCount, &count));
  if (count == 0) return errorStatus("gpu: no CUDA device (the driver sees none)" + std::string(kCompileOnlyHint));
  if (ordinal < 0 || ordinal >= count)
    return errorStatus("gpu: no CUDA device " + std::to_string(ordinal) + " (the driver sees " +
                       std::to_string(count) + ")");
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*driver, cuDeviceGet, &driver->device_, ordinal));
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*driver, cuDevicePrimaryCtxRetain, &driver->context_, driver->device_));
  HLO_RETURN_IF_ERROR(driver->readProperties(ordinal));
  return driver;
}

Status CudaDriver::readProperties(int ordinal) {
  DeviceProperties& p = properties_;
  p.ordinal = ordinal;
  char name[256] = {};
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*this, cuDeviceGetName, name, sizeof(name) - 1, device_));
  p.name = name;
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*this, cuDriverGetVersion, &p.driverVersion));
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*this, cuDeviceTotalMem, &p.totalMemory, device_));
  const std::pair<int*, int> attributes[] = {
      {&p.computeMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&p.computeMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {&p.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {&p.maxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK},
      {&p.maxSharedPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK},
      {&p.maxSharedPerBlockOptin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
      {&p.warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE}};
  for (auto [field, attribute] : attributes)
    HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*this, cuDeviceGetAttribute, field, attribute, device_));
  return okStatus();
}

StatusOr<CudaDriver*> cudaDriver() {
  // Never destroyed: buffers and modules held by other statics may still
  // be freed during exit, and the driver must be there when they are.
  static const auto* loaded = [] {
    const char* path = std::getenv("HLO_CUDA_DRIVER");
    return new StatusOr<std::unique_ptr<CudaDriver>>(loadCudaDriver(path && *path ? path : kDefaultCudaDriver));
  }();
  if (!loaded->ok()) return loaded->status();
  return loaded->value().get();
}

// --- DeviceBuffer --------------------------------------------------------------

StatusOr<DeviceBuffer> DeviceBuffer::allocate(const CudaDriver& driver, std::size_t bytes) {
  DeviceBuffer buffer;
  buffer.driver_ = &driver;
  if (bytes == 0) return buffer;  // the driver refuses empty allocations
  HLO_RETURN_IF_ERROR(driver.makeCurrent());
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(driver, cuMemAlloc, &buffer.ptr_, bytes));
  buffer.size_ = bytes;
  return buffer;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this == &other) return *this;
  reset();
  driver_ = std::exchange(other.driver_, nullptr);
  ptr_ = std::exchange(other.ptr_, 0);
  size_ = std::exchange(other.size_, 0);
  return *this;
}

void DeviceBuffer::reset() {
  if (ptr_ && driver_->makeCurrent().ok()) driver_->api().cuMemFree(ptr_);
  ptr_ = 0;
  size_ = 0;
}

Status DeviceBuffer::readyFor(std::size_t bytes) const {
  if (bytes <= size_) return driver_->makeCurrent();
  return errorStatus("gpu: a copy of " + std::to_string(bytes) + " bytes does not fit a device buffer of " +
                     std::to_string(size_));
}

Status DeviceBuffer::copyFromHost(const void* source, std::size_t bytes) {
  if (bytes == 0) return okStatus();
  HLO_RETURN_IF_ERROR(readyFor(bytes));
  return HLO_CUDA_CALL(*driver_, cuMemcpyHtoD, ptr_, source, bytes);
}

Status DeviceBuffer::copyToHost(void* destination, std::size_t bytes) const {
  if (bytes == 0) return okStatus();
  HLO_RETURN_IF_ERROR(readyFor(bytes));
  return HLO_CUDA_CALL(*driver_, cuMemcpyDtoH, destination, ptr_, bytes);
}

Status DeviceBuffer::copyFrom(const DeviceBuffer& source, std::size_t bytes) {
  if (bytes == 0) return okStatus();
  HLO_RETURN_IF_ERROR(readyFor(bytes));
  HLO_RETURN_IF_ERROR(source.readyFor(bytes));
  return HLO_CUDA_CALL(*driver_, cuMemcpyDtoD, ptr_, source.ptr_, bytes);
}

Status DeviceBuffer::copyFromHostAsync(const void* source, std::size_t bytes, CUstream stream) {
  if (bytes == 0) return okStatus();
  HLO_RETURN_IF_ERROR(readyFor(bytes));
  return HLO_CUDA_CALL(*driver_, cuMemcpyHtoDAsync, ptr_, source, bytes, stream);
}

Status DeviceBuffer::copyToHostAsync(void* destination, std::size_t bytes, CUstream stream) const {
  if (bytes == 0) return okStatus();
  HLO_RETURN_IF_ERROR(readyFor(bytes));
  return HLO_CUDA_CALL(*driver_, cuMemcpyDtoHAsync, destination, ptr_, bytes, stream);
}

Status DeviceBuffer::memset(unsigned char value) {
  if (size_ == 0) return okStatus();
  HLO_RETURN_IF_ERROR(driver_->makeCurrent());
  return HLO_CUDA_CALL(*driver_, cuMemsetD8, ptr_, value, size_);
}

// --- PinnedHostBuffer ------------------------------------------------------------

StatusOr<PinnedHostBuffer> PinnedHostBuffer::allocate(const CudaDriver& driver, std::size_t bytes) {
  PinnedHostBuffer buffer;
  buffer.driver_ = &driver;
  if (bytes == 0) return buffer;
  HLO_RETURN_IF_ERROR(driver.makeCurrent());
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(driver, cuMemAllocHost, &buffer.data_, bytes));
  buffer.size_ = bytes;
  return buffer;
}

PinnedHostBuffer& PinnedHostBuffer::operator=(PinnedHostBuffer&& other) noexcept {
  if (this == &other) return *this;
  reset();
  driver_ = std::exchange(other.driver_, nullptr);
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  return *this;
}

void PinnedHostBuffer::reset() {
  if (data_ && driver_->makeCurrent().ok()) driver_->api().cuMemFreeHost(data_);
  data_ = nullptr;
  size_ = 0;
}

// --- CudaModule ------------------------------------------------------------------

StatusOr<CudaModule> CudaModule::loadPtx(const CudaDriver& driver, const std::string& ptx) {
  CudaModule module;
  module.driver_ = &driver;
  HLO_RETURN_IF_ERROR(driver.makeCurrent());
  // The driver writes ptxas's complaints into this buffer; without it a bad
  // kernel only says CUDA_ERROR_INVALID_PTX.
  std::string log(16384, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
  Status status = HLO_CUDA_CALL(driver, cuModuleLoadDataEx, &module.module_, ptx.c_str(), 2, options, values);
  if (status.ok()) return module;
  log.resize(log.find('\0') == std::string::npos ? log.size() : log.find('\0'));
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  if (log.empty()) return status;
  return errorStatus(status.message() + "\n" + log);
}

CudaModule& CudaModule::operator=(CudaModule&& other) noexcept {
  if (this == &other) return *this;
  reset();
  driver_ = std::exchange(other.driver_, nullptr);
  module_ = std::exchange(other.module_, nullptr);
  return *this;
}

void CudaModule::reset() {
  if (module_ && driver_->makeCurrent().ok()) driver_->api().cuModuleUnload(module_);
  module_ = nullptr;
}

StatusOr<CUfunction> CudaModule::function(const std::string& name) const {
  CUfunction function = nullptr;
  HLO_RETURN_IF_ERROR(driver_->makeCurrent());
  CUresult result = driver_->api().cuModuleGetFunction(&function, module_, name.c_str());
  HLO_RETURN_IF_ERROR(driver_->check(result, "cuModuleGetFunction " + name));
  return function;
}

// --- CudaStream ------------------------------------------------------------------

StatusOr<CudaStream> CudaStream::create(const CudaDriver& driver) {
  CudaStream stream;
  stream.driver_ = &driver;
  HLO_RETURN_IF_ERROR(driver.makeCurrent());
  // Flags 0, not CU_STREAM_NON_BLOCKING: the stream then waits for work on
  // the default stream (synchronous copies, memset), so mixing them is safe.
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(driver, cuStreamCreate, &stream.stream_, 0u));
  return stream;
}

CudaStream& CudaStream::operator=(CudaStream&& other) noexcept {
  if (this == &other) return *this;
  reset();
  driver_ = std::exchange(other.driver_, nullptr);
  stream_ = std::exchange(other.stream_, nullptr);
  return *this;
}

void CudaStream::reset() {
  if (stream_ && driver_->makeCurrent().ok()) driver_->api().cuStreamDestroy(stream_);
  stream_ = nullptr;
}

Status CudaStream::synchronize() const {
  HLO_RETURN_IF_ERROR(driver_->makeCurrent());
  return HLO_CUDA_CALL(*driver_, cuStreamSynchronize, stream_);
}

// --- CudaEvent -------------------------------------------------------------------

StatusOr<CudaEvent> CudaEvent::create(const CudaDriver& driver) {
  CudaEvent event;
  event.driver_ = &driver;
  HLO_RETURN_IF_ERROR(driver.makeCurrent());
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(driver, cuEventCreate, &event.event_, 0u));  // 0: timing enabled
  return event;
}

CudaEvent& CudaEvent::operator=(CudaEvent&& other) noexcept {
  if (this == &other) return *this;
  reset();
  driver_ = std::exchange(other.driver_, nullptr);
  event_ = std::exchange(other.event_, nullptr);
  return *this;
}

void CudaEvent::reset() {
  if (event_ && driver_->makeCurrent().ok()) driver_->api().cuEventDestroy(event_);
  event_ = nullptr;
}

Status CudaEvent::record(CUstream stream) const {
  HLO_RETURN_IF_ERROR(driver_->makeCurrent());
  return HLO_CUDA_CALL(*driver_, cuEventRecord, event_, stream);
}

Status CudaEvent::synchronize() const {
  HLO_RETURN_IF_ERROR(driver_->makeCurrent());
  return HLO_CUDA_CALL(*driver_, cuEventSynchronize, event_);
}

StatusOr<float> CudaEvent::elapsedMs(const CudaEvent& start, const CudaEvent& end) {
  HLO_RETURN_IF_ERROR(end.synchronize());
  float milliseconds = 0;
  HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(*end.driver_, cuEventElapsedTime, &milliseconds, start.event_, end.event_));
  return milliseconds;
}

}  // namespace hlo::gpu
