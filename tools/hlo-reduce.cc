// hlo-reduce: shrinks a module while an interestingness test still holds for
// it (conformance/reducer.h), as C-Reduce does for C.
//
//   hlo-reduce FILE.hlo TEST [-o OUT.hlo] [--jobs=N] [--max-tests=N] [--timeout=S]
//
// TEST is one of:
//   --test='CMD'             CMD runs through the shell once per candidate,
//                            with `{}` replaced by the candidate's path
//                            (appended when CMD has no `{}`); the candidate
//                            is interesting when CMD exits 0 within --timeout
//                            seconds (default 10; an edit can make a loop
//                            run forever)
//   --engines-disagree=A,B   engines A and B (interp, cpu, gpu, gpu-host)
//                            give different results on seeded random inputs
//   --xla-disagrees          XLA:CPU and the interpreter give different
//                            results (conformance/fuzz_xla.h; --python=PATH
//                            for a Python other than make xla-env's)
//   --crashes=ENGINE         the engine dies of a signal on it
//   --error-matches=RE       the engine (--engine, default cpu) fails with a
//                            message the RE2 expression RE finds
// The built-in tests (tools/reduce_tests.h) run each candidate in a child
// process, with arguments from --random-seed (default 0) as hlo-run draws
// them, so the failure reproduces with the hlo-run line printed at the end.
// The reduced module goes to OUT.hlo, else standard output; standard error
// gets progress and, at the end, the instruction counts before and after,
// the tests run and the command that shows the failure on the result.
// Exit status: 0 reduced, 1 the test does not hold for FILE as given or a
// file cannot be read or written, 2 bad usage.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "conformance/fuzz_xla.h"
#include "conformance/reducer.h"
#include "hlo/printer.h"
#include "jit/backend.h"
#include "parser/load_module.h"
#include "tools/reduce_tests.h"
#include "hlo/file_io.h"

namespace {

constexpr const char* kUsage =
    "usage: hlo-reduce FILE.hlo TEST [-o OUT.hlo] [--jobs=N] [--max-tests=N] [--timeout=S]\n"
    "  shrinks FILE while TEST still holds for it; TEST is one of:\n"
    "  --test='CMD'          CMD exits 0 on the candidate: CMD runs through the shell,\n"
    "                        {} standing for the candidate's path (appended when CMD\n"
    "                        has none)\n"
    "  --engines-disagree=A,B  engines A and B (interp, cpu, gpu, gpu-host) both run it\n"
    "                        and their results differ (as the conformance harness\n"
    "                        compares them)\n"
    "  --xla-disagrees       XLA:CPU (conformance/xla_oracle.py on the Python of\n"
    "                        make xla-env, or --python=PATH) and the interpreter both run\n"
    "                        it and their results differ\n"
    "  --crashes=ENGINE      the engine dies of a signal on it\n"
    "  --error-matches=RE    the engine fails with a message the RE2 expression RE finds\n"
    "  options:\n"
    "  --engine=E            the engine of --error-matches (default cpu)\n"
    "  --random-seed=N       the built-in tests' arguments, as hlo-run draws them (default 0)\n"
    "  --max-while-iterations=N  the built-in tests stop any loop after N iterations\n"
    "  -o OUT.hlo            write the reduced module there (default: standard output)\n"
    "  --jobs=N              test N candidates side by side (default 1); the result is\n"
    "                        the same for any N\n"
    "  --max-tests=N         stop after N tests with the smallest module so far\n"
    "  --timeout=S           a test running longer than S seconds (default 10) is not\n"
    "                        interesting: its processes are killed\n"
    "  --help                show this help\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "hlo-reduce: %s\n%s", message.c_str(), kUsage);
  return 2;
}

// CMD with {} replaced by `path`, or `path` appended.
std::string commandFor(const std::string& test, const std::string& path) {
  std::string quoted = "'" + path + "'";
  std::string command = test;
  size_t at = command.find("{}");
  if (at == std::string::npos) return command + " " + quoted;
  for (; at != std::string::npos; at = command.find("{}", at + quoted.size())) command.replace(at, 2, quoted);
  return command;
}

