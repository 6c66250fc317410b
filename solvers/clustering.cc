#include "solvers/clustering.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <map>
#include <optional>
#include <queue>

namespace placer {

namespace {

// Per vertex, its unit (colocation class, or the vertex alone), numbered in the order of each unit's
// first vertex, so that unit order is first-vertex order.
std::vector<int> clusterUnitOfVertex(const OpGraph& g, int* count) {
  const std::size_t n = boost::num_vertices(g);
  std::vector<int> unit_of(n);
  std::map<int, int> unit_of_class;
  int units = 0;
  for (Vertex v = 0; v < n; ++v) {
    if (!g[v].colocation) {
      unit_of[v] = units++;
      continue;
    }
    auto [it, inserted] = unit_of_class.try_emplace(*g[v].colocation, units);
    if (inserted) ++units;
    unit_of[v] = it->second;
  }
  *count = units;
  return unit_of;
}

// A merge to try: units a < b, as they were when it was queued (a merge of either makes it stale).
struct ClusterMergeCandidate {
  double score = 0;
  int a = 0, b = 0;
  int version_a = 0, version_b = 0;
};

// Orders the queue's top as the smallest score, then the smallest (a, b).
struct ClusterCandidateLater {
  bool operator()(const ClusterMergeCandidate& x, const ClusterMergeCandidate& y) const {
    if (x.score != y.score) return x.score > y.score;
    if (x.a != y.a) return x.a > y.a;
    return x.b > y.b;
  }
};

// The greedy merging. Units are merged in place: the smaller id survives (so an id stays its unit's
// first vertex's rank), the other is linked to it in a union-find forest, and lists of neighbouring
// units hold ids that may since have been merged, resolved through find() when read. A candidate
// pair carries both units' versions, so a merge of either makes it stale instead of being searched
// for in the queue; whatever refuses a current pair (memory, support, device, a cycle) stays true
// until one of the two units changes, so a refused pair is dropped and only queued again then.
class OperatorClusterer {
 public:
  OperatorClusterer(const Problem& problem, const ClusterOptions& options);
  void run(int target);
  Clustering result();

 private:
  static constexpr int kForward = 0, kBackward = 1;

  struct Unit {
    std::vector<Vertex> vertices;  // sorted
    std::vector<int> weights;      // shared weights read, sorted
    std::vector<int> nets;         // nets with an end inside and one outside (or not yet pruned)
    std::vector<int> neighbours;   // units joined by an edge either way
    std::array<std::vector<int>, 2> successors;  // in the forward and the backward quotient
    double own_memory = 0;                       // the vertices' own memory, weights aside
    double memory = 0;                           // memoryOfSet(vertices)
    double cost = 0;                             // c(U)
    int device = 0;                              // -1: its vertices are on different devices
    bool unsupported = false;                    // holds a node an accelerator cannot run
    int version = 0;
  };

  void buildUnits();
  void buildAdjacency();
  int find(int u);
  bool mayMerge(int a, int b);
  void queueCandidates(int u, bool later_only);
  bool closesCycle(int a, int b);
  bool reaches(int from, int to, int side, bool around);
  int merge(int a, int b);
  std::vector<int> resolved(const std::vector<int>& ids, const std::vector<int>& more, int self);
  unsigned nextMark() { return ++mark_now_; }

