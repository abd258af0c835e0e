// hlo-opt: parse, verify, optionally run passes, and print an HLO module.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conformance/bisect.h"
#include "hlo/passes/buffer_assignment.h"
#include "hlo/passes/diff.h"
#include "hlo/passes/dump.h"
#include "hlo/passes/explain.h"
#include "hlo/passes/html_report.h"
#include "hlo/passes/pass.h"
#include "hlo/passes/stats.h"
#include "hlo/printer.h"
#include "interp/evaluator.h"
#include "parser/load_module.h"
#include "hlo/file_io.h"

namespace {

constexpr const char* kUsage =
    "usage: hlo-opt [options] FILE.hlo   (FILE may be - for standard input)\n"
    "Parses and verifies FILE, runs the passes asked for, and prints the module\n"
    "to standard output. Diagnostics (--print-*, --stats) go to standard error.\n"
    "  -o FILE                write the module to FILE instead of standard output\n"
    "  --passes=A,B,...       run these passes in order (see --list-passes); the analysis\n"
    "                         buffer-assignment changes nothing and prints its report\n"
    "                         (where every buffer lives) to standard error\n"
    "  --pipeline=TARGET      run a target's pipeline: cpu or gpu\n"
    "  --list-passes          list the passes and pipelines, then exit\n"
    "  --verify-each          verify the module after every pass, and that a pass which\n"
    "                         reports no change left it as it was; a failure names the pass\n"
    "  --print-after-all      print the module to standard error after every pass\n"
    "  --print-changed        print a unified diff to standard error for each pass that\n"
    "                         changed the module\n"
    "  --explain=PASS         print to standard error, after each run of PASS, one line per\n"
    "                         decision it made and why (\"%exp fused into %div: moved, every\n"
    "                         user of it is in the fusion\"); passes that explain: fusion,\n"
    "                         simplify (each rule that fired, on what), buffer-assignment\n"
    "                         (where each value lives: a dead value's memory it reuses, new\n"
    "                         memory, the caller's or a result buffer of its own)\n"
    "  --stats                print, before and after the passes, to standard error: counts\n"
    "                         of computations and of instructions per opcode, fusions by\n"
    "                         size, the bytes the kernels read and write (the model is in\n"
    "                         hlo/passes/stats.h) and the buffer bytes of one execution\n"
    "                         (peak live and arena with reuse, total without)\n"
    "  --dump-to=DIR          write the module after every pass to DIR as NNN.<pass>.hlo and\n"
    "                         NNN.<pass>.dot (Graphviz); 000.input is the parsed input\n"
    "  --dump-pass-re=RE      dump only passes whose name matches RE (RE2, partial match;\n"
    "                         the input counts as the pass 'input')\n"
    "  --dump-module-re=RE    dump only modules whose name matches RE\n"
    "  --dump-format=FORMAT   dot (default) or svg: also render NNN.<pass>.svg with\n"
    "                         Graphviz's dot -Tsvg\n"
    "  --html=FILE            write one self-contained page (no network) of what the passes\n"
    "                         did: per step the module with the lines it added highlighted,\n"
    "                         the diff, the graph (SVG by Graphviz, fusions as clusters) and\n"
    "                         the stats against the step before, with a slider over steps\n"
    "  --bisect               evaluate the module with the interpreter before the passes\n"
    "                         and after each one (seeded inputs), and report the first pass\n"
    "                         that changes the result (compared exactly; NaN equals NaN)\n"
    "                         with its diff; runs the cpu pipeline unless\n"
    "                         --passes or --pipeline says otherwise; prints a report, not\n"
    "                         the module (exit status 1 when a pass changes the result)\n"
    "  --random-seed=N        seed for --bisect's inputs (default 0), as in hlo-run\n"
    "  --help                 show this help\n"
    "Exit status: 0 success, 1 input or pass error, 2 usage error.\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "hlo-opt: %s\n%s", message.c_str(), kUsage);
  return 2;
}

int failure(const std::string& message) {
  std::fprintf(stderr, "hlo-opt: error: %s\n", message.c_str());
  return 1;
}

std::vector<std::string> splitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

void listPasses() {
  std::printf("passes:\n");
  for (const hlo::PassInfo& p : hlo::registeredPasses())
    std::printf("  %-18s %.*s\n", std::string(p.name).c_str(), static_cast<int>(p.help.size()),
                p.help.data());
  std::printf("pipelines (--pipeline=):\n");
  for (const hlo::PipelineInfo& p : hlo::registeredPipelines()) {
    std::string passes;
    for (std::string_view name : p.passes) passes += (passes.empty() ? "" : ",") + std::string(name);
    std::printf("  %-18s %s\n", std::string(p.target).c_str(), passes.c_str());
  }
}

