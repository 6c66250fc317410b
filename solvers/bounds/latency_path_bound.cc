#include "solvers/bounds/latency_path_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <utility>

#include <boost/graph/topological_sort.hpp>

#include "solvers/bounds/paths.h"
#include "solvers/bounds/piece_sides.h"

namespace placer {

namespace {

// Which nodes lie between which path nodes, and the nets each node produces and reads.
struct PathStructure {
  std::vector<std::vector<std::size_t>> nets_from, nets_into;  // per node
  std::vector<std::vector<Vertex>> owned;                     // per path node
  std::vector<std::size_t> owner, first_reached;              // per node (m: none)
  std::vector<std::vector<std::size_t>> nets_by_first;        // per path node
};

PathStructure pathStructure(const Problem& problem, const std::vector<Vertex>& path) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::size_t m = path.size();
  // The nets each node produces and reads.
  PathStructure s;
  s.nets_from.resize(n);
  s.nets_into.resize(n);
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    s.nets_from[problem.nets[k].source].push_back(k);
    for (Vertex t : problem.nets[k].sinks)
      s.nets_into[t].push_back(k);
  }
  // A piece is convex: with path[i] and path[j] it holds every node between them. owned[i]: the
  // nodes path[i] reaches and path[i + 1] does not (each node is in at most one list), so the nodes
  // between path[i] and path[j] are those of owned[i..j] that reach path[j].
  // owner[v]: the list v is in (m: none), so path[i] reaches v exactly when owner[v] >= i.
  s.owned.resize(m);
  s.owner.assign(n, m);
  std::vector<bool> reached(n, false);
  for (std::size_t i = m; i-- > 0;) {
    std::vector<Vertex> stack = {path[i]};
    reached[path[i]] = true;
    while (!stack.empty()) {
      const Vertex u = stack.back();
      stack.pop_back();
      s.owned[i].push_back(u);
      s.owner[u] = i;
      for (auto [e, end] = boost::out_edges(u, g); e != end; ++e) {
        const Vertex w = boost::target(*e, g);
        if (g[*e].artificial || reached[w]) continue;
        reached[w] = true;
        stack.push_back(w);
      }
    }
  }
  // Each list from the last node to the first in a topological order, so that whether a node
  // reaches the run's end is known from its successors, which come before it (in its list or in a
  // later path node's).
  std::vector<std::size_t> position(n);
  {
    std::vector<Vertex> order;
    boost::topological_sort(g, std::back_inserter(order));  // successors first
    for (std::size_t k = 0; k < order.size(); ++k)
      position[order[k]] = k;
  }
  for (auto& list : s.owned)
    std::sort(list.begin(), list.end(), [&](Vertex a, Vertex b) { return position[a] < position[b]; });
  // first_reached[v]: the first path node v reaches (m: none), so v reaches path[i] exactly when
  // first_reached[v] <= i. A run's piece holds neither an ancestor of the path node before the run
  // nor a descendant of the one after it (it is convex and holds the run's ends): the nets from the
  // former it reads are transferred in, those to the latter out. nets_by_first[a]: the nets whose
  // producer first reaches path[a].
  s.first_reached.assign(n, m);
  {
    std::vector<Vertex> by_position(n);
    for (Vertex v = 0; v < n; ++v)
      by_position[position[v]] = v;
    for (std::size_t i = 0; i < m; ++i)
      s.first_reached[path[i]] = i;
    for (Vertex v : by_position) {  // successors first
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        if (!g[*e].artificial) s.first_reached[v] = std::min(s.first_reached[v], s.first_reached[boost::target(*e, g)]);
      }
    }
  }
  s.nets_by_first.resize(m);
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    const std::size_t first = s.first_reached[problem.nets[k].source];
    if (first < m) s.nets_by_first[first].push_back(k);
  }
  return s;
}

// The cheapest cuts of the path's prefixes into runs, by how the last run ends: on a CPU, or on an
// accelerator with the memory of its nodes between. Where path[j - 1] and path[j] are in one
// colocation class, the runs on either side of j are on one device: a CPU run follows only a CPU
// run there, and an accelerator run only an accelerator run whose memory fits beside its own (they
// are pieces of one accelerator, and the nodes between their ends are disjoint).
class PrefixCosts {
 public:
  PrefixCosts(std::vector<bool> colocated, double capacity)
      : colocated_(std::move(colocated)),
        capacity_(capacity),
        best_(colocated_.size(), kInfinity),
        cpu_(colocated_.size(), kInfinity),
        frontier_(colocated_.size()) {
    best_[0] = cpu_[0] = 0;
  }

