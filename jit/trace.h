// Profiling: spans of time (compile phases, kernels, library ops, runtime
// steps) written as a Chrome trace, which Perfetto and chrome://tracing open.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/status.h"

namespace hlo::jit {

struct TraceEvent {
  std::string name;      // the HLO instruction's name, or the compile phase
  std::string category;  // "compile", "kernel", "library", "runtime"
  std::string opcode;    // for instructions
  double startUs = 0;    // microseconds since traceClockStart()
  double durationUs = 0;
  int thread = 0;
};

// Microseconds on the trace clock (steady; zero at the first call in the process).
double traceNowUs();

// Writes `events` as a Chrome trace (JSON object format, complete "X" events).
Status writeChromeTrace(const std::string& path, const std::vector<TraceEvent>& events);

// Records a span from construction to destruction into `events` (when not null).
class TraceScope {
 public:
  // Views, copied only when recording: a runtime step builds no strings
  // when nothing is profiled.
  TraceScope(std::vector<TraceEvent>* events, std::string_view name, std::string_view category,
             std::string_view opcode = "")
      : events_(events) {
    if (!events_) return;
    event_.emplace();
    event_->name = name;
    event_->category = category;
    event_->opcode = opcode;
    event_->startUs = traceNowUs();
  }
  ~TraceScope() {
    if (!events_) return;
    event_->durationUs = traceNowUs() - event_->startUs;
    events_->push_back(std::move(*event_));
  }
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  std::vector<TraceEvent>* events_;
  std::optional<TraceEvent> event_;  // only while recording
};

}  // namespace hlo::jit
