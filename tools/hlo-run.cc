// hlo-run: runs the ENTRY computation of an HLO module and prints its result.
//
// Arguments come from --input (literal text, .npy or .npz files) or, for the
// parameters without one, from a seeded generator (interp/random_inputs.h).
// The cpu engine, the default, compiles the module with the JIT
// (jit/executable.h); --engine=interp runs it on the reference interpreter,
// and --compare=interp checks a result against the interpreter's.
// Exit status: 0 success, 1 bad input, a failed run or a mismatch, 2 bad usage.
#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <functional>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/cpu/cpu_options.h"
#include "conformance/compare.h"
#include "conformance/contraction_bound.h"
#include "conformance/multi_device.h"
#include "hlo/npy.h"
#include "hlo/sharding.h"
#include "hlo/transport.h"
#include "interp/evaluator.h"
#include "interp/random_inputs.h"
#include "jit/backend.h"
#include "jit/executable.h"
#include "parser/load_module.h"
#include "parser/parser.h"
#include "tools/run_inputs.h"
#include "hlo/file_io.h"
#include "transport/mpi_transport.h"

namespace {

using hlo::Literal;
using hlo::Shape;
using hlo::run_inputs::Arguments;
using hlo::run_inputs::inputError;
using hlo::run_inputs::readInputs;
using hlo::run_inputs::Shardings;
using hlo::run_inputs::where;

constexpr const char* kUsage =
    "usage: hlo-run [options] FILE.hlo   (FILE may be - for standard input)\n"
    "  --engine=cpu|gpu|gpu-host|interp  what runs the module: cpu, the LLVM JIT for\n"
    "                            this machine (the default; an instruction it cannot compile\n"
    "                            is an error naming it); gpu, the JIT for an NVIDIA GPU\n"
    "                            (PTX through the CUDA driver, opened when a run needs it;\n"
    "                            --compile-only needs none); gpu-host, the GPU's kernels run\n"
    "                            on this CPU thread by thread (checks them without a GPU); or\n"
    "                            interp, the reference interpreter. The flags below that say\n"
    "                            'a JIT engine' go with cpu, gpu and gpu-host\n"
    "  --compare=interp          also run the interpreter and compare: print max abs/rel\n"
    "                            error and ULP distance to stderr; exit 1 on a mismatch\n"
    "  --allow-interpreter-fallback  with a JIT engine, run what the JIT cannot compile on\n"
    "                            the interpreter, logging each such instruction\n"
    "  --stats                   after the run, print its memory to stderr: the peak bytes of\n"
    "                            live values (interp); the arena of one execution, buffer\n"
    "                            assignment's peak and where the last run's values went (cpu,\n"
    "                            gpu-host); device and pinned memory held, and the last\n"
    "                            run's bytes, time and GB/s copied each way (gpu)\n"
    "  --verbose                 with a JIT engine, print compile times, the arena size,\n"
    "                            buffer assignment's peak, and where the first run's values\n"
    "                            went (arena, result buffers, heap) to stderr\n"
    "  --dump-llvm=FILE          with a JIT engine, write the optimized LLVM IR to FILE\n"
    "  --dump-to=DIR             with a JIT engine, write the module after the passes\n"
    "                            (module.after-passes.hlo), the LLVM IR before and after\n"
    "                            optimization (module.ll, module.opt.ll), the assembly\n"
    "                            (module.s) and which instructions each kernel computes\n"
    "                            (module.kernels.txt) into DIR; both dumps compile the\n"
    "                            module even when the compile cache holds it\n"
    "  --profile=FILE.json       with a JIT engine, write a Chrome trace (Perfetto,\n"
    "                            chrome://tracing): the compile phases, and every kernel,\n"
    "                            library op and runtime step of every run\n"
    "  --llvm-parts=N            with a JIT engine, split the kernels into N LLVM modules\n"
    "                            compiled side by side (default: one per core, each with\n"
    "                            two kernels or more)\n"
    "  --no-cache                with a JIT engine, compile without the compile cache (by\n"
    "                            default machine code is kept in $HLO_CACHE_DIR, else\n"
    "                            ~/.cache/hlo, and reused for the same module and machine;\n"
    "                            the least recently used go past $HLO_CACHE_MAX_BYTES, 1G)\n"
    "  --input=VALUE             the next ENTRY parameter, in order: literal text\n"
    "                            ('f32[2] {1, 2}', 's32[] 3', '(f32[] 1, pred[] true)', or\n"
    "                            the values alone in the parameter's shape: '{1, 2}', '3'),\n"
    "                            @FILE.npy, or @FILE.npz for all parameters (by parameter\n"
    "                            name when every array is named after one, else in order)\n"
    "  --random-seed=N           seed for the parameters given no --input (default 0):\n"
    "                            floats uniform in [-1, 1), integers in [-8, 8], pred 50/50\n"
    "  --print-limit=N|all       print at most the first N values of each larger array\n"
    "                            (default 1000: a larger array prints its first 1000 and a\n"
    "                            note goes to stderr; all prints every value)\n"
    "  --save-inputs=FILE.npz    also write the arguments of the run (given or random), one\n"
    "                            member per ENTRY parameter named after it, in order: the\n"
    "                            inputs to give another engine (conformance/xla_oracle.py)\n"
    "  --output=FILE.npz|.npy    write the result arrays to a file instead of printing them\n"
    "                            (.npz members 'result', or 'result.0', 'result.1.0'... for\n"
    "                            tuple elements; .npy for a result with one array)\n"
    "  --iterations=N            run N times; print min and median wall time to stderr (gpu:\n"
    "                            and of the steps on the device, by CUDA events)\n"
    "  --compile-only            with a JIT engine, compile the module (with its dumps and\n"
    "                            profile, when asked) and stop: no inputs, no run; prints\n"
    "                            the compile time to stderr\n"
    "  --max-memory=BYTES        refuse runs whose live values need more (suffixes K, M, G;\n"
    "                            default 8G)\n"
    "  --max-while-iterations=N  stop any while loop after N iterations (default: no limit)\n"
    "  --fill-elided-constants   give constants whose values the text left out ({...}, as\n"
    "                            XLA's dumps print large ones) values drawn as parameters'\n"
    "                            are (from --random-seed), with a note on stderr, so such a\n"
    "                            dump runs; its results are then not the original module's\n"
    "  --replicas=N, --partitions=M  run on N x M devices (each runs the module; device d is\n"
    "                            replica d / M, partition d % M); default: the module\n"
    "                            header's replica_count and num_partitions, else as many as\n"
    "                            its collectives need. Parameters without --input are drawn\n"
    "                            per device; --input values go to every device\n"
    "  --input-per-device=DIR    with several devices, device d's parameters from\n"
    "                            DIR/device_d.npz (by name or in order, as --input=@FILE.npz)\n"
    "  --output-per-device=DIR   with several devices, write device d's results to\n"
    "                            DIR/device_d.npz (members as --output names them)\n"
    "  --transport=threads|mpi   with several devices: threads of this process (default),\n"
    "                            or one device per MPI rank (mpirun -np N hlo-run\n"
    "                            --transport=mpi ...; rank 0 prints for all)\n"
    "  --collective-timeout=S    with mpi: fail a wait for another device after S seconds\n"
    "                            (default 60)\n"
    "  --help                    show this help\n";

int usageError(const std::string& message) {
  std::fprintf(stderr, "hlo-run: %s\nusage: hlo-run [options] FILE.hlo   (hlo-run --help lists the options)\n",
               message.c_str());
  return 2;
}

// --stats: the run's memory, by engine.
void printStats(const hlo::jit::Executable* executable, const std::string& engine,
                const hlo::interp::RunStats& interpStats) {
  auto n = [](int64_t bytes) { return static_cast<long long>(bytes); };
  if (!executable) {
    std::fprintf(stderr, "hlo-run: stats: interp: peak %lld bytes of live values (arguments not counted)\n",
                 n(interpStats.peakLiveBytes));
    return;
  }
  hlo::jit::MemoryStats m = executable->memoryStats();
  if (m.onDevice) {
    // GB/s of a copy: bytes over seconds, or 0 where nothing was timed.
    auto rate = [](int64_t bytes, double seconds) { return seconds > 0 ? bytes / seconds / 1e9 : 0.0; };
    std::fprintf(stderr,
                 "hlo-run: stats: %s: arena %lld bytes per execution (buffer assignment: peak %lld bytes live, "
                 "%lld without reuse); %lld bytes of device memory held, %lld of pinned host memory; last run: "
                 "%lld bytes up in %.3g ms (%.3g GB/s), %lld bytes down in %.3g ms (%.3g GB/s), %lld bytes of "
                 "arrays made on the device\n",
                 engine.c_str(), n(m.arenaBytes), n(m.plannedPeakBytes), n(m.plannedNoReuseBytes), n(m.deviceBytes),
                 n(m.pinnedBytes), n(m.uploadBytes), m.uploadSeconds * 1e3,
                 rate(m.uploadBytes, m.uploadSeconds), n(m.downloadBytes), m.downloadSeconds * 1e3,
                 rate(m.downloadBytes, m.downloadSeconds), n(m.runHeapBytes));
    return;
  }
  std::fprintf(stderr,
               "hlo-run: stats: %s: arena %lld bytes per execution (buffer assignment: peak %lld bytes live, "
               "%lld without reuse); last run: %lld bytes of values in the arena, %lld in result buffers, "
               "%lld on the heap\n",
               engine.c_str(), n(m.arenaBytes), n(m.plannedPeakBytes), n(m.plannedNoReuseBytes), n(m.runArenaBytes),
               n(m.runOutputBytes), n(m.runHeapBytes));
}

// Devices of one run, each a thread of this process.
constexpr int64_t kMaxDevices = 1024;

struct Flags {
  std::string file;
  std::string engine = "cpu";
  bool engineGiven = false;  // --engine was on the command line
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  // Arrays of more values print only their first printLimit; -1 prints all.
  // A terminal or a log is no place for millions of numbers: --output writes
  // them to a file.
  int64_t printLimit = 1000;
  bool printLimitGiven = false;
  std::string output;
  std::string saveInputs;  // --save-inputs: the arguments as .npz
  int64_t iterations = 1;
  hlo::interp::Options options;
  std::string compare;  // "" or "interp"
  bool allowFallback = false;
  bool verbose = false;
  bool stats = false;
  bool noCache = false;
  bool compileOnly = false;
  bool fillElided = false;  // --fill-elided-constants
  int64_t llvmParts = 0;  // 0: the JIT decides
  std::string dumpLlvm, dumpTo, profile;
  std::optional<int64_t> replicas, partitions;
  std::string inputPerDevice, outputPerDevice;
  std::string transport = "threads";  // or "mpi"
  int64_t collectiveTimeout = 60;     // seconds, with mpi
};

// Parses the command line into `flags`; returns an exit status on a usage error.
std::optional<int> parseFlags(int argc, char** argv, Flags& flags) {
  const std::set<std::string> valued = {"engine", "compare", "dump-llvm", "dump-to", "profile", "input", "random-seed", "print-limit", "output",
                                        "iterations", "max-memory", "max-while-iterations", "llvm-parts",
                                        "replicas", "partitions", "input-per-device", "output-per-device", "save-inputs",
                                        "transport", "collective-timeout"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--allow-interpreter-fallback") {
      flags.allowFallback = true;
      continue;
    }
    if (arg == "--verbose") {
      flags.verbose = true;
      continue;
    }
    if (arg == "--fill-elided-constants") {
      flags.fillElided = true;
      continue;
    }
    if (arg == "--stats") {
      flags.stats = true;
      continue;
    }
    if (arg == "--no-cache") {
      flags.noCache = true;
      continue;
    }
    if (arg == "--compile-only") {
      flags.compileOnly = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg == "-") {
      if (arg.size() > 1 && arg[0] == '-' && arg != "-") return usageError("unknown option '" + arg + "'");
      if (!flags.file.empty()) return usageError("more than one input file");
      flags.file = arg;
      continue;
    }
    size_t eq = arg.find('=');
    std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (!valued.count(name)) return usageError("unknown option '" + arg + "'");
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return usageError("--" + name + " needs a value");
    }
    auto bad = [&](const std::string& what) {
      return usageError("--" + name + "=" + value + ": " + what);
    };
    if (name == "engine") {
      if (value != "interp" && !hlo::jit::findBackend(value)) {
        std::string known = "interp";
        for (const std::string& name : hlo::jit::backendNames()) known += ", " + name;
        return bad("unknown engine (" + known + ")");
      }
      flags.engine = value;
      flags.engineGiven = true;
    } else if (name == "dump-llvm") {
      flags.dumpLlvm = value;
    } else if (name == "dump-to") {
      flags.dumpTo = value;
    } else if (name == "profile") {
      flags.profile = value;
    } else if (name == "compare") {
      if (value != "interp") return bad("only --compare=interp is available");
      flags.compare = value;
    } else if (name == "input") {
      flags.inputs.push_back(value);
    } else if (name == "transport") {
      if (value != "threads" && value != "mpi") return bad("expected threads or mpi");
      if (value == "mpi" && !hlo::transport::haveMpi()) return bad("this hlo-run was built without MPI");
      flags.transport = value;
    } else if (name == "input-per-device") {
      flags.inputPerDevice = value;
    } else if (name == "output-per-device") {
      flags.outputPerDevice = value;
    } else if (name == "output") {
      if (!value.empty() && value[0] == '@') value.erase(0, 1);
      bool npy = value.size() > 4 && value.substr(value.size() - 4) == ".npy";
      bool npz = value.size() > 4 && value.substr(value.size() - 4) == ".npz";
      if (!npy && !npz) return bad("the file name must end in .npz or .npy");
      flags.output = value;
    } else if (name == "save-inputs") {
      if (value.size() <= 4 || value.substr(value.size() - 4) != ".npz") return bad("the file name must end in .npz");
      flags.saveInputs = value;
    } else if (name == "random-seed") {
      // The full 64-bit range: up to 20 digits.
      uint64_t v = 0;
      if (value.empty() || value.size() > 20) return bad("expected a non-negative integer");
      for (char c : value) {
        if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return bad("expected a non-negative integer");
        v = v * 10 + static_cast<uint64_t>(c - '0');
      }
      flags.seed = v;
    } else if (name == "max-memory") {
      std::optional<int64_t> v = hlo::parseByteCount(value);
      if (!v) return bad("expected a byte count such as 4096, 64K, 512M or 8G");
      flags.options.maxMemoryBytes = *v;
    } else if (name == "print-limit" && value == "all") {
      flags.printLimit = -1;
      flags.printLimitGiven = true;
    } else {
      std::optional<int64_t> v = hlo::parseCount(value);
      if (!v) return bad(name == "print-limit" ? "expected a non-negative integer or all" : "expected a non-negative integer");
      if (name == "print-limit") {
        flags.printLimit = *v;
        flags.printLimitGiven = true;
      }
      if (name == "max-while-iterations") flags.options.maxWhileIterations = *v;
      if (name == "iterations") {
        if (*v < 1) return bad("expected at least 1");
        flags.iterations = *v;
      }
      if (name == "llvm-parts") {
        if (*v < 1 || *v > 256) return bad("expected 1 to 256");
        flags.llvmParts = *v;
      }
      if (name == "collective-timeout") {
        if (*v < 1) return bad("expected at least 1");
        flags.collectiveTimeout = *v;
      }
      if (name == "replicas" || name == "partitions") {
        if (*v < 1 || *v > kMaxDevices) return bad("expected 1 to " + std::to_string(kMaxDevices));
        (name == "replicas" ? flags.replicas : flags.partitions) = *v;
      }
    }
  }
  if (flags.file.empty()) return usageError("no input file");
  const bool jit = flags.engine != "interp";
  const bool hostCode = flags.engine == "cpu" || flags.engine == "gpu-host";  // the CPU backend's options apply
  if (flags.allowFallback && !jit) return usageError("--allow-interpreter-fallback needs a JIT engine (--engine=cpu, gpu, gpu-host)");
  if (!flags.dumpLlvm.empty() && !hostCode) return usageError("--dump-llvm needs --engine=cpu or gpu-host");
  if (!flags.dumpTo.empty() && !jit) return usageError("--dump-to needs a JIT engine (--engine=cpu, gpu, gpu-host)");
  if (!flags.profile.empty() && !jit) return usageError("--profile needs a JIT engine (--engine=cpu, gpu, gpu-host)");
  if (flags.llvmParts && !hostCode) return usageError("--llvm-parts needs --engine=cpu or gpu-host");
  if (flags.transport == "mpi" && flags.iterations > 1)
    return usageError("--iterations runs the devices once each with --transport=mpi");
  if (!flags.inputPerDevice.empty() && !flags.inputs.empty())
    return usageError("--input-per-device gives every parameter; it does not go with --input");
  if (flags.compileOnly) {
    if (!jit) return usageError("--compile-only needs a JIT engine (--engine=cpu, gpu, gpu-host)");
    for (const auto& [given, name] : {std::pair<bool, const char*>{!flags.compare.empty(), "--compare"},
                                      {!flags.output.empty(), "--output"},
                                      {!flags.saveInputs.empty(), "--save-inputs"},
                                      {!flags.inputs.empty(), "--input"},
                                      {flags.iterations > 1, "--iterations"},
                                      {flags.stats, "--stats"}})
      if (given) return usageError(std::string("--compile-only runs nothing: ") + name + " does not go with it");
  }
  return std::nullopt;
}

