// The ahead-of-time image's plan: written from a compiled executable and
// loaded back (with the JIT's own function addresses standing in for an
// object file's), it must run every module as the executable does, bit for
// bit; a damaged plan or another version is an error, never a crash. The
// header hlo-aot writes must start with hlo_rt.h's text.
#include "backends/cpu/aot_image.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "backends/cpu/aot_header.h"
#include "backends/cpu/cpu_options.h"
#include "hlo/file_io.h"
#include "interp/random_inputs.h"
#include "parser/parse_or_fail.h"
#include "parser/parser.h"

namespace hlo::cpu {
namespace {

// A compiled module, its plan, and an image of it whose functions are the
// JIT's own (in the plan's order).
struct Compiled {
  std::unique_ptr<jit::Executable> exe;
  AotPlan plan;
  std::vector<void*> functions;
  HloAotImage image() const {
    return {kAotImageVersion, plan.record.data(), plan.record.size(), functions.data(), functions.size()};
  }
};

StatusOr<Compiled> compileWithPlan(const Module& module) {
  Compiled c;
  HLO_ASSIGN_OR_RETURN(c.exe, jit::compile(module, "cpu", withCpuOptions({}, cpuThreads(2))));
  const auto* cpu = dynamic_cast<const CpuExecutable*>(c.exe.get());
  if (!cpu) return errorStatus("not a CpuExecutable (runtime sizes)");
  HLO_ASSIGN_OR_RETURN(c.plan, writeAotPlan(*cpu));
  std::map<std::string, void*> address;
  for (const auto& program : cpu->programs())
    for (const Step& step : program->steps) {
      if (step.kind == Step::Kind::kKernel) address[step.kernelName] = reinterpret_cast<void*>(step.kernel);
      for (size_t h = 0; h < step.helperNames.size(); ++h) address[step.helperNames[h]] = step.helpers[h];
    }
  for (const std::string& name : c.plan.functionNames) c.functions.push_back(address.at(name));
  return c;
}

TEST(AotImage, LoadedPlansRunAsTheExecutable) {
  int compared = 0;
  for (const char* dir : {"testdata/jax", "testdata/examples"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".hlo") continue;
      auto module = parseModule(readInput(entry.path().string()).value_or(""));
      ASSERT_TRUE(module.ok()) << entry.path();
      StatusOr<Compiled> c = compileWithPlan(**module);
      if (!c.ok()) continue;  // the runtime sizes the image does not take
      StatusOr<std::unique_ptr<CpuExecutable>> loaded = loadAotImage(c->image(), 2);
      ASSERT_TRUE(loaded.ok()) << entry.path() << ": " << loaded.status().message();
      std::vector<Literal> args = interp::randomArguments(*(*module)->entry(), 7);
      StatusOr<Literal> want = c->exe->run(args);
      StatusOr<Literal> got = (*loaded)->run(args);
      ASSERT_EQ(want.ok(), got.ok()) << entry.path();
      if (want.ok()) {
        EXPECT_TRUE(*want == *got) << entry.path();
      }
      ++compared;
    }
  }
  EXPECT_GE(compared, 12);
}

constexpr const char* kSortModule = R"(HloModule m
%lt (a: f32[], b: f32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %c = pred[] compare(%a, %b), direction=LT
}
ENTRY %e (x: f32[5]) -> f32[5] {
  %x = f32[5] parameter(0)
  %n = f32[5] negate(%x)
  ROOT %s = f32[5] sort(%n), dimensions={0}, to_apply=%lt
}
)";

TEST(AotImage, ALibraryOpRunsWithItsCompiledHelper) {
  auto module = parseOrFail(kSortModule);
  StatusOr<Compiled> c = compileWithPlan(*module);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->plan.functionNames.size(), 2u);  // negate's kernel and the comparator
  StatusOr<std::unique_ptr<CpuExecutable>> loaded = loadAotImage(c->image(), 1);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  Literal x(Shape(ElementType::kF32, {5}));
  const float values[5] = {3, -1, 4, 1, -5};
  for (int i = 0; i < 5; ++i) x.data<float>()[i] = values[i];
  StatusOr<Literal> out = (*loaded)->run(std::vector<Literal>{x});
  ASSERT_TRUE(out.ok()) << out.status().message();
  const float sorted[5] = {-4, -3, -1, 1, 5};  // the negated values, ascending
  for (int i = 0; i < 5; ++i) EXPECT_EQ(out->data<float>()[i], sorted[i]);
}

TEST(AotImage, DamagedPlansAndOtherVersionsAreErrors) {
  auto module = parseOrFail(kSortModule);
  StatusOr<Compiled> c = compileWithPlan(*module);
  ASSERT_TRUE(c.ok());
  HloAotImage image = c->image();
  for (size_t n = 0; n < c->plan.record.size(); n += 7) {
    HloAotImage cut = image;
    cut.planBytes = n;
    EXPECT_FALSE(loadAotImage(cut, 1).ok()) << "cut to " << n;
  }
  std::string damaged = c->plan.record;
  for (size_t at = 0; at < damaged.size(); at += 3) {
    std::string bytes = damaged;
    bytes[at] = static_cast<char>(bytes[at] ^ 0x5a);
    HloAotImage bad = image;
    bad.plan = bytes.data();
    EXPECT_FALSE(loadAotImage(bad, 1).ok()) << "byte " << at << " changed";
  }
  HloAotImage other = image;
  other.version = kAotImageVersion + 1;
  StatusOr<std::unique_ptr<CpuExecutable>> refused = loadAotImage(other, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("rebuild the object"), std::string::npos);
  HloAotImage fewer = image;
  fewer.functionCount = 1;
  EXPECT_FALSE(loadAotImage(fewer, 1).ok());
}

