// hlo-xla-corpus: runs every module of the XLA corpus (and of testdata/) on
// XLA itself and on the reference interpreter with the same seeded inputs, and
// compares the results.
//
// Steps:
//   1. Each module, in its own forked process (conformance/child_runner.h):
//      parse, verify, estimate the work (conformance/work_estimate.h); write
//      the arguments of `hlo-run --random-seed=0` (interp/random_inputs.h),
//      or those of its `// INPUT:` lines for a per-op test case, to
//      WORK/in/N.npz, run the interpreter, write its result to WORK/ours/N.npz.
//   2. One Python process, conformance/xla_oracle.py --batch, runs every
//      module of step 1 on XLA:CPU (jaxlib's HLO parser and compiler) with
//      WORK/in/N.npz and writes WORK/xla/N.npz.
//   3. The two results are compared array by array with the harness's
//      tolerances (conformance/compare.h). An array of ours with runtime
//      sizes below its bounds (dynamic dimensions; .npz files hold its
//      value, of the runtime shape) is compared with the same leading part
//      of XLA's, which has the bounds: XLA leaves the rest unspecified.
//   4. A module whose f32 or c64 results disagree runs on XLA once more with
//      f32 and c64 widened to f64 and c128 (module text and inputs; the
//      inputs convert exactly). A long sum's rounding depends on the order
//      of its terms, and XLA:CPU adds in another order than we do; when our
//      result agrees with XLA's widened one within the f32 tolerance, ours
//      is the computation's value to f32 accuracy and the difference is
//      XLA's own f32 arithmetic (rounding, or denormals flushed to zero):
//      the outcome is agree-f64, not disagree.
//   5. A module whose outcome is not the expected one runs on XLA a second
//      time, in a fresh worker process, with the same inputs. Where XLA's
//      own two answers differ (uninitialized memory in its result, a run
//      that crashed or timed out once and not the other time), XLA's answer
//      is no yardstick: when ours agrees with XLA's wherever its two runs
//      agree (elements that differ between them are left out), or with its
//      second run when its first failed, or when XLA failed twice in two
//      different ways, the outcome is xla-nondeterministic, with the
//      evidence (the elements that differed, or both failures). Where ours
//      also differs from an element XLA gave twice, or XLA gave the same
//      answer twice, or its first answer was followed by a failure, the
//      outcome stands: a wrong answer of ours still fails.
// Modules: the corpus's (as hlo-interp-corpus), and every .hlo file under
// --testdata, a file of several cases separated by `// -----` lines
// (testdata/ops) as one module per case, named FILE#N.
// Outcomes:
//   ok              agree: both ran and the results match
//   agree-f64       both ran, the results differ, and ours agrees with XLA's
//                   computing in f64 (step 4); counted as agreement
//   disagree        both ran and the results differ
//   xla-refused     XLA did not accept the module (parse, convert, compile), or
//                   running it returned an error
//   interp-refused  XLA ran it, our interpreter did not (unsupported opcode,
//                   a limit, an error; hlo-interp-corpus lists those)
//   xla-failed      XLA accepted it but running it timed out or crashed
//                   (interp-refused when ours failed too)
//   too-large       over --max-work or the memory limit (as hlo-interp-corpus)
//   skipped         does not parse or verify for us, or the oracle cannot run
//                   it (a tuple, token or dynamic-size parameter, a dynamic-size
//                   result; infeed, outfeed, send or recv, which wait for the
//                   host), or XLA's result is undefined (undefinedOnXla)
//   xla-nondeterministic  XLA's two runs differ and ours agrees with it
//                   wherever they agree, or XLA failed differently each time
//                   (step 5); passes whatever the expectations say, and is
//                   counted apart
// Every module is expected to be ok, xla-refused, interp-refused, too-large or
// skipped unless the expectations file lists it (disagree and xla-failed must
// be listed, each with its analysis in the detail column; --update lists
// agree-f64 with XLA's f32 mismatch; a module may be listed as xla-refused to
// say why). ok and agree-f64 stand for each other (a NOTE says so): which
// one a module gets depends on how XLA:CPU rounds its f32 sums on the
// machine (its vector width, its thread count), and both mean ours is right
// to f32 accuracy. Where another outcome of XLA's depends on the machine,
// the line lists each outcome the module may have, `disagree|agree-f64`, and
// its detail says why: any of them passes. --update rewrites the file,
// keeping its header and each line whose module passed (its outcome one the
// line allows), and writes no line for an xla-nondeterministic module.
// XLA's time limit (--xla-timeout) counts the CPU time of the oracle's
// worker, as the interpreter's does its child's, so that a loaded machine
// does not turn a slow module into a timeout (conformance/xla_oracle.py).
//
// Without the Python of `make xla-env` (--python) the run is skipped with a
// message, not failed.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <re2/re2.h>

#include "conformance/child_runner.h"
#include "conformance/compare.h"
#include "conformance/corpus_flags.h"
#include "conformance/expectations.h"
#include "conformance/work_estimate.h"
#include "conformance/xla_batch.h"
#include "hlo/indexing.h"
#include "hlo/npy.h"
#include "hlo/verifier.h"
#include "interp/elementwise_kernels.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "parser/parser.h"
#include "hlo/file_io.h"

