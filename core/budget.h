// How long a solve may run, and whether it has been asked to stop.
//
// A Budget is a deadline on the steady clock plus an optional stop flag that another thread or a
// signal handler sets (the CLI sets it on SIGINT and SIGTERM). Every phase of a solve (starting
// splits, local search, building an integer program, the branch-and-cut itself) asks the same Budget,
// so `--time-limit` covers the whole solve and Ctrl-C stops it at the next check. Copies share the
// flag; the flag must outlive every copy.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>

namespace placer {

// Seconds on the steady clock since `start`.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class Budget {
 public:
  using Clock = std::chrono::steady_clock;

  Budget() = default;
  // `seconds` from now (infinite or negative-free: +inf means no deadline), with `stop` as the flag.
  Budget(double seconds, const std::atomic<bool>* stop) : stop_(stop) {
    if (seconds < std::numeric_limits<double>::infinity()) {
      const auto span = std::chrono::duration<double>(std::max(0.0, std::min(seconds, 1e9)));
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(span);
    }
  }
  static Budget unlimited(const std::atomic<bool>* stop = nullptr) { return Budget(kNone, stop); }

  // Someone asked the solve to stop (the deadline does not count).
  bool interrupted() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }
  bool hasDeadline() const { return deadline_ != Clock::time_point::max(); }
  // Interrupted, or past the deadline.
  bool exhausted() const { return interrupted() || (hasDeadline() && Clock::now() >= deadline_); }
  // Seconds left (never negative); +inf without a deadline.
  double remaining() const {
    if (!hasDeadline()) return kNone;
    return std::max(0.0, std::chrono::duration<double>(deadline_ - Clock::now()).count());
  }
  // The same flag with the earlier of this deadline and `seconds` from now.
  Budget within(double seconds) const {
    Budget inner(seconds, stop_);
    inner.deadline_ = std::min(inner.deadline_, deadline_);
    return inner;
  }
  const std::atomic<bool>* stopFlag() const { return stop_; }

 private:
  static constexpr double kNone = std::numeric_limits<double>::infinity();
  Clock::time_point deadline_ = Clock::time_point::max();
  const std::atomic<bool>* stop_ = nullptr;
};

}  // namespace placer
