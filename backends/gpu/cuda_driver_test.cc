// The CUDA driver's error messages where there is no GPU (no driver, the
// toolkit's stub, a library that is not a driver), and, where a GPU is
// present, one round trip through every wrapper.
#include "backends/gpu/cuda_driver.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace hlo::gpu {
namespace {

namespace fs = std::filesystem;

const std::string kHint = "; --compile-only works without one";

// Whether libcuda.so.1 can be opened at all; if so this machine has a
// driver and the no-driver messages cannot be seen.
bool driverInstalled() {
  void* library = dlopen(kDefaultCudaDriver, RTLD_LAZY | RTLD_LOCAL);
  if (library) dlclose(library);
  return library != nullptr;
}

// Whether some libcuda.so.1 is already in this process (without loading one).
bool libcudaLoaded() {
  void* library = dlopen(kDefaultCudaDriver, RTLD_LAZY | RTLD_NOLOAD);
  if (library) dlclose(library);  // NOLOAD still counts a reference
  return library != nullptr;
}

// The toolkit's stub: beside the ptxas on PATH, else under $CUDA_HOME, else
// the usual install folder. Empty when none exists.
std::string toolkitStub() {
  std::vector<fs::path> roots;
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    for (size_t start = 0, end; start <= dirs.size(); start = end + 1) {
      end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      fs::path ptxas = fs::path(dirs.substr(start, end - start)) / "ptxas";
      if (access(ptxas.c_str(), X_OK) == 0) {
        roots.push_back(ptxas.parent_path().parent_path());
        break;
      }
    }
  }
  if (const char* home = std::getenv("CUDA_HOME")) roots.emplace_back(home);
  roots.emplace_back("/usr/local/cuda");
  for (const fs::path& root : roots)
    for (const char* lib : {"lib64", "lib"}) {
      fs::path stub = root / lib / "stubs" / "libcuda.so";
      std::error_code error;
      if (fs::is_regular_file(stub, error)) return stub.string();
    }
  return "";
}

TEST(CudaDriverTest, NoDriverSaysSoAndPointsAtCompileOnly) {
  if (driverInstalled()) GTEST_SKIP() << "a CUDA driver (libcuda.so.1) is installed here";
  auto driver = loadCudaDriver(kDefaultCudaDriver);
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().message(),
            "gpu: no CUDA driver (libcuda.so.1: cannot open shared object file: No such file or directory)" + kHint);

  // The process-wide driver reads the same library unless told otherwise.
  const char* override = std::getenv("HLO_CUDA_DRIVER");
  if (override && *override) GTEST_SKIP() << "HLO_CUDA_DRIVER is set";
  auto cached = cudaDriver();
  ASSERT_FALSE(cached.ok());
  EXPECT_EQ(cached.status().message(), driver.status().message());
}

TEST(CudaDriverTest, MissingFileNamesThePath) {
  const std::string path = "/nonexistent/hlo-test/libcuda.so.1";
  auto driver = loadCudaDriver(path);
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().message(),
            "gpu: no CUDA driver (" + path + ": cannot open shared object file: No such file or directory)" + kHint);
}

TEST(CudaDriverTest, FileThatIsNoLibraryIsNoDriver) {
  fs::path path = fs::path(testing::TempDir()) / "hlo_not_a_library.so";
  std::FILE* file = std::fopen(path.c_str(), "w");
  ASSERT_NE(file, nullptr);
  std::fputs("not a shared library\n", file);
  std::fclose(file);
  auto driver = loadCudaDriver(path.string());
  fs::remove(path);
  ASSERT_FALSE(driver.ok());
  const std::string& message = driver.status().message();
  EXPECT_TRUE(message.starts_with("gpu: no CUDA driver (" + path.string() + ": ")) << message;
  EXPECT_TRUE(message.ends_with(kHint)) << message;
}

