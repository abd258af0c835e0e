// hlo-opt --html=FILE: one self-contained page (no network) showing what a
// list of passes did to a module, for reading and teaching: per step (the
// input, then each pass) the module with the lines the pass added
// highlighted, the diff, the graph as SVG (Graphviz; fusions as clusters),
// and the stats against the step before; a slider, buttons and the arrow
// keys move between steps.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hlo/module.h"
#include "hlo/passes/stats.h"

namespace hlo {

class HtmlReport {
 public:
  explicit HtmlReport(std::string title) : title_(std::move(title)) {}
  // The module after step `pass` ("input" for the first), which `changed`
  // or not.
  void addStep(std::string_view pass, bool changed, const Module& module);
  // The page.
  std::string page() const;

 private:
  struct Step {
    std::string pass;
    bool changed = false;
    std::string text;   // the printed module
    std::string diff;   // against the step before
    std::string svg;    // or, when Graphviz cannot draw it, why not
    bool drawn = false;
    ModuleStats stats;
  };
  std::string title_;
  std::vector<Step> steps_;
};

}  // namespace hlo
