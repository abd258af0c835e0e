// Graphviz output and per-pass dumps.
#include "hlo/passes/dump.h"

#include <re2/re2.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "hlo/printer.h"

extern char** environ;

namespace hlo {
namespace {

// A double-quoted Graphviz string; "\n" in `s` becomes a line break.
std::string dotQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string nodeLabel(const Instruction& i) {
  std::string label;
  if (i.parent()->root() == &i) label += "ROOT ";
  label += i.name() + "\n" + std::string(opcodeName(i.opcode()));
  if (i.opcode() == Opcode::kParameter) label += " " + std::to_string(i.parameterNumber());
  label += " " + i.shape().toString(/*withLayout=*/false);
  if (i.hasLiteral() && !i.literal().elided() && i.literal().shape().isArray() &&
      i.literal().elementCount() <= 8)
    label += "\n" + i.literal().valuesToString();
  return label;
}

}  // namespace

namespace {

// Writes the graph: clusters by computation, edges gathered for the end.
class DotWriter {
 public:
  explicit DotWriter(const Module& module) : module_(module) {
    std::unordered_map<const Computation*, int> callers;
    for (size_t c = 0; c < module.computations().size(); ++c) {
      const Computation& comp = *module.computations()[c];
      cluster_[&comp] = static_cast<int>(c);
      for (const auto& instr : comp.instructions()) {
        id_[instr.get()] = "c" + std::to_string(c) + "_" + std::to_string(instr->id());
        for (const Computation* callee : instr->calledComputations()) {
          ++callers[callee];
          if (instr->opcode() == Opcode::kFusion) fusionOf_[callee] = instr.get();
        }
      }
    }
    // Drawn inside its caller only when one fusion, and nothing else, calls it.
    for (auto it = fusionOf_.begin(); it != fusionOf_.end();)
      it = callers[it->first] == 1 ? std::next(it) : fusionOf_.erase(it);
  }

  std::string write() {
    std::string out = "digraph " + dotQuote(module_.name()) + " {\n";
    out += "  compound=true;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
    for (const auto& comp : module_.computations())
      if (!fusionOf_.count(comp.get())) writeCluster(*comp, "  ", out);
    return out + edges_ + "}\n";
  }

 private:
  void writeCluster(const Computation& comp, const std::string& indent, std::string& out) {
    std::string label = (&comp == module_.entry() ? "ENTRY %" : "%") + comp.name();
    out += indent + "subgraph cluster_" + std::to_string(cluster_[&comp]) + " {\n";
    if (const Instruction* fusion = fusionOf_.count(&comp) ? fusionOf_[&comp] : nullptr) {
      std::string kind(fusion->attrs().has(AttrKey::kKind) ? fusion->attrs().getString(AttrKey::kKind) : "");
      out += indent + "  label=" + dotQuote("fusion %" + fusion->name() + (kind.empty() ? "" : " " + kind) + ": " + label) + ";\n";
      out += indent + "  style=\"rounded,filled\";\n" + indent + "  fillcolor=lightyellow;\n";
    } else {
      out += indent + "  label=" + dotQuote(label) + ";\n";
      out += indent + "  style=rounded;\n";
    }
    for (const auto& instr : comp.instructions()) {
      const Instruction& i = *instr;
      out += indent + "  " + id_[&i] + " [label=" + dotQuote(nodeLabel(i));
      if (i.opcode() == Opcode::kParameter) out += ", shape=ellipse, style=filled, fillcolor=lightblue";
      if (i.opcode() == Opcode::kConstant) out += ", style=filled, fillcolor=lightgrey";
      if (i.opcode() == Opcode::kFusion) out += ", style=filled, fillcolor=lightyellow";
      if (comp.root() == &i) out += ", penwidth=3";
      out += "];\n";
      writeEdges(i);
    }
    // The fused computations of this one's fusions, inside its cluster.
    for (const auto& instr : comp.instructions())
      if (instr->opcode() == Opcode::kFusion)
        for (const Computation* callee : instr->calledComputations())
          if (fusionOf_.count(callee) && fusionOf_[callee] == instr.get())
            writeCluster(*callee, indent + "  ", out);
    out += indent + "}\n";
  }

  void writeEdges(const Instruction& i) {
    for (int k = 0; k < i.operandCount(); ++k) {
      edges_ += "  " + id_[i.operand(k)] + " -> " + id_[&i];
      if (i.operandCount() > 1) edges_ += " [label=\"" + std::to_string(k) + "\"]";
      edges_ += ";\n";
    }
    for (const Instruction* pred : i.controlPredecessors())
      edges_ += "  " + id_[pred] + " -> " + id_[&i] + " [style=dashed, color=red];\n";
    for (const auto& [key, value] : i.attrs().all()) {
      AttrKind kind = attrKind(key);
      if (kind != AttrKind::kComputation && kind != AttrKind::kComputationList) continue;
      for (const Computation* callee : value.comps) {
        if (!callee || !callee->root() || !cluster_.count(callee)) continue;
        edges_ += "  " + id_[&i] + " -> " + id_[callee->root()] + " [style=dotted, lhead=cluster_" +
                  std::to_string(cluster_[callee]) + ", label=" + dotQuote(attrKeyName(key)) + "];\n";
      }
    }
  }

