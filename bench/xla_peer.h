// XLA:CPU as the peer of a benchmark (make bench-xla): a module runs on
// jaxlib through conformance/xla_oracle.py --bench with the same arguments,
// which reports XLA's compile time and the median of its runs on inputs
// already on the device. Each of those runs is one call of the compiled
// executable from Python; callFloor() measures what such a call costs for
// a module that does almost nothing, so that small modules can be compared
// without it.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "hlo/literal.h"
#include "hlo/npy.h"

namespace bench {

inline std::string xlaPython;                           // --xla-python: a Python with jax
inline std::string xlaOracle = "conformance/xla_oracle.py";  // --xla-oracle

// Takes --xla-python=PYTHON and --xla-oracle=FILE out of the command line;
// the rest is Google Benchmark's.
inline std::vector<char*> takeXlaFlags(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--xla-python=", 0) == 0) xlaPython = arg.substr(13);
    else if (arg.rfind("--xla-oracle=", 0) == 0) xlaOracle = arg.substr(13);
    else rest.push_back(argv[i]);
  }
  return rest;
}

struct XlaTiming {
  bool ok = false;
  double compileSeconds = 0, runSeconds = 0;
  std::string detail;  // why not, when not ok
};

// Runs the module on XLA:CPU with the same arguments: its compile time and
// the median of `repeats` runs.
inline XlaTiming timeOnXla(const std::string& name, const std::string& text, const std::vector<hlo::Literal>& args,
                           int repeats) {
  XlaTiming out;
  std::string base = "/tmp/hlo-bench-xla-" + std::to_string(getpid()) + "-" + name;
  std::string module = base + ".hlo", inputs = base + ".npz";
  {
    std::ofstream f(module);
    f << text;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < args.size(); ++i) names.push_back("arg" + std::to_string(i));
  std::vector<std::pair<std::string, const hlo::Literal*>> arrays;
  for (size_t i = 0; i < args.size(); ++i) arrays.push_back({names[i], &args[i]});
  auto bytes = hlo::writeNpz(arrays);
  if (!bytes.ok()) {
    out.detail = bytes.status().message();
    return out;
  }
  {
    std::ofstream f(inputs, std::ios::binary);
    f << *bytes;
  }
  std::string command = xlaPython + " " + xlaOracle + " --bench " + module + " " + inputs +
                        " --repeats=" + std::to_string(repeats) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string reply;
  if (pipe) {
    char buf[512];
    while (fgets(buf, sizeof buf, pipe)) reply += buf;
    pclose(pipe);
  }
  std::remove(module.c_str());
  std::remove(inputs.c_str());
  // The last line: "ok compile_s=C run_s=R", or an outcome with XLA's message.
  std::string last = reply;
  while (!last.empty() && last.back() == '\n') last.pop_back();
  if (size_t nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
  if (std::sscanf(last.c_str(), "ok compile_s=%lf run_s=%lf", &out.compileSeconds, &out.runSeconds) == 2) {
    out.ok = true;
  } else {
    out.detail = last.empty() ? "no answer from " + command : last;
  }
  return out;
}

// What one call of an XLA executable from Python costs beyond its work: the
// median run of a module that negates one f32.
inline XlaTiming callFloor() {
  hlo::Literal x = hlo::Literal::uninitialized(hlo::Shape::scalar(hlo::ElementType::kF32));
  x.data<float>()[0] = 1.0f;
  std::vector<hlo::Literal> args;
  args.push_back(std::move(x));
  return timeOnXla("call-floor", "HloModule floor\nENTRY e {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n",
                   args, 1000);
}

}  // namespace bench