int arrayCount(const Shape& shape) {
  int n = shape.isArray();
  for (const Shape& e : shape.tupleElements()) n += arrayCount(e);
  return n;
}

// Bytes a value of `shape` takes, saturating at kHuge for absurd shapes.
constexpr int64_t kHuge = int64_t{1} << 62;
int64_t valueBytes(const Shape& shape) {
  int64_t bytes = 0;
  for (const Shape& e : shape.tupleElements()) bytes = std::min(bytes + valueBytes(e), kHuge);
  if (!shape.isArray()) return bytes;
  int64_t n = hlo::storageBytes(shape.type());
  for (int64_t d : shape.dims()) n = d > 0 && n > kHuge / d ? kHuge : n * std::max<int64_t>(d, 0);
  return std::min(bytes + n, kHuge);
}

// Literal text with arrays of more than `limit` elements cut to their first
// `limit` values (row-major) and "...": `f32[1000] {0.5, -0.25, ...}`, or
// `f32[1000] {...}` for a limit of 0. Scalars are always printed. Returns
// the most values of any one array that were left out (0: nothing was cut).
int64_t printLimited(const Literal& value, int64_t limit, std::string& out) {
  const Shape& shape = value.shape();
  if (shape.isTuple()) {
    out += '(';
    int64_t cut = 0;
    for (size_t i = 0; i < value.tupleElements().size(); ++i) {
      if (i) out += ", ";
      cut = std::max(cut, printLimited(value.tupleElements()[i], limit, out));
    }
    out += ')';
    return cut;
  }
  // An array with runtime sizes: its value is the elements within them.
  Literal compact = value.hasPadding() ? value.compact() : Literal();
  const Literal& elements = value.hasPadding() ? compact : value;
  if (!shape.isArray() || shape.isScalar() || elements.elementCount() <= limit) {
    out += value.toString();
    return 0;
  }
  shape.print(out, /*withLayout=*/false);
  if (value.hasDynamicSizes()) {  // every dimension's runtime size, as Literal::toString writes them
    out += '(';
    for (int d = 0; d < shape.rank(); ++d) out += (d ? "," : "") + std::to_string(value.dimSize(d));
    out += ')';
  }
  out += " {";
  for (int64_t i = 0; i < limit; ++i) out += elements.elementToString(i) + ", ";
  out += "...}";
  return elements.elementCount() - limit;
}