namespace {

namespace fs = std::filesystem;
using hlo::conformance::Outcome;

struct Config {
  hlo::conformance::CorpusFlags corpus;
  std::string testdata;      // a folder whose *.hlo files run too ("" for none)
  std::string python;        // the Python of the xla-env
  std::string oracle = "conformance/xla_oracle.py";
  std::string workDir;
  double xlaTimeout = 60;    // CPU seconds per module on XLA (the oracle worker's)
  bool keep = false;         // keep WORK/in, ours and xla for a look at the results
  bool reuseXla = false;     // take XLA's results of the previous run where the job is the same
};

// The interpreter's error category (as hlo-interp-corpus names it).
std::string errorCategory(const std::string& message) {
  if (message.rfind("unsupported: ", 0) == 0) {
    size_t end = message.find_first_of(" :", 13);
    return "unsupported: " + message.substr(13, end == std::string::npos ? end : end - 13);
  }
  if (message.find("(--max-memory)") != std::string::npos) return "memory-limit";
  if (message.find("(--max-while-iterations)") != std::string::npos) return "while-limit";
  if (message.rfind("internal error", 0) == 0) return "internal-error";
  return "error";
}

// The arrays of a value, named as hlo-run names them in an .npz file.
void collectArrays(const hlo::Literal& value, const std::string& name,
                   std::vector<std::pair<std::string, const hlo::Literal*>>& out) {
  if (value.shape().isTuple()) {
    for (size_t i = 0; i < value.tupleElements().size(); ++i)
      collectArrays(value.tupleElements()[i], name + "." + std::to_string(i), out);
  } else if (value.shape().isArray()) {
    out.push_back({name, &value});
  }
}

// The arguments of a per-op test case (testdata/ops): one `// INPUT: <literal>`
// line per ENTRY parameter. False (and `args` empty) when the text has none,
// or they do not fit the parameters.
bool inputsFromComments(const std::string& text, const hlo::Computation& entry, std::vector<hlo::Literal>& args) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, 9, "// INPUT:") != 0) continue;
    auto literal = hlo::parseLiteral(line.substr(start + 9));
    int p = static_cast<int>(args.size());
    if (!literal.ok() || p >= entry.parameterCount() ||
        !literal->shape().compatible(entry.parameter(p)->shape())) {
      args.clear();
      return false;
    }
    literal->mutableShape() = entry.parameter(p)->shape();
    args.push_back(std::move(literal).value());
  }
  if (static_cast<int>(args.size()) == entry.parameterCount() && !args.empty()) return true;
  args.clear();
  return false;
}

// Splits a file of test cases separated by `// -----` lines (testdata/ops)
// into its cases; a file without such lines is one case.
std::vector<std::string> splitCases(const std::string& text) {
  std::vector<std::string> cases(1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line == "// -----") cases.emplace_back();
    else cases.back() += line + "\n";
  }
  return cases;
}

Outcome writeFile(const std::string& path, const hlo::StatusOr<std::string>& bytes) {
  if (!bytes.ok()) return {"error", "cannot encode " + path + ": " + bytes.status().message()};
  if (!hlo::writeOutput(path, *bytes)) return {"error", "cannot write " + path};
  return {"ok", ""};
}

// Why XLA:CPU's result for `module` means nothing, or empty: an fft with a
// zero fft_length leaves its output uninitialized on XLA:CPU (memory from
// earlier runs, different each time), where the semantics give zeros.
std::string undefinedOnXla(const hlo::Module& module) {
  for (const auto& c : module.computations())
    for (const auto& instr : c->instructions()) {
      if (instr->opcode() != hlo::Opcode::kFft) continue;
      for (int64_t n : instr->attrs().getInts(hlo::AttrKey::kFftLength))
        if (n == 0) return "an fft with a zero fft_length, whose output XLA:CPU leaves uninitialized";
    }
  return "";
}

// Step 1 for one module (in the child process). The outcome is "prepared"
// when WORK/in/N.npz and WORK/ours/N.npz (or, for a run-time error of ours,
// the outcome interp-refused) are ready for XLA.
Outcome prepareModule(const std::string& path, const std::string& id, const Config& config) {
  std::optional<std::string> text = hlo::readInput(path);
  if (!text) return {"skipped", "cannot read"};
  auto module = hlo::parseModule(*text);
  if (!module.ok()) return {"skipped", "parse error: " + module.status().message()};
  hlo::Status verified = hlo::verify(**module);
  if (!verified.ok()) return {"skipped", "verify error: " + verified.message()};
  if (std::string why = undefinedOnXla(**module); !why.empty()) return {"skipped", why};
  double work = hlo::conformance::moduleWork(**module);
  char buf[64];
  std::snprintf(buf, sizeof buf, "estimated work %.3g", work);
  if (work > config.corpus.maxWork) return {"too-large", buf};
  const hlo::Computation* entry = (*module)->entry();
  if (hlo::conformance::argumentsOverMemory(*entry, config.corpus.maxMemory))
    return {"too-large", "arguments over the memory limit"};
  for (int p = 0; p < entry->parameterCount(); ++p)
    if (!entry->parameter(p)->shape().isArray())
      return {"skipped", "parameter " + std::to_string(p) + " is " +
                             entry->parameter(p)->shape().toString(false) + ", which the oracle cannot feed"};
  std::vector<hlo::Literal> args;
  if (!inputsFromComments(*text, *entry, args)) args = hlo::interp::randomArguments(*entry, 0);
  std::vector<std::pair<std::string, const hlo::Literal*>> named;
  for (size_t p = 0; p < args.size(); ++p) named.push_back({"arg" + std::to_string(p), &args[p]});
  Outcome wrote = writeFile(config.workDir + "/in/" + id + ".npz", hlo::writeNpz(named));
  if (wrote.status != "ok") return wrote;
  hlo::interp::Options options = hlo::conformance::corpusEvaluationOptions(
      work, config.corpus.maxWork, config.corpus.maxMemory, config.corpus.maxWhileIterations);
  hlo::conformance::reportProgress("interpreter");
  auto result = hlo::interp::evaluate(**module, args, options);
  if (!result.ok())
    return {"interp-refused", errorCategory(result.status().message()) + ": " + result.status().message()};
  std::vector<std::pair<std::string, const hlo::Literal*>> arrays;
  collectArrays(*result, "result", arrays);
  wrote = writeFile(config.workDir + "/ours/" + id + ".npz", hlo::writeNpz(arrays));
  if (wrote.status != "ok") return wrote;
  return {"prepared", buf};
}

