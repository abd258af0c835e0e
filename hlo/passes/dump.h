// Seeing what passes do: the module as a Graphviz graph, per-pass dumps to a
// directory (`--dump-to=DIR`). Counts (`--stats`) are in stats.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "hlo/module.h"
#include "hlo/status.h"

namespace hlo {

// The module as a Graphviz digraph: one cluster per computation, one node per
// instruction (parameters as filled ellipses, the root drawn bold and labelled
// ROOT), an edge from each operand to its user, dashed edges for control
// dependencies and dotted edges from a caller to the root of each computation
// it calls. A fused computation that one fusion calls is drawn as a cluster
// inside its caller's, labelled with the fusion's name and kind.
std::string moduleToDot(const Module& module);

// `dot` (a Graphviz graph) as SVG, rendered by Graphviz's `dot -Tsvg`; an
// error when Graphviz is not on PATH or fails.
StatusOr<std::string> renderDotAsSvg(const std::string& dot);

enum class DumpFormat { kDot, kSvg };

struct DumpOptions {
  std::string dir;          // created if missing
  std::string passRegex;    // RE2, partial match on the pass name; empty: every pass
  std::string moduleRegex;  // RE2, partial match on the module name; empty: every module
  DumpFormat format = DumpFormat::kDot;
};

class Dumper {
 public:
  // Checks the regular expressions, creates the directory, and for svg
  // checks that Graphviz's `dot` is on PATH.
  static StatusOr<std::unique_ptr<Dumper>> create(DumpOptions options);
  ~Dumper();

  // Writes DIR/NNN.<pass>.hlo and DIR/NNN.<pass>.dot (and .svg, rendered by
  // `dot -Tsvg`, for the svg format), NNN being `index` in three digits, when
  // both filters match. The caller dumps the input as index 0, pass "input".
  Status dump(const Module& module, int index, std::string_view pass);

 private:
  struct Filters;
  Dumper(DumpOptions options, std::unique_ptr<Filters> filters);
  DumpOptions options_;
  std::unique_ptr<Filters> filters_;
};

}  // namespace hlo
