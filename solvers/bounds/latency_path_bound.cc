#include "solvers/bounds/latency_path_bound.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <utility>

#include <boost/graph/topological_sort.hpp>

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

double pathLatencyBound(const Problem& problem, const std::vector<Vertex>& path,
                        const std::vector<bool>& can_accelerator, const std::vector<bool>& can_cpu) {
  const OpGraph& g = problem.graph;
  const std::size_t m = path.size();
  if (m == 0) return 0;
  // transfer[i]: u = path[i] to path[i + 1]; none after the last node.
  const Transfers transfers = edgeTransfers(problem);
  std::vector<double> transfer(m, 0);
  for (std::size_t i = 0; i + 1 < m; ++i)
    transfer[i] = transferOf(transfers, path[i], path[i + 1]);
  // best[j]: the cheapest cut of the first j nodes into runs.
  std::vector<double> best(m + 1, kInfinity);
  best[0] = 0;
  for (std::size_t j = 1; j <= m; ++j) {
    // Runs path[i..j-1], grown leftwards from j - 1.
    double cpu = 0, acc = 0, memory = 0;
    bool cpu_ok = true, acc_ok = true;
    for (std::size_t i = j; i-- > 0;) {
      const Vertex v = path[i];
      cpu_ok = cpu_ok && can_cpu[v];
      acc_ok = acc_ok && can_accelerator[v];
      memory += g[v].memory;
      acc_ok = acc_ok && memory <= problem.devices.memory;
      if (!cpu_ok && !acc_ok) break;
      if (!std::isfinite(best[i])) continue;
      if (cpu_ok) {
        cpu += g[v].p_cpu;
        best[j] = std::min(best[j], best[i] + cpu);
      }
      if (acc_ok) {
        acc += g[v].p_acc;
        const double in = i > 0 ? transfer[i - 1] : 0, out = transfer[j - 1];
        best[j] = std::min(best[j], best[i] + in + acc + out);
      }
    }
  }
  return std::isfinite(best[m]) ? best[m] : 0.0;
}

double latencyPathBound(const Problem& problem, const std::vector<bool>& can_accelerator,
                        const std::vector<bool>& can_cpu) {
  const OpGraph& g = problem.graph;
  if (boost::num_vertices(g) == 0 || !findCycle(g, false).empty()) return 0;
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
  double bound = 0;
  for (std::size_t w = 0; w < std::size(node_weights); ++w) {
    auto edges = [&](Vertex u, Vertex v) { return transferOf(transfers, u, v); };
    const std::vector<Vertex> path =
        heaviestPath(g, order, node_weights[w], w == 1 ? std::function<double(Vertex, Vertex)>(edges) : none);
    bound = std::max(bound, pathLatencyBound(problem, path, can_accelerator, can_cpu));
  }
  return bound;
}

}  // namespace placer