// Reads an .npz result file into name -> array.
hlo::StatusOr<std::map<std::string, hlo::NpyArray>> readResult(const std::string& path) {
  std::optional<std::string> bytes = hlo::readInput(path);
  if (!bytes) return hlo::Status::error("cannot read " + path);
  std::map<std::string, hlo::NpyArray> out;
  // A result with no arrays (an empty tuple, a token): an archive of no
  // members is just the zip's end record, "PK\5\6" and 18 more bytes.
  if (bytes->size() == 22 && bytes->rfind("PK\5\6", 0) == 0) return out;
  auto members = hlo::readNpz(*bytes);
  if (!members.ok()) return members.status();
  for (hlo::NpzMember& m : *members) out[m.name] = std::move(m.array);
  return out;
}

// The leading `dims` part of `array` (its value were `dims` its runtime
// sizes).
hlo::Literal leadingPart(hlo::Literal array, const std::vector<int64_t>& dims) {
  for (size_t d = 0; d < dims.size(); ++d) array.setDynamicSize(static_cast<int>(d), dims[d]);
  return array.compact();
}

// Whether `ours` could be the value of a dynamically sized array whose
// bounds are `theirs`: same rank, no dimension larger, one smaller.
bool fitsInside(const std::vector<int64_t>& ours, const std::vector<int64_t>& theirs) {
  if (ours.size() != theirs.size() || ours == theirs) return false;
  for (size_t d = 0; d < ours.size(); ++d)
    if (ours[d] > theirs[d]) return false;
  return true;
}

// Steps 3 and 4: our result against XLA's, array by array, with our types'
// tolerances; `widened` (step 4): XLA's arrays are of the widened types and
// are rounded back to ours first. The outcome on agreement is `agreed`.
Outcome compareWithXla(const std::string& oursPath, const std::string& xlaPath, bool widened,
                       const std::string& agreed) {
  auto ours = readResult(oursPath);
  if (!ours.ok()) return {"error", ours.status().message()};
  auto xla = readResult(xlaPath);
  if (!xla.ok()) return {widened ? "error" : "xla-failed", "XLA's result: " + xla.status().message()};
  if (ours->size() != xla->size())
    return {"disagree", "XLA gave " + std::to_string(xla->size()) + " arrays, we " + std::to_string(ours->size())};
  for (auto& [name, mine] : *ours) {
    auto it = xla->find(name);
    if (it == xla->end()) return {"disagree", "XLA gave no array " + name};
    hlo::NpyArray& theirs = it->second;
    hlo::ElementType t = mine.value.type();
    if (theirs.untyped) {
      hlo::Status s = hlo::retypeRaw(theirs, t);
      if (!s.ok()) return {"disagree", name + ": " + s.message()};
    }
    if (widened && theirs.value.type() != t) theirs.value = hlo::interp::convertElements(theirs.value, t);
    if (fitsInside(mine.value.shape().dims(), theirs.value.shape().dims()))
      theirs.value = leadingPart(std::move(theirs.value), mine.value.shape().dims());
    hlo::Comparison c = hlo::compareLiterals(mine.value, theirs.value, hlo::defaultTolerance(t));
    if (!c.equal)
      return {"disagree", name + " " + mine.value.shape().toString(false) + ": " + std::to_string(c.mismatches) +
                              " differ, first " + c.firstMismatch + " (ours vs XLA's)"};
  }
  return {agreed, ""};
}

// Step 4's module: `text` with every f32 and c64 type written as f64 and
// c128 (empty when it has neither).
std::string widenedText(std::string text) {
  int widened = RE2::GlobalReplace(&text, R"(\bf32\[)", "f64[") + RE2::GlobalReplace(&text, R"(\bc64\[)", "c128[");
  return widened ? text : std::string();
}

// Step 4's inputs: the arrays of `in` with f32 and c64 ones widened.
Outcome writeWidenedInputs(const std::string& in, const std::string& out) {
  std::optional<std::string> bytes = hlo::readInput(in);
  if (!bytes) return {"error", "cannot read " + in};
  auto members = hlo::readNpz(*bytes);
  if (!members.ok()) return {"error", in + ": " + members.status().message()};
  std::vector<hlo::Literal> wide;
  wide.reserve(members->size());
  for (hlo::NpzMember& m : *members) {
    hlo::ElementType t = m.array.value.type();
    if (m.array.untyped || (t != hlo::ElementType::kF32 && t != hlo::ElementType::kC64))
      wide.push_back(std::move(m.array.value));
    else
      wide.push_back(hlo::interp::convertElements(
          m.array.value, t == hlo::ElementType::kF32 ? hlo::ElementType::kF64 : hlo::ElementType::kC128));
  }
  std::vector<std::pair<std::string, const hlo::Literal*>> named;
  for (size_t i = 0; i < wide.size(); ++i) named.push_back({(*members)[i].name, &wide[i]});
  return writeFile(out, hlo::writeNpz(named));
}