// The arrays of a result, named for an .npz file: "result", or "result.0",
// "result.1.0"... for tuple elements; tokens have no array.
void collectArrays(const Literal& value, const std::string& name,
                   std::vector<std::pair<std::string, const Literal*>>& out) {
  if (value.shape().isTuple()) {
    for (size_t i = 0; i < value.tupleElements().size(); ++i)
      collectArrays(value.tupleElements()[i], name + "." + std::to_string(i), out);
  } else if (value.shape().isArray()) {
    out.push_back({name, &value});
  }
}

// Compares two engines' results array by array, each with the harness's
// tolerance for its type (and a dot's or convolution's values within the
// rounding bound of their float sums, conformance/contraction_bound.h), and
// prints the summary to stderr.
bool compareResults(const Literal& actual, const Literal& expected, const std::string& engine,
                    const std::string& reference, const hlo::Module& module, std::span<const Literal> args,
                    const hlo::interp::Options& options) {
  const hlo::conformance::EngineComparison compared =
      hlo::conformance::compareEngines(module, args, options, actual, expected);
  const hlo::Comparison& c = compared.plain;
  const std::string verdict = compared.byContractionBound
                                  ? "agree within the rounding bound of its contractions' float sums"
                              : c.equal ? "agree"
                                        : std::to_string(c.mismatches) + " mismatches";
  std::fprintf(stderr, "hlo-run: %s vs %s: %s; max abs error %g, max rel error %g, max ULP distance %llu\n",
               engine.c_str(), reference.c_str(), verdict.c_str(), c.maxAbsError, c.maxRelError,
               static_cast<unsigned long long>(c.maxUlpDistance));
  if (!compared.agree) std::fprintf(stderr, "hlo-run: first mismatch %s\n", c.firstMismatch.c_str());
  return compared.agree;
}

