// Status and StatusOr: error values for the core (no exceptions).
//
// Input errors carry a SourceLoc so tools can print `file:line:col: error:`.
#pragma once

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace hlo {

// A position in an input text; line and column are 1-based, 0 means unknown.
struct SourceLoc {
  int line = 0;
  int column = 0;
  bool known() const { return line > 0; }
};

// An ok Status holds nothing (a null pointer), so making, moving and
// dropping the ok results of a hot loop costs next to nothing; an error
// holds its message and location, shared by its copies.
class Status {
 public:
  Status() = default;
  static Status error(std::string message, SourceLoc loc = {}) {
    Status s;
    s.error_ = std::make_shared<const Error>(Error{std::move(message), loc});
    return s;
  }
  bool ok() const { return !error_; }
  const std::string& message() const {
    static const std::string kNone;
    return error_ ? error_->message : kNone;
  }
  SourceLoc loc() const { return error_ ? error_->loc : SourceLoc{}; }
  // Adds a location if the error does not have one yet.
  Status withLoc(SourceLoc loc) const {
    if (!error_ || error_->loc.known()) return *this;
    return error(error_->message, loc);
  }

 private:
  struct Error {
    std::string message;
    SourceLoc loc;
  };
  std::shared_ptr<const Error> error_;  // null: ok
};

inline Status okStatus() { return Status(); }
inline Status errorStatus(std::string message, SourceLoc loc = {}) {
  return Status::error(std::move(message), loc);
}

template <typename T>
class StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    assert(!status_.ok() && "StatusOr built from an ok Status");
  }
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

#define HLO_CONCAT_INNER(a, b) a##b
#define HLO_CONCAT(a, b) HLO_CONCAT_INNER(a, b)

// Returns early with the error of a Status-returning expression.
#define HLO_RETURN_IF_ERROR(expr)           \
  do {                                      \
    ::hlo::Status hlo_status_ = (expr);     \
    if (!hlo_status_.ok()) return hlo_status_; \
  } while (0)

// `HLO_ASSIGN_OR_RETURN(auto x, f());` declares x from a StatusOr or returns its error.
#define HLO_ASSIGN_OR_RETURN(lhs, expr) \
  HLO_ASSIGN_OR_RETURN_IMPL(HLO_CONCAT(hlo_statusor_, __LINE__), lhs, expr)
#define HLO_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.status();             \
  lhs = std::move(tmp).value()

}  // namespace hlo