TEST(CudaDriverTest, LibraryWithoutTheApiIsNoDriver) {
  auto driver = loadCudaDriver("libm.so.6");
  ASSERT_FALSE(driver.ok());
  const std::string& message = driver.status().message();
  EXPECT_TRUE(message.starts_with("gpu: ")) << message;
  EXPECT_TRUE(message.ends_with(" lacks cuInit; not a CUDA driver, or too old")) << message;
}

TEST(CudaDriverTest, ToolkitStubIsNamedAndUnloaded) {
  std::string stub = toolkitStub();
  if (stub.empty()) GTEST_SKIP() << "no CUDA toolkit stub (lib64/stubs/libcuda.so) found";
  bool loadedBefore = libcudaLoaded();
  auto driver = loadCudaDriver(stub);
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().message(),
            "gpu: " + stub + " is the CUDA toolkit's stub library, not a driver (it fails every call)" + kHint);
  // The stub's soname is libcuda.so.1: left loaded, it would answer every
  // later dlopen("libcuda.so.1") in this process.
  if (!loadedBefore) {
    EXPECT_FALSE(libcudaLoaded());
  }
}

// A copy of the stub outside a "stubs" folder is recognised by what cuInit
// answers (CUDA_ERROR_STUB_LIBRARY) instead of by its path.
TEST(CudaDriverTest, ToolkitStubIsRecognisedByCuInit) {
  std::string stub = toolkitStub();
  if (stub.empty()) GTEST_SKIP() << "no CUDA toolkit stub (lib64/stubs/libcuda.so) found";
  fs::path copy = fs::path(testing::TempDir()) / ("hlo_cuda_driver_test_" + std::to_string(getpid()) + ".so");
  fs::copy_file(stub, copy, fs::copy_options::overwrite_existing);
  auto driver = loadCudaDriver(copy.string());
  fs::remove(copy);
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().message(), "gpu: " + copy.string() +
                                           " is the CUDA toolkit's stub library, not a driver (it fails every call)" +
                                           kHint);
}

// --- With a GPU -------------------------------------------------------------

// Adds 1 to each of `count` floats; hand-written PTX for any sm_75 or later.
const char* kAddOnePtx = R"(
.version 7.0
.target sm_75
.address_size 64

.visible .entry add_one(.param .u64 data, .param .u32 count)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<5>;

  ld.param.u64 %rd1, [data];
  ld.param.u32 %r2, [count];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r1, %r3, %r4, %r5;
  setp.ge.s32 %p1, %r1, %r2;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  st.global.f32 [%rd4], %f2;
DONE:
  ret;
}
)";

CudaDriver* deviceOrSkip() {
  auto driver = cudaDriver();
  return driver.ok() ? driver.value() : nullptr;
}

TEST(CudaDriverTest, DevicePropertiesAreSane) {
  CudaDriver* driver = deviceOrSkip();
  if (!driver) GTEST_SKIP() << cudaDriver().status().message();
  const DeviceProperties& p = driver->properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_GE(p.computeMajor, 7);
  EXPECT_GT(p.smCount, 0);
  EXPECT_GE(p.maxThreadsPerBlock, 1024);
  EXPECT_EQ(p.warpSize, 32);
  EXPECT_GE(p.maxSharedPerBlock, 48 * 1024);
  EXPECT_GE(p.maxSharedPerBlockOptin, p.maxSharedPerBlock);
  EXPECT_GT(p.totalMemory, size_t{1} << 30);
  EXPECT_GE(p.driverVersion, 11000);
}

TEST(CudaDriverTest, CopiesAndMemset) {
  CudaDriver* driver = deviceOrSkip();
  if (!driver) GTEST_SKIP() << cudaDriver().status().message();
  std::vector<unsigned char> host(1000);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<unsigned char>(i * 7);
  auto a = DeviceBuffer::allocate(*driver, host.size());
  auto b = DeviceBuffer::allocate(*driver, host.size());
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  ASSERT_TRUE(a->copyFromHost(host.data(), host.size()).ok());
  ASSERT_TRUE(b->copyFrom(*a, host.size()).ok());
  std::vector<unsigned char> back(host.size());
  ASSERT_TRUE(b->copyToHost(back.data(), back.size()).ok());
  EXPECT_EQ(back, host);

  ASSERT_TRUE(a->memset(0xab).ok());
  ASSERT_TRUE(a->copyToHost(back.data(), back.size()).ok());
  EXPECT_EQ(back, std::vector<unsigned char>(host.size(), 0xab));

  Status tooBig = a->copyFromHost(host.data(), host.size() + 1);
  EXPECT_EQ(tooBig.message(), "gpu: a copy of 1001 bytes does not fit a device buffer of 1000");
}

