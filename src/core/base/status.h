// Status and StatusOr: how every fallible function in rangereplay reports an
// error (modelled on Abseil's absl::Status / absl::StatusOr).
//
// The tool lives inside someone else's process and must never throw across a
// CUPTI callback or the injection boundary, so errors are values:
//
//   StatusOr<Snapshot> capture(...);
//   RR_ASSIGN_OR_RETURN(auto snap, capture(...));
//   RR_RETURN_IF_ERROR(restore(snap));
//
// A Status carries a code and a one-line message naming the cause (and, from
// the CUDA/CUPTI wrappers, the failing call and file:line). A failure that
// establishes why a range cannot be profiled carries that DeclineReason too,
// attached where the fact is known (with_decline_reason), so the tool never
// guesses a reason from the code:
//
//   return invalid_argument("unknown metric 'x'").with_decline_reason(DeclineReason::kUnknownMetric);
// Thread-safety: values; no shared state.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "core/base/decline_reason.h"

namespace rangereplay {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad user input: malformed expression, unknown metric
  kNotFound,            // a named thing does not exist
  kOutOfRange,          // a size or index past a limit
  kResourceExhausted,   // memory or a fixed capacity ran out
  kFailedPrecondition,  // the system is not in a state that allows the call
  kUnavailable,         // a device, counter or driver feature is missing
  kPermissionDenied,    // e.g. profiling restricted to admin users
  kInternal,            // a driver/CUPTI call failed unexpectedly
  kUnimplemented,
};

/// Human-readable name of a status code, e.g. "invalid argument".
const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  /// "<code name>: <message>", or "ok".
  std::string to_string() const;
  /// Marks a status as deliberately ignored.
  void ignore() const {}

  /// The decline this failure establishes for the range it happens in, set
  /// where the fact is known; nullopt when it names none (ok statuses never do).
  std::optional<DeclineReason> decline_reason() const { return decline_reason_; }
  /// This status, carrying `reason` (ignored on an ok status).
  Status with_decline_reason(DeclineReason reason) && {
    if (!ok()) decline_reason_ = reason;
    return std::move(*this);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::optional<DeclineReason> decline_reason_;
};

inline Status ok_status() { return Status(); }
inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status out_of_range(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status resource_exhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status failed_precondition(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status permission_denied(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status unimplemented(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }

/// A value or the Status explaining why there is none. Accessing the value of
/// a non-ok StatusOr is a programming error (asserts).
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : v_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok() && "StatusOr needs a value or a non-ok Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  T& value() & {
    assert(ok());
    return std::get<T>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace rangereplay

#define RR_STATUS_CONCAT_INNER(a, b) a##b
#define RR_STATUS_CONCAT(a, b) RR_STATUS_CONCAT_INNER(a, b)

/// Returns the Status of `expr` from the enclosing function if it is not ok.
#define RR_RETURN_IF_ERROR(expr)               \
  do {                                         \
    ::rangereplay::Status rr_status_ = (expr); \
    if (!rr_status_.ok()) return rr_status_;   \
  } while (0)

/// `RR_ASSIGN_OR_RETURN(auto x, f())`: declares x from f()'s value, or returns
/// f()'s Status from the enclosing function.
#define RR_ASSIGN_OR_RETURN(lhs, expr) RR_ASSIGN_OR_RETURN_IMPL(RR_STATUS_CONCAT(rr_statusor_, __LINE__), lhs, expr)
#define RR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()