TEST(AotImage, ARunInTheCallersArenaGivesTheSameResult) {
  // Two chained elementwise kernels: the first's value lives in the arena.
  auto module = parseOrFail(R"(HloModule m
ENTRY %e (x: f32[64]) -> f32[64] {
  %x = f32[64] parameter(0)
  %a = f32[64] exponential(%x)
  %b = f32[64] sine(%a)
  ROOT %c = f32[64] multiply(%a, %b)
}
)");
  jit::CompileOptions unfused;
  unfused.fuse = false;
  auto exe = jit::compile(*module, "cpu", unfused);
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto* cpu = dynamic_cast<CpuExecutable*>(exe->get());
  ASSERT_NE(cpu, nullptr);
  ASSERT_GT(cpu->arenaBytes(), 0);
  std::vector<Literal> args = interp::randomArguments(*module->entry(), 3);
  StatusOr<Literal> want = cpu->run(args);
  ASSERT_TRUE(want.ok());
  const size_t bytes = static_cast<size_t>(cpu->arenaBytes());
  auto* arena = static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + 63) / 64 * 64));
  std::memset(arena, 0, bytes);
  StatusOr<Literal> got = cpu->runWith(args, {arena, {}});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(*got == *want);
  bool written = false;
  for (size_t i = 0; i < bytes; ++i) written = written || arena[i] != 0;
  EXPECT_TRUE(written) << "the run's scratch values went somewhere else";
  StatusOr<Literal> misaligned = cpu->runWith(args, {arena + 8, {}});
  ASSERT_FALSE(misaligned.ok());
  EXPECT_NE(misaligned.status().message().find("aligned to 64 bytes"), std::string::npos);
  std::free(arena);
}

TEST(AotImage, ResultsGoStraightIntoTheCallersAlignedBuffers) {
  auto module = parseOrFail(R"(HloModule m
ENTRY %e (x: f32[64]) -> (f32[64], f32[64]) {
  %x = f32[64] parameter(0)
  %a = f32[64] exponential(%x)
  %b = f32[64] sine(%x)
  ROOT %t = (f32[64], f32[64]) tuple(%a, %b)
}
)");
  auto exe = jit::compile(*module, "cpu");
  ASSERT_TRUE(exe.ok()) << exe.status().message();
  auto* cpu = dynamic_cast<CpuExecutable*>(exe->get());
  ASSERT_NE(cpu, nullptr);
  std::vector<Literal> args = interp::randomArguments(*module->entry(), 5);
  StatusOr<Literal> want = cpu->run(args);
  ASSERT_TRUE(want.ok());
  auto* memory = static_cast<uint8_t*>(std::aligned_alloc(64, 3 * 256));
  // Aligned: the kernels write the caller's buffers, and the result lies there.
  void* aligned[2] = {memory, memory + 256};
  StatusOr<Literal> got = cpu->runWith(args, {nullptr, aligned});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_TRUE(*got == *want);
  EXPECT_EQ(got->tupleElements()[0].untypedData(), memory);
  EXPECT_EQ(got->tupleElements()[1].untypedData(), memory + 256);
  EXPECT_EQ(std::memcmp(memory, want->tupleElements()[0].untypedData(), 256), 0);
  // Not aligned: the run uses buffers of its own, for the caller to copy.
  void* misaligned[2] = {memory + 4, memory + 260};
  got = cpu->runWith(args, {nullptr, misaligned});
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(*got == *want);
  EXPECT_NE(got->tupleElements()[0].untypedData(), memory + 4);
  std::free(memory);
}

TEST(AotHeader, StartsWithTheRuntimesHeader) {
  EXPECT_EQ(std::string(kRuntimeHeader), readInput("backends/cpu/hlo_rt.h").value_or(""));
  auto module = parseOrFail(kSortModule);
  StatusOr<std::string> header = aotHeader(*module, {"Sorter", "ns::inner", "sort.hlo", 64});
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_NE(header->find(kRuntimeHeader), std::string::npos);
  EXPECT_NE(header->find("static inline int Sorter_run(const float* x, float* result, char** error)"),
            std::string::npos);
  EXPECT_NE(header->find("namespace ns::inner {"), std::string::npos);
  EXPECT_NE(header->find("static constexpr int64_t k_x_count = 5;"), std::string::npos);
  EXPECT_NE(header->find("static constexpr uint64_t kArenaBytes = 64;"), std::string::npos);
}

TEST(AotHeader, RefusesWhatItCannotType) {
  auto tupleParameter = parseOrFail(R"(HloModule m
ENTRY %e (p: (f32[2], f32[2])) -> f32[2] {
  %p = (f32[2], f32[2]) parameter(0)
  ROOT %g = f32[2] get-tuple-element(%p), index=0
}
)");
  Status refused = checkAotSignature(*tupleParameter);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("takes arrays only"), std::string::npos);
  EXPECT_TRUE(isCIdentifier("Model_2"));
  EXPECT_FALSE(isCIdentifier("2model"));
  EXPECT_FALSE(isCIdentifier("my-model"));
}

}  // namespace
}  // namespace hlo::cpu
