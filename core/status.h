// Status and Expected<T>: how expected failures travel through onnx-placer.
//
// Library code never prints and never exits; a bad input file, an infeasible instance or an unknown
// pass comes back as a Status carrying a kind (so the CLI can pick an exit code) and a message that
// names the file, node or field at fault. Broken internal invariants are asserts, not Statuses; a
// failed check the program can report (a placement that fails verification, a solver's error) is
// an Internal status, which the CLI prints as "internal error: ...".
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace placer {

enum class StatusCode {
  Ok,
  InvalidInput,   // malformed file, bad field, cycle, dangling edge, ...
  Infeasible,     // the instance has no valid placement (memory too small, unsupported nodes, ...)
  Unsupported,    // a request we do not handle (unknown pass, GPipe without an IP, ...)
  ResourceLimit,  // the instance is beyond a size or time the solver accepts (too many ideals)
  TimeLimit,      // the time limit ran out before the solver found any split (nothing to write)
  IoError,        // cannot read or write a file
  Internal,       // a check that should never fail did, or a solver failed (GLPK's numerics, ...)
  Interrupted,    // the stop flag was set (SIGINT, SIGTERM): nothing is to be written
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok() { return {}; }
  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Prefixes the message with context ("reading w.json: ...") and keeps the code.
  Status withContext(const std::string& context) const {
    if (isOk()) return *this;
    return {code_, context + ": " + message_};
  }

 private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

inline Status invalidInput(std::string message) {
  return {StatusCode::InvalidInput, std::move(message)};
}
inline Status infeasible(std::string message) {
  return {StatusCode::Infeasible, std::move(message)};
}
inline Status unsupported(std::string message) {
  return {StatusCode::Unsupported, std::move(message)};
}
inline Status ioError(std::string message) {
  return {StatusCode::IoError, std::move(message)};
}
inline Status resourceLimit(std::string message) {
  return {StatusCode::ResourceLimit, std::move(message)};
}
inline Status timeLimit(std::string message) {
  return {StatusCode::TimeLimit, std::move(message)};
}
inline Status internalError(std::string message) {
  return {StatusCode::Internal, std::move(message)};
}
inline Status interrupted(std::string message) {
  return {StatusCode::Interrupted, std::move(message)};
}

// A value or the Status explaining why there is none (std::expected is C++23).
template <typename T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}        // NOLINT: implicit by design
  Expected(Status status) : value_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(value_).isOk() && "an Expected<T> error needs a failing Status");
  }

  bool hasValue() const { return std::holds_alternative<T>(value_); }
  explicit operator bool() const { return hasValue(); }

  T& value() & {
    assert(hasValue());
    return std::get<T>(value_);
  }
  const T& value() const& {
    assert(hasValue());
    return std::get<T>(value_);
  }
  T&& value() && {
    assert(hasValue());
    return std::get<T>(std::move(value_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Status& status() const {
    static const Status ok_status;
    return hasValue() ? ok_status : std::get<Status>(value_);
  }

 private:
  std::variant<T, Status> value_;
};

}  // namespace placer