// Runs the oracle over the jobs file; false (after saying why) when it could not.
bool runOracle(const Config& config, const std::string& jobs, const std::string& results) {
  hlo::conformance::XlaBatch batch;
  batch.python = config.python;
  batch.oracle = config.oracle;
  batch.timeoutSeconds = config.xlaTimeout;
  batch.workers = config.corpus.jobs;
  batch.log = config.workDir + "/xla.log";
  if (hlo::conformance::runXlaBatch(batch, jobs, results)) return true;
  std::fprintf(stderr, "hlo-xla-corpus: %s %s failed (see %s/xla.log)\n", config.python.c_str(),
               config.oracle.c_str(), config.workDir.c_str());
  return false;
}

// The oracle's outcomes: module path -> (outcome, detail).
std::map<std::string, std::pair<std::string, std::string>> readOracleResults(const std::string& path) {
  return hlo::conformance::readXlaResults(path);
}

// Whether element i of `a` and `b` (arrays of one type and size) is the same
// value: the same bits, or NaN in both (NaN payloads mean nothing here).
bool sameElement(const hlo::Literal& a, const hlo::Literal& b, int64_t i) {
  size_t n = hlo::storageBytes(a.type());
  if (std::memcmp(a.untypedData() + i * n, b.untypedData() + i * n, n) == 0) return true;
  if (hlo::isFloat(a.type())) return std::isnan(a.toDouble(i)) && std::isnan(b.toDouble(i));
  if (hlo::isComplex(a.type())) {
    auto same = [](double x, double y) {
      return std::isnan(x) ? std::isnan(y) : x == y && std::signbit(x) == std::signbit(y);
    };
    std::complex<double> x = a.toComplex(i), y = b.toComplex(i);
    return same(x.real(), y.real()) && same(x.imag(), y.imag());
  }
  return false;
}

// An XLA result array as ours is typed and sized: raw elements (bf16, f8...)
// read as our type, and only the leading part of a dynamically sized
// result. False when it cannot stand beside ours.
bool alignWithOurs(const hlo::Literal& ours, hlo::NpyArray& theirs) {
  if (theirs.untyped && !hlo::retypeRaw(theirs, ours.type()).ok()) return false;
  if (theirs.value.type() != ours.type()) return false;
  if (fitsInside(ours.shape().dims(), theirs.value.shape().dims()))
    theirs.value = leadingPart(std::move(theirs.value), ours.shape().dims());
  return theirs.value.shape().dims() == ours.shape().dims();
}

// Step 5: the outcome of a module that ran on XLA twice (`first` and
// `second`, each the oracle's outcome and detail, with result files
// firstPath and secondPath), whose outcome `now` (from the first run) is not
// the expected one.
Outcome secondOpinion(const Outcome& now, const std::pair<std::string, std::string>& first,
                      const std::pair<std::string, std::string>& second, const std::string& oursPath,
                      const std::string& firstPath, const std::string& secondPath) {
  auto withNote = [&](const std::string& note) { return Outcome{now.status, now.detail + "; " + note, now.cpuSeconds}; };
  if (second.first != "ok") {
    // XLA's first answer, if it gave one, stands; two failures of different
    // kinds (a crash, then an error) say only that XLA does not behave the
    // same each time.
    if (first.first == "ok") return withNote("XLA's second run: " + second.first + ": " + second.second);
    if (first.first == second.first) return now;
    return {"xla-nondeterministic",
            "XLA's first run: " + first.first + ": " + first.second + "; its second: " + second.first + ": " +
                second.second,
            now.cpuSeconds};
  }
  if (first.first != "ok") {
    // The first run failed or was refused, the second ran: XLA does not
    // behave the same each time; its second answer is the one to compare.
    Outcome c = compareWithXla(oursPath, secondPath, false, "ok");
    std::string evidence = "XLA's first run: " + first.first + ": " + first.second + "; its second ran";
    if (c.status == "ok")
      return {"xla-nondeterministic", evidence + ", and agrees with ours", now.cpuSeconds};
    return withNote(evidence + ": " + hlo::conformance::oneLine(c.detail));
  }
  auto ours = readResult(oursPath);
  auto one = readResult(firstPath), two = readResult(secondPath);
  if (!ours.ok() || !one.ok() || !two.ok()) return now;
  std::string differ;      // where XLA's two runs differ
  std::string oursDiffer;  // where ours differs from an element XLA gave twice
  for (auto& [name, mine] : *ours) {
    auto a = one->find(name), b = two->find(name);
    if (a == one->end() || b == two->end() || !alignWithOurs(mine.value, a->second) ||
        !alignWithOurs(mine.value, b->second))
      return now;
    const hlo::Literal& x = a->second.value;
    const hlo::Literal& y = b->second.value;
    // Ours with each element where XLA's runs differ taken from its first:
    // what is left to compare is where XLA answered the same twice.
    hlo::Literal masked = mine.value.compact();
    for (int64_t i = 0; i < x.elementCount(); ++i) {
      if (sameElement(x, y, i)) continue;
      size_t n = hlo::storageBytes(x.type());
      std::memcpy(masked.untypedData() + i * n, x.untypedData() + i * n, n);
    }
    std::string shape = mine.value.shape().toString(false);
    if (hlo::Comparison runs = hlo::compareLiterals(x, y, hlo::Tolerance{}); !runs.equal) {
      if (!differ.empty()) differ += "; ";
      differ += name + " " + shape + ": " + std::to_string(runs.mismatches) + " of " +
                std::to_string(x.elementCount()) + " differ, first " + runs.firstMismatch;
    }
    hlo::Comparison c = hlo::compareLiterals(masked, x, hlo::defaultTolerance(x.type()));
    if (!c.equal && oursDiffer.empty())
      oursDiffer = name + " " + shape + ": " + std::to_string(c.mismatches) + " differ where XLA's runs agree, first " +
                   c.firstMismatch + " (ours vs XLA's)";
  }
  if (differ.empty()) return withNote("XLA gave the same answer on a second run");
  if (!oursDiffer.empty()) return withNote("XLA's two runs differ too (" + differ + "), but " + oursDiffer);
  return {"xla-nondeterministic",
          "XLA's two runs differ (" + differ + ", first run vs second); ours agrees with XLA wherever they agree",
          now.cpuSeconds};
}