struct Flags {
  std::string input, output, passes, pipeline, explain, html;
  bool verifyEach = false, printAfterAll = false, printChanged = false, stats = false;
  bool dump = false, bisect = false;
  uint64_t seed = 0;
  hlo::DumpOptions dumpOptions;
};

// Parses argv into flags; returns an exit status when the program should stop.
std::optional<int> parseFlags(int argc, char** argv, Flags& f) {
  std::string dumpFormat, seed;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name, std::string& into) {
      size_t n = std::strlen(name);
      if (arg.compare(0, n, name) != 0 || arg.size() <= n || arg[n] != '=') return false;
      into = arg.substr(n + 1);
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--list-passes") {
      listPasses();
      return 0;
    }
    if (arg == "-o") {
      if (i + 1 >= argc) return usageError("-o needs a file name");
      f.output = argv[++i];
    } else if (arg.rfind("-o", 0) == 0 && arg.size() > 2 && arg[1] == 'o') {
      f.output = arg.substr(2);
    } else if (value("--passes", f.passes) || value("--pipeline", f.pipeline) ||
               value("--dump-pass-re", f.dumpOptions.passRegex) ||
               value("--dump-module-re", f.dumpOptions.moduleRegex) ||
               value("--dump-format", dumpFormat) || value("--random-seed", seed) || value("--explain", f.explain) ||
               value("--html", f.html)) {
    } else if (value("--dump-to", f.dumpOptions.dir)) {
      f.dump = true;
    } else if (arg == "--verify-each") {
      f.verifyEach = true;
    } else if (arg == "--print-after-all") {
      f.printAfterAll = true;
    } else if (arg == "--print-changed") {
      f.printChanged = true;
    } else if (arg == "--stats") {
      f.stats = true;
    } else if (arg == "--bisect") {
      f.bisect = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (f.input.empty()) {
      f.input = arg;
    } else {
      return usageError("more than one input file");
    }
  }
  if (f.input.empty()) return usageError("no input file");
  if (!f.passes.empty() && !f.pipeline.empty())
    return usageError("--passes and --pipeline cannot be combined");
  if (!seed.empty()) {
    char* end = nullptr;
    f.seed = std::strtoull(seed.c_str(), &end, 10);
    if (*end != '\0' || seed[0] == '-') return usageError("--random-seed needs a number, not '" + seed + "'");
  }
  if (dumpFormat == "svg") f.dumpOptions.format = hlo::DumpFormat::kSvg;
  else if (!dumpFormat.empty() && dumpFormat != "dot")
    return usageError("--dump-format must be dot or svg, not '" + dumpFormat + "'");
  if (!f.dump && (!f.dumpOptions.passRegex.empty() || !f.dumpOptions.moduleRegex.empty() ||
                  !dumpFormat.empty()))
    return usageError("--dump-pass-re, --dump-module-re and --dump-format need --dump-to");
  return std::nullopt;
}