// Whether each of `commands` exits 0 within `seconds` (their output
// discarded); they run side by side. Each runs in a process group of its
// own, killed whole when time is up: an edit can turn a loop's condition
// into one that always holds.
std::vector<bool> passEach(const std::vector<std::string>& commands, double seconds) {
  std::vector<pid_t> children;
  for (const std::string& command : commands) {
    pid_t child = fork();
    if (child == 0) {
      setpgid(0, 0);
      int null = open("/dev/null", O_RDWR);
      if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
      }
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    if (child > 0) setpgid(child, child);
    children.push_back(child);
  }
  std::vector<bool> passed(commands.size(), false);
  std::vector<bool> done(commands.size(), false);
  for (size_t i = 0; i < children.size(); ++i) done[i] = children[i] < 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (size_t left = std::count(done.begin(), done.end(), false); left > 0;) {
    for (size_t i = 0; i < children.size(); ++i) {
      if (done[i]) continue;
      int status = 0;
      pid_t ended = waitpid(children[i], &status, WNOHANG);
      if (ended == 0) continue;
      passed[i] = ended == children[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0;
      done[i] = true;
      --left;
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      for (size_t i = 0; i < children.size(); ++i)
        if (!done[i]) {
          kill(-children[i], SIGKILL);
          int status = 0;
          waitpid(children[i], &status, 0);
        }
      break;
    }
    usleep(2000);
  }
  return passed;
}

// Whether `name` is an engine hlo-run takes.
bool knownEngine(const std::string& name) { return name == "interp" || hlo::jit::findBackend(name); }

std::string engineList() {
  std::string out = "interp";
  for (const std::string& name : hlo::jit::backendNames()) out += ", " + name;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, test, out;
  int64_t maxTests = 0;
  double timeoutSeconds = 10;
  // A built-in test, when one is given: its kind and engines are filled in
  // as the flags are read, the rest after.
  using Kind = hlo::reduce_tests::BuiltinTest::Kind;
  hlo::reduce_tests::BuiltinTest settings;
  std::optional<Kind> builtin;
  int testsGiven = 0;
  bool xlaDisagrees = false;  // --xla-disagrees, with --python
  std::string python;
  std::string errorEngine = "cpu";
  int jobs = 1;
  auto value = [](const std::string& arg) { return arg.substr(arg.find('=') + 1); };
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg.rfind("--test=", 0) == 0) {
      test = arg.substr(7);
      ++testsGiven;
    } else if (arg.rfind("--engines-disagree=", 0) == 0) {
      std::string pair = value(arg);
      size_t comma = pair.find(',');
      if (comma == std::string::npos || pair.find(',', comma + 1) != std::string::npos)
        return usageError("--engines-disagree takes two engines, A,B, not '" + pair + "'");
      builtin = Kind::kEnginesDisagree;
      settings.engine = pair.substr(0, comma);
      settings.other = pair.substr(comma + 1);
      ++testsGiven;
    } else if (arg == "--xla-disagrees") {
      xlaDisagrees = true;
      ++testsGiven;
    } else if (arg.rfind("--python=", 0) == 0) {
      python = value(arg);
    } else if (arg.rfind("--crashes=", 0) == 0) {
      builtin = Kind::kCrashes;
      settings.engine = value(arg);
      ++testsGiven;
    } else if (arg.rfind("--error-matches=", 0) == 0) {
      auto pattern = std::make_shared<const RE2>(value(arg), RE2::Quiet);
      if (!pattern->ok()) return usageError("--error-matches: " + pattern->error());
      builtin = Kind::kErrorMatches;
      settings.pattern = std::move(pattern);
      ++testsGiven;
    } else if (arg.rfind("--engine=", 0) == 0) {
      errorEngine = value(arg);
    } else if (arg.rfind("--random-seed=", 0) == 0) {
      std::optional<int64_t> n = hlo::parseCount(value(arg));
      if (!n) return usageError("--random-seed takes a count, not '" + value(arg) + "'");
      settings.seed = static_cast<uint64_t>(*n);
    } else if (arg.rfind("--max-while-iterations=", 0) == 0) {
      std::optional<int64_t> n = hlo::parseCount(value(arg));
      if (!n) return usageError("--max-while-iterations takes a count, not '" + value(arg) + "'");
      settings.maxWhileIterations = *n;
    } else if (arg.rfind("--jobs=", 0) == 0) {
      std::optional<int64_t> n = hlo::parseCount(value(arg));
      if (!n || *n == 0 || *n > 256) return usageError("--jobs takes a count from 1 to 256, not '" + value(arg) + "'");
      jobs = static_cast<int>(*n);
    } else if (arg.rfind("--plant-crash-for-testing=", 0) == 0) {
      settings.plantedCrash = value(arg);
    } else if (arg.rfind("--timeout=", 0) == 0) {
      std::optional<int64_t> n = hlo::parseCount(arg.substr(10));
      if (!n || *n == 0) return usageError("--timeout takes a number of seconds, not '" + arg.substr(10) + "'");
      timeoutSeconds = static_cast<double>(*n);
    } else if (arg == "-o" && i + 1 < argc) {
      out = argv[++i];
    } else if (arg.rfind("--max-tests=", 0) == 0) {
      std::optional<int64_t> n = hlo::parseCount(arg.substr(12));
      if (!n) return usageError("--max-tests takes a count, not '" + arg.substr(12) + "'");
      maxTests = *n;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return usageError("unknown option " + arg);
    } else if (file.empty()) {
      file = arg;
    } else {
      return usageError("one module at a time (" + file + ", then " + arg + ")");
    }
  }
  if (file.empty()) return usageError("no module given");
  if (testsGiven == 0)
    return usageError("no test given (--test, --engines-disagree, --xla-disagrees, --crashes or --error-matches)");
  if (testsGiven > 1) return usageError("one test at a time");
  if (builtin) {
    settings.kind = *builtin;
    if (*builtin == Kind::kErrorMatches) settings.engine = errorEngine;
    settings.timeoutSeconds = timeoutSeconds;
    for (const std::string& e : {settings.engine, settings.other})
      if (!e.empty() && !knownEngine(e)) return usageError("no engine '" + e + "' (there are: " + engineList() + ")");
    if (*builtin == Kind::kEnginesDisagree && settings.engine == settings.other)
      return usageError("--engines-disagree compares two different engines");
  }
  auto module = hlo::loadModule(file, hlo::Verify::kNo);
  if (!module.ok()) return std::fputs(module.status().message().c_str(), stderr), 1;
  char dir[] = "/tmp/hlo-reduce-XXXXXX";
  if (!mkdtemp(dir)) {
    std::fprintf(stderr, "hlo-reduce: cannot make a folder for the candidates\n");
    return 1;
  }
  auto candidatePath = [&](size_t k) { return std::string(dir) + "/candidate." + std::to_string(k) + ".hlo"; };
  const auto start = std::chrono::steady_clock::now();
  hlo::conformance::ReduceOptions options;
  options.maxTests = maxTests;
  options.jobs = jobs;
  // XLA's candidates go through one Python process per batch, which pays
  // for jax's start-up once: more of them are tested together.
  if (xlaDisagrees) options.jobs = std::max(jobs, 8);
  std::string xlaWhy;
  options.interestingEach = [&](const std::vector<std::string>& texts) {
    if (builtin) return hlo::reduce_tests::interestingEach(texts, settings, jobs);
    if (xlaDisagrees) {
      std::vector<hlo::conformance::Outcome> outcomes = hlo::conformance::fuzz::runOnXla(
          texts, std::vector<uint64_t>(texts.size(), settings.seed), jobs, python);
      std::vector<bool> verdicts;
      for (const auto& o : outcomes) verdicts.push_back(o.status == "disagree");
      if (!outcomes.empty()) xlaWhy = outcomes[0].status + (outcomes[0].detail.empty() ? "" : ": " + outcomes[0].detail);
      return verdicts;
    }
    std::vector<std::string> commands;
    std::vector<bool> written;
    for (size_t k = 0; k < texts.size(); ++k) {
      written.push_back(hlo::writeOutput(candidatePath(k), texts[k]));
      commands.push_back(written.back() ? commandFor(test, candidatePath(k)) : "false");
    }
    return passEach(commands, timeoutSeconds);
  };
  // (A bool, not the vector<bool> element's proxy, which would outlive its vector.)
  options.interesting = [&](const std::string& moduleText) -> bool { return options.interestingEach({moduleText})[0]; };
  options.progress = [&](int64_t instructions, int64_t tests) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "hlo-reduce: %lld instructions left, %lld tests, %.1f s\n",
                 static_cast<long long>(instructions), static_cast<long long>(tests), seconds);
  };
  auto reduced = hlo::conformance::reduceModule(*module->module, options);
  for (int k = 0; k < jobs; ++k) std::remove(candidatePath(k).c_str());
  rmdir(dir);
  if (!reduced.ok()) {
    std::fprintf(stderr, "hlo-reduce: %s: %s\n", file.c_str(), reduced.status().message().c_str());
    std::string why;
    if (builtin && !hlo::reduce_tests::interesting(hlo::printModule(*module->module), settings, &why))
      std::fprintf(stderr, "hlo-reduce: %s: %s\n", file.c_str(), why.c_str());
    if (xlaDisagrees) std::fprintf(stderr, "hlo-reduce: %s: %s\n", file.c_str(), xlaWhy.c_str());
    return 1;
  }
  std::string result = hlo::printModule(*reduced->module);
  if (out.empty()) {
    std::fputs(result.c_str(), stdout);
  } else if (!hlo::writeOutput(out, result)) {
    std::fprintf(stderr, "hlo-reduce: cannot write %s\n", out.c_str());
    return 1;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "hlo-reduce: %lld instructions -> %lld, %lld tests, %.1f s\n",
               static_cast<long long>(reduced->instructionsBefore), static_cast<long long>(reduced->instructionsAfter),
               static_cast<long long>(reduced->tests), seconds);
  if (!out.empty())
    std::fprintf(stderr, "hlo-reduce: shows it: %s\n",
                 (builtin        ? hlo::reduce_tests::reproducer(settings, out)
                  : xlaDisagrees ? hlo::conformance::fuzz::xlaReproducer(settings.seed, out)
                                 : commandFor(test, out))
                     .c_str());
  return 0;
}
