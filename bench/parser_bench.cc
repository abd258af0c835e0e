// Parser throughput: bytes of HLO text parsed per second.
//
// Three inputs, each held in memory before timing starts so only parsing is
// measured (no verification, no printing):
//   - the visible XLA corpus ($HLO_CORPUS, else ../shared/corpus), every
//     module parsed once per iteration; skipped with a message when absent;
//   - a synthetic module of 200k elementwise instructions (names, shapes and
//     operand lists dominate);
//   - a synthetic module with one 4M-element f32 constant (float literal
//     reading dominates).
// Target: at least 50 MB/s for each.
#include <benchmark/benchmark.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "parser/parser.h"

namespace {

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every .hlo under <corpus>/xla/visible (or <corpus>/visible); empty if none.
std::vector<std::string> loadCorpus() {
  const char* env = std::getenv("HLO_CORPUS");
  std::filesystem::path root = env ? env : "../shared/corpus";
  std::vector<std::string> texts;
  for (auto dir : {root / "xla" / "visible", root / "visible"}) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".hlo") texts.push_back(readFile(entry.path()));
    break;
  }
  return texts;
}

// Parses each text once per iteration; counts the bytes of every text, also
// those the parser rejects (they are read too, up to the error). The
// modules are freed with the clock stopped: destroying a module is not
// parsing (and costs a quarter as much again, mostly in free()).
void parseAll(benchmark::State& state, const std::vector<std::string>& texts) {
  int64_t bytes = 0;
  for (const std::string& t : texts) bytes += static_cast<int64_t>(t.size());
  std::vector<hlo::StatusOr<std::unique_ptr<hlo::Module>>> results;
  results.reserve(texts.size());
  for (auto _ : state) {
    for (const std::string& t : texts) results.push_back(hlo::parseModule(t));
    benchmark::DoNotOptimize(results.data());
    state.PauseTiming();
    results.clear();
    state.ResumeTiming();
  }
  state.SetBytesProcessed(state.iterations() * bytes);
}

void BM_ParseCorpus(benchmark::State& state) {
  static const std::vector<std::string> texts = loadCorpus();
  if (texts.empty()) {
    state.SkipWithError("corpus not found: set HLO_CORPUS to the corpus folder");
    return;
  }
  parseAll(state, texts);
}

// A chain of `n` elementwise instructions over f32[16,16] values, the way
// XLA prints them: `%add.12 = f32[16,16]{1,0} add(%x.11, %y.10)`.
std::string elementwiseModule(int n) {
  std::string text = "HloModule synthetic_elementwise\n\nENTRY %main (p0: f32[16,16], p1: "
                     "f32[16,16]) -> f32[16,16] {\n"
                     "  %p0 = f32[16,16]{1,0} parameter(0)\n"
                     "  %p1 = f32[16,16]{1,0} parameter(1)\n";
  static const char* kOps[] = {"add", "multiply", "subtract", "maximum"};
  std::string prev = "%p0", prev2 = "%p1";
  for (int i = 0; i < n; ++i) {
    std::string name = "%" + std::string(kOps[i % 4]) + "." + std::to_string(i);
    text += std::string(i + 1 == n ? "  ROOT " : "  ") + name + " = f32[16,16]{1,0} " +
            kOps[i % 4] + "(" + prev + ", " + prev2 + ")\n";
    prev2 = prev;
    prev = name;
  }
  return text + "}\n";
}

// One constant of `n` f32 values in printed form (varied mantissas, signs
// and exponents so the float reader does real work).
std::string bigConstantModule(int n) {
  std::string text = "HloModule synthetic_constant\n\nENTRY %main () -> f32[" +
                     std::to_string(n) + "] {\n  ROOT %c = f32[" + std::to_string(n) +
                     "]{0} constant({";
  uint32_t x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;  // a fixed LCG: the same text every run
    if (i) text += ", ";
    float v = static_cast<float>(static_cast<int32_t>(x)) / 65536.0f;
    if (i % 7 == 0) v *= 1e-20f;
    char buf[32];
    text.append(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);  // shortest, as XLA prints
  }
  return text + "})\n}\n";
}

void BM_ParseElementwise200k(benchmark::State& state) {
  static const std::vector<std::string> texts = {elementwiseModule(200000)};
  parseAll(state, texts);
}

void BM_ParseConstant4M(benchmark::State& state) {
  static const std::vector<std::string> texts = {bigConstantModule(4 << 20)};
  parseAll(state, texts);
}

BENCHMARK(BM_ParseCorpus)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_ParseElementwise200k)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_ParseConstant4M)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
