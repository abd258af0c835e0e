// The corpus-wide figures of a pass pipeline (hlo-pass-corpus --stats).
#include "conformance/pass_corpus_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "hlo/passes/pass.h"
#include "hlo/passes/stats.h"
#include "interp/evaluator.h"
#include "hlo/verifier.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

namespace hlo::conformance {
namespace {

// The figures of one module, in the order they travel in an outcome's detail.
struct Figures {
  double instructionsIn = 0, instructionsOut = 0, fusions = 0, fusedInstructions = 0;
  double trafficIn = 0, trafficBeforeFusion = 0, trafficOut = 0, heavy = 0;
  double peakIn = -1, noReuseIn = -1, peakOut = -1, noReuseOut = -1, arenaOut = -1;
  double programIn = 0, programOut = 0;  // outside fused and applied computations

  std::string encode() const {
    char buf[320];
    std::snprintf(buf, sizeof buf, "%.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f %.0f",
                  instructionsIn, instructionsOut, fusions, fusedInstructions, trafficIn,
                  trafficBeforeFusion, trafficOut, heavy, peakIn, noReuseIn, peakOut, noReuseOut,
                  arenaOut, programIn, programOut);
    return buf;
  }
  bool decode(const std::string& text) {
    std::istringstream in(text);
    return static_cast<bool>(in >> instructionsIn >> instructionsOut >> fusions >> fusedInstructions >>
                             trafficIn >> trafficBeforeFusion >> trafficOut >> heavy >> peakIn >>
                             noReuseIn >> peakOut >> noReuseOut >> arenaOut >> programIn >> programOut);
  }
};

double traffic(const ModuleStats& s) { return s.bytesRead + s.bytesWritten; }

// Sums over a set of modules.
struct Totals {
  int modules = 0;
  double instructionsIn = 0, instructionsOut = 0, fusions = 0, fusedInstructions = 0;
  double programIn = 0, programOut = 0;
  double trafficIn = 0, trafficBeforeFusion = 0, trafficOut = 0;
  std::vector<double> ratios;  // before fusion / after, of modules that move bytes
  int buffered = 0;  // modules whose buffers were assigned before and after
  double peakIn = 0, noReuseIn = 0, peakOut = 0, noReuseOut = 0, arenaOut = 0;

  void add(const Figures& f) {
    ++modules;
    instructionsIn += f.instructionsIn;
    instructionsOut += f.instructionsOut;
    programIn += f.programIn;
    programOut += f.programOut;
    fusions += f.fusions;
    fusedInstructions += f.fusedInstructions;
    trafficIn += f.trafficIn;
    trafficBeforeFusion += f.trafficBeforeFusion;
    trafficOut += f.trafficOut;
    if (f.trafficBeforeFusion > 0 && f.trafficOut > 0) ratios.push_back(f.trafficBeforeFusion / f.trafficOut);
    if (f.peakIn >= 0 && f.peakOut >= 0) {
      ++buffered;
      peakIn += f.peakIn;
      noReuseIn += f.noReuseIn;
      peakOut += f.peakOut;
      noReuseOut += f.noReuseOut;
      arenaOut += f.arenaOut;
    }
  }

