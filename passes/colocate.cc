#include "passes/colocate.h"

#include <map>

namespace placer {

namespace {

// Group id per vertex: one group per (class, side), singletons for nodes without a class; numbered in
// order of first appearance so the result is deterministic.
std::vector<int> groupByClass(const OpGraph& g, int& groups) {
  std::map<std::pair<int, bool>, int> group_of_class;
  std::vector<int> group_of(boost::num_vertices(g));
  groups = 0;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (!g[v].colocation) {
      group_of[v] = groups++;
      continue;
    }
    auto [it, inserted] = group_of_class.try_emplace({*g[v].colocation, g[v].backward}, groups);
    if (inserted) ++groups;
    group_of[v] = it->second;
  }
  return group_of;
}

}  // namespace

Expected<PassResult> ColocatePass::run(Problem& problem, const PassOptions&, PipelineState&) {
  int groups = 0;
  std::vector<int> group_of = groupByClass(problem.graph, groups);
  const std::size_t before = boost::num_vertices(problem.graph);
  problem = contractGroups(problem, group_of, groups);
  PassResult result;
  result.changed = static_cast<std::size_t>(groups) < before;
  result.mapping = VertexMapping{{group_of.begin(), group_of.end()}};
  result.cycles_possible = true;
  result.note = std::to_string(before - groups) + " node(s) merged into their colocation classes";
  return result;
}

}  // namespace placer
