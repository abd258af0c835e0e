// hlo-reduce: shrinks a module while an interestingness test still holds for
// it (conformance/reducer.h), as C-Reduce does for C.
//
//   hlo-reduce FILE.hlo --test='CMD' [-o OUT.hlo] [--max-tests=N] [--timeout=S]
//
// CMD runs through the shell once per candidate, with `{}` replaced by the
// candidate's path (appended when CMD has no `{}`); the candidate is
// interesting when CMD exits 0 within --timeout seconds (default 10; an edit
// can make a loop run forever). For example, a module on which the CPU JIT
// disagrees with the interpreter:
//   hlo-reduce big.hlo --test='! hlo-run --engine=cpu --compare=interp {}'
// (hlo-run's random inputs are seeded, so a disagreement reproduces.)
// The reduced module goes to OUT.hlo, else standard output; standard error
// gets progress and, at the end, the instruction counts before and after,
// the tests run and the command that shows the failure on the result.
// Exit status: 0 reduced, 1 the test does not hold for FILE as given or a
// file cannot be read or written, 2 bad usage.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "conformance/reducer.h"
#include "hlo/printer.h"
#include "parser/parser.h"
#include "tools/tool_io.h"

namespace {

constexpr const char* kUsage =
    "usage: hlo-reduce FILE.hlo --test='CMD' [-o OUT.hlo] [--max-tests=N] [--timeout=S]\n"
    "  shrinks FILE while CMD still exits 0 on it: CMD runs through the shell on each\n"
    "  candidate, {} standing for the candidate's path (appended when CMD has none)\n"
    "  -o OUT.hlo       write the reduced module there (default: standard output)\n"
    "  --max-tests=N    stop after N tests with the smallest module so far\n"
    "  --timeout=S      a test running longer than S seconds (default 10) is not\n"
    "                   interesting: its processes are killed\n"
    "  --help           show this help\n";

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

// Whether `command` exits 0 within `seconds` (its output discarded). It
// runs in a process group of its own, killed whole when time is up: an
// edit can turn a loop's condition into one that always holds.
bool passes(const std::string& command, double seconds) {
  pid_t child = fork();
  if (child < 0) return false;
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
  setpgid(child, child);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int status = 0;
    pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (done < 0) return false;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-child, SIGKILL);
      waitpid(child, &status, 0);
      return false;
    }
    usleep(2000);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, test, out;
  int64_t maxTests = 0;
  double timeoutSeconds = 10;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg.rfind("--test=", 0) == 0) {
      test = arg.substr(7);
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
  if (test.empty()) return usageError("no --test given");
  std::optional<std::string> text = hlo::readInput(file);
  if (!text) {
    std::fprintf(stderr, "hlo-reduce: %s: cannot read file\n", file.c_str());
    return 1;
  }
  auto module = hlo::parseModule(*text);
  if (!module.ok()) {
    std::fputs(hlo::formatError(module.status(), file, *text).c_str(), stderr);
    return 1;
  }
  char dir[] = "/tmp/hlo-reduce-XXXXXX";
  if (!mkdtemp(dir)) {
    std::fprintf(stderr, "hlo-reduce: cannot make a folder for the candidates\n");
    return 1;
  }
  const std::string candidate = std::string(dir) + "/candidate.hlo";
  const auto start = std::chrono::steady_clock::now();
  hlo::conformance::ReduceOptions options;
  options.maxTests = maxTests;
  options.interesting = [&](const std::string& moduleText) {
    return hlo::writeOutput(candidate, moduleText) && passes(commandFor(test, candidate), timeoutSeconds);
  };
  options.progress = [&](int64_t instructions, int64_t tests) {
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "hlo-reduce: %lld instructions left, %lld tests, %.1f s\n",
                 static_cast<long long>(instructions), static_cast<long long>(tests), seconds);
  };
  auto reduced = hlo::conformance::reduceModule(**module, options);
  std::remove(candidate.c_str());
  rmdir(dir);
  if (!reduced.ok()) {
    std::fprintf(stderr, "hlo-reduce: %s: %s\n", file.c_str(), reduced.status().message().c_str());
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
  if (!out.empty()) std::fprintf(stderr, "hlo-reduce: shows it: %s\n", commandFor(test, out).c_str());
  return 0;
}