std::string formatSeconds(double s) {
  char buf[64];
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  else if (s < 1) std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

// Compiles the module with the flags' JIT engine as they ask; on failure
// prints the error (and how to run the module anyway) and returns null.
std::unique_ptr<hlo::jit::Executable> compileWithJit(const Flags& flags, const hlo::Module& module,
                                                    const std::string& shownName, const std::string& text) {
  hlo::jit::CompileOptions options;
  options.allowInterpreterFallback = flags.allowFallback;
  options.verbose = flags.verbose;
  options.dumpDir = flags.dumpTo;
  options.profile = !flags.profile.empty();
  options.useCache = !flags.noCache;
  if (!flags.noCache) options.cacheDir = hlo::jit::defaultCacheDir();
  options.report = [](const std::string& line) { std::fprintf(stderr, "hlo-run: %s\n", line.c_str()); };
  if (!flags.dumpTo.empty()) {
    std::error_code error;
    std::filesystem::create_directories(flags.dumpTo, error);
    if (error) {
      inputError(flags.dumpTo, "cannot create the folder: " + error.message());
      return nullptr;
    }
  }
  options.maxMemoryBytes = flags.options.maxMemoryBytes;
  options.maxWhileIterations = flags.options.maxWhileIterations;
  auto start = std::chrono::steady_clock::now();
  hlo::cpu::CpuOptions cpuOptions;
  cpuOptions.llvmIrPath = flags.dumpLlvm;
  cpuOptions.llvmParts = static_cast<int>(flags.llvmParts);
  if (flags.engine == "cpu" || flags.engine == "gpu-host") options = hlo::cpu::withCpuOptions(options, cpuOptions);
  auto compiled = hlo::jit::compile(module, flags.engine, options);
  if (!compiled.ok()) {
    std::fputs(hlo::formatError(compiled.status(), shownName, text).c_str(), stderr);
    // An instruction the JIT cannot compile yet: name the two ways to run it
    // on the interpreter (the whole module, or just what the JIT lacks).
    if (compiled.status().message().find("cannot compile") != std::string::npos)
      std::fprintf(stderr, "hlo-run: note: %s--engine=interp runs the whole module on the reference interpreter, "
                           "--allow-interpreter-fallback only what the JIT cannot compile\n",
                   flags.engineGiven ? "" : "the default engine is cpu, the LLVM JIT; ");
    return nullptr;
  }
  if (flags.verbose || flags.compileOnly)
    std::fprintf(stderr, "hlo-run: %s: compiled in %s\n", flags.engine.c_str(),
                 formatSeconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()).c_str());
  return std::move(compiled).value();
}

