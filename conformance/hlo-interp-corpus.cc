// hlo-interp-corpus: runs every valid module of the XLA corpus through the
// reference interpreter, with seeded inputs, and compares each outcome with
// the checked-in expectations.
//
// Modules: visible/ with an empty expect_error column. Each runs in its own
// forked process, so a crash or a hang fails that module, not the run. The
// arguments are those of `hlo-run --random-seed=0` (interp/random_inputs.h).
// Outcomes:
//   ok                      the run finished
//   too-large               the estimated work (below) is over --max-work, or
//                           the arguments alone exceed the memory limit; not run
//   unsupported: <opcode>   the interpreter refused an instruction
//   memory-limit            live values would pass --max-memory
//   while-limit             a while loop ran past --max-while-iterations
//   internal-error          an op produced a value of the wrong shape
//   error                   any other run-time error
//   timeout                 the process used more than --timeout seconds of CPU
//                           time (40 by default; CPU time, not wall time, so a
//                           busy machine does not change outcomes), or ran 10
//                           times as long in wall time
//   crash                   the process died (a signal, an uncaught abort)
//   skipped                 does not parse or verify (hlo-corpus-check's
//                           business); counted as skipped, not run
// Every module is expected to be ok unless the expectations file lists it:
//   <file> <TAB> <outcome> <TAB> <detail>
// A module whose outcome differs fails, in either direction. --update rewrites
// the file from this run (every outcome but ok and skipped).
//
// Work estimate: a static count of scalar operations from the instruction
// shapes. Each instruction costs its result's element count, except
//   dot            result elements x contracted size
//   convolution    result elements x kernel elements / output features
//   reduce, map, scatter, all-reduce, reduce-scatter:
//                  operand elements x (1 + instructions of the applied computation,
//                  and of what it calls; 1 for a plain add/max/... reducer,
//                  which the interpreter applies without a call)
//   reduce-window, select-and-scatter:
//                  result elements x window size x the same factor
//   sort           n log2 n x (1 + comparator instructions)
//   fft            n log2 n;  cholesky, triangular-solve  n^3 per matrix
// Every computation is counted once, so a while loop may do far more: loops
// stop after --max-while-iterations (10000), or after fewer for a module whose
// estimate W is large, 10 x max-work / W iterations (but at least 10), so a
// never-ending loop with a big body ends as while-limit well before --timeout.
//
// Limits (defaults): --max-work=3e7 (the costliest modules under it take a few
// seconds of CPU; the whole corpus about a minute of CPU, so well under five
// minutes of wall time on two cores), --timeout=40 CPU seconds (200 in
// AddressSanitizer builds), --max-memory=1G for the interpreter's live values
// (and three times that plus 1 GiB of address space for the whole process,
// outside AddressSanitizer builds), --max-while-iterations=10000, --jobs = the
// number of CPUs.
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "interp/fast_reducer.h"
#include "interp/random_inputs.h"
#include "parser/parser.h"
#include "tools/tool_io.h"

