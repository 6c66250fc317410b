#include "passes/fold_leaves.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace placer {

namespace {

struct Partners {
  std::map<int, Vertex> forward_of_class, backward_of_class;
  std::optional<Vertex> backwardOf(const OpGraph& g, Vertex forward) const {
    if (!g[forward].colocation) return std::nullopt;
    auto it = backward_of_class.find(*g[forward].colocation);
    if (it == backward_of_class.end()) return std::nullopt;
    return it->second;
  }
};

std::set<Vertex> neighbours(const OpGraph& g, Vertex v) {
  std::set<Vertex> out;
  for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
    out.insert(boost::target(*it, g));
  for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
    out.insert(boost::source(*it, g));
  return out;
}

// For every foldable forward leaf u, the forward neighbour m it folds into (or -1). A unit (u and its
// backward partner b, if any) folds when it takes no time, its memory cannot matter, u's only
// forward neighbour is m, and every other node u or b touches belongs to m's unit: then every
// transfer of the unit becomes internal when it joins m, so no load can rise. Leaves that are each
// other's only neighbour fold into the smaller index.
std::vector<long> foldTargets(const Problem& problem, const Partners& partners) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  // When the whole graph fits on one accelerator, memory never constrains a placement.
  double smallest = problem.devices.memory;  // the smallest accelerator's memory
  for (const AcceleratorKind& kind : problem.devices.kinds)
    smallest = std::min(smallest, kind.memory);
  const bool memory_never_binds = totalMemory(problem) <= smallest;
  const std::vector<double> standalone = standaloneMemory(problem);
  auto free_time = [&](Vertex v) {
    const std::vector<double>& kinds = g[v].p_kinds;
    return g[v].p_acc == 0 && g[v].p_cpu == 0 && std::all_of(kinds.begin(), kinds.end(), [](double t) { return t == 0; });
  };

  std::vector<long> target(n, -1);
  for (Vertex u = 0; u < n; ++u) {
    if (g[u].backward || !free_time(u)) continue;
    std::optional<Vertex> b = partners.backwardOf(g, u);
    if (b && !free_time(*b)) continue;
    const double memory = standalone[u] + (b ? standalone[*b] : 0);  // shared weights read count too
    if (memory != 0 && !memory_never_binds) continue;
    std::set<Vertex> around = neighbours(g, u);
    std::set<Vertex> forward_around;
    for (Vertex w : around) {
      if (!g[w].backward) forward_around.insert(w);
    }
    if (forward_around.size() != 1) continue;
    const Vertex m = *forward_around.begin();
    std::optional<Vertex> bm = partners.backwardOf(g, m);
    // A backward partner needs a backward partner of m to merge into.
    if (b && !bm) continue;
    std::set<Vertex> allowed{u, m};
    if (bm) allowed.insert(*bm);
    if (b) {
      allowed.insert(*b);
      std::set<Vertex> b_around = neighbours(g, *b);
      around.insert(b_around.begin(), b_around.end());
    }
    if (!std::includes(allowed.begin(), allowed.end(), around.begin(), around.end())) continue;
    target[u] = static_cast<long>(m);
  }
  for (Vertex u = 0; u < n; ++u) {
    long m = target[u];
    if (m >= 0 && target[m] == static_cast<long>(u) && static_cast<long>(u) < m) target[u] = -1;
  }
  return target;
}

Partners findPartners(const OpGraph& g) {
  Partners p;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].colocation)
      (g[v].backward ? p.backward_of_class : p.forward_of_class).emplace(*g[v].colocation, v);
  }
  return p;
}

}  // namespace

Expected<PassResult> FoldLeavesPass::run(Problem& problem, const PassOptions&, PipelineState&) {
  const std::size_t original = boost::num_vertices(problem.graph);
  std::vector<Vertex> composed(original);
  std::iota(composed.begin(), composed.end(), Vertex{0});
  while (true) {
    const OpGraph& g = problem.graph;
    const std::size_t n = boost::num_vertices(g);
    const Partners partners = findPartners(g);
    std::vector<long> target = foldTargets(problem, partners);
    if (std::all_of(target.begin(), target.end(), [](long t) { return t < 0; })) break;
    // A folded leaf's backward partner goes to the keeper's backward partner.
    std::vector<long> keeper(n, -1);
    for (Vertex u = 0; u < n; ++u) {
      if (target[u] < 0) continue;
      keeper[u] = target[u];
      if (auto b = partners.backwardOf(g, u)) {
        keeper[*b] = static_cast<long>(*partners.backwardOf(g, static_cast<Vertex>(target[u])));
      }
    }
    std::vector<int> group_of(n, -1);
    int groups = 0;
    for (Vertex v = 0; v < n; ++v) {
      if (keeper[v] < 0) group_of[v] = groups++;
    }
    for (Vertex v = 0; v < n; ++v) {
      if (keeper[v] >= 0) group_of[v] = group_of[keeper[v]];
    }
    // Every group keeps its keeper's class, which the keeper's backward partner shares.
    std::vector<std::optional<int>> class_of_group(groups);
    for (Vertex v = 0; v < n; ++v) {
      if (keeper[v] < 0) class_of_group[group_of[v]] = g[v].colocation;
    }
    Problem contracted = contractGroups(problem, group_of, groups);
    for (int i = 0; i < groups; ++i)
      contracted.graph[i].colocation = class_of_group[i];
    for (Vertex& v : composed)
      v = group_of[v];
    problem = std::move(contracted);
  }
  const std::size_t folded = original - boost::num_vertices(problem.graph);
  PassResult result;
  result.changed = folded > 0;
  result.mapping = VertexMapping{std::move(composed)};
  result.note = std::to_string(folded) + " zero-cost leaf node(s) folded";
  return result;
}

}  // namespace placer