// --profile: the executable's trace as a Chrome trace; an exit status on failure.
std::optional<int> writeProfile(const Flags& flags, const hlo::jit::Executable& executable) {
  if (flags.profile.empty()) return std::nullopt;
  hlo::Status written = hlo::jit::writeChromeTrace(flags.profile, executable.trace());
  if (!written.ok()) return inputError(flags.profile, written.message());
  return std::nullopt;
}

// --compile-only: compile, write the profile when asked, and stop.
int compileOnly(const Flags& flags, const hlo::Module& module, const std::string& shownName, const std::string& text) {
  std::unique_ptr<hlo::jit::Executable> executable = compileWithJit(flags, module, shownName, text);
  if (!executable) return 1;
  return writeProfile(flags, *executable).value_or(0);
}

bool isNpyPath(const std::string& path) { return path.size() > 4 && path.substr(path.size() - 4) == ".npy"; }

// Writes the result to --output, or prints it; the exit status.
int emitResult(const Flags& flags, const Literal& result, bool agree) {
  if (!flags.output.empty()) {
    std::vector<std::pair<std::string, const Literal*>> arrays;
    collectArrays(result, "result", arrays);
    auto bytes = isNpyPath(flags.output) ? hlo::writeNpy(*arrays[0].second) : hlo::writeNpz(arrays);
    if (!bytes.ok()) return inputError(flags.output, bytes.status().message());
    if (!hlo::writeOutput(flags.output, *bytes)) return inputError(flags.output, "cannot write file");
    return agree ? 0 : 1;
  }
  std::string out;
  if (flags.printLimit < 0) {
    out = result.toString();
  } else if (int64_t cut = printLimited(result, flags.printLimit, out); cut > 0 && !flags.printLimitGiven) {
    std::fprintf(stderr, "hlo-run: printed the first %lld values of each larger array (%lld left out of the largest); "
                 "--print-limit=all prints every value, --output=FILE.npz writes them to a file\n",
                 static_cast<long long>(flags.printLimit), static_cast<long long>(cut));
  }
  out += '\n';
  std::fwrite(out.data(), 1, out.size(), stdout);
  return agree ? 0 : 1;
}