namespace {

using hlo::Instruction;
using hlo::Opcode;
using hlo::Shape;

// The work cap, not the timeout, is what keeps runs short: the costliest
// module under it takes a few seconds here. The timeout is a safety net for a
// module the estimate gets badly wrong, loose enough that a slower machine
// does not turn a slow "ok" into a "timeout". Sanitizer builds run several
// times slower; they get more.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kDefaultTimeout = 200;
#else
constexpr double kDefaultTimeout = 40;
#endif

struct Config {
  double maxWork = 3e7;
  int64_t maxMemory = int64_t{1} << 30;
  int64_t maxWhileIterations = 10000;
  double timeoutSeconds = kDefaultTimeout;  // CPU seconds
};

double elements(const Shape& shape) {
  double n = shape.isArray() ? static_cast<double>(shape.elementCount()) : 0;
  for (const Shape& e : shape.tupleElements()) n += elements(e);
  return n;
}

double operandElements(const Instruction& instr) {
  double n = 0;
  for (const Instruction* op : instr.operands()) n += elements(op->shape());
  return n;
}

// Instructions of `c` and of every computation they call (fusions in a reducer).
double deepInstructionCount(const hlo::Computation& c, int depth = 0) {
  double n = c.instructionCount();
  if (depth > 50) return n;
  for (const auto& instr : c.instructions())
    for (const hlo::Computation* callee : instr->calledComputations())
      if (callee) n += deepInstructionCount(*callee, depth + 1);
  return n;
}

// 1 + the instruction count of the computations an instruction applies per
// element; 1 for a reducer the interpreter applies directly (fast_reducer.h).
double appliedCost(const Instruction& instr) {
  if (hlo::interp::fastReducer(instr.attrs().getComputation(hlo::AttrKey::kToApply)) &&
      !instr.attrs().getComputation(hlo::AttrKey::kSelect))
    return 1;
  double n = 0;
  for (hlo::AttrKey key : {hlo::AttrKey::kToApply, hlo::AttrKey::kSelect, hlo::AttrKey::kScatter})
    if (const hlo::Computation* c = instr.attrs().getComputation(key)) n += deepInstructionCount(*c);
  return 1 + n;
}

double instructionWork(const Instruction& instr) {
  const Shape& shape = instr.shape();
  double result = elements(shape);
  Opcode op = instr.opcode();
  if (op == Opcode::kDot && instr.operandCount() >= 1) {
    double contracted = 1;
    const Shape& lhs = instr.operand(0)->shape();
    for (int64_t d : instr.attrs().getInts(hlo::AttrKey::kLhsContractingDims))
      if (d >= 0 && d < lhs.rank()) contracted *= static_cast<double>(lhs.dim(static_cast<int>(d)));
    return result * contracted;
  }
  if (op == Opcode::kConvolution && instr.operandCount() >= 2) {
    const Shape& kernel = instr.operand(1)->shape();
    const hlo::AttrValue* labels = instr.attrs().find(hlo::AttrKey::kDimLabels);
    double outputFeatures = 1;
    if (labels && labels->conv.kernelOutputFeature < kernel.rank())
      outputFeatures = std::max<double>(1, kernel.dim(static_cast<int>(labels->conv.kernelOutputFeature)));
    return result * elements(kernel) / outputFeatures;
  }
  if (op == Opcode::kReduce || op == Opcode::kMap || op == Opcode::kScatter ||
      op == Opcode::kAllReduce || op == Opcode::kAllReduceStart ||
      op == Opcode::kReduceScatter)
    return result + operandElements(instr) * appliedCost(instr);
  if (op == Opcode::kReduceWindow || op == Opcode::kSelectAndScatter) {
    double window = 1;
    if (const hlo::AttrValue* w = instr.attrs().find(hlo::AttrKey::kWindow))
      for (const hlo::WindowDim& d : w->window) window *= static_cast<double>(d.size);
    return result * window * appliedCost(instr);
  }
  if (op == Opcode::kSort || op == Opcode::kTopK || op == Opcode::kFft) {
    double n = operandElements(instr);
    return n * std::log2(n + 2) * appliedCost(instr);
  }
  if ((op == Opcode::kCholesky || op == Opcode::kTriangularSolve) && shape.isArray() && shape.rank() >= 2)
    return result * static_cast<double>(shape.dim(shape.rank() - 1));
  return result;
}

double moduleWork(const hlo::Module& module) {
  double work = 0;
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions()) work += instructionWork(*instr);
  return work;
}

struct Outcome {
  std::string status;
  std::string detail;
  double cpuSeconds = 0;  // user + system time of the child process
};