TEST(CudaDriverTest, LaunchesAKernelAndTimesIt) {
  CudaDriver* driver = deviceOrSkip();
  if (!driver) GTEST_SKIP() << cudaDriver().status().message();
  auto module = CudaModule::loadPtx(*driver, kAddOnePtx);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto function = module->function("add_one");
  ASSERT_TRUE(function.ok()) << function.status().message();

  const unsigned count = 1000;
  auto pinned = PinnedHostBuffer::allocate(*driver, count * sizeof(float));
  auto device = DeviceBuffer::allocate(*driver, count * sizeof(float));
  auto stream = CudaStream::create(*driver);
  auto start = CudaEvent::create(*driver);
  auto end = CudaEvent::create(*driver);
  ASSERT_TRUE(pinned.ok() && device.ok() && stream.ok() && start.ok() && end.ok());
  float* values = static_cast<float*>(pinned->data());
  for (unsigned i = 0; i < count; ++i) values[i] = static_cast<float>(i);

  ASSERT_TRUE(device->copyFromHostAsync(values, count * sizeof(float), stream->get()).ok());
  ASSERT_TRUE(start->record(stream->get()).ok());
  CUdeviceptr data = device->ptr();
  unsigned n = count;
  void* args[] = {&data, &n};
  Status launched = driver->launch(*function, {(count + 255) / 256}, {256}, 0, stream->get(), args);
  ASSERT_TRUE(launched.ok()) << launched.message();
  ASSERT_TRUE(end->record(stream->get()).ok());
  ASSERT_TRUE(device->copyToHostAsync(values, count * sizeof(float), stream->get()).ok());
  ASSERT_TRUE(stream->synchronize().ok());
  for (unsigned i = 0; i < count; ++i) ASSERT_EQ(values[i], static_cast<float>(i) + 1) << "at " << i;

  auto ms = CudaEvent::elapsedMs(*start, *end);
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  EXPECT_GE(*ms, 0.0f);
}

TEST(CudaDriverTest, BadPtxCarriesTheCompilerLog) {
  CudaDriver* driver = deviceOrSkip();
  if (!driver) GTEST_SKIP() << cudaDriver().status().message();
  auto module = CudaModule::loadPtx(*driver, ".version 7.0\n.target sm_75\n.address_size 64\n"
                                             ".visible .entry broken()\n{\n  bogus.u32 %r1;\n  ret;\n}\n");
  ASSERT_FALSE(module.ok());
  const std::string& message = module.status().message();
  EXPECT_TRUE(message.starts_with("gpu: cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (")) << message;
  EXPECT_NE(message.find("\n"), std::string::npos) << "no compiler log in: " << message;
  EXPECT_NE(message.find("bogus"), std::string::npos) << message;
}

TEST(CudaDriverTest, MissingKernelIsNamed) {
  CudaDriver* driver = deviceOrSkip();
  if (!driver) GTEST_SKIP() << cudaDriver().status().message();
  auto module = CudaModule::loadPtx(*driver, kAddOnePtx);
  ASSERT_TRUE(module.ok()) << module.status().message();
  auto function = module->function("no_such_kernel");
  ASSERT_FALSE(function.ok());
  EXPECT_TRUE(function.status().message().starts_with("gpu: cuModuleGetFunction no_such_kernel: CUDA_ERROR_NOT_FOUND"))
      << function.status().message();
}

}  // namespace
}  // namespace hlo::gpu
