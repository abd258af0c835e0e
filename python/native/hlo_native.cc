// hlo._native: the Python extension over the parser, the verifier, the
// passes, the interpreter and the JIT (python/hlo/ wraps it in the public
// API). Errors become hlo.HloError, located in the module's text where the
// library says where; the GIL is released while a module compiles or runs.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "hlo/passes/pass.h"
#include "hlo/passes/stats.h"
#include "hlo/printer.h"
#include "hlo/verifier.h"
#include "interp/evaluator.h"
#include "jit/backend.h"
#include "jit/executable.h"
#include "parser/parser.h"
#include "python/native/arrays.h"

namespace hlo::python {
namespace {

// A module with the text it came from, so that errors found later (by a
// pass, the JIT or a run) still point into that text. Modules made from it
// by passes keep the text: their instructions keep their locations.
struct PyModule {
  std::shared_ptr<const Module> module;
  std::string file;
  std::shared_ptr<const std::string> source;
};

[[noreturn]] void fail(const Status& status, const PyModule& origin) {
  SourceLoc loc = status.loc();
  throw HloErrorException{formatError(status, origin.file, *origin.source), origin.file, loc.line, loc.column};
}

PyModule parse(const std::string& text, const std::string& file) {
  PyModule result{nullptr, file, std::make_shared<const std::string>(text)};
  StatusOr<std::unique_ptr<Module>> parsed = parseModule(text);
  if (!parsed.ok()) fail(parsed.status(), result);
  Status verified = verify(**parsed);
  if (!verified.ok()) fail(verified, result);
  result.module = std::move(*parsed);
  return result;
}

PyModule derived(const PyModule& from, std::unique_ptr<Module> module) {
  return PyModule{std::move(module), from.file, from.source};
}

PyModule runPasses(const PyModule& from, const std::vector<std::string>& passes, bool verifyEach) {
  std::unique_ptr<Module> module = from.module->clone();
  PipelineOptions options;
  options.verifyEach = verifyEach;
  options.constantEvaluator = interp::constantEvaluator();  // `fold` computes as the interpreter does
  Status status;
  {
    py::gil_scoped_release unlocked;
    status = runPipeline(*module, passes, options);
    if (status.ok()) status = verify(*module);
  }
  if (!status.ok()) fail(status, from);
  return derived(from, std::move(module));
}

PyModule runTargetPipeline(const PyModule& from, const std::string& target) {
  std::optional<std::vector<std::string>> passes = pipelineFor(target);
  if (!passes) {
    std::string known;
    for (const PipelineInfo& p : registeredPipelines()) known += (known.empty() ? "" : ", ") + std::string(p.target);
    throw hloError("no pass pipeline for target '" + target + "' (there are: " + known + ")");
  }
  return runPasses(from, *passes, false);
}

// (name, shape text, element type name or "", dims) per ENTRY parameter.
py::list entryParameters(const PyModule& m) {
  py::list out;
  for (const Instruction* p : m.module->entry()->parameters()) {
    const Shape& s = p->shape();
    out.append(py::make_tuple(p->name(), s.toString(false), s.isArray() ? std::string(elementTypeName(s.type())) : "",
                              s.isArray() ? py::cast(s.dims()) : py::none()));
  }
  return out;
}

py::dict stats(const PyModule& m) {
  ModuleStats s = moduleStats(*m.module);
  py::dict d;
  d["computations"] = s.computations;
  d["instructions"] = s.instructions;
  d["per_opcode"] = s.perOpcode;
  d["program_instructions"] = s.programInstructions;
  d["elementwise"] = s.elementwise;
  d["fusion_sizes"] = s.fusionSizes;
  d["bytes_read"] = s.bytesRead;
  d["bytes_written"] = s.bytesWritten;
  auto orNone = [](int64_t bytes) { return bytes < 0 ? py::none() : py::cast(bytes); };
  d["arena_bytes"] = orNone(s.arenaBytes);
  d["peak_bytes"] = orNone(s.peakBytes);
  d["no_reuse_bytes"] = orNone(s.noReuseBytes);
  return d;
}

// A module compiled for an engine: the JIT's executable, or for "interp"
// the module the interpreter runs. Runs of one executable take turns.
class PyExecutable {
 public:
  PyExecutable(PyModule module, std::string engine, std::unique_ptr<jit::Executable> compiled,
               interp::Options interpOptions)
      : module_(std::move(module)), engine_(std::move(engine)), compiled_(std::move(compiled)),
        interpOptions_(interpOptions) {}

