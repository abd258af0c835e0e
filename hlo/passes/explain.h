// Passes saying why they decided what they did (hlo-opt --explain=PASS).
//
// While an ExplainScope for a pass lives on a thread, that pass, run on the
// same thread, adds one line per decision to it ("%exp fused into %div:
// elementwise producer, moved: its only user is in the fusion"). Without a
// scope a pass skips the wording entirely: explaining costs nothing when no
// one asks, and a pass's decisions never depend on it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hlo {

class ExplainScope {
 public:
  explicit ExplainScope(std::string pass);
  ~ExplainScope();
  ExplainScope(const ExplainScope&) = delete;
  ExplainScope& operator=(const ExplainScope&) = delete;
  const std::string& pass() const { return pass_; }
  // The lines so far, in the order the pass decided.
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  friend bool explaining(std::string_view pass);
  friend void explain(std::string_view pass, std::string line);
  std::string pass_;
  std::vector<std::string> lines_;
  ExplainScope* outer_;
};

// Whether `pass`'s decisions are being explained on this thread.
bool explaining(std::string_view pass);
// Adds `line` to the innermost scope for `pass`, if there is one.
void explain(std::string_view pass, std::string line);

}  // namespace hlo
