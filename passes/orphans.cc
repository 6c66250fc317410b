#include "passes/orphans.h"

#include <map>
#include <numeric>
#include <set>

namespace placer {

Expected<PassResult> OrphansPass::run(Problem& problem, const PassOptions&, PipelineState&) {
  OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  int next_class = 0;
  std::map<int, Vertex> forward_of_class;
  for (Vertex v = 0; v < n; ++v) {
    if (g[v].colocation) next_class = std::max(next_class, *g[v].colocation + 1);
    if (g[v].colocation && !g[v].backward) forward_of_class.try_emplace(*g[v].colocation, v);
  }
  std::set<Vertex> orphans;
  bool classes_given = false;  // a backward node without a class gets one of its own
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].backward) continue;
    if (!g[v].colocation) {
      g[v].colocation = next_class++;
      classes_given = true;
    }
    const int cls = *g[v].colocation;
    if (forward_of_class.count(cls)) continue;
    orphans.insert(v);
    OpNode image;
    image.name = g[v].name + "/forward-image";
    image.op_type = "OrphanImage";
    image.artificial = true;
    image.colocation = cls;
    forward_of_class[cls] = addNode(g, std::move(image));
  }
  std::set<std::pair<Vertex, Vertex>> mirrored;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    Vertex u = boost::source(*it, g), w = boost::target(*it, g);
    if (!g[u].backward || !g[w].backward) continue;
    if (!orphans.count(u) && !orphans.count(w)) continue;
    Vertex fu = forward_of_class.at(*g[u].colocation), fw = forward_of_class.at(*g[w].colocation);
    if (fu != fw) mirrored.emplace(fw, fu);
  }
  for (const auto& [a, b] : mirrored)
    boost::add_edge(a, b, OpEdge{0, true}, g);
  std::vector<Vertex> identity(n);
  std::iota(identity.begin(), identity.end(), Vertex{0});
  PassResult result;
  result.changed = !orphans.empty() || classes_given;
  result.mapping = VertexMapping{std::move(identity)};
  result.cycles_possible = true;
  result.note = std::to_string(orphans.size()) + " orphaned backward node(s), " +
                std::to_string(mirrored.size()) + " mirrored edge(s)";
  return result;
}

}  // namespace placer
