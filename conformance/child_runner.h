// Runs one function per input, each call in its own forked child process, a
// few at a time, under CPU-time, wall-time and memory limits: what the corpus
// programs (hlo-interp-corpus, hlo-pass-corpus) use so that a crash or a hang
// fails one module, not the run.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hlo::conformance {

// Sanitizer builds run several times slower; their callers allow more time.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// What became of one input.
struct Outcome {
  std::string status;  // "ok", a program's own categories, or "timeout" / "crash"
  std::string detail;  // one line
  double cpuSeconds = 0;  // user + system time of the child process
};

struct ChildLimits {
  // CPU seconds: SIGXCPU at ceil(timeoutSeconds), SIGKILL a second later. A
  // child still running after 10 times as long in wall time is killed too.
  double timeoutSeconds = 40;
  // RLIMIT_AS of the child, 0 for none; not applied in AddressSanitizer
  // builds, which reserve far more address space than they use.
  int64_t addressSpaceBytes = 0;
};

// Runs `task(inputs[i])` in a child process for every i, `jobs` at a time,
// and returns the outcomes in the order of `inputs`. The task's status and
// detail come back through a pipe (the detail cut to one line of at most
// 300 characters); cpuSeconds is measured by the parent. A child that runs
// out of time becomes "timeout", one that dies otherwise or writes no
// outcome "crash"; for those the detail ends with the last phase the task
// announced with reportProgress, if any: "... (during <phase>)".
std::vector<Outcome> runInChildren(const std::vector<std::string>& inputs, int jobs,
                                   const ChildLimits& limits,
                                   const std::function<Outcome(const std::string&)>& task);

// Inside a task: names what the child does now, for the detail of a timeout
// or a crash. Does nothing outside a child of runInChildren.
void reportProgress(const std::string& phase);

// `s` up to its first newline, tabs made spaces, at most 300 characters
// (then "...").
std::string oneLine(std::string s);

}  // namespace hlo::conformance
