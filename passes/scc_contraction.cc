#include "passes/scc_contraction.h"

#include <boost/graph/strong_components.hpp>
#include <map>

namespace placer {

namespace {

// Component id of every forward vertex (-1 for backward vertices), numbered by first vertex.
std::vector<int> forwardComponents(const OpGraph& g, int& components) {
  const std::size_t n = boost::num_vertices(g);
  using Digraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Digraph forward(n);
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    Vertex u = boost::source(*it, g), w = boost::target(*it, g);
    if (!g[u].backward && !g[w].backward) boost::add_edge(u, w, forward);
  }
  std::vector<int> raw(n);
  boost::strong_components(
      forward, boost::make_iterator_property_map(raw.begin(), boost::get(boost::vertex_index, forward)));
  std::map<int, int> renumber;
  std::vector<int> component(n, -1);
  for (Vertex v = 0; v < n; ++v) {
    if (g[v].backward) continue;
    component[v] = renumber.try_emplace(raw[v], static_cast<int>(renumber.size())).first->second;
  }
  components = static_cast<int>(renumber.size());
  return component;
}

}  // namespace

Expected<PassResult> SccContractionPass::run(Problem& problem, const PassOptions&, PipelineState&) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  int components = 0;
  std::vector<int> component = forwardComponents(g, components);

  // A backward node follows the component of its forward partner; one without a partner (orphans
  // not run) stays alone.
  std::map<int, int> component_of_class;
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].backward && g[v].colocation) component_of_class.try_emplace(*g[v].colocation, component[v]);
  }
  std::vector<int> group_of(n);
  std::map<int, int> backward_group_of_component;
  int groups = components;
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].backward) {
      group_of[v] = component[v];
      continue;
    }
    auto it = g[v].colocation ? component_of_class.find(*g[v].colocation) : component_of_class.end();
    if (it == component_of_class.end()) {
      group_of[v] = groups++;
      continue;
    }
    auto [pos, inserted] = backward_group_of_component.try_emplace(it->second, groups);
    if (inserted) ++groups;
    group_of[v] = pos->second;
  }

  // One class per component, shared by its backward group.
  std::vector<std::optional<int>> class_of_component(components);
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].backward && g[v].colocation && !class_of_component[component[v]]) {
      class_of_component[component[v]] = g[v].colocation;
    }
  }
  Problem contracted = contractGroups(problem, group_of, groups);
  for (int c = 0; c < components; ++c)
    contracted.graph[c].colocation = class_of_component[c];
  for (const auto& [c, group] : backward_group_of_component) {
    contracted.graph[group].colocation = class_of_component[c];
  }
  const std::size_t merged = n - static_cast<std::size_t>(groups);
  problem = std::move(contracted);
  PassResult result;
  result.changed = merged > 0;
  result.mapping = VertexMapping{{group_of.begin(), group_of.end()}};
  result.cycles_possible = false;
  result.note = std::to_string(merged) + " node(s) merged into strongly connected components";
  return result;
}

}  // namespace placer
