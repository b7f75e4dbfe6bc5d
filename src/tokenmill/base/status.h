// Status and StatusOr<T>: errors as values.
//
// Library code returns Status; only cli/ maps a Status to an exit code. Messages say what went
// wrong, where (file, byte offset or line) and how to fix it. They never contain secrets.
// Thread-safety: values; safe to copy between threads.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tokenmill {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad input or configuration; retrying will not help
  kNotFound,            // a file, object or key is missing
  kAlreadyExists,       // create-if-absent found the key taken
  kFailedPrecondition,  // compare-and-swap lost, or the job is in the wrong state
  kDataLoss,            // corrupt or truncated data
  kUnavailable,         // transient: network, throttling, 5xx; may be retried
  kUnknownOutcome,      // a conditional write whose result is unknown (re-read to decide)
  kPermissionDenied,    // credentials missing or refused
  kCancelled,           // stopped by a signal or a caller
  kIoError,             // local I/O failure
  kUnimplemented,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status UnknownOutcome(std::string m) {
    return {StatusCode::kUnknownOutcome, std::move(m)};
  }
  static Status PermissionDenied(std::string m) {
    return {StatusCode::kPermissionDenied, std::move(m)};
  }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool Is(StatusCode c) const { return code_ == c; }

  // "NotFound: <message>"
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>".
  Status WithContext(std::string_view prefix) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& s) : status_(s) { assert(!s.ok()); }  // NOLINT: implicit by design
  StatusOr(Status&& s) : status_(std::move(s)) { assert(!status_.ok()); }  // NOLINT
  StatusOr(const T& v) : value_(v) {}                                      // NOLINT
  StatusOr(T&& v) : value_(std::move(v)) {}                                // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok()
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace tokenmill

#define TM_CONCAT_INNER_(a, b) a##b
#define TM_CONCAT_(a, b) TM_CONCAT_INNER_(a, b)

// Returns from the current function if `expr` (a Status) is not OK.
#define TM_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::tokenmill::Status tm_status_ = (expr); \
    if (!tm_status_.ok()) return tm_status_; \
  } while (0)

// `lhs = value of expr` (a StatusOr), or returns its Status.
#define TM_ASSIGN_OR_RETURN(lhs, expr) \
  TM_ASSIGN_OR_RETURN_IMPL_(TM_CONCAT_(tm_statusor_, __LINE__), lhs, expr)
#define TM_ASSIGN_OR_RETURN_IMPL_(var, lhs, expr) \
  auto var = (expr);                              \
  if (!var.ok()) return var.status();             \
  lhs = std::move(var).value()