// --bisect: the first pass whose module computes something else
// (conformance/bisect.h).
int bisect(hlo::Module& module, const std::vector<std::string>& passNames, uint64_t seed) {
  std::vector<hlo::PassInfo> passes;
  for (const std::string& name : passNames) passes.push_back(*hlo::findPass(name));  // main checked the names
  auto finding = hlo::bisectPasses(module, passes, seed);
  if (!finding.ok()) return failure(finding.status().message());
  std::fputs(finding->report.c_str(), stdout);
  return finding->badPass ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> exit = parseFlags(argc, argv, flags)) return *exit;

  std::vector<std::string> passNames = splitCommas(flags.passes);
  if (!flags.pipeline.empty()) {
    auto pipeline = hlo::pipelineFor(flags.pipeline);
    if (!pipeline) return usageError("unknown pipeline '" + flags.pipeline + "' (cpu or gpu)");
    passNames = *pipeline;
  }
  for (const std::string& name : passNames)
    if (!hlo::findPass(name)) return usageError("unknown pass '" + name + "' (see --list-passes)");
  // The passes that say why they decide what they do (hlo/passes/explain.h).
  const std::vector<std::string> explainable = {"buffer-assignment", "fusion", "simplify"};
  std::vector<std::unique_ptr<hlo::ExplainScope>> explained;
  for (const std::string& name : splitCommas(flags.explain)) {
    if (std::find(explainable.begin(), explainable.end(), name) == explainable.end())
      return usageError("--explain: pass '" + name + "' explains nothing (passes that explain: buffer-assignment, fusion, simplify)");
    explained.push_back(std::make_unique<hlo::ExplainScope>(name));
  }
  std::vector<size_t> explainedShown(explained.size(), 0);  // lines of each already printed

  auto loaded = hlo::loadModule(flags.input);
  if (!loaded.ok()) return std::fputs(loaded.status().message().c_str(), stderr), 1;
  hlo::Module& module = *loaded->module;

  if (flags.bisect) {
    if (flags.passes.empty() && flags.pipeline.empty()) passNames = *hlo::pipelineFor("cpu");
    return bisect(module, passNames, flags.seed);
  }

  std::unique_ptr<hlo::Dumper> dumper;
  if (flags.dump) {
    auto created = hlo::Dumper::create(flags.dumpOptions);
    if (!created.ok()) return failure(created.status().message());
    dumper = std::move(*created);
    hlo::Status dumped = dumper->dump(module, 0, "input");
    if (!dumped.ok()) return failure(dumped.message());
  }
  hlo::ModuleStats statsBefore = hlo::moduleStats(module);
  std::unique_ptr<hlo::HtmlReport> report;
  if (!flags.html.empty()) {
    report = std::make_unique<hlo::HtmlReport>(module.name());
    report->addStep("input", false, module);
  }

  // The text before the current pass, kept only when a flag needs it.
  bool keepText = flags.printChanged || flags.verifyEach;
  std::string previous = keepText ? hlo::printModule(module) : "";
  hlo::PipelineOptions options;
  options.constantEvaluator = hlo::interp::constantEvaluator();  // `fold` computes as the interpreter does
  options.verifyEach = flags.verifyEach;
  options.afterPass = [&](const hlo::PassEvent& e) -> hlo::Status {
    std::string pass(e.pass);
    std::string current = keepText || flags.printAfterAll ? hlo::printModule(e.module) : "";
    if (flags.verifyEach && !e.changed && current != previous)
      return hlo::errorStatus("pass '" + pass + "' changed the module but reported no change");
    if (flags.printAfterAll)
      std::fprintf(stderr, "// ----- after pass %d '%s' (%s) -----\n%s", e.index, pass.c_str(),
                   e.changed ? "changed" : "unchanged", current.c_str());
    if (flags.printChanged) {
      std::string label = std::to_string(e.index) + "." + pass;
      std::fputs(hlo::unifiedDiff(previous, current, "before " + label, "after " + label).c_str(),
                 stderr);
    }
    if (e.pass == "buffer-assignment") {
      auto buffers = hlo::assignBuffers(e.module);
      if (!buffers.ok()) return hlo::errorStatus("buffer-assignment: " + buffers.status().message());
      std::fputs(hlo::formatBufferAssignment(*buffers).c_str(), stderr);
    }
    for (size_t s = 0; s < explained.size(); ++s) {
      if (explained[s]->pass() != e.pass) continue;
      const std::vector<std::string>& lines = explained[s]->lines();
      for (size_t k = explainedShown[s]; k < lines.size(); ++k)
        std::fprintf(stderr, "%s: %s\n", pass.c_str(), lines[k].c_str());
      explainedShown[s] = lines.size();
    }
    if (dumper) HLO_RETURN_IF_ERROR(dumper->dump(e.module, e.index, e.pass));
    if (report) report->addStep(e.pass, e.changed, e.module);
    if (keepText) previous = std::move(current);
    return hlo::okStatus();
  };
  hlo::Status ran = hlo::runPipeline(module, passNames, options);
  if (!ran.ok()) return failure(ran.message());
  if (flags.stats)
    std::fputs(hlo::formatStats(module.name(), statsBefore, hlo::moduleStats(module)).c_str(), stderr);
  if (report && !hlo::writeOutput(flags.html, report->page())) return failure("cannot write " + flags.html);

  std::string printed = hlo::printModule(module);
  if (flags.output.empty()) {
    std::fwrite(printed.data(), 1, printed.size(), stdout);
    return 0;
  }
  std::ofstream out(flags.output, std::ios::binary);
  out << printed;
  if (!out) {
    std::fprintf(stderr, "%s: error: cannot write file\n", flags.output.c_str());
    return 1;
  }
  return 0;
}
