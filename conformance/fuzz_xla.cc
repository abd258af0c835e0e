#include "conformance/fuzz_xla.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "conformance/contraction_bound.h"
#include "conformance/xla_batch.h"
#include "hlo/file_io.h"
#include "hlo/npy.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "parser/parser.h"

namespace hlo::conformance::fuzz {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOracle = "conformance/xla_oracle.py";

// `relative` (a path in the repository) beside the running program's
// build/bin, where it is there; else as given, from the working folder.
std::string inRepository(const std::string& relative) {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    fs::path candidate = self.parent_path().parent_path().parent_path() / relative;
    if (fs::exists(candidate, error)) return candidate.string();
  }
  return relative;
}

// XLA's result arrays (outputs.npz, named as hlo-run --output names them)
// against the interpreter's on module `text`.
Outcome compareWithXla(const std::string& text, uint64_t seed, const std::string& outputs) {
  auto module = parseModule(text);
  if (!module.ok()) return {"invalid", module.status().message()};
  std::vector<Literal> args = interp::randomArguments(*(*module)->entry(), seed);
  reportProgress("interpreter");
  auto expected = interp::evaluate(**module, args, {});
  if (!expected.ok()) return {"invalid", "interpreter: " + expected.status().message()};
  std::optional<std::string> bytes = readInput(outputs);
  if (!bytes) return {"error", "cannot read XLA's results " + outputs};
  auto members = readNpz(*bytes);
  if (!members.ok()) return {"error", outputs + ": " + members.status().message()};
  std::map<std::string, NpyArray*> byName;
  for (NpzMember& m : *members) byName[m.name] = &m.array;
  const bool tuple = expected->shape().isTuple();
  const std::vector<Literal> leaves = tuple ? expected->tupleElements() : std::vector<Literal>{};
  Literal actual;
  for (size_t i = 0; i < (tuple ? leaves.size() : 1); ++i) {
    const Literal& mine = tuple ? leaves[i] : *expected;
    const std::string name = tuple ? "result." + std::to_string(i) : "result";
    auto it = byName.find(name);
    if (it == byName.end()) return {"error", "XLA gave no " + name};
    NpyArray& theirs = *it->second;
    if (theirs.untyped && !retypeRaw(theirs, mine.type()).ok()) return {"error", name + ": cannot be read as ours"};
    if (theirs.value.shape().dims() != mine.shape().dims() || theirs.value.type() != mine.type())
      return {"disagree", name + ": XLA's is " + theirs.value.shape().toString(false) + ", ours " +
                              mine.shape().toString(false)};
    if (!tuple) actual = std::move(theirs.value);
    else actual.tupleElements().push_back(std::move(theirs.value));
  }
  reportProgress("compare");
  EngineComparison c = compareEngines(**module, args, {}, actual, *expected);
  if (c.agree) return {"ok", ""};
  return {"disagree", c.plain.firstMismatch + " (XLA's vs the interpreter's)"};
}

}  // namespace

std::vector<Outcome> runOnXla(const std::vector<std::string>& texts, const std::vector<uint64_t>& seeds, int jobs,
                              std::string python) {
  if (python.empty()) python = inRepository("build/xla-venv/bin/python");
  const std::string oracle = inRepository(kOracle);
  std::vector<Outcome> outcomes(texts.size());
  if (access(python.c_str(), X_OK) != 0 || access(oracle.c_str(), R_OK) != 0) {
    for (Outcome& o : outcomes) o = {"skipped: no xla", python + " or " + oracle + " is missing (make xla-env)"};
    return outcomes;
  }
  char folder[] = "/tmp/hlo-fuzz-xla-XXXXXX";
  if (!mkdtemp(folder)) {
    for (Outcome& o : outcomes) o = {"error", "cannot make a temporary folder"};
    return outcomes;
  }
  const std::string work = folder;
  std::string jobList;
  std::vector<bool> sent(texts.size(), false);
  for (size_t i = 0; i < texts.size(); ++i) {
    auto module = parseModule(texts[i]);
    if (!module.ok() || !verify(**module).ok()) {
      outcomes[i] = {"invalid", "the module does not parse or verify"};
      continue;
    }
    std::vector<Literal> args = interp::randomArguments(*(*module)->entry(), seeds[i]);
    std::vector<std::pair<std::string, const Literal*>> named;
    for (size_t p = 0; p < args.size(); ++p) named.push_back({"p" + std::to_string(p), &args[p]});
    auto npz = writeNpz(named);
    const std::string base = work + "/" + std::to_string(i);
    if (!npz.ok() || !writeOutput(base + ".hlo", texts[i]) || !writeOutput(base + ".npz", *npz)) {
      outcomes[i] = {"skipped: xla inputs", npz.ok() ? "cannot write the inputs" : npz.status().message()};
      continue;
    }
    jobList += base + ".hlo\t" + base + ".npz\t" + base + ".out.npz\n";
    sent[i] = true;
  }
  // XLA may otherwise skip the rounding of a low-precision value between
  // two ops it fuses (its default --xla_allow_excess_precision), which the
  // definition of each op does not allow.
  const char* flags = std::getenv("XLA_FLAGS");
  XlaBatch batch;
  batch.python = python;
  batch.oracle = oracle;
  batch.workers = jobs;
  batch.log = work + "/xla.log";
  batch.environment = {"XLA_FLAGS=" + std::string(flags ? flags : "") + " --xla_allow_excess_precision=false"};
  std::map<std::string, std::pair<std::string, std::string>> results;
  if (writeOutput(work + "/jobs.tsv", jobList) && runXlaBatch(batch, work + "/jobs.tsv", work + "/results.tsv"))
    results = readXlaResults(work + "/results.tsv");
  std::vector<std::string> toCompare;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!sent[i]) continue;
    auto it = results.find(work + "/" + std::to_string(i) + ".hlo");
    if (it == results.end()) {
      outcomes[i] = {"error", "the XLA oracle gave no outcome (see its log)"};
    } else if (it->second.first != "ok") {
      outcomes[i] = {"skipped: xla " + it->second.first, it->second.second};
    } else {
      toCompare.push_back(std::to_string(i));
    }
  }
  ChildLimits limits;
  std::vector<Outcome> compared = runInChildren(toCompare, jobs, limits, [&](const std::string& index) {
    size_t i = std::stoul(index);
    return compareWithXla(texts[i], seeds[i], work + "/" + index + ".out.npz");
  });
  for (size_t k = 0; k < toCompare.size(); ++k) outcomes[std::stoul(toCompare[k])] = compared[k];
  std::error_code ignored;
  fs::remove_all(work, ignored);
  return outcomes;
}

std::string xlaReproducer(uint64_t seed, const std::string& file) {
  return "hlo-run --engine=interp --random-seed=" + std::to_string(seed) + " --save-inputs=in.npz --output=ours.npz " +
         file + " && XLA_FLAGS=--xla_allow_excess_precision=false build/xla-venv/bin/python " + kOracle + " " + file + " in.npz xla.npz && hlo-compare xla.npz ours.npz";
}

}  // namespace hlo::conformance::fuzz