// The outcomes an expectation allows: `disagree`, or each of `disagree|agree-f64`.
std::vector<std::string> allowedOutcomes(const std::string& status) {
  std::vector<std::string> out;
  std::stringstream in(status);
  for (std::string s; std::getline(in, s, '|');) out.push_back(s);
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: hlo-xla-corpus --python=XLA_ENV_PYTHON --work-dir=DIR [--corpus=DIR] [--testdata=DIR]\n"
               "         [--oracle=conformance/xla_oracle.py] [--xla-timeout=SECONDS] [--expectations=FILE]\n"
               "         [--update] [--filter=TEXT] [--jobs=N] [--timeout=SECONDS] [--max-work=N]\n"
               "         [--max-memory=BYTES] [--max-while-iterations=N] [--times=FILE] [--keep]\n"
               "  runs each module on XLA (jax's XLA:CPU, through --oracle run by --python) and on the\n"
               "  interpreter, and compares (a module not as expected runs on XLA twice, see the\n"
               "  source's header); --xla-timeout is CPU seconds of XLA's worker per module (60);\n"
               "  --times=FILE writes each module's outcome and detail;\n"
               "  --keep keeps each module's inputs and both results (DIR/jobs.tsv names them:\n"
               "  DIR/in/N.npz, DIR/xla/N.npz, and ours in DIR/ours/N.npz); --reuse-xla (implies\n"
               "  --keep) takes XLA's outcome and result from the previous --keep run in DIR for every\n"
               "  job that is the same (module path and files), to rerun only our side after an\n"
               "  interpreter change (not after a change of the modules or of the pinned jax), or to\n"
               "  finish a run whose oracle was stopped (SIGTERM to xla_oracle.py --batch stops it\n"
               "  with the results so far; the modules it did not reach count as skipped)\n");
  return 2;
}

// Takes this program's own flags out of argv; the rest are the corpus flags.
std::optional<int> parseFlags(int argc, char** argv, Config& config) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* name) -> std::optional<std::string> {
      std::string prefix = std::string("--") + name + "=";
      if (arg.rfind(prefix, 0) != 0) return std::nullopt;
      return arg.substr(prefix.size());
    };
    if (arg == "--help" || arg == "-h") return usage();
    if (auto v = value("testdata")) config.testdata = *v;
    else if (auto v = value("python")) config.python = *v;
    else if (auto v = value("oracle")) config.oracle = *v;
    else if (auto v = value("work-dir")) config.workDir = *v;
    else if (arg == "--keep") config.keep = true;
    else if (arg == "--reuse-xla") config.reuseXla = config.keep = true;
    else if (auto v = value("xla-timeout")) {
      char* end = nullptr;
      config.xlaTimeout = std::strtod(v->c_str(), &end);
      if (v->empty() || *end || !(config.xlaTimeout > 0)) return usage();
    } else rest.push_back(argv[i]);
  }
  if (config.python.empty() || config.workDir.empty()) return usage();
  return hlo::conformance::parseCorpusFlags(static_cast<int>(rest.size()), rest.data(), "hlo-xla-corpus", usage,
                                            config.corpus);
}

}  // namespace

