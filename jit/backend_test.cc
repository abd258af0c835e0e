// The backend registry (jit/backend.h): the backends this program links are
// found by name, an unknown name says which exist, and options meant for
// one backend are refused by another.
#include <gtest/gtest.h>

#include "backends/cpu/cpu_options.h"
#include "backends/gpu/gpu_options.h"
#include "jit/backend.h"
#include "parser/parser.h"

namespace hlo::jit {
namespace {

TEST(BackendRegistry, LinkedBackendsAreRegistered) {
  std::vector<std::string> names = backendNames();
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "gpu", "gpu-host"}));
  ASSERT_NE(findBackend("cpu"), nullptr);
  EXPECT_EQ(findBackend("cpu")->pipeline(), "cpu");
  ASSERT_NE(findBackend("gpu-host"), nullptr);
  EXPECT_EQ(findBackend("gpu-host")->pipeline(), "gpu");
  EXPECT_EQ(findBackend("tpu"), nullptr);
}

std::unique_ptr<Module> negate() {
  auto m = parseModule("HloModule m\nENTRY e { x = f32[2] parameter(0)\n ROOT n = f32[2] negate(x) }\n");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : nullptr;
}

TEST(BackendRegistry, UnknownBackendNamesTheKnownOnes) {
  auto m = negate();
  ASSERT_TRUE(m);
  auto exe = compile(*m, "tpu");
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().message(), "jit: no backend named 'tpu' (this program has: cpu, gpu, gpu-host)");
}

TEST(BackendRegistry, AnotherBackendsOptionsAreRefused) {
  auto m = negate();
  ASSERT_TRUE(m);
  auto exe = compile(*m, "cpu", gpu::withGpuOptions({}, gpu::GpuOptions{}));
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().message(), "jit: options for the gpu backend given to the cpu backend");
  auto gpuExe = compile(*m, "gpu", cpu::withCpuOptions({}, cpu::cpuThreads(2)));
  ASSERT_FALSE(gpuExe.ok());
  EXPECT_EQ(gpuExe.status().message(), "jit: options for the cpu backend given to the gpu backend");
}

}  // namespace
}  // namespace hlo::jit