  double best(std::size_t j) const { return best_[j]; }
  // The cheapest prefix a run starting at i can follow.
  double beforeCpuRun(std::size_t i) const { return colocated_[i] ? cpu_[i] : best_[i]; }
  double beforeAcceleratorRun(std::size_t i, double memory) const {
    if (i == 0) return 0;
    if (!colocated_[i]) return best_[i];
    // Sorted by memory, each cost the least of those up to it.
    const auto& f = frontier_[i];
    auto fits = std::upper_bound(f.begin(), f.end(), capacity_ - memory,
                                 [](double room, const std::pair<double, double>& e) { return room < e.first; });
    return fits == f.begin() ? kInfinity : std::prev(fits)->second;
  }
  void endCpuRun(std::size_t j, double cost) {
    cpu_[j] = std::min(cpu_[j], cost);
    best_[j] = std::min(best_[j], cost);
  }
  void endAcceleratorRun(std::size_t j, double memory, double cost) {
    best_[j] = std::min(best_[j], cost);
    if (colocated_[j]) frontier_[j].emplace_back(memory, cost);
  }
  // Every run ending at j is in.
  void close(std::size_t j) {
    auto& f = frontier_[j];
    std::sort(f.begin(), f.end());
    for (std::size_t k = 1; k < f.size(); ++k)
      f[k].second = std::min(f[k].second, f[k - 1].second);
  }

 private:
  std::vector<bool> colocated_;  // per boundary j (before path[j])
  double capacity_;
  std::vector<double> best_, cpu_;
  std::vector<std::vector<std::pair<double, double>>> frontier_;  // (memory, cost) where colocated
};

}  // namespace

