#include "solvers/baselines/pipedream.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>
#include <queue>
#include <string>

#include "core/budget.h"
#include "core/evaluate.h"

namespace placer {

namespace {

// The forward graph's adjacency (edges between forward nodes).
struct ForwardLinks {
  std::vector<std::vector<Vertex>> succ, pred;
  std::vector<char> forward;
};

ForwardLinks forwardLinks(const OpGraph& g) {
  const std::size_t n = boost::num_vertices(g);
  ForwardLinks links{std::vector<std::vector<Vertex>>(n), std::vector<std::vector<Vertex>>(n),
                     std::vector<char>(n, 0)};
  for (Vertex v = 0; v < n; ++v)
    links.forward[v] = !g[v].backward;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex a = boost::source(*it, g), b = boost::target(*it, g);
    if (!links.forward[a] || !links.forward[b]) continue;
    links.succ[a].push_back(b);
    links.pred[b].push_back(a);
  }
  return links;
}

// Nodes that are no layer of the path: sources and sinks, and zero-time nodes all of whose producers
// or all of whose consumers are such nodes (a mask built from an input, a side output's last view).
std::vector<char> offSpine(const OpGraph& g, const ForwardLinks& links) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<char> off(n, 0);
  for (Vertex v = 0; v < n; ++v)
    off[v] = links.forward[v] && (links.pred[v].empty() || links.succ[v].empty());
  auto allOff = [&](const std::vector<Vertex>& list) {
    return std::all_of(list.begin(), list.end(), [&](Vertex u) { return off[u] != 0; });
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (Vertex v = 0; v < n; ++v) {
      if (!links.forward[v] || off[v] || g[v].p_acc != 0) continue;
      if (allOff(links.pred[v]) || allOff(links.succ[v])) {
        off[v] = 1;
        changed = true;
      }
    }
  }
  return off;
}

// Kahn's order of the spine (edges between spine nodes), smallest index first among ready nodes.
std::vector<Vertex> spineOrder(const ForwardLinks& links, const std::vector<char>& on) {
  const std::size_t n = on.size();
  std::vector<int> waiting(n, 0);
  std::priority_queue<Vertex, std::vector<Vertex>, std::greater<>> ready;
  for (Vertex v = 0; v < n; ++v) {
    if (!on[v]) continue;
    for (Vertex u : links.pred[v])
      waiting[v] += on[u] ? 1 : 0;
    if (waiting[v] == 0) ready.push(v);
  }
  std::vector<Vertex> order;
  while (!ready.empty()) {
    const Vertex v = ready.top();
    ready.pop();
    order.push_back(v);
    for (Vertex w : links.succ[v]) {
      if (on[w] && --waiting[w] == 0) ready.push(w);
    }
  }
  return order;
}

// Per position of `order`, whether its node is a cut: no spine edge jumps over it, every node before
// it reaches it and it reaches every node after it (the farthest position each node reaches, the
// earliest position that reaches each node, both over spine edges).
std::vector<char> cutPositions(const ForwardLinks& links, const std::vector<char>& on,
                               const std::vector<Vertex>& order) {
  const std::size_t m = order.size();
  std::vector<std::size_t> pos(on.size(), 0);
  for (std::size_t i = 0; i < m; ++i)
    pos[order[i]] = i;
  std::vector<int> jumps(m + 1, 0);
  std::vector<std::size_t> reach_max(m), reached_min(m);
  for (std::size_t i = m; i-- > 0;) {
    reach_max[i] = i;
    for (Vertex w : links.succ[order[i]]) {
      if (!on[w]) continue;
      reach_max[i] = std::max(reach_max[i], reach_max[pos[w]]);
      if (pos[w] > i + 1) {
        ++jumps[i + 1];
        --jumps[pos[w]];
      }
    }
  }
  for (std::size_t i = 0; i < m; ++i) {
    reached_min[i] = i;
    for (Vertex u : links.pred[order[i]]) {
      if (on[u]) reached_min[i] = std::min(reached_min[i], reached_min[pos[u]]);
    }
  }
  std::vector<std::size_t> suffix_max(m + 1, 0);  // max reached_min over positions > i
  for (std::size_t i = m; i-- > 0;)
    suffix_max[i] = i + 1 < m ? std::max(suffix_max[i + 1], reached_min[i + 1]) : 0;
  std::vector<char> cut(m, 0);
  int over = 0;
  std::size_t prefix_min = m;  // min reach_max over positions < i
  for (std::size_t i = 0; i < m; ++i) {
    over += jumps[i];
    cut[i] = over == 0 && (i == 0 || prefix_min >= i) && suffix_max[i] <= i;
    prefix_min = std::min(prefix_min, reach_max[i]);
  }
  return cut;
}

