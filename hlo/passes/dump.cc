// Graphviz output, per-pass dumps and instruction counts.
#include "hlo/passes/dump.h"

#include <re2/re2.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

std::string moduleToDot(const Module& module) {
  std::unordered_map<const Instruction*, std::string> id;
  std::unordered_map<const Computation*, int> cluster;
  for (size_t c = 0; c < module.computations().size(); ++c) {
    const Computation& comp = *module.computations()[c];
    cluster[&comp] = static_cast<int>(c);
    for (const auto& instr : comp.instructions())
      id[instr.get()] = "c" + std::to_string(c) + "_" + std::to_string(instr->id());
  }
  std::string out = "digraph " + dotQuote(module.name()) + " {\n";
  out += "  compound=true;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  std::string edges;
  for (const auto& comp : module.computations()) {
    bool entry = comp.get() == module.entry();
    out += "  subgraph cluster_" + std::to_string(cluster[comp.get()]) + " {\n";
    out += "    label=" + dotQuote((entry ? "ENTRY %" : "%") + comp->name()) + ";\n";
    out += "    style=rounded;\n";
    for (const auto& instr : comp->instructions()) {
      const Instruction& i = *instr;
      out += "    " + id[&i] + " [label=" + dotQuote(nodeLabel(i));
      if (i.opcode() == Opcode::kParameter) out += ", shape=ellipse, style=filled, fillcolor=lightblue";
      if (i.opcode() == Opcode::kConstant) out += ", style=filled, fillcolor=lightgrey";
      if (comp->root() == &i) out += ", penwidth=3";
      out += "];\n";
      for (int k = 0; k < i.operandCount(); ++k) {
        edges += "  " + id[i.operand(k)] + " -> " + id[&i];
        if (i.operandCount() > 1) edges += " [label=\"" + std::to_string(k) + "\"]";
        edges += ";\n";
      }
      for (const Instruction* pred : i.controlPredecessors())
        edges += "  " + id[pred] + " -> " + id[&i] + " [style=dashed, color=red];\n";
      for (const auto& [key, value] : i.attrs().all()) {
        AttrKind kind = attrKind(key);
        if (kind != AttrKind::kComputation && kind != AttrKind::kComputationList) continue;
        for (const Computation* callee : value.comps) {
          if (!callee || !callee->root() || !cluster.count(callee)) continue;
          edges += "  " + id[&i] + " -> " + id[callee->root()] + " [style=dotted, lhead=cluster_" +
                   std::to_string(cluster[callee]) + ", label=" + dotQuote(attrKeyName(key)) +
                   "];\n";
        }
      }
    }
    out += "  }\n";
  }
  return out + edges + "}\n";
}

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

// ---- stats ------------------------------------------------------------------

ModuleStats moduleStats(const Module& module) {
  ModuleStats stats;
  for (const auto& comp : module.computations()) {
    ++stats.computations;
    for (const auto& instr : comp->instructions()) {
      ++stats.instructions;
      ++stats.perOpcode[std::string(opcodeName(instr->opcode()))];
    }
  }
  return stats;
}

std::string formatStats(std::string_view moduleName, const ModuleStats& before,
                        const ModuleStats& after) {
  char line[128];
  std::string out = "stats for module '" + std::string(moduleName) + "':\n";
  std::snprintf(line, sizeof line, "  %-28s %8s %8s\n", "", "before", "after");
  out += line;
  auto row = [&](const std::string& name, int64_t b, int64_t a) {
    std::snprintf(line, sizeof line, "  %-28s %8lld %8lld\n", name.c_str(),
                  static_cast<long long>(b), static_cast<long long>(a));
    out += line;
  };
  row("computations", before.computations, after.computations);
  row("instructions", before.instructions, after.instructions);
  std::map<std::string, std::pair<int64_t, int64_t>> rows;
  for (const auto& [name, n] : before.perOpcode) rows[name].first = n;
  for (const auto& [name, n] : after.perOpcode) rows[name].second = n;
  for (const auto& [name, counts] : rows) row("  " + name, counts.first, counts.second);
  return out;
}

}  // namespace hlo
