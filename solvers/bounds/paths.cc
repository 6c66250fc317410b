#include "solvers/bounds/paths.h"

#include <algorithm>
#include <iterator>

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

std::vector<Vertex> topologicalOrderOrEmpty(const OpGraph& g) {
  if (boost::num_vertices(g) == 0 || !findCycle(g, false).empty()) return {};
  std::vector<Vertex> order;
  boost::topological_sort(g, std::back_inserter(order));  // successors first
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace placer
