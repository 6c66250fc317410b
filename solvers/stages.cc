#include "solvers/stages.h"

#include <algorithm>
#include <map>
#include <queue>

namespace placer {

namespace {

// Topological order of `pieces` units over the given unit edges, earliest first node first; empty
// when the units feed each other.
std::vector<int> orderUnits(int units, const std::vector<std::pair<int, int>>& edges,
                            const std::vector<std::size_t>& first_position) {
  std::vector<std::vector<int>> succ(units);
  std::vector<int> indegree(units, 0);
  for (const auto& [a, b] : edges) {
    succ[a].push_back(b);
    ++indegree[b];
  }
  using Item = std::pair<std::size_t, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
  for (int p = 0; p < units; ++p) {
    if (indegree[p] == 0) ready.emplace(first_position[p], p);
  }
  std::vector<int> rank(units, -1);
  int next = 0;
  while (!ready.empty()) {
    const int p = ready.top().second;
    ready.pop();
    rank[p] = next++;
    for (int q : succ[p]) {
      if (--indegree[q] == 0) ready.emplace(first_position[q], q);
    }
  }
  if (next != units) return {};
  return rank;
}

}  // namespace

Expected<std::vector<int>> pipelineStages(const Problem& problem, const std::vector<int>& device_of) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  std::optional<std::vector<Vertex>> order = forwardTopologicalOrder(g);
  if (!order) return invalidInput("the forward graph has a cycle, so the split has no pipeline order");

  // Units: first one per device; if those feed each other, one per (device, rank).
  std::vector<int> unit_of(n, -1);
  std::vector<int> stage_of_unit;
  for (int attempt = 0; attempt < 2 && stage_of_unit.empty(); ++attempt) {
    std::vector<int> key(n, 0);
    if (attempt == 1) {
      for (Vertex v : *order) {
        for (auto [it, end] = boost::in_edges(v, g); it != end; ++it) {
          const Vertex u = boost::source(*it, g);
          if (!g[u].backward) key[v] = std::max(key[v], key[u] + (device_of[u] != device_of[v] ? 1 : 0));
        }
      }
    }
    std::map<std::pair<int, int>, int> unit_id;
    std::vector<std::size_t> first_position;
    for (std::size_t pos = 0; pos < order->size(); ++pos) {
      const Vertex v = (*order)[pos];
      auto [it, inserted] =
          unit_id.try_emplace({device_of[v], key[v]}, static_cast<int>(first_position.size()));
      if (inserted) first_position.push_back(pos);
      unit_of[v] = it->second;
    }
    std::vector<std::pair<int, int>> edges;
    for (auto [it, end] = boost::edges(g); it != end; ++it) {
      const Vertex u = boost::source(*it, g), w = boost::target(*it, g);
      if (g[u].backward || g[w].backward || unit_of[u] == unit_of[w]) continue;
      edges.emplace_back(unit_of[u], unit_of[w]);
    }
    stage_of_unit = orderUnits(static_cast<int>(first_position.size()), edges, first_position);
  }
  // Ranks always give an acyclic order (rank grows strictly from one unit to another).
  const int forward_stages = static_cast<int>(stage_of_unit.size());
  int next = forward_stages;
  std::vector<int> stage_of(n, -1);
  std::vector<int> first_stage_of_device(problem.devices.count(), -1);
  for (Vertex v = 0; v < n; ++v) {
    if (g[v].backward) continue;
    stage_of[v] = stage_of_unit[unit_of[v]];
    int& first = first_stage_of_device[device_of[v]];
    if (first < 0 || stage_of[v] < first) first = stage_of[v];
  }
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].backward) continue;
    int& first = first_stage_of_device[device_of[v]];
    if (first < 0) first = next++;
    stage_of[v] = first;
  }
  return stage_of;
}

std::vector<int> stagesOrDevices(const Problem& problem, const std::vector<int>& device_of) {
  Expected<std::vector<int>> stages = pipelineStages(problem, device_of);
  return stages ? std::move(*stages) : device_of;
}

}  // namespace placer