int main(int argc, char** argv) {
  Config config;
  config.corpus.maxWork = 2e8;
  if (std::optional<int> rc = parseFlags(argc, argv, config)) return *rc;
  if (access(config.python.c_str(), X_OK) != 0) {
    std::printf("no XLA environment at %s (run `make xla-env`): XLA comparison skipped\n"
                "xla-corpus: 0 passed, 0 failed, 1 skipped\n", config.python.c_str());
    return 0;
  }
  // Modules: "visible/..." from the corpus, "testdata/..." from --testdata.
  std::vector<std::string> files, paths;
  int corpusCount = 0, testdataCount = 0;
  if (!config.corpus.corpus.empty()) {
    auto modules = hlo::conformance::readCorpusModules(config.corpus.corpus, config.corpus.filter);
    if (!modules) std::printf("corpus not found at %s: only testdata is compared\n", config.corpus.corpus.c_str());
    for (const std::string& f : modules ? modules->files : std::vector<std::string>{}) {
      files.push_back(f);
      paths.push_back(modules->root + "/" + f);
      ++corpusCount;
    }
  }
  if (!config.testdata.empty()) {
    std::vector<std::string> found;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(config.testdata, ec); !ec && it != fs::end(it); it.increment(ec))
      if (it->is_regular_file() && it->path().extension() == ".hlo")
        found.push_back(fs::relative(it->path(), config.testdata).generic_string());
    std::sort(found.begin(), found.end());
    // A file of several cases becomes one module per case, "FILE#N", written to WORK/cases/.
    ec.clear();
    fs::remove_all(config.workDir + "/cases", ec);
    fs::create_directories(config.workDir + "/cases", ec);
    for (const std::string& f : found) {
      if (!config.corpus.filter.empty() && f.find(config.corpus.filter) == std::string::npos) continue;
      std::optional<std::string> text = hlo::readInput(config.testdata + "/" + f);
      std::vector<std::string> cases = splitCases(text ? *text : "");
      if (cases.size() == 1) {
        files.push_back("testdata/" + f);
        paths.push_back(config.testdata + "/" + f);
        ++testdataCount;
        continue;
      }
      for (size_t c = 0; c < cases.size(); ++c) {
        // Named after the file and case, so that a job line (--reuse-xla) names one case only.
        std::string flat = f;
        std::replace(flat.begin(), flat.end(), '/', '_');
        std::string path = config.workDir + "/cases/" + flat + "." + std::to_string(c + 1) + ".hlo";
        if (!hlo::writeOutput(path, cases[c])) {
          std::fprintf(stderr, "hlo-xla-corpus: cannot write %s\n", path.c_str());
          return 1;
        }
        files.push_back("testdata/" + f + "#" + std::to_string(c + 1));
        paths.push_back(path);
        ++testdataCount;
      }
    }
  }
  // The previous run's jobs and XLA outcomes, for --reuse-xla.
  std::set<std::string> oldJobs;
  std::map<std::string, std::pair<std::string, std::string>> oldResults;
  if (config.reuseXla) {
    std::ifstream in(config.workDir + "/jobs.tsv");
    for (std::string line; std::getline(in, line);) oldJobs.insert(line);
    oldResults = readOracleResults(config.workDir + "/results.tsv");
  }
  std::error_code ec;
  for (const char* sub : {"in", "ours", "xla"}) {
    if (config.reuseXla && std::string(sub) == "xla") continue;
    fs::remove_all(config.workDir + "/" + sub, ec);
    fs::create_directories(config.workDir + "/" + sub, ec);
    if (ec) {
      std::fprintf(stderr, "hlo-xla-corpus: cannot create %s/%s: %s\n", config.workDir.c_str(), sub,
                   ec.message().c_str());
      return 1;
    }
  }
  auto startTime = std::chrono::steady_clock::now();

  // Step 1: inputs and our results.
  std::map<std::string, size_t> index;  // path -> position
  for (size_t i = 0; i < paths.size(); ++i) index[paths[i]] = i;
  hlo::conformance::ChildLimits limits;
  limits.timeoutSeconds = config.corpus.timeoutSeconds;
  limits.addressSpaceBytes = config.corpus.maxMemory * 3 + (int64_t{1} << 30);
  std::vector<Outcome> outcomes = hlo::conformance::runInChildren(
      paths, config.corpus.jobs, limits, [&](const std::string& path) {
        return prepareModule(path, std::to_string(index[path]), config);
      });
  // A timeout or crash of ours is a refusal; XLA still runs the module.
  std::string jobs = config.workDir + "/jobs.tsv", results = config.workDir + "/results.tsv";
  std::string todo = config.workDir + "/todo.tsv", todoResults = config.workDir + "/todo-results.tsv";
  std::ofstream jobsOut(jobs), todoOut(todo);
  std::map<std::string, std::pair<std::string, std::string>> reused;
  int toXla = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    Outcome& o = outcomes[i];
    if (o.status == "timeout" || o.status == "crash" || o.status == "error") {
      o.detail = o.status + ": " + o.detail;
      o.status = "interp-refused";
    }
    std::string id = std::to_string(i);
    if (o.status != "prepared" && o.status != "interp-refused") continue;
    if (!fs::exists(config.workDir + "/in/" + id + ".npz")) continue;  // crashed before writing them
    // A loop that ran past our limits most likely runs as long on XLA (many
    // corpus loops never end): refused by us, not sent.
    if (o.detail.rfind("while-limit", 0) == 0 || o.detail.rfind("timeout", 0) == 0) continue;
    std::string xlaOut = config.workDir + "/xla/" + id + ".npz";
    std::string line = paths[i] + "\t" + config.workDir + "/in/" + id + ".npz\t" + xlaOut;
    jobsOut << line << "\n";
    auto old = oldResults.find(paths[i]);
    if (oldJobs.count(line) && old != oldResults.end() && (old->second.first != "ok" || fs::exists(xlaOut))) {
      reused[paths[i]] = old->second;
      continue;
    }
    // A result file of a run stopped before it recorded the outcome.
    if (oldJobs.count(line) && old == oldResults.end() && fs::exists(xlaOut)) {
      reused[paths[i]] = {"ok", ""};
      continue;
    }
    todoOut << line << "\n";
    ++toXla;
  }
  jobsOut.close();
  todoOut.close();
  double prepared = std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime).count();
  std::printf("xla-corpus: %d modules ready for XLA (%.0f s)%s; running XLA\n", toXla, prepared,
              reused.empty() ? "" : (", " + std::to_string(reused.size()) + " results reused").c_str());

  // Step 2: XLA. results.tsv gets every job's outcome, reused or new.
  if (toXla && !runOracle(config, todo, todoResults)) return 1;
  auto oracle = toXla ? readOracleResults(todoResults) : decltype(reused){};
  oracle.insert(reused.begin(), reused.end());
  {
    std::ofstream out(results);
    for (const auto& [path, result] : oracle) out << path << "\t" << result.first << "\t" << result.second << "\n";
  }

  // Whether module i's outcome is one its expectation allows (see checkOutcomes).
  auto expected = hlo::conformance::readExpectations(config.corpus.expectationsPath);
  // ok and agree-f64 stand for each other: which of them a module gets
  // depends on how XLA rounds its f32 sums on this machine, not on us.
  const std::set<std::string> notRun = {"skipped", "too-large", "xla-refused", "interp-refused"};
  const std::set<std::string> agreement = {"ok", "agree-f64"};
  auto passes = [&](size_t i) {
    const std::string& got = outcomes[i].status;
    auto it = expected.find(files[i]);
    if (got == "xla-nondeterministic") return true;
    if (it == expected.end()) return agreement.count(got) > 0 || notRun.count(got) > 0;
    std::vector<std::string> allowed = allowedOutcomes(it->second.status);
    if (std::find(allowed.begin(), allowed.end(), got) != allowed.end()) return true;
    return agreement.count(got) &&
           std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) { return agreement.count(a) > 0; });
  };
  // A module's files are kept until its outcome is settled: while it still
  // disagrees (step 4) or is not the expected one (step 5).
  auto removeFiles = [&](size_t i) {
    if (config.keep) return;
    for (const char* sub : {"in", "ours", "xla", "xla2"})
      fs::remove(config.workDir + "/" + sub + "/" + std::to_string(i) + ".npz", ec);
  };

  // Step 3: compare.
  for (size_t i = 0; i < paths.size(); ++i) {
    Outcome& o = outcomes[i];
    if (o.status != "prepared" && o.status != "interp-refused") continue;
    auto it = oracle.find(paths[i]);
    std::string id = std::to_string(i);
    if (it == oracle.end()) {
      if (o.status == "prepared") o = {"skipped", "no result from XLA (the oracle was stopped)", o.cpuSeconds};
    } else if (it->second.first == "refused" ||
               (it->second.first == "error" && it->second.second.rfind("run: ", 0) == 0)) {
      // An error status from running is a refusal too (a collective over more
      // replicas than the one device, an element type a thunk lacks).
      o = {"xla-refused", it->second.second, o.cpuSeconds};
    } else if (it->second.first == "unsupported") {
      o = {"skipped", "oracle: " + it->second.second, o.cpuSeconds};
    } else if (it->second.first != "ok" && o.status == "interp-refused") {
      o.detail = o.detail + "; XLA: " + it->second.first + ": " + it->second.second;  // neither ran it
    } else if (it->second.first != "ok") {
      o = {"xla-failed", it->second.first + ": " + it->second.second, o.cpuSeconds};
    } else if (o.status == "prepared") {
      Outcome c = compareWithXla(config.workDir + "/ours/" + id + ".npz", config.workDir + "/xla/" + id + ".npz",
                                 false, "ok");
      o = {c.status, hlo::conformance::oneLine(c.detail), o.cpuSeconds};
    }
    if (o.status != "disagree" && passes(i)) removeFiles(i);
  }

  // Step 4: disagreements on f32/c64 results, once more on XLA in f64/c128.
  {
    fs::create_directories(config.workDir + "/wide", ec);
    std::string wideJobs = config.workDir + "/wide-jobs.tsv", wideResults = config.workDir + "/wide-results.tsv";
    std::ofstream out(wideJobs);
    std::map<std::string, size_t> wideModules;  // widened module path -> position
    for (size_t i = 0; i < paths.size(); ++i) {
      if (outcomes[i].status != "disagree") continue;
      std::optional<std::string> text = hlo::readInput(paths[i]);
      std::string wide = text ? widenedText(*text) : "";
      std::string base = config.workDir + "/wide/" + std::to_string(i);
      if (wide.empty() || !hlo::writeOutput(base + ".hlo", wide) ||
          writeWidenedInputs(config.workDir + "/in/" + std::to_string(i) + ".npz", base + ".in.npz").status != "ok")
        continue;
      out << base << ".hlo\t" << base << ".in.npz\t" << base << ".xla.npz\n";
      wideModules[base + ".hlo"] = i;
    }
    out.close();
    if (!wideModules.empty()) {
      std::printf("xla-corpus: %zu disagreeing modules once more on XLA in f64\n", wideModules.size());
      if (!runOracle(config, wideJobs, wideResults)) return 1;
      for (const auto& [module, result] : readOracleResults(wideResults)) {
        auto at = wideModules.find(module);
        if (at == wideModules.end() || result.first != "ok") continue;
        Outcome& o = outcomes[at->second];
        std::string base = module.substr(0, module.size() - 4);
        Outcome c = compareWithXla(config.workDir + "/ours/" + std::to_string(at->second) + ".npz", base + ".xla.npz",
                                   true, "agree-f64");
        if (c.status == "agree-f64") o = {"agree-f64", "XLA's f32 result: " + o.detail, o.cpuSeconds};
      }
    }
    if (!config.keep) fs::remove_all(config.workDir + "/wide", ec);
    for (size_t i = 0; i < paths.size(); ++i)
      if ((outcomes[i].status == "disagree" || outcomes[i].status == "agree-f64") && passes(i)) removeFiles(i);
  }

  // Step 5: each module whose outcome is not the expected one, once more on
  // XLA, for a second answer to set beside its first.
  {
    fs::remove_all(config.workDir + "/xla2", ec);
    fs::create_directories(config.workDir + "/xla2", ec);
    std::string againJobs = config.workDir + "/again-jobs.tsv", againResults = config.workDir + "/again-results.tsv";
    std::ofstream out(againJobs);
    std::map<std::string, size_t> again;  // module path -> position
    for (size_t i = 0; i < paths.size(); ++i) {
      std::string id = std::to_string(i);
      if (passes(i) || outcomes[i].status == "interp-refused" || !oracle.count(paths[i]) ||
          !fs::exists(config.workDir + "/in/" + id + ".npz"))
        continue;
      out << paths[i] << "\t" << config.workDir << "/in/" << id << ".npz\t" << config.workDir << "/xla2/" << id
          << ".npz\n";
      again[paths[i]] = i;
    }
    out.close();
    if (!again.empty()) {
      std::printf("xla-corpus: %zu modules not as expected once more on XLA\n", again.size());
      if (!runOracle(config, againJobs, againResults)) return 1;
      for (const auto& [module, result] : readOracleResults(againResults)) {
        auto at = again.find(module);
        if (at == again.end()) continue;
        std::string id = std::to_string(at->second);
        Outcome& o = outcomes[at->second];
        o = secondOpinion(o, oracle[module], result, config.workDir + "/ours/" + id + ".npz",
                          config.workDir + "/xla/" + id + ".npz", config.workDir + "/xla2/" + id + ".npz");
        if (o.status == "xla-nondeterministic")
          std::printf("NOTE %s: XLA nondeterministic: %s\n", files[at->second].c_str(), o.detail.c_str());
      }
    }
    for (size_t i = 0; i < paths.size(); ++i) removeFiles(i);
    if (!config.keep) fs::remove_all(config.workDir + "/xla2", ec);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime).count();

  // checkOutcomes takes one status per module: for each module that passes,
  // the one it got (left unlisted where checkOutcomes counts it as skipped).
  auto checked = expected;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!passes(i)) continue;
    const std::string& got = outcomes[i].status;
    auto it = expected.find(files[i]);
    std::vector<std::string> allowed = allowedOutcomes(it == expected.end() ? "ok" : it->second.status);
    if (agreement.count(got) && std::find(allowed.begin(), allowed.end(), got) == allowed.end())
      std::printf("NOTE %s: %s here, listed as %s\n", files[i].c_str(), got.c_str(),
                  it == expected.end() ? "ok (not listed)" : it->second.status.c_str());
    if (got == "ok") checked.erase(files[i]);
    else if (it != expected.end() || !notRun.count(got)) checked[files[i]] = {got, ""};
  }
  hlo::conformance::Tally tally = hlo::conformance::checkOutcomes(files, outcomes, checked, notRun);
  if (config.corpus.update && !config.corpus.expectationsPath.empty()) {
    // A line stays as written (by hand, or with alternatives) while its
    // module passes; an outcome that no line allows gets a line of its own.
    // An xla-nondeterministic module gets none: its next run may find XLA
    // agreeing with itself.
    std::vector<std::string> lines;
    for (size_t i = 0; i < paths.size(); ++i) {
      const Outcome& o = outcomes[i];
      auto it = expected.find(files[i]);
      if (it != expected.end() && passes(i))
        lines.push_back(files[i] + "\t" + it->second.status + "\t" +
                        (it->second.detail.empty() ? o.detail : it->second.detail));
      else if (o.status != "ok" && o.status != "xla-nondeterministic" && !notRun.count(o.status))
        lines.push_back(files[i] + "\t" + o.status + "\t" + o.detail);
    }
    std::sort(lines.begin(), lines.end());
    // The file's own header, if it has one, stays.
    std::string header;
    {
      std::ifstream in(config.corpus.expectationsPath);
      for (std::string line; std::getline(in, line) && !line.empty() && line[0] == '#';) header += line + "\n";
    }
    if (header.empty())
      header =
          "# Modules whose results on XLA and on the interpreter differ (see conformance/hlo-xla-corpus.cc).\n"
          "# The detail says which side is right and why. Regenerate with `make conformance-xla UPDATE=1`;\n"
          "# that keeps every line whose module passes. An outcome may be a|b where XLA's answer depends on\n"
          "# the machine (the detail says why).\n"
          "# file\toutcome\tdetail\n";
    hlo::conformance::writeExpectations(config.corpus.expectationsPath, header, lines);
  }
  if (!config.corpus.timesPath.empty()) hlo::conformance::writeTimes(config.corpus.timesPath, files, outcomes);

  auto count = [&](const char* status) {
    auto it = tally.byOutcome.find(status);
    return it == tally.byOutcome.end() ? 0 : it->second;
  };
  int agree = count("ok") + count("agree-f64"), disagree = count("disagree");
  std::printf("xla-corpus modules: %d from the corpus (visible, no expected error), %d from testdata\n",
              corpusCount, testdataCount);
  std::printf("  %6d  agree (%d of them with XLA computing in f64)\n  %6d  disagree\n  %6d  refused by XLA\n  %6d  refused by us\n"
              "  %6d  XLA failed (run error, timeout, crash)\n  %6d  XLA nondeterministic (its two runs differ)\n"
              "  %6d  too large\n"
              "  %6d  skipped (does not parse or verify for us, or the oracle cannot run it)\n",
              agree, count("agree-f64"), disagree, count("xla-refused"), count("interp-refused"), count("xla-failed"),
              count("xla-nondeterministic"), count("too-large"), count("skipped"));
  if (agree + disagree)
    std::printf("  agreement: %d of %d modules both ran (%.2f%%)\n", agree, agree + disagree,
                100.0 * agree / (agree + disagree));
  std::printf("  %.1f s of wall time (max work %.3g, XLA timeout %g s of CPU time)\n", seconds, config.corpus.maxWork,
              config.xlaTimeout);
  std::printf("xla-corpus: %d passed, %d failed, %d skipped\n", tally.passed, tally.failed, tally.skipped);
  return tally.failed ? 1 : 0;
}
