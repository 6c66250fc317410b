#include "solvers/bounds/latency_path_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <utility>

#include <boost/graph/topological_sort.hpp>

#include "solvers/bounds/piece_sides.h"

namespace placer {

namespace {

// Transfer of u's output to v per edge: the cheapest net from u that v reads (a piece transfers
// each net once, so one edge's net is what the path itself must pay).
using Transfers = std::map<std::pair<Vertex, Vertex>, double>;

Transfers edgeTransfers(const Problem& problem) {
  Transfers out;
  for (const Net& net : problem.nets) {
    for (Vertex t : net.sinks) {
      auto [it, inserted] = out.try_emplace({net.source, t}, net.cost);
      if (!inserted) it->second = std::min(it->second, net.cost);
    }
  }
  return out;
}

double transferOf(const Transfers& transfers, Vertex u, Vertex v) {
  auto it = transfers.find({u, v});
  return it == transfers.end() ? 0.0 : it->second;
}

// The heaviest path by node and edge weights, in a topological order of the acyclic graph.
std::vector<Vertex> heaviestPath(const OpGraph& g, const std::vector<Vertex>& order,
                                 const std::function<double(Vertex)>& node_weight,
                                 const std::function<double(Vertex, Vertex)>& edge_weight) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<double> best(n, 0);
  std::vector<Vertex> previous(n, static_cast<Vertex>(n));
  for (Vertex v : order) {
    double from = 0;
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      if (g[*e].artificial) continue;
      const Vertex u = boost::source(*e, g);
      const double through = best[u] + edge_weight(u, v);
      if (through > from) {
        from = through;
        previous[v] = u;
      }
    }
    best[v] = from + node_weight(v);
  }
  Vertex last = order.front();
  for (Vertex v : order) {
    if (best[v] > best[last]) last = v;
  }
  std::vector<Vertex> path;
  for (Vertex v = last; v != static_cast<Vertex>(n); v = previous[v])
    path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

PathBound pathLatencyBound(const Problem& problem, const std::vector<Vertex>& path,
                           const std::vector<bool>& can_accelerator, const std::vector<bool>& can_cpu,
                           const Budget& budget) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::size_t m = path.size();
  if (m == 0) return {};
  // The nets each node produces and reads.
  std::vector<std::vector<std::size_t>> nets_from(n), nets_into(n);
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    nets_from[problem.nets[k].source].push_back(k);
    for (Vertex t : problem.nets[k].sinks)
      nets_into[t].push_back(k);
  }
  // A piece is convex: with path[i] and path[j] it holds every node between them. owned[i]: the
  // nodes path[i] reaches and path[i + 1] does not (each node is in at most one list), so the nodes
  // between path[i] and path[j] are those of owned[i..j] that reach path[j].
  // owner[v]: the list v is in (m: none), so path[i] reaches v exactly when owner[v] >= i.
  std::vector<std::vector<Vertex>> owned(m);
  std::vector<std::size_t> owner(n, m);
  std::vector<bool> reached(n, false);
  for (std::size_t i = m; i-- > 0;) {
    std::vector<Vertex> stack = {path[i]};
    reached[path[i]] = true;
    while (!stack.empty()) {
      const Vertex u = stack.back();
      stack.pop_back();
      owned[i].push_back(u);
      owner[u] = i;
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
  for (auto& list : owned)
    std::sort(list.begin(), list.end(), [&](Vertex a, Vertex b) { return position[a] < position[b]; });
  // first_reached[v]: the first path node v reaches (m: none), so v reaches path[i] exactly when
  // first_reached[v] <= i. A run's piece holds neither an ancestor of the path node before the run
  // nor a descendant of the one after it (it is convex and holds the run's ends): the nets from the
  // former it reads are transferred in, those to the latter out. nets_by_first[a]: the nets whose
  // producer first reaches path[a].
  std::vector<std::size_t> first_reached(n, m);
  {
    std::vector<Vertex> by_position(n);
    for (Vertex v = 0; v < n; ++v)
      by_position[position[v]] = v;
    for (std::size_t i = 0; i < m; ++i)
      first_reached[path[i]] = i;
    for (Vertex v : by_position) {  // successors first
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        if (!g[*e].artificial) first_reached[v] = std::min(first_reached[v], first_reached[boost::target(*e, g)]);
      }
    }
  }
  std::vector<std::vector<std::size_t>> nets_by_first(m);
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    if (first_reached[problem.nets[k].source] < m) nets_by_first[first_reached[problem.nets[k].source]].push_back(k);
  }
  PieceSides sides(problem, can_accelerator, m, owner, first_reached, owned, nets_from, nets_into);
  // best[j]: the cheapest cut of the first j nodes into runs.
  std::vector<double> best(m + 1, kInfinity);
  best[0] = 0;
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
    std::vector<std::pair<double, std::size_t>> accelerator_runs;  // (best[i] + cost without sides, i)
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
      if (!std::isfinite(best[i])) continue;
      if (cpu_ok) best[j] = std::min(best[j], best[i] + cpu);
      if (acc_ok) accelerator_runs.emplace_back(best[i] + std::max(0.0, in) + acc + out, i);
    }
    // The sides only add: price the accelerator runs cheapest first, each with its sides, until the
    // next one's price without them is no better than the best so far.
    std::sort(accelerator_runs.begin(), accelerator_runs.end());
    for (const auto& [price, i] : accelerator_runs) {
      if (price >= best[j]) break;
      const double with_sides = sides.affordable() && !result.cut_short ? best[i] + sides.cost(i, j) : price;
      best[j] = std::min(best[j], std::max(price, with_sides));
    }
  }
  result.value = std::isfinite(best[m]) ? best[m] : 0.0;
  return result;
}

PathBound latencyPathBound(const Problem& problem, const std::vector<bool>& can_accelerator,
                           const std::vector<bool>& can_cpu, const Budget& budget) {
  const OpGraph& g = problem.graph;
  if (boost::num_vertices(g) == 0 || !findCycle(g, false).empty()) return {};
  std::vector<Vertex> order;
  boost::topological_sort(g, std::back_inserter(order));
  std::reverse(order.begin(), order.end());
  const Transfers transfers = edgeTransfers(problem);
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
    auto edges = [&](Vertex u, Vertex v) { return transferOf(transfers, u, v); };
    const std::vector<Vertex> path =
        heaviestPath(g, order, node_weights[w], w == 1 ? std::function<double(Vertex, Vertex)>(edges) : none);
    const PathBound along = pathLatencyBound(problem, path, can_accelerator, can_cpu, budget);
    bound.value = std::max(bound.value, along.value);
    bound.cut_short = along.cut_short || (w + 1 < std::size(node_weights) && budget.exhausted());
  }
  return bound;
}

}  // namespace placer