// The arguments of a run: from `inputs` (as --input gives them) and, for
// the parameters left, drawn from `seed`; an exit status on an error. With
// `shardings`, the run is partition `partition` of several: a parameter
// given the whole array its sharding splits takes the partition's block.
std::optional<int> makeArguments(const Flags& flags, const std::vector<std::string>& inputs,
                                 const hlo::Computation& entry, const std::string& shownName, uint64_t seed,
                                 std::vector<Literal>& values, const Shardings* shardings = nullptr,
                                 int64_t partition = 0) {
  Arguments args{&entry, shownName, std::vector<std::optional<Literal>>(entry.parameterCount()), shardings, {}};
  if (std::optional<int> rc = readInputs(inputs, args)) return *rc;
  for (int p = 0; p < static_cast<int>(args.whole.size()); ++p) {
    if (!args.whole[p]) continue;
    auto block = hlo::blockOf(*(*shardings)[p], *args.values[p], entry.parameter(p)->shape(), partition);
    if (!block.ok()) return inputError(where(shownName, entry.parameter(p)->loc()), block.status().message());
    args.values[p] = std::move(block).value();
  }
  // The parameters left are generated, once their size is known to be allowed.
  int64_t argBytes = 0;
  for (int p = 0; p < entry.parameterCount(); ++p)
    argBytes = std::min(argBytes + valueBytes(entry.parameter(p)->shape()), kHuge);
  if (argBytes > flags.options.maxMemoryBytes)
    return inputError(shownName, "the parameters take " + std::to_string(argBytes) +
                                     " bytes, more than the memory limit of " +
                                     std::to_string(flags.options.maxMemoryBytes) + " bytes (--max-memory)");
  for (int p = 0; p < entry.parameterCount(); ++p) {
    if (args.values[p]) values.push_back(std::move(*args.values[p]));
    else values.push_back(hlo::interp::randomArgument(*entry.parameter(p), seed));
  }
  return std::nullopt;
}

