#include "hlo/passes/explain.h"

namespace hlo {
namespace {

thread_local ExplainScope* innermost = nullptr;

}  // namespace

ExplainScope::ExplainScope(std::string pass) : pass_(std::move(pass)), outer_(innermost) { innermost = this; }

ExplainScope::~ExplainScope() { innermost = outer_; }

bool explaining(std::string_view pass) {
  for (ExplainScope* s = innermost; s; s = s->outer_)
    if (s->pass_ == pass) return true;
  return false;
}

void explain(std::string_view pass, std::string line) {
  for (ExplainScope* s = innermost; s; s = s->outer_)
    if (s->pass_ == pass) {
      s->lines_.push_back(std::move(line));
      return;
    }
}

}  // namespace hlo
