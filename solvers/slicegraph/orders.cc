#include "solvers/slicegraph/orders.h"

#include <algorithm>
#include <cstdlib>

namespace placer {

const std::vector<int>& KahnOrderer::order(const std::vector<double>& priority) {
  const int n = units_.size();
  indegree_.resize(n);
  heap_.clear();
  order_.clear();
  // Max-heap on (priority, -index): the highest priority first, the smaller index on ties.
  auto less = [&](int a, int b) {
    return priority[a] < priority[b] || (priority[a] == priority[b] && a > b);
  };
  for (int u = 0; u < n; ++u) {
    indegree_[u] = static_cast<int>(units_.preds[u].size());
    if (indegree_[u] == 0) heap_.push_back(u);
  }
  std::make_heap(heap_.begin(), heap_.end(), less);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), less);
    const int u = heap_.back();
    heap_.pop_back();
    order_.push_back(u);
    for (int w : units_.succs[u]) {
      if (--indegree_[w] == 0) {
        heap_.push_back(w);
        std::push_heap(heap_.begin(), heap_.end(), less);
      }
    }
  }
  return order_;
}

std::vector<double> prioritiesOf(const std::vector<int>& order) {
  std::vector<double> priority(order.size());
  const double n = static_cast<double>(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    priority[order[i]] = (n - static_cast<double>(i)) / n;  // in (0, 1], like random keys
  return priority;
}

void randomPriorities(std::uint64_t seed, std::uint64_t stream, std::vector<double>& priority) {
  RandomStream random(seed, stream);
  for (double& p : priority)
    p = random.uniform();
}

ArrangementCost::ArrangementCost(const UnitGraph& units, bool weighted) : units_(units) {
  const int n = units.size();
  weight_.resize(n);
  for (int u = 0; u < n; ++u)
    weight_[u].assign(units.succs[u].size(), 1.0);
  if (!weighted) return;
  for (int u = 0; u < n; ++u)
    std::fill(weight_[u].begin(), weight_[u].end(), 0.0);
  double total = 0;
  for (const UnitGraph::UnitNet& net : units.nets) {
    const std::vector<int>& succs = units.succs[net.source];
    for (int s : net.sinks) {
      auto it = std::lower_bound(succs.begin(), succs.end(), s);
      if (it == succs.end() || *it != s) continue;  // data against the order (backward nodes)
      weight_[net.source][it - succs.begin()] += net.cost;
      total += net.cost;
    }
  }
  // Edges that carry no priced data still hold the order together: a tiny weight.
  const double floor = total > 0 ? total * 1e-9 : 1.0;
  for (auto& ws : weight_) {
    for (double& w : ws)
      w = std::max(w, floor);
  }
}

double ArrangementCost::operator()(const std::vector<int>& order, std::vector<int>& position) const {
  position.resize(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    position[order[i]] = static_cast<int>(i);
  double cost = 0;
  for (std::size_t u = 0; u < weight_.size(); ++u) {
    const std::vector<int>& succs = units_.succs[u];
    for (std::size_t k = 0; k < succs.size(); ++k)
      cost += weight_[u][k] * std::abs(position[succs[k]] - position[u]);
  }
  return cost;
}

}  // namespace placer
