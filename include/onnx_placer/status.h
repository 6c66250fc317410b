// Status and Expected<T> of onnx-placer's public C++ API: every call returns its failures as values,
// never by exit() or output on stdout/stderr, and never throws for an expected failure.
//
// A Status's code is the exit status the command-line tool gives the same failure, so an embedder
// and a shell script tell failures apart the same way: 1 bad input (unreadable or malformed model,
// bad field), 2 bad options, 3 infeasible instance, 4 solver failure (an internal error, a time-out
// without a placement, too many ideals), 130 interrupted by the caller's stop flag.
#pragma once

#include <string>
#include <utility>
#include <variant>

#include "onnx_placer/version.h"

namespace onnx_placer {

enum class Code : int { Ok = 0, BadInput = 1, BadOptions = 2, Infeasible = 3, Failure = 4, Interrupted = 130 };

class Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status Ok() { return {}; }

  bool ok() const { return code_ == Code::Ok; }
  explicit operator bool() const { return ok(); }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Code code_ = Code::Ok;
  std::string message_;
};

// A value, or the Status saying why there is none.
template <typename T>
class Expected {
 public:
  Expected(T value) : value_(std::move(value)) {}        // NOLINT: implicit by design
  Expected(Status status) : value_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(value_).ok()) value_ = Status(Code::Failure, "an error without a message");
  }

  bool ok() const { return std::holds_alternative<T>(value_); }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status success;
    return ok() ? success : std::get<Status>(value_);
  }
  // The value; only when ok().
  T& value() & { return std::get<T>(value_); }
  const T& value() const& { return std::get<T>(value_); }
  T&& value() && { return std::get<T>(std::move(value_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> value_;
};

}  // namespace onnx_placer