// A run on several devices: each device's arguments, one run per device
// (threads of this process), each device's results labelled.
int runOnDevices(const Flags& flags, const hlo::Module& module, const hlo::conformance::DeviceChoice& choice,
                 const std::string& shownName, const std::string& text) {
  const hlo::collectives::Topology& topology = choice.topology;
  int64_t n = topology.devices();
  if (n > kMaxDevices)
    return inputError(shownName, "a run on " + topology.toString() + " is more than the " +
                                     std::to_string(kMaxDevices) + " devices one process runs");
  if (choice.inferred)
    std::fprintf(stderr, "hlo-run: note: running on %s, as the module's collectives need: its header does not "
                         "state them all (--replicas, --partitions choose)\n",
                 topology.toString().c_str());
  // A root sharding (on one replica) puts the partitions' result blocks back
  // together into the whole result.
  const hlo::Computation& root = *module.entry();
  std::optional<hlo::Sharding> rootSharding;
  if (std::string_view text = root.root()->attrs().getString(hlo::AttrKey::kSharding);
      !text.empty() && topology.replicas == 1)
    if (auto s = hlo::parseSharding(text); s.ok()) rootSharding = std::move(s).value();
  if (!flags.output.empty() && !rootSharding)
    return usageError("--output takes one result; on " + topology.toString() +
                      ", without a sharding on the root to assemble the devices' results by, "
                      "--output-per-device=DIR writes each device's");
  const hlo::Computation& entry = *module.entry();
  Shardings shardings;
  for (int p = 0; p < entry.parameterCount(); ++p) {
    std::string_view text = entry.parameter(p)->attrs().getString(hlo::AttrKey::kSharding);
    auto s = text.empty() ? hlo::StatusOr<hlo::Sharding>(hlo::errorStatus("none")) : hlo::parseSharding(text);
    shardings.push_back(s.ok() ? std::optional<hlo::Sharding>(std::move(s).value()) : std::nullopt);
  }
  std::vector<std::vector<Literal>> args(static_cast<size_t>(n));
  for (int64_t d = 0; d < n; ++d) {
    std::vector<std::string> inputs = flags.inputs;
    if (!flags.inputPerDevice.empty())
      inputs = {"@" + flags.inputPerDevice + "/device_" + std::to_string(d) + ".npz"};
    uint64_t seed = hlo::conformance::deviceSeed(flags.seed, d);
    if (std::optional<int> rc = makeArguments(flags, inputs, entry, shownName, seed, args[d], &shardings,
                                              d % topology.partitions))
      return *rc;
  }
  std::unique_ptr<hlo::jit::Executable> executable;
  if (flags.engine != "interp") {
    executable = compileWithJit(flags, module, shownName, text);
    if (!executable) return 1;
  }
  std::vector<hlo::StatusOr<Literal>> results;
  std::vector<double> seconds;
  for (int64_t i = 0; i < flags.iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (flags.transport == "mpi") {
      // This process is one device; rank 0 reports for all.
      auto mpi = hlo::transport::runOnMpiRanks(
          topology, static_cast<double>(flags.collectiveTimeout), [&](hlo::collectives::Participant& me) {
            return hlo::conformance::runAsDevice(module, args[me.device], executable.get(), flags.options, me);
          });
      if (!mpi.ok()) return inputError(shownName, mpi.status().message());
      // Rank 0's exit status is the job's: a failing rank that exited
      // non-zero first would have mpirun kill rank 0 before it reports.
      if (mpi->rank != 0) return 0;
      results = std::move(mpi->outcomes);
    } else {
      results = hlo::conformance::runOnEveryDevice(module, topology, args, executable.get(), flags.options);
    }
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (auto failed = hlo::conformance::firstFailure(results)) {
      std::fprintf(stderr, "hlo-run: device %lld of %s:\n", static_cast<long long>(failed->first),
                   topology.toString().c_str());
      std::fputs(hlo::formatError(failed->second, shownName, text).c_str(), stderr);
      return 1;
    }
  }
  if (flags.iterations > 1) {
    std::sort(seconds.begin(), seconds.end());
    std::fprintf(stderr, "hlo-run: %lld iterations on %s: min %s, median %s\n",
                 static_cast<long long>(flags.iterations), topology.toString().c_str(),
                 formatSeconds(seconds.front()).c_str(), formatSeconds(seconds[(seconds.size() - 1) / 2]).c_str());
  }
  if (executable)
    if (std::optional<int> rc = writeProfile(flags, *executable)) return *rc;
  bool agree = true;
  if (!flags.compare.empty()) {
    auto reference = hlo::conformance::runOnEveryDevice(module, topology, args, nullptr, flags.options);
    if (auto failed = hlo::conformance::firstFailure(reference))
      return inputError(shownName, "--compare=interp: device " + std::to_string(failed->first) + ": " +
                                       failed->second.message());
    for (int64_t d = 0; d < n; ++d)
      agree = compareResults(*results[d], *reference[d], flags.engine + " device " + std::to_string(d),
                             flags.compare, module, args[d], flags.options) && agree;
  }
  if (!flags.outputPerDevice.empty()) {
    std::error_code error;
    std::filesystem::create_directories(flags.outputPerDevice, error);
    if (error) return inputError(flags.outputPerDevice, "cannot create the folder: " + error.message());
    for (int64_t d = 0; d < n; ++d) {
      std::vector<std::pair<std::string, const Literal*>> arrays;
      collectArrays(*results[d], "result", arrays);
      std::string path = flags.outputPerDevice + "/device_" + std::to_string(d) + ".npz";
      auto bytes = hlo::writeNpz(arrays);
      if (!bytes.ok()) return inputError(path, bytes.status().message());
      if (!hlo::writeOutput(path, *bytes)) return inputError(path, "cannot write file");
    }
    return agree ? 0 : 1;
  }
  if (rootSharding) {
    std::vector<const Literal*> blocks;
    for (const auto& r : results) blocks.push_back(&*r);
    auto whole = hlo::assemble(*rootSharding, blocks);
    if (!whole.ok())
      return inputError(where(shownName, root.root()->loc()),
                        "assembling the result by the root's sharding: " + whole.status().message());
    return emitResult(flags, *whole, agree);
  }
  std::string out;
  int64_t cut = 0;
  for (int64_t d = 0; d < n; ++d) {
    out += "device " + std::to_string(d) + ": ";
    if (flags.printLimit < 0) out += results[d]->toString();
    else cut = std::max(cut, printLimited(*results[d], flags.printLimit, out));
    out += '\n';
  }
  if (cut > 0 && !flags.printLimitGiven)
    std::fprintf(stderr, "hlo-run: printed the first %lld values of each larger array (%lld left out of the largest); "
                 "--print-limit=all prints every value, --output-per-device=DIR writes them to files\n",
                 static_cast<long long>(flags.printLimit), static_cast<long long>(cut));
  std::fwrite(out.data(), 1, out.size(), stdout);
  return agree ? 0 : 1;
}

