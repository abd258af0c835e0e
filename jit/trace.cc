#include "jit/trace.h"

#include <cstdio>
#include <fstream>

namespace hlo::jit {
namespace {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

double traceNowUs() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

Status writeChromeTrace(const std::string& path, const std::vector<TraceEvent>& events) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) return errorStatus("cannot write " + path);
  out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    char times[96];
    std::snprintf(times, sizeof times, "\"ts\": %.3f, \"dur\": %.3f", e.startUs, e.durationUs);
    out << "  {\"name\": " << jsonString(e.name) << ", \"cat\": " << jsonString(e.category)
        << ", \"ph\": \"X\", " << times << ", \"pid\": 1, \"tid\": " << e.thread;
    if (!e.opcode.empty()) out << ", \"args\": {\"opcode\": " << jsonString(e.opcode) << "}";
    out << "}" << (i + 1 < events.size() ? ",\n" : "\n");
  }
  out << "]}\n";
  out.close();
  if (!out) return errorStatus("cannot write " + path);
  return okStatus();
}

}  // namespace hlo::jit
