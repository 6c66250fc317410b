#include "passes/subdivide.h"

#include <algorithm>
#include <numeric>

namespace placer {

namespace {

int nextFreeClass(const OpGraph& g) {
  int next = 0;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].colocation) next = std::max(next, *g[v].colocation + 1);
  }
  return next;
}

// Replaces u's data edges by u -> w_j -> (sinks of net j), one w_j per net of u.
int subdivide(Problem& problem, Vertex u, const std::vector<std::size_t>& net_ids, int& next_class) {
  OpGraph& g = problem.graph;
  if (!g[u].colocation) g[u].colocation = next_class++;
  boost::remove_out_edge_if(
      u, [&](const Edge& e) { return !g[e].artificial; }, g);
  Net fan_out{u, {}, 0};
  for (std::size_t j = 0; j < net_ids.size(); ++j) {
    Net& net = problem.nets[net_ids[j]];
    OpNode w;
    w.name = g[u].name + "/out" + std::to_string(j);
    w.op_type = "Subdivision";
    w.backward = g[u].backward;
    w.artificial = true;
    w.colocation = g[u].colocation;
    w.out_cost = net.cost;
    Vertex wv = addNode(g, std::move(w));
    boost::add_edge(u, wv, OpEdge{0, false}, g);
    for (Vertex s : net.sinks)
      boost::add_edge(wv, s, OpEdge{net.cost, false, net.cpu_cost, net.bytes}, g);
    net.source = wv;
    fan_out.sinks.push_back(wv);
  }
  g[u].out_cost = 0;
  problem.nets.push_back(std::move(fan_out));
  return static_cast<int>(net_ids.size());
}

}  // namespace

Expected<PassResult> SubdividePass::run(Problem& problem, const PassOptions&, PipelineState&) {
  const std::size_t n = boost::num_vertices(problem.graph);
  std::vector<std::vector<std::size_t>> nets_of(n);
  for (std::size_t i = 0; i < problem.nets.size(); ++i)
    nets_of[problem.nets[i].source].push_back(i);
  int next_class = nextFreeClass(problem.graph);
  int subdivided = 0, created = 0;
  for (Vertex u = 0; u < n; ++u) {
    if (nets_of[u].size() == 1) problem.graph[u].out_cost = problem.nets[nets_of[u].front()].cost;
    if (nets_of[u].size() <= 1) continue;
    ++subdivided;
    created += subdivide(problem, u, nets_of[u], next_class);
  }
  std::vector<Vertex> identity(n);
  std::iota(identity.begin(), identity.end(), Vertex{0});
  PassResult result;
  // out_cost is set on every node even when nothing is subdivided.
  result.changed = true;
  result.mapping = VertexMapping{std::move(identity)};
  result.note = std::to_string(subdivided) + " node(s) with differing outgoing costs, " +
                std::to_string(created) + " subdivision node(s) added";
  return result;
}

}  // namespace placer
