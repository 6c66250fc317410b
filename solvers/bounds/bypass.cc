#include "solvers/bounds/bypass.h"

#include <algorithm>
#include <set>
#include <utility>

namespace placer {

namespace {

// Per vertex, the earliest and the latest level in the forward graph (every operator one level),
// over a topological order.
std::vector<int> slackOf(const OpGraph& g, const std::vector<Vertex>& order) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<int> earliest(n, 0), latest(n, 0);
  int depth = 0;
  for (Vertex v : order) {
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      const Vertex u = boost::source(*e, g);
      if (!g[u].backward) earliest[v] = std::max(earliest[v], earliest[u] + 1);
    }
    depth = std::max(depth, earliest[v]);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Vertex v = *it;
    latest[v] = depth;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const Vertex w = boost::target(*e, g);
      if (!g[w].backward) latest[v] = std::min(latest[v], latest[w] - 1);
    }
  }
  std::vector<int> slack(n, 0);
  for (Vertex v : order)
    slack[v] = latest[v] - earliest[v];
  return slack;
}

// Whether v has one input tensor that every edge into it carries, and every edge out of it carries
// one of its own tensors: `in_nets` is the number of nets v is a sink of, `in_source` the producer of
// the last of them, `sinks_of_v` the consumers of v's tensors.
bool isUnary(const OpGraph& g, Vertex v, int in_nets, Vertex in_source, const std::set<Vertex>& sinks_of_v) {
  if (in_nets != 1) return false;
  for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
    if (g[*e].artificial || boost::source(*e, g) != in_source) return false;
  }
  for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
    if (g[*e].artificial || !sinks_of_v.count(boost::target(*e, g))) return false;
  }
  return true;
}

}  // namespace

std::vector<BypassCandidate> bypassCandidates(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::optional<std::vector<Vertex>> order = forwardTopologicalOrder(g);
  if (!order) return {};
  std::vector<int> in_nets(n, 0);
  std::vector<Vertex> in_source(n, 0);
  std::vector<std::set<Vertex>> sinks_of(n);
  for (const Net& net : problem.nets) {
    sinks_of[net.source].insert(net.sinks.begin(), net.sinks.end());
    for (Vertex s : net.sinks) {
      ++in_nets[s];
      in_source[s] = net.source;
    }
  }
  const std::vector<int> slack = slackOf(g, *order);
  std::vector<BypassCandidate> out;
  for (Vertex v = 0; v < n; ++v) {
    if (g[v].backward || !g[v].supportedOnAccelerator()) continue;
    if (isUnary(g, v, in_nets[v], in_source[v], sinks_of[v])) out.push_back({v, slack[v]});
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const BypassCandidate& a, const BypassCandidate& b) { return a.slack > b.slack; });
  return out;
}

Bypassed bypassOperators(const Problem& problem, const std::vector<bool>& bypass) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  Bypassed out;
  out.problem.devices = problem.devices;
  out.problem.objective = problem.objective;
  out.problem.source = problem.source;
  std::vector<Vertex> index(n, 0);
  for (Vertex v = 0; v < n; ++v) {
    if (bypass[v]) {
      out.pool_acc += g[v].p_acc;
      ++out.count;
      continue;
    }
    index[v] = addNode(out.problem.graph, g[v]);
    out.kept.push_back(v);
  }
  std::vector<std::vector<std::size_t>> nets_of(n);
  for (std::size_t i = 0; i < problem.nets.size(); ++i)
    nets_of[problem.nets[i].source].push_back(i);
  std::set<std::pair<Vertex, Vertex>> edges;
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const Vertex u = boost::source(*e, g), w = boost::target(*e, g);
    if (bypass[u] || bypass[w]) continue;
    boost::add_edge(index[u], index[w], g[*e], out.problem.graph);
    edges.insert({index[u], index[w]});
  }
  // Each net of a kept producer, its consumers followed through bypassed operators (each has one
  // input, so it is reached from this net only), at the least cost along the way.
  for (const Net& net : problem.nets) {
    if (bypass[net.source]) continue;
    Net kept{index[net.source], {}, net.cost, net.cpu_cost, net.bytes};
    std::vector<Vertex> stack(net.sinks.begin(), net.sinks.end());
    std::set<Vertex> sinks;
    while (!stack.empty()) {
      const Vertex t = stack.back();
      stack.pop_back();
      if (!bypass[t]) {
        sinks.insert(index[t]);
        continue;
      }
      for (std::size_t i : nets_of[t]) {
        const Net& next = problem.nets[i];
        kept.cost = std::min(kept.cost, next.cost);
        kept.cpu_cost = std::min(kept.cpu_cost, next.cpu_cost);
        kept.bytes = std::min(kept.bytes, next.bytes);
        stack.insert(stack.end(), next.sinks.begin(), next.sinks.end());
      }
    }
    if (sinks.empty()) continue;
    kept.sinks.assign(sinks.begin(), sinks.end());
    for (Vertex s : kept.sinks) {
      if (edges.insert({kept.source, s}).second) {
        OpEdge edge;
        edge.cost = kept.cost;
        edge.cpu_cost = kept.cpu_cost;
        edge.bytes = kept.bytes;
        boost::add_edge(kept.source, s, edge, out.problem.graph);
      }
    }
    out.problem.nets.push_back(std::move(kept));
  }
  for (const SharedWeight& w : problem.weights) {
    SharedWeight kept{w.name, w.bytes, {}};
    for (Vertex r : w.readers) {
      if (!bypass[r]) kept.readers.push_back(index[r]);
    }
    if (kept.readers.size() == 1) out.problem.graph[kept.readers.front()].memory += w.bytes;
    if (kept.readers.size() >= 2) out.problem.weights.push_back(std::move(kept));
  }
  return out;
}

}  // namespace placer