std::string oneLine(std::string s) {
  s = s.substr(0, s.find('\n'));
  std::replace(s.begin(), s.end(), '\t', ' ');
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

// The category of a run-time error message.
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

// Parses, verifies and runs one module (in the child process).
Outcome runModule(const std::string& path, const Config& config) {
  std::optional<std::string> text = hlo::readInput(path);
  if (!text) return {"skipped", "cannot read"};
  auto module = hlo::parseModule(*text);
  if (!module.ok()) return {"skipped", "parse error: " + module.status().message()};
  hlo::Status verified = hlo::verify(**module);
  if (!verified.ok()) return {"skipped", "verify error: " + verified.message()};
  double work = moduleWork(**module);
  char buf[64];
  std::snprintf(buf, sizeof buf, "estimated work %.3g", work);
  if (work > config.maxWork) return {"too-large", buf};
  const hlo::Computation* entry = (*module)->entry();
  double argBytes = 0;
  for (int p = 0; p < entry->parameterCount(); ++p)
    argBytes += elements(entry->parameter(p)->shape()) * 16;  // at most 16 bytes an element
  if (argBytes > static_cast<double>(config.maxMemory)) return {"too-large", "arguments over the memory limit"};
  std::vector<hlo::Literal> args = hlo::interp::randomArguments(*entry, 0);
  hlo::interp::Options options;
  options.maxMemoryBytes = config.maxMemory;
  double whileLimit = std::max(10.0, 10 * config.maxWork / std::max(work, 1.0));
  options.maxWhileIterations =
      std::min(config.maxWhileIterations, static_cast<int64_t>(std::min(whileLimit, 1e15)));
  auto result = hlo::interp::evaluate(**module, args, options);
  if (!result.ok()) return {errorCategory(result.status().message()), result.status().message()};
  return {"ok", buf};
}

// A module running in a child process.
struct Running {
  size_t index;
  pid_t pid;
  int fd;
  std::chrono::steady_clock::time_point deadline;
  std::string output;
};

Running start(size_t index, const std::string& path, const Config& config) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::perror("hlo-interp-corpus: pipe");
    std::exit(1);
  }
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("hlo-interp-corpus: fork");
    std::exit(1);
  }
  if (pid == 0) {
    close(fds[0]);
#if !defined(__SANITIZE_ADDRESS__)
    // A backstop for allocations the interpreter does not account for
    // (AddressSanitizer reserves far more address space, so not there).
    rlim_t limit = static_cast<rlim_t>(config.maxMemory) * 3 + (rlim_t{1} << 30);
    struct rlimit rl = {limit, limit};
    setrlimit(RLIMIT_AS, &rl);
#endif
    // SIGXCPU at the soft limit (SIGKILL a second later), and no core files.
    rlim_t cpu = static_cast<rlim_t>(std::ceil(config.timeoutSeconds));
    struct rlimit cpuLimit = {cpu, cpu + 1}, noCore = {0, 0};
    setrlimit(RLIMIT_CPU, &cpuLimit);
    setrlimit(RLIMIT_CORE, &noCore);
    Outcome outcome = runModule(path, config);
    std::string line = outcome.status + "\t" + oneLine(outcome.detail) + "\n";
    for (size_t done = 0; done < line.size();) {
      ssize_t n = write(fds[1], line.data() + done, line.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    _exit(0);
  }
  close(fds[1]);
  auto now = std::chrono::steady_clock::now();
  auto deadline = now + std::chrono::milliseconds(static_cast<int64_t>(config.timeoutSeconds * 10000));
  return {index, pid, fds[0], deadline, ""};
}

// What a child's exit status and output say about its module.
Outcome decode(const Running& r, int status, bool timedOut, const Config& config) {
  if (timedOut) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "ran past %g s of wall time", config.timeoutSeconds * 10);
    return {"timeout", buf};
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "used more than %g s of CPU time", std::ceil(config.timeoutSeconds));
    return {"timeout", buf};
  }
  if (WIFSIGNALED(status))
    return {"crash", std::string("killed by signal ") + strsignal(WTERMSIG(status))};
  size_t tab = r.output.find('\t');
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || tab == std::string::npos)
    return {"crash", "exited with status " + std::to_string(WEXITSTATUS(status)) + " and no outcome"};
  std::string detail = r.output.substr(tab + 1);
  if (!detail.empty() && detail.back() == '\n') detail.pop_back();
  return {r.output.substr(0, tab), detail};
}

