#include "solvers/bounds/paths.h"

#include <algorithm>
#include <iterator>
#include <set>

#include <boost/graph/topological_sort.hpp>

namespace placer {

EdgeTransfers::EdgeTransfers(const Problem& problem) {
  for (const Net& net : problem.nets) {
    for (Vertex t : net.sinks) {
      auto [it, inserted] = cheapest_.try_emplace({net.source, t}, net.cost, net.cpu_cost);
      if (!inserted) {
        it->second.first = std::min(it->second.first, net.cost);
        it->second.second = std::min(it->second.second, net.cpu_cost);
      }
    }
  }
}

std::pair<double, double> EdgeTransfers::find(Vertex u, Vertex v) const {
  auto it = cheapest_.find({u, v});
  return it == cheapest_.end() ? std::pair<double, double>{0.0, 0.0} : it->second;
}

std::vector<Vertex> heaviestPath(const OpGraph& g, const std::vector<Vertex>& order,
                                 const std::function<double(Vertex)>& node_weight,
                                 const std::function<double(Vertex, Vertex)>& edge_weight) {
  if (order.empty()) return {};
  const std::size_t n = boost::num_vertices(g);
  std::vector<double> best(n, 0);
  std::vector<Vertex> previous(n, static_cast<Vertex>(n));
  std::vector<std::size_t> position(n);
  for (std::size_t i = 0; i < order.size(); ++i)
    position[order[i]] = i;
  for (Vertex v : order) {
    double from = 0;
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      const Vertex u = boost::source(*e, g);
      if (g[*e].artificial || position[u] > position[v]) continue;  // only edges along the order
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

std::vector<Vertex> topologicalOrderOrEmpty(const OpGraph& g) {
  if (boost::num_vertices(g) == 0 || !findCycle(g, false).empty()) return {};
  std::vector<Vertex> order;
  boost::topological_sort(g, std::back_inserter(order));  // successors first
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<Vertex> orderBreakingCycles(const OpGraph& g) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<std::size_t> waiting(n, 0);  // unplaced predecessors (data and ordering edges alike)
  for (auto [e, end] = boost::edges(g); e != end; ++e)
    ++waiting[boost::target(*e, g)];
  std::set<std::pair<std::size_t, Vertex>> queue;  // (unplaced predecessors, node)
  for (Vertex v = 0; v < n; ++v)
    queue.emplace(waiting[v], v);
  std::vector<Vertex> order;
  order.reserve(n);
  while (!queue.empty()) {
    const Vertex v = queue.begin()->second;
    queue.erase(queue.begin());
    order.push_back(v);
    waiting[v] = n + 1;  // placed
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const Vertex w = boost::target(*e, g);
      if (waiting[w] > n) continue;
      queue.erase({waiting[w], w});
      queue.emplace(--waiting[w], w);
    }
  }
  return order;
}

}  // namespace placer