PathBound pathLatencyBound(const Problem& problem, const std::vector<Vertex>& path,
                           const std::vector<bool>& can_accelerator, const std::vector<bool>& can_cpu,
                           const Budget& budget) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::size_t m = path.size();
  if (m == 0) return {};
  const auto [nets_from, nets_into, owned, owner, first_reached, nets_by_first] = pathStructure(problem, path);
  std::vector<bool> colocated(m + 1, false);
  for (std::size_t j = 1; j < m; ++j) {
    const auto& a = g[path[j - 1]].colocation;
    colocated[j] = a && a == g[path[j]].colocation;
  }
  PieceSides sides(problem, can_accelerator, m, owner, first_reached, owned, nets_from, nets_into);
  PrefixCosts prefix(std::move(colocated), problem.devices.memory);
  std::vector<std::size_t> reaches_end(n, 0);                   // == j: reaches path[j - 1]
  std::vector<std::size_t> counted_in(problem.nets.size(), 0);  // == j: counted for runs ending at j
  PathBound result;
  for (std::size_t j = 1; j <= m; ++j) {
    // Past the deadline, the runs ending here and later are priced without their sides: each run's
    // price stays at most its cost, so the minimum is still a bound.
    if (budget.interrupted()) return {0, true};
    result.cut_short = result.cut_short || budget.exhausted();
    // Runs path[i..j-1], grown leftwards from j - 1: a CPU run computes its path nodes; an
    // accelerator run computes every node between its ends, transfers in each net from an ancestor
    // of path[i - 1] that one of them reads and out each net of theirs that a descendant of path[j]
    // reads.
    double cpu = 0, acc = 0, memory = 0, in = 0, out = 0;
    bool cpu_ok = true, acc_ok = true;
    struct Run {
      double price;  // the prefix's cost + the run's without sides
      std::size_t i;
      double prefix, memory;
    };
    std::vector<Run> accelerator_runs;
    for (std::size_t i = j; i-- > 0;) {
      const Vertex v = path[i];
      cpu_ok = cpu_ok && can_cpu[v];
      cpu += g[v].p_cpu;
      // The producers that first reach path[i] no longer reach path[i - 1]: their nets may be inside.
      for (std::size_t k : nets_by_first[i]) {
        if (counted_in[k] == j) {
          counted_in[k] = 0;
          in -= problem.nets[k].cost;
        }
      }
      for (Vertex w : owned[i]) {
        if (!acc_ok) break;
        bool reaches = w == path[j - 1];
        for (auto [e, end] = boost::out_edges(w, g); !reaches && e != end; ++e)
          reaches = !g[*e].artificial && reaches_end[boost::target(*e, g)] == j;
        if (!reaches) continue;
        reaches_end[w] = j;
        acc_ok = can_accelerator[w];
        acc += g[w].p_acc;
        memory += g[w].memory;
        for (std::size_t k : nets_into[w]) {
          if (first_reached[problem.nets[k].source] < i && counted_in[k] != j) {
            counted_in[k] = j;
            in += problem.nets[k].cost;
          }
        }
        for (std::size_t k : nets_from[w]) {
          for (Vertex t : problem.nets[k].sinks) {
            if (owner[t] >= j && owner[t] < m) {
              out += problem.nets[k].cost;
              break;
            }
          }
        }
      }
      acc_ok = acc_ok && memory <= problem.devices.memory;
      if (!cpu_ok && !acc_ok) break;
      if (cpu_ok && std::isfinite(prefix.beforeCpuRun(i))) prefix.endCpuRun(j, prefix.beforeCpuRun(i) + cpu);
      const double before = acc_ok ? prefix.beforeAcceleratorRun(i, memory) : kInfinity;
      if (std::isfinite(before)) accelerator_runs.push_back({before + std::max(0.0, in) + acc + out, i, before, memory});
    }
    // The sides only add: price the accelerator runs cheapest first, each with its sides, until the
    // next one's price without them is no better than the best so far (the rest keep their price).
    std::sort(accelerator_runs.begin(), accelerator_runs.end(),
              [](const Run& a, const Run& b) { return a.price < b.price || (a.price == b.price && a.i < b.i); });
    bool pricing = true;
    for (const Run& run : accelerator_runs) {
      pricing = pricing && run.price < prefix.best(j) && sides.affordable() && !result.cut_short;
      const double cost = pricing ? std::max(run.price, run.prefix + sides.cost(run.i, j)) : run.price;
      prefix.endAcceleratorRun(j, run.memory, cost);
    }
    prefix.close(j);
  }
  result.value = std::isfinite(prefix.best(m)) ? prefix.best(m) : 0.0;
  return result;
}

PathBound latencyPathBound(const Problem& problem, const std::vector<bool>& can_accelerator,
                           const std::vector<bool>& can_cpu, const Budget& budget) {
  const OpGraph& g = problem.graph;
  const std::vector<Vertex> order = topologicalOrderOrEmpty(g);
  if (order.empty()) return {};
  const EdgeTransfers transfers(problem);
  auto cheapest = [&](Vertex v) {
    return std::min(can_accelerator[v] ? g[v].p_acc : kInfinity, can_cpu[v] ? g[v].p_cpu : kInfinity);
  };
  auto finite = [](double x) { return std::isfinite(x) ? x : 0.0; };
  auto none = [](Vertex, Vertex) { return 0.0; };
  const std::function<double(Vertex)> node_weights[] = {
      [&](Vertex v) { return finite(cheapest(v)); },
      [&](Vertex v) { return finite(g[v].p_acc); },
      [&](Vertex v) { return finite(g[v].p_cpu); },
      [&](Vertex v) { return g[v].memory; },
  };
  PathBound bound;
  for (std::size_t w = 0; w < std::size(node_weights) && !bound.cut_short; ++w) {
    auto edges = [&](Vertex u, Vertex v) { return transfers.cost(u, v); };
    const std::vector<Vertex> path =
        heaviestPath(g, order, node_weights[w], w == 1 ? std::function<double(Vertex, Vertex)>(edges) : none);
    const PathBound along = pathLatencyBound(problem, path, can_accelerator, can_cpu, budget);
    bound.value = std::max(bound.value, along.value);
    bound.cut_short = along.cut_short || (w + 1 < std::size(node_weights) && budget.exhausted());
  }
  return bound;
}

}  // namespace placer