  void print(const char* title) {
    auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    // Totals are dominated by the few modules with huge shapes; the
    // per-module figures weigh every module alike.
    std::sort(ratios.begin(), ratios.end());
    double logSum = 0;
    int halved = 0;
    for (double r : ratios) {
      logSum += std::log(r);
      halved += r >= 2;
    }
    int n = static_cast<int>(ratios.size());
    std::printf("%s: %d modules\n", title, modules);
    std::printf("  instructions              %14.0f before, %14.0f after the pipeline (x%.2f)\n",
                instructionsIn, instructionsOut, ratio(instructionsOut, instructionsIn));
    std::printf("    in ENTRY, bodies, branches %11.0f before, %14.0f after (x%.2f)\n", programIn,
                programOut, ratio(programOut, programIn));
    std::printf("  fusions after             %14.0f, holding %.0f instructions (%.1f each)\n", fusions,
                fusedInstructions, ratio(fusedInstructions, fusions));
    std::printf("  kernel bytes moved        %14.0f as parsed, %14.0f before fusion, %14.0f after\n",
                trafficIn, trafficBeforeFusion, trafficOut);
    std::printf("  traffic cut by fusion     %.2fx in total; per module of %d: geometric mean %.2fx, "
                "median %.2fx, %d at least 2x\n",
                ratio(trafficBeforeFusion, trafficOut), n, n ? std::exp(logSum / n) : 0.0,
                n ? ratios[n / 2] : 0.0, halved);
    std::printf("  buffer bytes (%d modules) as parsed: peak %.0f with reuse, %.0f without (%.2fx)\n",
                buffered, peakIn, noReuseIn, ratio(noReuseIn, peakIn));
    std::printf("  buffer bytes after the pipeline:     peak %.0f with reuse (arena %.0f), %.0f without (%.2fx)\n",
                peakOut, arenaOut, noReuseOut, ratio(noReuseOut, peakOut));
  }
};

}  // namespace

Outcome measurePipeline(const std::string& path, const std::string& pipeline) {
  std::optional<std::string> text = readInput(path);
  if (!text) return {"skipped", "cannot read"};
  auto parsed = parseModule(*text);
  if (!parsed.ok()) return {"skipped", "parse error"};
  Module& module = **parsed;
  if (!verify(module).ok()) return {"skipped", "verify error"};
  std::vector<std::string> passes = *pipelineFor(pipeline);
  size_t fusionAt = 0;
  while (fusionAt < passes.size() && passes[fusionAt] != "fusion") ++fusionAt;
  std::vector<std::string> before(passes.begin(), passes.begin() + fusionAt);
  std::vector<std::string> rest(passes.begin() + fusionAt, passes.end());

  reportProgress("statistics of the input");
  ModuleStats in = moduleStats(module);
  reportProgress("passes before fusion");
  PipelineOptions options;
  options.constantEvaluator = interp::constantEvaluator();  // `fold` computes as the interpreter does
  Status ran = runPipeline(module, before, options);
  if (!ran.ok()) return {"pass-error", ran.message()};
  ModuleStats beforeFusion = moduleStats(module);
  reportProgress("fusion and the passes after it");
  ran = runPipeline(module, rest, options);
  if (!ran.ok()) return {"pass-error", ran.message()};
  ModuleStats out = moduleStats(module);

  Figures f;
  f.instructionsIn = static_cast<double>(in.instructions);
  f.instructionsOut = static_cast<double>(out.instructions);
  f.programIn = static_cast<double>(in.programInstructions);
  f.programOut = static_cast<double>(out.programInstructions);
  f.fusions = static_cast<double>(out.fusionSizes.size());
  for (int64_t n : out.fusionSizes) f.fusedInstructions += static_cast<double>(n);
  f.trafficIn = traffic(in);
  f.trafficBeforeFusion = traffic(beforeFusion);
  f.trafficOut = traffic(out);
  f.heavy = elementwiseHeavy(in) ? 1 : 0;
  f.peakIn = static_cast<double>(in.peakBytes);
  f.noReuseIn = static_cast<double>(in.noReuseBytes);
  f.peakOut = static_cast<double>(out.peakBytes);
  f.noReuseOut = static_cast<double>(out.noReuseBytes);
  f.arenaOut = static_cast<double>(out.arenaBytes);
  return {"ok", f.encode()};
}

void printPipelineStats(const std::vector<Outcome>& outcomes, const std::string& pipeline) {
  Totals all, heavy;
  int skipped = 0, failed = 0;
  for (const Outcome& o : outcomes) {
    Figures f;
    if (o.status == "skipped") {
      ++skipped;
    } else if (o.status != "ok" || !f.decode(o.detail)) {
      ++failed;
    } else {
      all.add(f);
      if (f.heavy > 0) heavy.add(f);
    }
  }
  std::printf("the %s pipeline over the corpus (%d skipped: do not parse or verify; %d failed: "
              "pass error, timeout or crash)\n",
              pipeline.c_str(), skipped, failed);
  all.print("all measured modules");
  heavy.print("elementwise-heavy modules (elementwiseHeavy in hlo/passes/stats.h)");
}

}  // namespace hlo::conformance
