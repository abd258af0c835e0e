// hlo-aot: compile an HLO module ahead of time into an object file and a
// C/C++ header (backends/cpu/aot_compiler.h), for programs that link the
// runtime library instead of carrying LLVM.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "backends/cpu/aot_compiler.h"
#include "backends/cpu/aot_header.h"
#include "parser/load_module.h"
#include "hlo/file_io.h"

#ifndef HLO_RT_LINK_EXTRA
#define HLO_RT_LINK_EXTRA ""  // the Makefile's flags for a sanitized runtime
#endif

namespace {

constexpr const char* kUsage =
    "usage: hlo-aot [options] FILE.hlo   (FILE may be - for standard input)\n"
    "Compiles FILE with the CPU backend's pipeline and emitter ahead of time: an\n"
    "object file holding the kernels and the module's plan, and a header with a C++\n"
    "class and a C entry point. Programs link the object with the runtime library\n"
    "(no LLVM, parser or interpreter): see --print-link-flags.\n"
    "  --name=NAME            the C++ class; the C names are hlo_aot_NAME and NAME_run\n"
    "                         (default: Model)\n"
    "  --namespace=NS         put the class in namespace NS (NS may be a::b)\n"
    "  -o FILE                the object file (default: NAME.o)\n"
    "  --header=FILE          the header (default: the object's name with .h)\n"
    "  --target=CPU           native (default: this machine's CPU and its features), or\n"
    "                         an LLVM CPU name (x86-64-v3, skylake-avx512, znver4, ...)\n"
    "  --verbose              print the compile time and the object's figures to stderr\n"
    "  --print-link-flags     print what to link a program with (the runtime library\n"
    "                         and the system libraries it uses), then exit\n"
    "  --help                 show this help\n"
    "Exit status: 0 success, 1 input or compile error, 2 usage error.\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "hlo-aot: %s\n%s", message.c_str(), kUsage);
  return 2;
}

// The folder this program lies in (build/bin), from /proc/self/exe.
std::string programDir() {
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string p(path, static_cast<size_t>(n));
  return p.substr(0, p.find_last_of('/'));
}

}  // namespace

int main(int argc, char** argv) {
  hlo::cpu::AotOptions options;
  options.name = "Model";
  std::string input, object, header;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag) -> std::optional<std::string> {
      std::string prefix = std::string(flag) + "=";
      if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
      return std::nullopt;
    };
    if (arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--print-link-flags") {
      std::string lib = programDir() + "/../lib/libhlo_rt.a";
      char resolved[4096];
      if (realpath(lib.c_str(), resolved)) lib = resolved;
      std::printf("%s -lstdc++ -lpthread -ldl -lmvec -lm%s\n", lib.c_str(), HLO_RT_LINK_EXTRA);
      return 0;
    } else if (auto v = value("--name")) {
      options.name = *v;
    } else if (auto v = value("--namespace")) {
      options.cppNamespace = *v;
    } else if (auto v = value("--header")) {
      header = *v;
    } else if (auto v = value("--target")) {
      options.cpu = *v;
    } else if (arg == "-o" && i + 1 < argc) {
      object = argv[++i];
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (arg.rfind("-", 0) == 0 && arg != "-") {
      return usageError("unknown option " + arg);
    } else if (input.empty()) {
      input = arg;
    } else {
      return usageError("more than one input file");
    }
  }
  if (input.empty()) return usageError("no input file");
  if (!hlo::cpu::isCIdentifier(options.name)) return usageError("--name=" + options.name + " is not a C identifier");
  if (object.empty()) object = options.name + ".o";
  if (header.empty()) header = object.substr(0, object.rfind('.') == std::string::npos ? object.size() : object.rfind('.')) + ".h";

  auto loaded = hlo::loadModule(input);
  if (!loaded.ok()) return std::fputs(loaded.status().message().c_str(), stderr), 1;
  const std::string& shownName = loaded->shownName;
  options.sourceName = shownName.substr(shownName.find_last_of('/') + 1);
  auto start = std::chrono::steady_clock::now();
  hlo::StatusOr<hlo::cpu::AotOutput> out = hlo::cpu::compileAheadOfTime(*loaded->module, options);
  if (!out.ok()) {
    std::fputs(loaded->locate(out.status()).c_str(), stderr);
    return 1;
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!hlo::writeOutput(object, out->object)) {
    std::fprintf(stderr, "hlo-aot: error: cannot write %s\n", object.c_str());
    return 1;
  }
  if (!hlo::writeOutput(header, out->header)) {
    std::fprintf(stderr, "hlo-aot: error: cannot write %s\n", header.c_str());
    return 1;
  }
  if (verbose)
    std::fprintf(stderr,
                 "hlo-aot: %s: %zu bytes of object (%zu compiled functions, a plan of %zu bytes), "
                 "arena %lld bytes per run; compiled in %.0f ms\n",
                 object.c_str(), out->object.size(), out->functions, out->planBytes,
                 static_cast<long long>(out->arenaBytes), ms);
  return 0;
}