// --fill-elided-constants: each constant whose values the text left out
// gets a random value of its shape, constant k (in module order) from the
// stream 2^32 + k of the seed, apart from the parameters' streams.
void fillElidedConstants(hlo::Module& module, uint64_t seed) {
  int64_t filled = 0;
  for (const auto& computation : module.computations())
    for (const auto& instr : computation->instructions())
      if (instr->opcode() == hlo::Opcode::kConstant && instr->hasLiteral() && instr->literal().elided())
        instr->setLiteral(hlo::interp::randomLiteral(instr->shape(), seed, (uint64_t{1} << 32) + filled++));
  if (filled > 0)
    std::fprintf(stderr,
                 "hlo-run: note: %lld constant%s whose values the text left out given random values "
                 "(--fill-elided-constants); the results are not the original module's\n",
                 static_cast<long long>(filled), filled == 1 ? "" : "s");
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (std::optional<int> rc = parseFlags(argc, argv, flags)) return *rc;
  auto loaded = hlo::loadModule(flags.file);
  if (!loaded.ok()) return std::fputs(loaded.status().message().c_str(), stderr), 1;
  const std::string& shownName = loaded->shownName;
  const std::string& text = loaded->text;
  hlo::Module& module = *loaded->module;
  if (flags.fillElided) fillElidedConstants(module, flags.seed);
  if (flags.compileOnly) return compileOnly(flags, module, shownName, text);
  auto devices = hlo::conformance::chooseTopology(module, flags.replicas, flags.partitions);
  if (!devices.ok()) return inputError(shownName, devices.status().message());
  if (devices->topology.devices() > 1 && !flags.saveInputs.empty())
    return usageError("--save-inputs writes the arguments of a run on one device");
  if (devices->topology.devices() > 1) return runOnDevices(flags, module, *devices, shownName, text);
  if (!flags.inputPerDevice.empty() || !flags.outputPerDevice.empty())
    return usageError("--input-per-device and --output-per-device need a run on several devices");
  const hlo::Computation* entry = module.entry();
  std::vector<Literal> values;
  if (std::optional<int> rc = makeArguments(flags, flags.inputs, *entry, shownName, flags.seed, values)) return *rc;
  if (!flags.saveInputs.empty()) {
    std::vector<std::pair<std::string, const Literal*>> named;
    for (size_t p = 0; p < values.size(); ++p) named.push_back({entry->parameters()[p]->name(), &values[p]});
    auto bytes = hlo::writeNpz(named);
    if (!bytes.ok()) return inputError(flags.saveInputs, bytes.status().message());
    if (!hlo::writeOutput(flags.saveInputs, *bytes)) return inputError(flags.saveInputs, "cannot write file");
  }

  // A .npy output needs a result with exactly one array; know before running.
  if (isNpyPath(flags.output)) {
    if (arrayCount(entry->root()->shape()) != 1)
      return inputError(flags.output, "a .npy file holds one array, but the result is " +
                                          entry->root()->shape().toString(false) + "; use .npz");
  }

  std::unique_ptr<hlo::jit::Executable> executable;
  if (flags.engine != "interp") {
    executable = compileWithJit(flags, module, shownName, text);
    if (!executable) return 1;
  }

  std::vector<double> seconds, deviceSeconds;
  std::optional<Literal> result;
  hlo::interp::RunStats interpStats;
  for (int64_t i = 0; i < flags.iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    auto run = executable ? executable->run(values) : hlo::interp::evaluate(module, values, flags.options, &interpStats);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!run.ok()) {
      // Pointing at the instruction when the error knows it.
      std::fputs(hlo::formatError(run.status(), shownName, text).c_str(), stderr);
      return 1;
    }
    result = std::move(run).value();
    if (executable && executable->memoryStats().onDevice)
      deviceSeconds.push_back(executable->memoryStats().deviceSeconds);
  }
  if (flags.iterations > 1) {
    // The median of an even count is the lower middle value (a time that was measured).
    auto minAndMedian = [](std::vector<double> times) {
      std::sort(times.begin(), times.end());
      return "min " + formatSeconds(times.front()) + ", median " + formatSeconds(times[(times.size() - 1) / 2]);
    };
    std::string device;
    if (!deviceSeconds.empty()) device = "; its steps on the device (CUDA events): " + minAndMedian(deviceSeconds);
    std::fprintf(stderr, "hlo-run: %lld iterations: %s%s\n", static_cast<long long>(flags.iterations),
                 minAndMedian(seconds).c_str(), device.c_str());
  }

  if (flags.stats) printStats(executable.get(), flags.engine, interpStats);

  if (executable)
    if (std::optional<int> rc = writeProfile(flags, *executable)) return *rc;

  bool agree = true;
  if (!flags.compare.empty()) {
    auto reference = hlo::interp::evaluate(module, values, flags.options);
    if (!reference.ok()) return inputError(shownName, "--compare=interp: " + reference.status().message());
    agree = compareResults(*result, *reference, flags.engine, flags.compare, module, values, flags.options);
  }

  return emitResult(flags, *result, agree);
}
