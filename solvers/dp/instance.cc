#include "solvers/dp/instance.h"

#include <algorithm>
#include <map>
#include <utility>

namespace placer::dp {

namespace {

// Topological order of the units chosen so that a DFS-like walk visits them (a stack, not a queue,
// of ready nodes, as in §5.1.2): consecutive nodes in it become DPL's artificial path.
std::vector<int> dfsTopologicalOrder(const std::vector<std::vector<int>>& preds,
                                     const std::vector<std::vector<int>>& succs) {
  const int n = static_cast<int>(preds.size());
  std::vector<int> indegree(n);
  std::vector<int> stack, order;
  for (int v = n - 1; v >= 0; --v) {
    indegree[v] = static_cast<int>(preds[v].size());
    if (indegree[v] == 0) stack.push_back(v);
  }
  while (!stack.empty()) {
    int v = stack.back();
    stack.pop_back();
    order.push_back(v);
    for (auto it = succs[v].rbegin(); it != succs[v].rend(); ++it) {
      if (--indegree[*it] == 0) stack.push_back(*it);
    }
  }
  return order;
}

// The units' predecessor and successor lists, each sorted and without repeats.
void unitAdjacency(const OpGraph& g, const std::vector<int>& unit_of, int n,
                   std::vector<std::vector<int>>& preds, std::vector<std::vector<int>>& succs) {
  preds.assign(n, {});
  succs.assign(n, {});
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    int a = unit_of[boost::source(*it, g)], b = unit_of[boost::target(*it, g)];
    if (a < 0 || b < 0) continue;
    preds[b].push_back(a);
    succs[a].push_back(b);
  }
  for (auto* lists : {&preds, &succs}) {
    for (auto& l : *lists) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
  }
}

// The units (forward vertices) in their order, and their predecessors. Linearized (DPL), the order is
// `order` or a DFS topological order, and each unit also follows the one before it.
std::vector<Vertex> orderedUnits(const Problem& problem, bool linearize, const std::vector<Vertex>& order,
                                 std::vector<std::vector<int>>& preds) {
  const OpGraph& g = problem.graph;
  std::vector<Vertex> forward = *forwardTopologicalOrder(g);
  const int n = static_cast<int>(forward.size());
  std::vector<int> unit_of(boost::num_vertices(g), -1);
  auto index_units = [&] {
    for (int i = 0; i < n; ++i)
      unit_of[forward[i]] = i;
  };
  std::vector<std::vector<int>> succs;
  index_units();
  unitAdjacency(g, unit_of, n, preds, succs);
  if (!linearize) return forward;
  // Re-index the units along a DFS topological order and chain consecutive ones.
  std::vector<Vertex> reordered(n);
  if (order.empty()) {
    const std::vector<int> dfs = dfsTopologicalOrder(preds, succs);
    for (int i = 0; i < n; ++i)
      reordered[i] = forward[dfs[i]];
  } else {
    reordered = order;
  }
  forward.swap(reordered);
  index_units();
  unitAdjacency(g, unit_of, n, preds, succs);
  for (int i = 1; i < n; ++i) {
    if (std::find(preds[i].begin(), preds[i].end(), i - 1) == preds[i].end()) preds[i].push_back(i - 1);
  }
  return forward;
}

// Each unit's vertices (its forward vertex and the backward partner of its colocation class), times
// and memory; returns the unit holding each vertex.
std::vector<int> fillUnits(const Problem& problem, const std::vector<Vertex>& forward, DpInstance& instance) {
  const OpGraph& g = problem.graph;
  const std::size_t n_vertices = boost::num_vertices(g);
  const int n = static_cast<int>(forward.size());
  instance.units.resize(n);
  std::map<int, Vertex> backward_of_class;
  for (Vertex v = 0; v < n_vertices; ++v) {
    if (g[v].backward) backward_of_class[*g[v].colocation] = v;
  }
  std::vector<int> owner(n_vertices, -1);
  for (int i = 0; i < n; ++i) {
    Unit& unit = instance.units[i];
    unit.vertices.push_back(forward[i]);
    if (const OpNode& f = g[forward[i]]; f.colocation) {
      if (auto it = backward_of_class.find(*f.colocation); it != backward_of_class.end()) {
        unit.vertices.push_back(it->second);
      }
    }
    for (Vertex v : unit.vertices) {
      owner[v] = i;
      if (g[v].supportedOnAccelerator()) {
        unit.p_acc += g[v].p_acc;
        for (int k = 1; k < problem.devices.kindCount(); ++k)
          unit.p_kinds[k - 1] += g[v].accTime(k);
      } else {
        unit.unsupported = true;
      }
      unit.p_cpu += g[v].p_cpu;
      unit.memory += g[v].memory;
    }
  }
  return owner;
}

// The nets each unit touches (how many of the net's vertices, its producer counted, are the unit's,
// and whether the producer is); a net inside one unit is never cut and touches none.
void fillNetTouches(const Problem& problem, const std::vector<int>& owner, DpInstance& instance) {
  instance.touches.resize(instance.units.size());
  for (std::size_t k = 0; k < problem.nets.size(); ++k) {
    const Net& net = problem.nets[k];
    std::map<int, std::pair<int, bool>> per_unit;
    per_unit[owner[net.source]] = {1, true};
    for (Vertex s : net.sinks)
      ++per_unit[owner[s]].first;
    if (per_unit.size() < 2) continue;
    for (const auto& [unit, touch] : per_unit) {
      instance.touches[unit].push_back({static_cast<std::int32_t>(k), touch.first, touch.second});
    }
  }
}

// The shared weights each unit reads; a weight read by one unit only is that unit's own memory.
void fillWeightTouches(const Problem& problem, const std::vector<int>& owner, DpInstance& instance) {
  instance.weight_touches.resize(instance.units.size());
  for (std::size_t w = 0; w < problem.weights.size(); ++w) {
    std::map<int, int> per_unit;
    for (Vertex r : problem.weights[w].readers)
      ++per_unit[owner[r]];
    if (per_unit.size() == 1) {
      instance.units[per_unit.begin()->first].memory += problem.weights[w].bytes;
      continue;
    }
    for (const auto& [unit, readers] : per_unit)
      instance.weight_touches[unit].push_back({static_cast<std::int32_t>(w), readers});
  }
}

}  // namespace

DpInstance prepareInstance(const Problem& problem, bool linearize, const std::vector<Vertex>& order) {
  DpInstance instance;
  const std::vector<Vertex> forward = orderedUnits(problem, linearize, order, instance.preds);
  const std::vector<int> owner = fillUnits(problem, forward, instance);
  fillNetTouches(problem, owner, instance);
  fillWeightTouches(problem, owner, instance);
  return instance;
}

}  // namespace placer::dp
