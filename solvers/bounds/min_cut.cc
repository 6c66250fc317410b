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

// One augmenting path in the level graph, walked with the current-arc pointers and an explicit
// stack of arcs (a network may be hundreds of thousands of vertices deep); its flow, 0 when the
// sink is no longer reachable in this phase.
double MinCut::augment() {
  path_.clear();
  std::size_t v = kSource;
  while (v != kSink) {
    bool advanced = false;
    for (; next_[v] < out_[v].size(); ++next_[v]) {
      const std::size_t a = out_[v][next_[v]];
      if (residual_[a] > kEpsilon && level_[to_[a]] == level_[v] + 1) {
        path_.push_back(a);
        v = to_[a];
        advanced = true;
        break;
      }
    }
    if (advanced) continue;
    if (v == kSource) return 0;
    level_[v] = -1;  // a dead end: not entered again in this phase
    const std::size_t back = path_.back();
    path_.pop_back();
    v = to_[back ^ 1];
    ++next_[v];
  }
  double flow = kUnbounded * 2;
  for (std::size_t a : path_)
    flow = std::min(flow, residual_[a]);
  for (std::size_t a : path_) {
    residual_[a] -= flow;
    residual_[a ^ 1] += flow;
  }
  return flow;
}

double MinCut::solve() {
  double flow = 0;
  while (levels()) {
    std::fill(next_.begin(), next_.end(), 0);
    for (double pushed = augment(); pushed > 0; pushed = augment())
      flow += pushed;
  }
  return flow;
}

}  // namespace placer
