// One child process per input, under limits, with its outcome read back
// through a pipe.
//
// Protocol on the pipe (child to parent): any number of "progress\t<phase>\n"
// lines, then one "<status>\t<detail>\n" line.
#include "conformance/child_runner.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hlo::conformance {
namespace {

constexpr const char kProgress[] = "progress\t";

// The write end of the pipe, in a child; -1 in the parent.
int gChildFd = -1;

void writeAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
}

// An input running in a child process.
struct Running {
  size_t index;
  pid_t pid;
  int fd;
  std::chrono::steady_clock::time_point deadline;
  std::string output;
};

Running start(size_t index, const std::string& input, const ChildLimits& limits,
              const std::function<Outcome(const std::string&)>& task) {
  int fds[2];
  if (pipe(fds) != 0) {
    std::fprintf(stderr, "%s: pipe: %s\n", program_invocation_short_name, std::strerror(errno));
    std::exit(1);
  }
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "%s: fork: %s\n", program_invocation_short_name, std::strerror(errno));
    std::exit(1);
  }
  if (pid == 0) {
    close(fds[0]);
    gChildFd = fds[1];
    if (!kAddressSanitizer && limits.addressSpaceBytes > 0) {
      rlim_t limit = static_cast<rlim_t>(limits.addressSpaceBytes);
      struct rlimit rl = {limit, limit};
      setrlimit(RLIMIT_AS, &rl);
    }
    // SIGXCPU at the soft limit (SIGKILL a second later), and no core files.
    rlim_t cpu = static_cast<rlim_t>(std::ceil(limits.timeoutSeconds));
    struct rlimit cpuLimit = {cpu, cpu + 1}, noCore = {0, 0};
    setrlimit(RLIMIT_CPU, &cpuLimit);
    setrlimit(RLIMIT_CORE, &noCore);
    Outcome outcome = task(input);
    writeAll(fds[1], outcome.status + "\t" + oneLine(outcome.detail) + "\n");
    _exit(0);
  }
  close(fds[1]);
  auto now = std::chrono::steady_clock::now();
  auto deadline = now + std::chrono::milliseconds(static_cast<int64_t>(limits.timeoutSeconds * 10000));
  return {index, pid, fds[0], deadline, ""};
}

// The last announced phase and the outcome line of a child's output.
void splitOutput(const std::string& output, std::string& phase, std::string& outcome) {
  size_t begin = 0;
  while (begin < output.size()) {
    size_t end = output.find('\n', begin);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(begin, end - begin);
    if (line.rfind(kProgress, 0) == 0) phase = line.substr(sizeof kProgress - 1);
    else outcome = line;
    begin = end + 1;
  }
}

// What a child's exit status and output say about its input.
Outcome decode(const Running& r, int status, bool timedOut, const ChildLimits& limits) {
  std::string phase, line;
  splitOutput(r.output, phase, line);
  std::string during = phase.empty() ? "" : " (during " + phase + ")";
  if (timedOut) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "ran past %g s of wall time", limits.timeoutSeconds * 10);
    return {"timeout", buf + during};
  }
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "used more than %g s of CPU time", std::ceil(limits.timeoutSeconds));
    return {"timeout", buf + during};
  }
  if (WIFSIGNALED(status))
    return {"crash", std::string("killed by signal ") + strsignal(WTERMSIG(status)) + during};
  size_t tab = line.find('\t');
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || tab == std::string::npos)
    return {"crash", "exited with status " + std::to_string(WEXITSTATUS(status)) + " and no outcome" + during};
  std::string detail = line.substr(tab + 1);
  if (!detail.empty() && detail.back() == '\n') detail.pop_back();
  return {line.substr(0, tab), detail};
}

// Reaps a finished (or killed) child and turns what it wrote into an outcome.
Outcome finish(Running& r, bool timedOut, const ChildLimits& limits) {
  if (timedOut) kill(r.pid, SIGKILL);
  close(r.fd);
  int status = 0;
  struct rusage usage = {};
  wait4(r.pid, &status, 0, &usage);
  double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
               static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
  Outcome outcome = decode(r, status, timedOut, limits);
  outcome.cpuSeconds = cpu;
  return outcome;
}

}  // namespace

std::vector<Outcome> runInChildren(const std::vector<std::string>& inputs, int jobs,
                                   const ChildLimits& limits,
                                   const std::function<Outcome(const std::string&)>& task) {
  std::vector<Outcome> outcomes(inputs.size());
  std::vector<Running> running;
  size_t next = 0;
  while (next < inputs.size() || !running.empty()) {
    while (next < inputs.size() && static_cast<int>(running.size()) < jobs) {
      running.push_back(start(next, inputs[next], limits, task));
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
      outcomes[r.index] = finish(r, timedOut, limits);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return outcomes;
}

void reportProgress(const std::string& phase) {
  if (gChildFd >= 0) writeAll(gChildFd, kProgress + oneLine(phase) + "\n");
}

std::string oneLine(std::string s) {
  s = s.substr(0, s.find('\n'));
  std::replace(s.begin(), s.end(), '\t', ' ');
  if (s.size() > 300) s = s.substr(0, 300) + "...";
  return s;
}

}  // namespace hlo::conformance