// Segments of the spine: a cut alone, or a cut that forks a branching with the nodes up to the next
// cut (which joins it and starts the next segment).
void segmentSpine(const std::vector<Vertex>& order, const std::vector<char>& cut, std::vector<int>& segment) {
  int next = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const bool opens = cut[i] || i == 0;
    if (opens) ++next;
    segment[order[i]] = next - 1;
  }
}

// Nodes off the spine: the segment of their last producer, or of their first consumer.
void attachOffSpine(const OpGraph& g, const ForwardLinks& links, std::vector<int>& segment) {
  auto order = forwardTopologicalOrder(g);
  if (!order) return;
  for (Vertex v : *order) {
    if (segment[v] >= 0) continue;
    for (Vertex u : links.pred[v])
      segment[v] = std::max(segment[v], segment[u]);
  }
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    if (segment[*it] >= 0) continue;
    int first = -1;
    for (Vertex w : links.succ[*it]) {
      if (segment[w] >= 0) first = first < 0 ? segment[w] : std::min(first, segment[w]);
    }
    segment[*it] = first;
  }
}

std::size_t findRootOf(std::vector<std::size_t>& parent, std::size_t x) {
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

}  // namespace

std::vector<int> pathSegments(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const ForwardLinks links = forwardLinks(g);
  const std::vector<char> off = offSpine(g, links);
  std::vector<char> on(off.size());
  for (std::size_t v = 0; v < on.size(); ++v)
    on[v] = links.forward[v] && !off[v];
  const std::vector<Vertex> order = spineOrder(links, on);
  std::vector<int> segment(on.size(), -1);
  segmentSpine(order, cutPositions(links, on, order), segment);
  attachOffSpine(g, links, segment);
  return segment;
}

Problem contractToPath(const Problem& problem) {
  Problem path = problem;
  OpGraph& g = path.graph;
  const std::size_t n = boost::num_vertices(g);
  const std::vector<int> segment = pathSegments(problem);
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  std::vector<std::size_t> first_of_segment(n, n);
  std::vector<std::pair<int, std::size_t>> first_of_class;  // (class, vertex), sorted below
  for (Vertex v = 0; v < n; ++v) {
    if (g[v].colocation) first_of_class.emplace_back(*g[v].colocation, v);
  }
  std::sort(first_of_class.begin(), first_of_class.end());
  for (std::size_t i = 1; i < first_of_class.size(); ++i) {
    if (first_of_class[i].first == first_of_class[i - 1].first)
      parent[findRootOf(parent, first_of_class[i].second)] = findRootOf(parent, first_of_class[i - 1].second);
  }
  for (Vertex v = 0; v < n; ++v) {
    if (segment[v] < 0) continue;
    std::size_t& first = first_of_segment[static_cast<std::size_t>(segment[v])];
    if (first == n)
      first = v;
    else
      parent[findRootOf(parent, v)] = findRootOf(parent, first);
  }
  // A class per root that holds two or more vertices or held a class before.
  std::vector<int> size(n, 0);
  for (Vertex v = 0; v < n; ++v)
    ++size[findRootOf(parent, v)];
  for (Vertex v = 0; v < n; ++v) {
    const std::size_t root = findRootOf(parent, v);
    if (size[root] > 1 || g[v].colocation) g[v].colocation = static_cast<int>(root);
  }
  return path;
}

SolveResult solvePipeDream(const Problem& problem, const SolveOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  SolveResult result;
  if (!options.dp_split) {
    result.message = "pipedream needs the DP of the partition pass (no dp_split given)";
    return result;
  }
  const Problem path = contractToPath(problem);
  auto split = options.dp_split(path, /*linear=*/false, options.budget);
  if (!split) {
    switch (split.status().code()) {
      case StatusCode::Interrupted:
        result.status = SolveStatus::Interrupted;
        break;
      case StatusCode::Infeasible:
        result.status = SolveStatus::Infeasible;
        break;
      case StatusCode::TimeLimit:
        result.status = SolveStatus::TimeLimit;
        break;
      case StatusCode::ResourceLimit:
        result.status = SolveStatus::ResourceLimit;
        break;
      default:
        result.status = SolveStatus::Error;
        break;
    }
    result.message = "pipedream: " + split.status().message();
    return result;
  }
  result = std::move(*split);
  if (result.status != SolveStatus::Optimal && result.status != SolveStatus::Feasible) return result;
  const std::vector<int> segment = pathSegments(problem);
  const int segments = segment.empty() ? 0 : *std::max_element(segment.begin(), segment.end()) + 1;
  // Optimal on the path only: no bound for the problem as given.
  result.status = SolveStatus::Feasible;
  result.value = evaluateThroughput(problem, result.placement.device_of).max_load;
  result.placement.value = result.value;
  result.bound = 0;
  result.gap = result.value > 0 ? 1.0 : 0.0;
  result.certificate = Certificate{};
  result.message = "the DP on a path of " + std::to_string(segments) + " segments (branchings contracted)";
  result.stats.seconds = secondsSince(started);
  return result;
}

}  // namespace placer