  py::object call(const py::args& args) {
    const Computation& entry = *module_.module->entry();
    if (static_cast<int>(args.size()) != entry.parameterCount())
      throw hloError("ENTRY '" + entry.name() + "' takes " + std::to_string(entry.parameterCount()) + " arguments " +
                     entry.signature() + "; got " + std::to_string(args.size()));
    std::vector<py::object> keepAlive;
    std::vector<Literal> literals;
    for (int i = 0; i < entry.parameterCount(); ++i) {
      const Instruction* p = entry.parameter(i);
      std::string what = "argument " + std::to_string(i) + " (parameter '" + p->name() + "', " +
                         p->shape().toString(false) + ")";
      literals.push_back(literalFromPython(args[i], p->shape(), what, keepAlive));
    }
    std::optional<StatusOr<Literal>> result;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> turn(mutex_);
      result = compiled_ ? compiled_->run(literals) : interp::evaluate(*module_.module, literals, interpOptions_);
    }
    if (!result->ok()) fail(result->status(), module_);
    return pythonFromLiteral(std::move(**result));
  }

  const std::string& engine() const { return engine_; }
  const PyModule& module() const { return module_; }
  int fallbackCount() const { return compiled_ ? compiled_->fallbackCount() : 0; }

 private:
  PyModule module_;
  std::string engine_;
  std::unique_ptr<jit::Executable> compiled_;  // null: the interpreter
  interp::Options interpOptions_;
  std::mutex mutex_;
};

std::unique_ptr<PyExecutable> compile(const PyModule& m, const std::string& engine, bool allowInterpreterFallback,
                                      int64_t maxMemoryBytes, int64_t maxWhileIterations, bool fuse, bool useCache) {
  interp::Options interpOptions;
  interpOptions.maxMemoryBytes = maxMemoryBytes;
  interpOptions.maxWhileIterations = maxWhileIterations;
  if (engine == "interp") return std::make_unique<PyExecutable>(m, engine, nullptr, interpOptions);
  if (!jit::findBackend(engine)) {
    std::string known = "interp";
    for (const std::string& name : jit::backendNames()) known += ", " + name;
    throw hloError("no engine '" + engine + "' (there are: " + known + ")");
  }
  jit::CompileOptions options;
  options.allowInterpreterFallback = allowInterpreterFallback;
  options.maxMemoryBytes = maxMemoryBytes;
  options.maxWhileIterations = maxWhileIterations;
  options.fuse = fuse;
  options.useCache = useCache;
  options.cacheDir = useCache ? jit::defaultCacheDir() : "";
  std::optional<StatusOr<std::unique_ptr<jit::Executable>>> compiled;
  {
    py::gil_scoped_release unlocked;
    compiled = jit::compile(*m.module, engine, options);
  }
  if (!compiled->ok()) fail(compiled->status(), m);
  return std::make_unique<PyExecutable>(m, engine, std::move(**compiled), interpOptions);
}

}  // namespace
}  // namespace hlo::python

PYBIND11_MODULE(_native, m) {
  namespace py = pybind11;
  using namespace hlo::python;
  m.doc() = "The native part of the hlo package; use the hlo module's functions.";

  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const HloErrorException& e) {
      py::object type = py::module_::import("hlo._errors").attr("HloError");
      py::object file = e.file.empty() ? py::none() : py::cast(e.file);
      py::object line = e.line > 0 ? py::cast(e.line) : py::none();
      py::object column = e.column > 0 ? py::cast(e.column) : py::none();
      PyErr_SetObject(type.ptr(), type(e.message, file, line, column).ptr());
    }
  });

  py::class_<PyModule>(m, "Module")
      .def_property_readonly("text", [](const PyModule& self) { return hlo::printModule(*self.module); })
      .def_property_readonly("name", [](const PyModule& self) { return self.module->name(); })
      .def_property_readonly("file", [](const PyModule& self) { return self.file; })
      .def_property_readonly("entry_parameters", &entryParameters)
      .def_property_readonly("result_shape",
                             [](const PyModule& self) { return self.module->entry()->root()->shape().toString(false); })
      .def("stats", &stats);

  py::class_<PyExecutable>(m, "Executable")
      .def("__call__", &PyExecutable::call)
      .def_property_readonly("engine", &PyExecutable::engine)
      .def_property_readonly("module", &PyExecutable::module)
      .def_property_readonly("fallback_count", &PyExecutable::fallbackCount);

  m.def("parse", &parse, py::arg("text"), py::arg("file"));
  m.def("run_passes", &runPasses, py::arg("module"), py::arg("passes"), py::arg("verify_each"));
  m.def("run_pipeline", &runTargetPipeline, py::arg("module"), py::arg("target"));
  m.def("compile", &compile, py::arg("module"), py::arg("engine"), py::arg("allow_interpreter_fallback"),
        py::arg("max_memory_bytes"), py::arg("max_while_iterations"), py::arg("fuse"), py::arg("use_cache"));
  m.def("passes", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const hlo::PassInfo& p : hlo::registeredPasses()) out.emplace_back(p.name, p.help);
    return out;
  });
  m.def("engines", [] {
    std::vector<std::string> out = hlo::jit::backendNames();
    out.insert(out.begin(), "interp");
    return out;
  });
}
