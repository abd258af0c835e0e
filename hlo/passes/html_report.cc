#include "hlo/passes/html_report.h"

#include <sstream>
#include <unordered_map>

#include "hlo/passes/diff.h"
#include "hlo/passes/dump.h"
#include "hlo/printer.h"

namespace hlo {
namespace {

std::string escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The module's text, each line not in `before` (as many times as it occurs
// there) marked as added by this step.
std::string markedText(const std::string& text, const std::string& before) {
  std::unordered_map<std::string, int> old;
  for (const std::string& l : lines(before)) ++old[l];
  std::string out;
  for (const std::string& l : lines(text)) {
    auto it = old.find(l);
    bool kept = it != old.end() && it->second > 0;
    if (kept) --it->second;
    out += kept ? escaped(l) + "\n" : "<span class=\"added\">" + escaped(l) + "</span>\n";
  }
  return out;
}

// The diff, its added and removed lines coloured.
std::string markedDiff(const std::string& diff) {
  std::string out;
  for (const std::string& l : lines(diff)) {
    const char* kind = l.rfind("+++", 0) == 0 || l.rfind("---", 0) == 0 ? "file"
                       : l.rfind("@@", 0) == 0                           ? "hunk"
                       : !l.empty() && l[0] == '+'                       ? "add"
                       : !l.empty() && l[0] == '-'                       ? "del"
                                                                         : "";
    out += *kind ? "<span class=\"" + std::string(kind) + "\">" + escaped(l) + "</span>\n" : escaped(l) + "\n";
  }
  return out;
}

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; }
header { position: sticky; top: 0; background: #f4f4f4; border-bottom: 1px solid #ccc; padding: 8px 16px; }
header h1 { font-size: 16px; display: inline; margin-right: 16px; }
#step { width: 40%; vertical-align: middle; }
nav { padding: 4px 16px; }
nav a { margin-right: 10px; cursor: pointer; color: #0645ad; }
nav a.unchanged { color: #888; }
nav a.current { font-weight: bold; text-decoration: underline; }
section { display: none; padding: 0 16px 16px; }
section.current { display: block; }
pre { background: #fafafa; border: 1px solid #ddd; padding: 8px; overflow: auto; font: 12px/1.35 monospace; }
.added { background: #d8f5d8; }
.add { color: #080; } .del { color: #b00; } .hunk { color: #555; } .file { color: #555; font-weight: bold; }
.graph { overflow: auto; border: 1px solid #ddd; max-height: 70vh; }
.columns { display: flex; gap: 16px; } .columns > * { flex: 1; min-width: 0; }
)";

constexpr const char* kScript = R"(
window.addEventListener('error', (e) => {
  document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + '; ';
});
(function () {
  const sections = Array.from(document.querySelectorAll('section.step'));
  const links = Array.from(document.querySelectorAll('nav a'));
  const slider = document.getElementById('step');
  const label = document.getElementById('label');
  function show(i) {
    i = Math.max(0, Math.min(sections.length - 1, i));
    sections.forEach((s, k) => s.classList.toggle('current', k === i));
    links.forEach((a, k) => a.classList.toggle('current', k === i));
    slider.value = i;
    label.textContent = sections[i].dataset.title;
    document.body.dataset.current = String(i);
  }
  slider.addEventListener('input', () => show(Number(slider.value)));
  document.getElementById('prev').addEventListener('click', () => show(Number(slider.value) - 1));
  document.getElementById('next').addEventListener('click', () => show(Number(slider.value) + 1));
  links.forEach((a, k) => a.addEventListener('click', () => show(k)));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowLeft') show(Number(slider.value) - 1);
    if (e.key === 'ArrowRight') show(Number(slider.value) + 1);
  });
  // ?selftest (the browser test): visit every step as the slider would and
  // count those that show exactly their own section.
  if (location.search.includes('selftest')) {
    let reachable = 0;
    for (let i = 0; i < sections.length; ++i) {
      show(i);
      const shown = sections.filter((s) => s.offsetParent !== null);
      if (shown.length === 1 && shown[0] === sections[i]) ++reachable;
    }
    document.body.dataset.reachable = String(reachable);
  }
  show(sections.length - 1);
  document.body.dataset.ready = String(sections.length);
})();
)";

}  // namespace

void HtmlReport::addStep(std::string_view pass, bool changed, const Module& module) {
  Step step;
  step.pass = std::string(pass);
  step.changed = changed;
  step.text = printModule(module);
  if (!steps_.empty())
    step.diff = unifiedDiff(steps_.back().text, step.text, "before " + step.pass, "after " + step.pass);
  // The graph changes only with the module: an unchanged step reuses it.
  if (!steps_.empty() && steps_.back().text == step.text) {
    step.svg = steps_.back().svg;
    step.drawn = steps_.back().drawn;
  } else if (StatusOr<std::string> svg = renderDotAsSvg(moduleToDot(module)); svg.ok()) {
    size_t start = svg->find("<svg");
    step.svg = start == std::string::npos ? *svg : svg->substr(start);
    step.drawn = true;
  } else {
    step.svg = "no graph: " + svg.status().message() + " (Graphviz draws it; make deps installs it)";
  }
  step.stats = moduleStats(module);
  steps_.push_back(std::move(step));
}

std::string HtmlReport::page() const {
  std::string h = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>hlo-opt: " +
                  escaped(title_) + "</title>\n<style>" + kStyle + "</style></head>\n";
  h += "<body data-steps=\"" + std::to_string(steps_.size()) + "\">\n<header><h1>" + escaped(title_) + "</h1>";
  h += "<button id=\"prev\" title=\"previous step (left arrow)\">&#9664;</button> ";
  h += "<input type=\"range\" id=\"step\" min=\"0\" max=\"" + std::to_string(steps_.empty() ? 0 : steps_.size() - 1) +
       "\" value=\"0\"> ";
  h += "<button id=\"next\" title=\"next step (right arrow)\">&#9654;</button> <span id=\"label\"></span></header>\n";
  h += "<nav>";
  for (size_t i = 0; i < steps_.size(); ++i)
    h += "<a class=\"" + std::string(steps_[i].changed || i == 0 ? "changed" : "unchanged") + "\">" +
         std::to_string(i) + ". " + escaped(steps_[i].pass) + "</a>";
  h += "</nav>\n";
  for (size_t i = 0; i < steps_.size(); ++i) {
    const Step& s = steps_[i];
    std::string title = std::to_string(i) + ". " + s.pass +
                        (i == 0 ? "" : s.changed ? " (changed the module)" : " (changed nothing)");
    h += "<section class=\"step\" id=\"step-" + std::to_string(i) + "\" data-pass=\"" + escaped(s.pass) +
         "\" data-title=\"" + escaped(title) + "\">\n<h2>" + escaped(title) + "</h2>\n";
    const ModuleStats& before = i == 0 ? s.stats : steps_[i - 1].stats;
    h += "<details><summary>stats against the step before</summary><pre class=\"stats\">" +
         escaped(formatStats(title_, before, s.stats)) + "</pre></details>\n";
    if (i > 0)
      h += "<details" + std::string(s.changed ? " open" : "") + "><summary>diff</summary><pre class=\"diff\">" +
           (s.diff.empty() ? std::string("(no change)") : markedDiff(s.diff)) + "</pre></details>\n";
    h += "<div class=\"columns\"><pre class=\"module\">" +
         (i == 0 ? escaped(s.text) : markedText(s.text, steps_[i - 1].text)) + "</pre>\n";
    h += "<div class=\"graph\">" + (s.drawn ? s.svg : "<p>" + escaped(s.svg) + "</p>") + "</div></div>\n</section>\n";
  }
  h += "<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return h;
}

}  // namespace hlo
