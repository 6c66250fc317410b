#include "solvers/capacity_relaxation.h"

#include <algorithm>

#include "core/infinity.h"

namespace placer {

CapacityRelaxation::CapacityRelaxation(const std::vector<double>& p_acc, const std::vector<double>& p_cpu,
                                       const std::vector<std::uint8_t>& unsupported, int accelerators,
                                       int cpus)
    : accelerators_(accelerators), cpus_(cpus) {
  std::vector<std::size_t> items;
  for (std::size_t u = 0; u < p_acc.size(); ++u) {
    total_.add(p_acc[u], p_cpu[u], unsupported[u] != 0);
    if (!unsupported[u] && p_acc[u] > 0) items.push_back(u);
  }
  // Best rate first (no CPU time at all: first of all); x before y when p_acc(x) / p_cpu(x) is the
  // larger, compared without dividing.
  std::stable_sort(items.begin(), items.end(),
                   [&](std::size_t x, std::size_t y) { return p_acc[x] * p_cpu[y] > p_acc[y] * p_cpu[x]; });
  cpu_prefix_.assign(1, 0.0);
  acc_prefix_.assign(1, 0.0);
  for (std::size_t u : items) {
    cpu_prefix_.push_back(cpu_prefix_.back() + p_cpu[u]);
    acc_prefix_.push_back(acc_prefix_.back() + p_acc[u]);
  }
  tolerance_ = 1e-9 * (total_.acc + total_.cpu) + 1e-12;
}

bool CapacityRelaxation::fits(const Work& work, int cpus, int accs, double bound) const {
  const double cpu_capacity = cpus * bound;
  if (work.unsupported_cpu > cpu_capacity + tolerance_) return false;
  if (accs == 0) return work.cpu <= cpu_capacity + tolerance_;
  return work.acc - absorbable(cpu_capacity - work.unsupported_cpu, cpus) <= accs * bound + tolerance_;
}

double CapacityRelaxation::absorbable(double spare, int cpus) const {
  if (spare <= 0) return 0;
  const double limit = per_cpu_ < 0 ? kInfinity : cpus * per_cpu_;
  // The items taken whole: those whose CPU times sum to at most `spare`; then part of the next one
  // (whose CPU time is positive, or it would have been taken whole).
  const std::size_t whole =
      static_cast<std::size_t>(std::upper_bound(cpu_prefix_.begin(), cpu_prefix_.end(), spare) -
                               cpu_prefix_.begin()) -
      1;
  double acc = acc_prefix_[whole];
  if (whole + 1 < cpu_prefix_.size()) {
    const double cpu = cpu_prefix_[whole + 1] - cpu_prefix_[whole];
    acc += (acc_prefix_[whole + 1] - acc_prefix_[whole]) * ((spare - cpu_prefix_[whole]) / cpu);
  }
  return std::min(acc, limit);
}

}  // namespace placer