// Reaps a finished (or killed) child and turns what it wrote into an outcome.
Outcome finish(Running& r, bool timedOut, const Config& config) {
  if (timedOut) kill(r.pid, SIGKILL);
  close(r.fd);
  int status = 0;
  struct rusage usage = {};
  wait4(r.pid, &status, 0, &usage);
  double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  Outcome outcome = decode(r, status, timedOut, config);
  outcome.cpuSeconds = cpu;
  return outcome;
}

// Runs every module, `jobs` at a time; outcomes in the order of `paths`.
std::vector<Outcome> runAll(const std::vector<std::string>& paths, int jobs, const Config& config) {
  std::vector<Outcome> outcomes(paths.size());
  std::vector<Running> running;
  size_t next = 0;
  while (next < paths.size() || !running.empty()) {
    while (next < paths.size() && static_cast<int>(running.size()) < jobs) {
      running.push_back(start(next, paths[next], config));
      ++next;
    }
    auto now = std::chrono::steady_clock::now();
    auto earliest = running.front().deadline;
    for (const Running& r : running) earliest = std::min(earliest, r.deadline);
    int waitMs = static_cast<int>(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(earliest - now).count() + 1));
    std::vector<pollfd> fds;
    for (const Running& r : running) fds.push_back({r.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), waitMs);
    now = std::chrono::steady_clock::now();
    for (size_t i = running.size(); i-- > 0;) {
      Running& r = running[i];
      bool done = false, timedOut = false;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[4096];
        ssize_t n = read(r.fd, buf, sizeof buf);
        if (n > 0) r.output.append(buf, static_cast<size_t>(n));
        else done = true;
      }
      if (!done && now >= r.deadline) done = timedOut = true;
      if (!done) continue;
      outcomes[r.index] = finish(r, timedOut, config);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return outcomes;
}

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, '\t')) out.push_back(field);
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: hlo-interp-corpus --corpus=DIR [--expectations=FILE] [--update]\n"
               "         [--filter=TEXT] [--jobs=N] [--timeout=SECONDS] [--max-work=N]\n"
               "         [--max-memory=BYTES] [--max-while-iterations=N] [--times=FILE]\n"
               "  --times=FILE writes each module's outcome, CPU seconds and detail (to tune --max-work)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus, expectationsPath, filter, timesPath;
  bool update = false;
  Config config;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int jobs = cpus > 0 ? static_cast<int>(cpus) : 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    std::string name = arg.substr(0, eq);
    char* end = nullptr;
    double number = value.empty() ? -1 : std::strtod(value.c_str(), &end);
    bool numeric = end && *end == '\0' && number >= 0;
    if (name == "--corpus") corpus = value;
    else if (name == "--expectations") expectationsPath = value;
    else if (arg == "--update") update = true;
    else if (name == "--filter") filter = value;
    else if (name == "--times") timesPath = value;
    else if (name == "--jobs" && numeric && number >= 1) jobs = static_cast<int>(number);
    else if (name == "--timeout" && numeric && number > 0) config.timeoutSeconds = number;
    else if (name == "--max-work" && numeric) config.maxWork = number;
    else if (name == "--max-memory" && hlo::parseByteCount(value)) config.maxMemory = *hlo::parseByteCount(value);
    else if (name == "--max-while-iterations" && numeric && number >= 1) config.maxWhileIterations = static_cast<int64_t>(number);
    else return usage();
  }
  if (update && !filter.empty()) {
    std::fprintf(stderr, "hlo-interp-corpus: --update rewrites every module's line; it cannot take --filter\n");
    return 2;
  }
  // Accept either the corpus root or its xla/ folder.
  std::string root = corpus + "/xla";
  if (!hlo::readInput(root + "/MANIFEST.tsv")) root = corpus;
  std::optional<std::string> manifest = hlo::readInput(root + "/MANIFEST.tsv");
  if (!manifest) {
    std::printf("corpus not found at %s: interpreter corpus run skipped\n"
                "interp-corpus: 0 passed, 0 failed, 1 skipped\n", corpus.c_str());
    return 0;
  }
  std::map<std::string, Outcome> expected;
  if (!expectationsPath.empty()) {
    std::ifstream in(expectationsPath);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      auto f = splitTabs(line);
      if (f.size() >= 2) expected[f[0]] = {f[1], f.size() > 2 ? f[2] : ""};
    }
  }

  std::vector<std::string> files;
  std::stringstream rows(*manifest);
  std::string line;
  std::getline(rows, line);  // header
  while (std::getline(rows, line)) {
    auto f = splitTabs(line);
    if (f.size() < 9 || f[0].rfind("visible/", 0) != 0 || !f[8].empty()) continue;
    if (!filter.empty() && f[0].find(filter) == std::string::npos) continue;
    files.push_back(f[0]);
  }
  std::vector<std::string> paths;
  for (const std::string& f : files) paths.push_back(root + "/" + f);

  auto startTime = std::chrono::steady_clock::now();
  std::vector<Outcome> outcomes = runAll(paths, jobs, config);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - startTime).count();

  int passed = 0, failed = 0, skipped = 0;
  std::map<std::string, int> byOutcome;
  std::vector<std::string> newExpectations;
  for (size_t i = 0; i < files.size(); ++i) {
    const Outcome& got = outcomes[i];
    auto it = expected.find(files[i]);
    std::string want = it != expected.end() ? it->second.status : "ok";
    ++byOutcome[got.status];
    if (got.status != "ok" && got.status != "skipped")
      newExpectations.push_back(files[i] + "\t" + got.status + "\t" + got.detail);
    if (got.status == "skipped" && it == expected.end()) {
      ++skipped;
    } else if (got.status == want) {
      ++passed;
    } else {
      ++failed;
      std::printf("FAIL %s: expected %s, got %s%s%s\n", files[i].c_str(), want.c_str(),
                  got.status.c_str(), got.detail.empty() ? "" : ": ", got.detail.c_str());
    }
  }
  if (update && !expectationsPath.empty()) {
    std::ofstream out(expectationsPath);
    out << "# Corpus modules whose interpreter outcome is not ok (see conformance/hlo-interp-corpus.cc).\n"
           "# Regenerate with: build/bin/hlo-interp-corpus --corpus=../shared/corpus "
           "--expectations=conformance/interp_expectations.txt --update\n"
           "# file\toutcome\tdetail\n";
    for (const std::string& e : newExpectations) out << e << "\n";
  }
  if (!timesPath.empty()) {
    std::ofstream out(timesPath);
    for (size_t i = 0; i < files.size(); ++i)
      out << files[i] << "\t" << outcomes[i].status << "\t" << outcomes[i].cpuSeconds << "\t"
          << outcomes[i].detail << "\n";
  }
  std::printf("interp-corpus modules: %zu (visible, no expected error)\n", files.size());
  std::printf("  outcomes:\n");
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto& [status, count] : byOutcome) sorted.push_back({-count, status});
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [count, status] : sorted) std::printf("  %6d  %s\n", -count, status.c_str());
  std::vector<size_t> slowest(files.size());
  for (size_t i = 0; i < files.size(); ++i) slowest[i] = i;
  std::sort(slowest.begin(), slowest.end(),
            [&](size_t a, size_t b) { return outcomes[a].cpuSeconds > outcomes[b].cpuSeconds; });
  double cpuTotal = 0;
  for (const Outcome& o : outcomes) cpuTotal += o.cpuSeconds;
  std::printf("  most CPU time:\n");
  for (size_t k = 0; k < std::min<size_t>(5, slowest.size()); ++k)
    std::printf("  %6.2f s  %s (%s)\n", outcomes[slowest[k]].cpuSeconds, files[slowest[k]].c_str(),
                outcomes[slowest[k]].status.c_str());
  std::printf("  %.1f s of CPU time, %.1f s of wall time with %d jobs\n  (max work %.3g, timeout %g s of CPU, while limit %lld, memory limit %lld bytes)\n",
              cpuTotal, seconds, jobs, config.maxWork, config.timeoutSeconds,
              static_cast<long long>(config.maxWhileIterations), static_cast<long long>(config.maxMemory));
  std::printf("interp-corpus: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}
