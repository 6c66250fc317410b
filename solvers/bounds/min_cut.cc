#include "solvers/bounds/min_cut.h"

#include <algorithm>
#include <deque>

namespace placer {

namespace {

// Residual capacity below this is used up: the capacities are times, sums of a few hundred terms.
constexpr double kEpsilon = 1e-12;

}  // namespace

void MinCut::reset(std::size_t vertices) {
  const std::size_t n = vertices + 2;
  out_.assign(n, {});
  to_.clear();
  residual_.clear();
  level_.assign(n, -1);
  next_.assign(n, 0);
}

void MinCut::arc(std::size_t u, std::size_t v, double capacity) {
  if (u == v || capacity <= 0) return;
  out_[u].push_back(to_.size());
  to_.push_back(v);
  residual_.push_back(capacity);
  out_[v].push_back(to_.size());
  to_.push_back(u);
  residual_.push_back(0);
}

bool MinCut::levels() {
  std::fill(level_.begin(), level_.end(), -1);
  std::deque<std::size_t> queue = {kSource};
  level_[kSource] = 0;
  while (!queue.empty()) {
    const std::size_t u = queue.front();
    queue.pop_front();
    for (std::size_t a : out_[u]) {
      if (residual_[a] > kEpsilon && level_[to_[a]] < 0) {
        level_[to_[a]] = level_[u] + 1;
        queue.push_back(to_[a]);
      }
    }
  }
  return level_[kSink] >= 0;
}

double MinCut::push(std::size_t v, double limit) {
  if (v == kSink) return limit;
  for (std::size_t& i = next_[v]; i < out_[v].size(); ++i) {
    const std::size_t a = out_[v][i];
    const std::size_t w = to_[a];
    if (residual_[a] <= kEpsilon || level_[w] != level_[v] + 1) continue;
    const double pushed = push(w, std::min(limit, residual_[a]));
    if (pushed > 0) {
      residual_[a] -= pushed;
      residual_[a ^ 1] += pushed;
      return pushed;
    }
  }
  return 0;
}

double MinCut::solve() {
  double flow = 0;
  while (levels()) {
    std::fill(next_.begin(), next_.end(), 0);
    while (true) {
      const double pushed = push(kSource, kUnbounded * 2);
      if (pushed <= 0) break;
      flow += pushed;
    }
  }
  return flow;
}

}  // namespace placer
