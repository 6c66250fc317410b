// Random problems already in the DP's contracted form, for the slicer and segment-cost tests: a
// forward DAG (costs, memory, unsupported nodes, CPU boundary costs, shared weights, an overlap mode)
// and, for training, a backward partner per forward node in its colocation class, with backward
// edges mirroring the forward ones and activations kept for the backward pass (u -> w' for u -> w).
// Also Kahn's algorithm with random priorities over the forward vertices, and a chain of layers whose
// small operators a CPU core runs better than an accelerator.
#pragma once

#include <algorithm>
#include <random>
#include <vector>

#include "core/problem.h"
#include "tests/graph_builder.h"

namespace placer::testing {

inline Problem randomContracted(std::mt19937& rng, int n, bool training, DeviceSet devices = {2, 70, 1}) {
  std::uniform_real_distribution<double> cost(0.5, 6), comm(0, 2), mem(0, 40);
  GraphBuilder b(devices);
  for (int v = 0; v < n; ++v) {
    const double p = cost(rng);
    // Each draw in a statement of its own: the order of a call's arguments is unspecified (GCC and
    // clang differ), and the instances must not depend on the compiler.
    const double memory = mem(rng);
    const double cpu = p * (1.5 + cost(rng) / 3);
    b.node(p, cpu, memory);
    if (rng() % 9 == 0) b.unsupported(v);
    if (training) b.colocate(v, v);
  }
  std::vector<std::pair<int, int>> edges;
  for (int v = 1; v < n; ++v) {
    edges.emplace_back(static_cast<int>(rng() % static_cast<unsigned>(v)), v);
    if (v > 1 && rng() % 2 == 0) edges.emplace_back(static_cast<int>(rng() % static_cast<unsigned>(v)), v);
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  auto edge = [&](int u, int v) {
    const double cpu_cost = comm(rng) / 2;
    const double transfer = comm(rng);
    b.edge(u, v, transfer, cpu_cost);
  };
  for (auto [u, v] : edges)
    edge(u, v);
  if (training) {
    for (int v = 0; v < n; ++v) {
      const double p = cost(rng);
      b.node(2 * p, 3 * p, mem(rng) / 4);
      b.backward(n + v).colocate(n + v, v);
      edge(v, n + v);
    }
    for (auto [u, v] : edges) {
      edge(n + v, n + u);
      if (rng() % 2 == 0) b.edge(u, n + v, comm(rng));
    }
  }
  if (rng() % 2 == 0) b.sharedWeight(25, {0, n - 1});
  if (training && rng() % 2 == 0) b.sharedWeight(15, {1 % n, n + n / 2});
  Problem p = b.build();
  p.objective.overlap = static_cast<Overlap>(rng() % 3);
  return p;
}

// A topological order of the forward vertices from Kahn's algorithm with random priorities.
inline std::vector<Vertex> randomForwardOrder(const Problem& p, std::mt19937& rng) {
  const OpGraph& g = p.graph;
  const std::size_t n = boost::num_vertices(g);
  std::vector<double> priority(n);
  for (double& x : priority)
    x = std::uniform_real_distribution<double>(0, 1)(rng);
  std::vector<int> indegree(n);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    if (!g[boost::source(*it, g)].backward && !g[boost::target(*it, g)].backward)
      ++indegree[boost::target(*it, g)];
  }
  std::vector<Vertex> ready, order;
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].backward && indegree[v] == 0) ready.push_back(v);
  }
  while (!ready.empty()) {
    auto best = std::max_element(ready.begin(), ready.end(),
                                 [&](Vertex a, Vertex b) { return priority[a] < priority[b]; });
    const Vertex v = *best;
    ready.erase(best);
    order.push_back(v);
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      const Vertex w = boost::target(*it, g);
      if (!g[w].backward && --indegree[w] == 0) ready.push_back(w);
    }
  }
  return order;
}

// 24 layers, each a heavy operator (10 on an accelerator, 1000 on a CPU core) feeding two small ones
// (1 and 0.5: better on a CPU) that join in a node of no cost; transfers 0.5 (0.2 at a CPU's
// boundary). Accelerator work 288, of which the small operators are 48. The knapsack of the work
// relaxation lets a CPU core take them all; one convex block holds only one layer's two.
inline Problem heavyAndSmallLayers(DeviceSet devices) {
  GraphBuilder b(devices);
  int last = -1;
  for (int layer = 0; layer < 24; ++layer) {
    const int heavy = b.node(10, 1000);
    if (last >= 0) b.edge(last, heavy, 0.5, 0.2);
    const int left = b.node(1, 0.5);
    const int right = b.node(1, 0.5);
    b.edge(heavy, left, 0.5, 0.2).edge(heavy, right, 0.5, 0.2);
    last = b.node(0, 0);  // where the two join
    b.edge(left, last, 0.5, 0.2).edge(right, last, 0.5, 0.2);
  }
  return b.build();
}

}  // namespace placer::testing
