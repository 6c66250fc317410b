// What the path bounds share (solvers/bounds/latency_path_bound.h for latency,
// solvers/bounds/path_runs_bound.h for max-load): the transfer a path pays where it changes device,
// and the heaviest path of an acyclic graph.
#pragma once

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "core/problem.h"

namespace placer {

// Per data edge u -> v, the cheapest net from u that v reads, on an accelerator (cost) and on a CPU
// core (cpu_cost): a device transfers each net once, so where a path's consecutive nodes u, v are
// on different devices, u's device sends and v's receives at least that net.
class EdgeTransfers {
 public:
  explicit EdgeTransfers(const Problem& problem);
  double cost(Vertex u, Vertex v) const { return find(u, v).first; }
  double cpuCost(Vertex u, Vertex v) const { return find(u, v).second; }

 private:
  std::pair<double, double> find(Vertex u, Vertex v) const;
  std::map<std::pair<Vertex, Vertex>, std::pair<double, double>> cheapest_;  // (cost, cpu_cost)
};

// The heaviest path by node and edge weights over the data edges that go forward in `order` (every
// node once: a topological order, or orderBreakingCycles'). Empty for an empty order.
std::vector<Vertex> heaviestPath(const OpGraph& g, const std::vector<Vertex>& order,
                                 const std::function<double(Vertex)>& node_weight,
                                 const std::function<double(Vertex, Vertex)>& edge_weight);

// A topological order of the whole graph (every node after its predecessors), or empty when the
// graph is empty or has a cycle (a contraction may create one).
std::vector<Vertex> topologicalOrderOrEmpty(const OpGraph& g);

// Every node once, each after all its predecessors where the graph is acyclic; on a cycle (a
// contracted colocation class closes one when a path between its members leaves it) the remaining
// node with the fewest unplaced predecessors, smallest index first, goes next. A heaviest path over
// this order follows edges of the graph and visits each node once, which is all a path bound needs
// of it. Deterministic.
std::vector<Vertex> orderBreakingCycles(const OpGraph& g);

}  // namespace placer