  const Module& module_;
  std::unordered_map<const Instruction*, std::string> id_;
  std::unordered_map<const Computation*, int> cluster_;
  std::unordered_map<const Computation*, const Instruction*> fusionOf_;
  std::string edges_;
};

}  // namespace

std::string moduleToDot(const Module& module) { return DotWriter(module).write(); }

// ---- dumps ------------------------------------------------------------------

struct Dumper::Filters {
  std::unique_ptr<RE2> pass, module;
};

Dumper::Dumper(DumpOptions options, std::unique_ptr<Filters> filters)
    : options_(std::move(options)), filters_(std::move(filters)) {}
Dumper::~Dumper() = default;

namespace {

bool onPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (true) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (access(((dir.empty() ? "." : dir) + "/" + program).c_str(), X_OK) == 0) return true;
    if (colon == std::string_view::npos) return false;
    dirs.remove_prefix(colon + 1);
  }
}

Status writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) return errorStatus("cannot write '" + path.string() + "'");
  return okStatus();
}

// Runs `dot -Tsvg -o svg dotFile` without a shell.
Status renderSvg(const std::string& dotFile, const std::string& svg) {
  std::vector<std::string> args = {"dot", "-Tsvg", "-o", svg, dotFile};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  if (posix_spawnp(&pid, "dot", nullptr, nullptr, argv.data(), environ) != 0)
    return errorStatus("cannot run Graphviz 'dot'");
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return errorStatus("Graphviz 'dot' failed to render '" + dotFile + "'");
  return okStatus();
}

}  // namespace

StatusOr<std::string> renderDotAsSvg(const std::string& dot) {
  static std::atomic<uint64_t> counter{0};
  std::filesystem::path base = std::filesystem::temp_directory_path() /
                               ("hlo-graph-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  const std::string dotFile = base.string() + ".dot", svgFile = base.string() + ".svg";
  Status written = writeFile(dotFile, dot);
  Status rendered = written.ok() ? renderSvg(dotFile, svgFile) : written;
  std::string svg;
  if (rendered.ok()) {
    std::ifstream in(svgFile, std::ios::binary);
    svg.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::error_code ignored;
  std::filesystem::remove(dotFile, ignored);
  std::filesystem::remove(svgFile, ignored);
  if (!rendered.ok()) return rendered;
  return svg;
}

StatusOr<std::unique_ptr<Dumper>> Dumper::create(DumpOptions options) {
  auto filters = std::make_unique<Filters>();
  auto compile = [](const std::string& text, const char* flag,
                    std::unique_ptr<RE2>& out) -> Status {
    if (text.empty()) return okStatus();
    out = std::make_unique<RE2>(text, RE2::Quiet);
    if (!out->ok()) return errorStatus(std::string(flag) + ": bad regular expression: " + out->error());
    return okStatus();
  };
  HLO_RETURN_IF_ERROR(compile(options.passRegex, "--dump-pass-re", filters->pass));
  HLO_RETURN_IF_ERROR(compile(options.moduleRegex, "--dump-module-re", filters->module));
  if (options.format == DumpFormat::kSvg && !onPath("dot"))
    return errorStatus("--dump-format=svg needs Graphviz's 'dot' on PATH (make deps installs it)");
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) return errorStatus("cannot create directory '" + options.dir + "': " + ec.message());
  return std::unique_ptr<Dumper>(new Dumper(std::move(options), std::move(filters)));
}

Status Dumper::dump(const Module& module, int index, std::string_view pass) {
  if (filters_->module && !RE2::PartialMatch(module.name(), *filters_->module)) return okStatus();
  if (filters_->pass && !RE2::PartialMatch(pass, *filters_->pass)) return okStatus();
  char number[16];
  std::snprintf(number, sizeof number, "%03d", index);
  std::filesystem::path base = std::filesystem::path(options_.dir) / (std::string(number) + "." + std::string(pass));
  HLO_RETURN_IF_ERROR(writeFile(base.string() + ".hlo", printModule(module)));
  HLO_RETURN_IF_ERROR(writeFile(base.string() + ".dot", moduleToDot(module)));
  if (options_.format == DumpFormat::kSvg)
    HLO_RETURN_IF_ERROR(renderSvg(base.string() + ".dot", base.string() + ".svg"));
  return okStatus();
}

}  // namespace hlo