  const Problem& problem_;
  const ClusterOptions& options_;
  std::vector<int> unit_of_vertex_;  // the vertex's first unit, resolved through find()
  std::vector<int> parent_;
  std::vector<Unit> units_;
  int alive_ = 0;
  std::priority_queue<ClusterMergeCandidate, std::vector<ClusterMergeCandidate>, ClusterCandidateLater>
      queue_;
  std::vector<unsigned> mark_;  // per unit: visited in the current search (mark_now_)
  unsigned mark_now_ = 0;
  std::vector<double> comm_;  // per unit: scratch for queueCandidates, zero between calls
  std::vector<int> stack_;
};

OperatorClusterer::OperatorClusterer(const Problem& problem, const ClusterOptions& options)
    : problem_(problem), options_(options) {
  assert((options.device_of.empty() || options.device_of.size() == boost::num_vertices(problem.graph)) &&
         "device_of must give one device per vertex");
  buildUnits();
  buildAdjacency();
  for (int u = 0; u < alive_; ++u)
    queueCandidates(u, /*later_only=*/true);
}

void OperatorClusterer::buildUnits() {
  const OpGraph& g = problem_.graph;
  unit_of_vertex_ = clusterUnitOfVertex(g, &alive_);
  units_.resize(static_cast<std::size_t>(alive_));
  parent_.resize(units_.size());
  for (int u = 0; u < alive_; ++u)
    parent_[u] = u;
  mark_.assign(units_.size(), 0);
  comm_.assign(units_.size(), 0);
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    Unit& unit = units_[unit_of_vertex_[v]];
    const OpNode& node = g[v];
    const int device = options_.device_of.empty() ? 0 : options_.device_of[v];
    if (unit.vertices.empty()) unit.device = device;
    if (unit.device != device) unit.device = -1;
    unit.vertices.push_back(v);
    unit.own_memory += node.memory;
    unit.cost += node.supportedOnAccelerator() ? node.p_acc : node.p_cpu;
    unit.unsupported = unit.unsupported || !node.supportedOnAccelerator();
  }
  // Ascending indices, each listed once per unit.
  for (std::size_t i = 0; i < problem_.weights.size(); ++i) {
    for (Vertex r : problem_.weights[i].readers) {
      std::vector<int>& weights = units_[unit_of_vertex_[r]].weights;
      if (weights.empty() || weights.back() != static_cast<int>(i)) weights.push_back(static_cast<int>(i));
    }
  }
  for (std::size_t i = 0; i < problem_.nets.size(); ++i) {
    const Net& net = problem_.nets[i];
    units_[unit_of_vertex_[net.source]].nets.push_back(static_cast<int>(i));
    for (Vertex s : net.sinks) {
      std::vector<int>& nets = units_[unit_of_vertex_[s]].nets;
      if (nets.empty() || nets.back() != static_cast<int>(i)) nets.push_back(static_cast<int>(i));
    }
  }
  for (Unit& unit : units_) {
    unit.memory = unit.own_memory;
    for (int w : unit.weights)
      unit.memory += problem_.weights[w].bytes;
  }
}

void OperatorClusterer::buildAdjacency() {
  const OpGraph& g = problem_.graph;
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex x = boost::source(*it, g), y = boost::target(*it, g);
    const int a = unit_of_vertex_[x], b = unit_of_vertex_[y];
    if (a == b) continue;
    units_[a].neighbours.push_back(b);
    units_[b].neighbours.push_back(a);
    if (g[x].backward == g[y].backward)
      units_[a].successors[g[x].backward ? kBackward : kForward].push_back(b);
  }
  for (Unit& unit : units_) {
    for (std::vector<int>* list :
         {&unit.neighbours, &unit.successors[kForward], &unit.successors[kBackward]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
  }
}

int OperatorClusterer::find(int u) {
  while (parent_[u] != u) {
    parent_[u] = parent_[parent_[u]];
    u = parent_[u];
  }
  return u;
}

// Whether units a and b may join, cycles aside: on one device, the same support, within memory.
bool OperatorClusterer::mayMerge(int a, int b) {
  const Unit& x = units_[a];
  const Unit& y = units_[b];
  if (x.device < 0 || x.device != y.device || x.unsupported != y.unsupported) return false;
  const double limit = problem_.devices.memory;
  if (x.memory > limit || y.memory > limit) return false;
  std::vector<int> weights;
  std::set_union(x.weights.begin(), x.weights.end(), y.weights.begin(), y.weights.end(),
                 std::back_inserter(weights));
  double memory = x.own_memory + y.own_memory;
  for (int w : weights)
    memory += problem_.weights[w].bytes;
  // Near the limit, the sum in memoryOfSet's own order decides.
  if (std::isfinite(limit) && std::abs(memory - limit) <= 1e-9 * limit) {
    std::vector<Vertex> both;
    std::merge(x.vertices.begin(), x.vertices.end(), y.vertices.begin(), y.vertices.end(),
               std::back_inserter(both));
    memory = memoryOfSet(problem_, both);
  }
  return memory <= limit;
}

// Queues a merge of u with each neighbour (with a larger id only, when every unit is queued in turn)
// that may merge with it. comm(u, w) for every neighbour w comes from one pass over u's nets, which
// also drops the nets that have become internal to u.
void OperatorClusterer::queueCandidates(int u, bool later_only) {
  Unit& unit = units_[u];
  std::vector<int> touched;
  std::vector<int> kept_nets;
  kept_nets.reserve(unit.nets.size());
  auto add = [&](int w, double cost) {
    if (comm_[w] == 0) touched.push_back(w);
    comm_[w] += cost;
  };
  for (int i : unit.nets) {
    const Net& net = problem_.nets[i];
    const int source = find(unit_of_vertex_[net.source]);
    if (source != u) {  // a sink is inside u
      add(source, net.cost);
      kept_nets.push_back(i);
      continue;
    }
    const unsigned mark = nextMark();
    bool outside = false;
    for (Vertex s : net.sinks) {
      const int w = find(unit_of_vertex_[s]);
      if (w == u) continue;
      outside = true;
      if (mark_[w] == mark) continue;
      mark_[w] = mark;
      add(w, net.cost);
    }
    if (outside) kept_nets.push_back(i);
  }
  unit.nets = std::move(kept_nets);
  for (int w : unit.neighbours) {
    if (later_only && w < u) continue;
    if (!mayMerge(u, w)) continue;
    ClusterMergeCandidate candidate;
    candidate.score = unit.cost + units_[w].cost - options_.alpha * comm_[w];
    candidate.a = std::min(u, w);
    candidate.b = std::max(u, w);
    candidate.version_a = units_[candidate.a].version;
    candidate.version_b = units_[candidate.b].version;
    queue_.push(candidate);
  }
  for (int w : touched)
    comm_[w] = 0;
}

// A path from `from` to `to` in one side's quotient; with `around`, one through other units only
// (the direct edge from -> to does not count).
bool OperatorClusterer::reaches(int from, int to, int side, bool around) {
  const unsigned mark = nextMark();
  mark_[from] = mark;
  stack_.assign(1, from);
  while (!stack_.empty()) {
    const int x = stack_.back();
    stack_.pop_back();
    for (int id : units_[x].successors[side]) {
      const int y = find(id);
      if (y == to) {
        if (around && x == from) continue;
        return true;
      }
      if (mark_[y] == mark) continue;
      mark_[y] = mark;
      stack_.push_back(y);
    }
  }
  return false;
}

// Whether merging a and b would put a unit on a cycle of either quotient it was not on: a path
// a -> w -> ... -> b through other units puts every w on one, unless b reaches a already (then a,
// b and w are on one cycle before the merge).
bool OperatorClusterer::closesCycle(int a, int b) {
  for (int side : {kForward, kBackward}) {
    if (reaches(a, b, side, true) && !reaches(b, a, side, false)) return true;
    if (reaches(b, a, side, true) && !reaches(a, b, side, false)) return true;
  }
  return false;
}

// `ids` and `more` resolved to current units, without `self`, sorted, each once.
std::vector<int> OperatorClusterer::resolved(const std::vector<int>& ids, const std::vector<int>& more,
                                             int self) {
  std::vector<int> out;
  out.reserve(ids.size() + more.size());
  for (const std::vector<int>* list : {&ids, &more}) {
    for (int id : *list) {
      const int u = find(id);
      if (u != self) out.push_back(u);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Merges b into a (a < b); returns a.
int OperatorClusterer::merge(int a, int b) {
  Unit& x = units_[a];
  Unit& y = units_[b];
  parent_[b] = a;
  std::vector<Vertex> vertices;
  std::merge(x.vertices.begin(), x.vertices.end(), y.vertices.begin(), y.vertices.end(),
             std::back_inserter(vertices));
  x.vertices = std::move(vertices);
  std::vector<int> weights;
  std::set_union(x.weights.begin(), x.weights.end(), y.weights.begin(), y.weights.end(),
                 std::back_inserter(weights));
  x.weights = std::move(weights);
  std::vector<int> nets;
  std::set_union(x.nets.begin(), x.nets.end(), y.nets.begin(), y.nets.end(), std::back_inserter(nets));
  x.nets = std::move(nets);
  x.neighbours = resolved(x.neighbours, y.neighbours, a);
  for (int side : {kForward, kBackward})
    x.successors[side] = resolved(x.successors[side], y.successors[side], a);
  x.own_memory += y.own_memory;
  x.memory = x.own_memory;
  for (int w : x.weights)
    x.memory += problem_.weights[w].bytes;
  x.cost += y.cost;
  ++x.version;
  y = Unit{};  // b is gone: parent_[b] != b makes its candidates stale
  --alive_;
  return a;
}

void OperatorClusterer::run(int target) {
  while (alive_ > target && !queue_.empty()) {
    const ClusterMergeCandidate candidate = queue_.top();
    if (options_.budget.exhausted()) break;
    queue_.pop();
    const int a = candidate.a, b = candidate.b;
    if (parent_[a] != a || parent_[b] != b || units_[a].version != candidate.version_a ||
        units_[b].version != candidate.version_b) {
      continue;  // stale: one of the two has merged since
    }
    if (closesCycle(a, b)) continue;
    queueCandidates(merge(a, b), /*later_only=*/false);
  }
}

Clustering OperatorClusterer::result() {
  const OpGraph& g = problem_.graph;
  const std::size_t n = boost::num_vertices(g);
  Clustering out;
  out.group_of.resize(n);
  std::vector<std::array<int, 2>> group_of_unit(units_.size(), {-1, -1});
  std::vector<int> number(units_.size(), -1);  // units renumbered by first vertex
  for (Vertex v = 0; v < n; ++v) {
    const int unit = find(unit_of_vertex_[v]);
    int& group = group_of_unit[unit][g[v].backward ? kBackward : kForward];
    if (number[unit] < 0) number[unit] = out.units++;
    if (group < 0) {
      group = out.groups++;
      out.unit_of_group.push_back(number[unit]);
    }
    out.group_of[v] = group;
  }
  assert(out.units == alive_);
  return out;
}

}  // namespace

int countClusterUnits(const Problem& problem) {
  int units = 0;
  clusterUnitOfVertex(problem.graph, &units);
  return units;
}

int defaultClusterTarget(const Problem& problem) {
  return std::min(countClusterUnits(problem), std::max(64, 16 * problem.devices.count()));
}

Clustering clusterOperators(const Problem& problem, const ClusterOptions& options) {
  OperatorClusterer clusterer(problem, options);
  clusterer.run(options.target > 0 ? options.target : defaultClusterTarget(problem));
  return clusterer.result();
}

namespace {

// Per cluster, its unit: the clustering's own record when it has one, else (a Clustering put together
// by hand) the clusters that hold vertices of one input unit, joined.
std::vector<int> clusterUnitOfGroup(const Problem& problem, const Clustering& clustering) {
  if (clustering.unit_of_group.size() == static_cast<std::size_t>(clustering.groups))
    return clustering.unit_of_group;
  const OpGraph& g = problem.graph;
  int input_units = 0;
  const std::vector<int> unit_of = clusterUnitOfVertex(g, &input_units);
  std::vector<int> parent(static_cast<std::size_t>(input_units));
  for (int u = 0; u < input_units; ++u)
    parent[u] = u;
  auto root = [&](int u) {
    while (parent[u] != u)
      u = parent[u] = parent[parent[u]];
    return u;
  };
  std::vector<int> first_unit(static_cast<std::size_t>(clustering.groups), -1);
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    int& unit = first_unit[clustering.group_of[v]];
    if (unit < 0) unit = unit_of[v];
    const int p = root(unit), q = root(unit_of[v]);
    if (p != q) parent[std::max(p, q)] = std::min(p, q);
  }
  for (int& unit : first_unit)
    unit = root(unit);
  return first_unit;
}

}  // namespace

Problem contractClusters(const Problem& problem, const Clustering& clustering) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  assert(clustering.group_of.size() == n && "the clustering must be of this problem");
  const std::vector<int> unit_of_group = clusterUnitOfGroup(problem, clustering);
  const std::size_t units =
      unit_of_group.empty() ? 0 : 1 + *std::max_element(unit_of_group.begin(), unit_of_group.end());
  // Per unit: its first forward and first backward class, and whether it has both sides.
  std::vector<std::optional<int>> forward_class(units), backward_class(units);
  std::vector<std::array<bool, 2>> sides(units, {false, false});
  int next_class = 0;
  for (Vertex v = 0; v < n; ++v) {
    const int u = unit_of_group[clustering.group_of[v]];
    sides[u][g[v].backward ? 1 : 0] = true;
    std::optional<int>& cls = g[v].backward ? backward_class[u] : forward_class[u];
    if (!cls) cls = g[v].colocation;
    if (g[v].colocation) next_class = std::max(next_class, *g[v].colocation + 1);
  }
  std::vector<std::optional<int>> class_of(units);
  for (std::size_t u = 0; u < units; ++u) {
    class_of[u] = forward_class[u] ? forward_class[u] : backward_class[u];
    if (!class_of[u] && sides[u][0] && sides[u][1]) class_of[u] = next_class++;
  }
  Problem out = contractGroups(problem, clustering.group_of, clustering.groups);
  for (int c = 0; c < clustering.groups; ++c)
    out.graph[c].colocation = class_of[unit_of_group[c]];
  return out;
}

}  // namespace placer
