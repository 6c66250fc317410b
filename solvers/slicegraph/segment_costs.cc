#include "solvers/slicegraph/segment_costs.h"

#include <algorithm>
#include <map>

#include "core/evaluate.h"

namespace placer {

UnitGraph makeUnitGraph(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const std::size_t n_vertices = boost::num_vertices(g);
  UnitGraph units;
  units.memory_limit = problem.devices.memory;
  units.accelerators = problem.devices.accelerators;
  units.cpus = problem.devices.cpus;
  units.overlap = problem.objective.overlap;
  units.unit_of.assign(n_vertices, -1);

  const std::vector<Vertex> forward = forwardTopologicalOrder(g).value_or(std::vector<Vertex>{});
  std::map<int, Vertex> backward_of_class;
  for (Vertex v = 0; v < n_vertices; ++v) {
    if (g[v].backward && g[v].colocation) backward_of_class[*g[v].colocation] = v;
  }
  const int n = static_cast<int>(forward.size());
  units.vertices.resize(n);
  units.p_acc.assign(n, 0);
  units.p_cpu.assign(n, 0);
  units.memory.assign(n, 0);
  units.unsupported.assign(n, 0);
  for (int u = 0; u < n; ++u) {
    units.vertices[u].push_back(forward[u]);
    if (const OpNode& f = g[forward[u]]; f.colocation) {
      if (auto it = backward_of_class.find(*f.colocation); it != backward_of_class.end())
        units.vertices[u].push_back(it->second);
    }
    for (Vertex v : units.vertices[u]) {
      units.unit_of[v] = u;
      if (g[v].supportedOnAccelerator()) {
        units.p_acc[u] += g[v].p_acc;
      } else {
        units.unsupported[u] = 1;
      }
      units.p_cpu[u] += g[v].p_cpu;
      units.memory[u] += g[v].memory;
    }
  }
  units.preds.assign(n, {});
  units.succs.assign(n, {});
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex a = boost::source(*it, g), b = boost::target(*it, g);
    if (g[a].backward || g[b].backward) continue;
    const int ua = units.unit_of[a], ub = units.unit_of[b];
    if (ua < 0 || ub < 0 || ua == ub) continue;
    units.preds[ub].push_back(ua);
    units.succs[ua].push_back(ub);
  }
  for (auto* lists : {&units.preds, &units.succs}) {
    for (auto& l : *lists) {
      std::sort(l.begin(), l.end());
      l.erase(std::unique(l.begin(), l.end()), l.end());
    }
  }
  for (const Net& net : problem.nets) {
    UnitGraph::UnitNet un;
    un.source = units.unit_of[net.source];
    for (Vertex s : net.sinks) {
      if (const int u = units.unit_of[s]; u != un.source) un.sinks.push_back(u);
    }
    std::sort(un.sinks.begin(), un.sinks.end());
    un.sinks.erase(std::unique(un.sinks.begin(), un.sinks.end()), un.sinks.end());
    if (un.sinks.empty()) continue;  // inside one unit: never cut
    un.cost = net.cost;
    un.cpu_cost = net.cpu_cost;
    units.nets.push_back(std::move(un));
  }
  for (const SharedWeight& w : problem.weights) {
    UnitGraph::UnitWeight uw;
    for (Vertex r : w.readers)
      uw.readers.push_back(units.unit_of[r]);
    std::sort(uw.readers.begin(), uw.readers.end());
    uw.readers.erase(std::unique(uw.readers.begin(), uw.readers.end()), uw.readers.end());
    if (uw.readers.size() == 1) {  // read by one unit only: its own memory
      units.memory[uw.readers.front()] += w.bytes;
      continue;
    }
    uw.bytes = w.bytes;
    units.weights.push_back(std::move(uw));
  }
  return units;
}

double SegmentLoad::acceleratorCost(const UnitGraph& units) const {
  if (units.accelerators == 0 || unsupported || memory > units.memory_limit) return kInfinity;
  return acceleratorLoad(units.overlap, p_acc, comm_in, comm_out);
}

template <int K>
void SegmentCosts::Fenwick<K>::add(int position, const double (&value)[K]) {
  for (std::size_t i = static_cast<std::size_t>(position) + 1; i < tree_.size(); i += i & (~i + 1)) {
    for (int k = 0; k < K; ++k)
      tree_[i].v[k] += value[k];
  }
}

template <int K>
void SegmentCosts::Fenwick<K>::prefix(int end, double (&out)[K]) const {
  for (int k = 0; k < K; ++k)
    out[k] = 0;
  for (std::size_t i = static_cast<std::size_t>(end); i > 0; i &= i - 1) {
    for (int k = 0; k < K; ++k)
      out[k] += tree_[i].v[k];
  }
}

SegmentCosts::SegmentCosts(const UnitGraph& units, const std::vector<int>& order)
    : n_(static_cast<int>(order.size())),
      before_tree_(n_ + 1),
      after_tree_(n_ + 1),
      inside_tree_(n_ + 1),
      reader_tree_(n_ + 1) {
  std::vector<int> position(units.size(), -1);
  for (int i = 0; i < n_; ++i)
    position[order[i]] = i;

  acc_prefix_.assign(n_ + 1, 0);
  cpu_prefix_.assign(n_ + 1, 0);
  own_memory_prefix_.assign(n_ + 1, 0);
  last_unsupported_.assign(n_ + 1, 0);
  for (int i = 0; i < n_; ++i) {
    const int u = order[i];
    acc_prefix_[i + 1] = acc_prefix_[i] + units.p_acc[u];
    cpu_prefix_[i + 1] = cpu_prefix_[i] + units.p_cpu[u];
    own_memory_prefix_[i + 1] = own_memory_prefix_[i] + units.memory[u];
    last_unsupported_[i + 1] = units.unsupported[u] ? i + 1 : last_unsupported_[i];
  }

  // Per-position costs of nets produced there and of the "incoming from before" points, turned
  // into prefix sums below.
  for (int k = 0; k < 2; ++k) {
    produced_prefix_[k].assign(n_ + 1, 0);
    before_prefix_[k].assign(n_ + 1, 0);
  }
  reader_prefix_.assign(n_ + 1, 0);
  std::vector<int> members;
  for (const UnitGraph::UnitNet& net : units.nets) {
    const int p = position[net.source];
    members.clear();
    for (int s : net.sinks)
      members.push_back(position[s]);
    std::sort(members.begin(), members.end());
    produced_prefix_[0][p + 1] += net.cost;
    produced_prefix_[1][p + 1] += net.cpu_cost;
    const auto split = std::lower_bound(members.begin(), members.end(), p);
    int prev = p;
    for (auto it = split; it != members.end(); ++it) {  // consumers after the producer
      before_.push_back({*it, prev, net.cost, net.cpu_cost});
      before_prefix_[0][*it + 1] += net.cost;
      before_prefix_[1][*it + 1] += net.cpu_cost;
      prev = *it;
    }
    int next = p;
    for (auto it = split; it != members.begin();) {  // consumers before it, nearest first
      --it;
      after_.push_back({next, *it, net.cost, net.cpu_cost});
      next = *it;
    }
    const int lo = std::min(p, members.front()), hi = std::max(p, members.back());
    inside_.push_back({hi, lo, net.cost, net.cpu_cost});
  }
  for (const UnitGraph::UnitWeight& w : units.weights) {
    members.clear();
    for (int r : w.readers)
      members.push_back(position[r]);
    std::sort(members.begin(), members.end());
    int prev = -1;
    for (int u : members) {
      readers_.push_back({u, prev + 1, w.bytes, 0});
      reader_prefix_[u + 1] += w.bytes;
      prev = u;
    }
  }
  for (int i = 0; i < n_; ++i) {
    for (int k = 0; k < 2; ++k) {
      produced_prefix_[k][i + 1] += produced_prefix_[k][i];
      before_prefix_[k][i + 1] += before_prefix_[k][i];
    }
    reader_prefix_[i + 1] += reader_prefix_[i];
  }
  auto by_key = [](const Point& a, const Point& b) { return a.key < b.key; };
  for (auto* points : {&before_, &after_, &inside_, &readers_})
    std::stable_sort(points->begin(), points->end(), by_key);
  // Every "incoming from after" point is in its tree until the sweep passes its key.
  for (const Point& pt : after_)
    after_tree_.add(pt.other, {pt.cost, pt.cpu_cost});
}

void SegmentCosts::advance(int end) {
  end = std::min(end, n_);
  if (end <= end_) return;
  end_ = end;
  for (; before_next_ < before_.size() && before_[before_next_].key < end_; ++before_next_) {
    const Point& pt = before_[before_next_];
    before_tree_.add(pt.other, {pt.cost, pt.cpu_cost});
  }
  for (; after_next_ < after_.size() && after_[after_next_].key < end_; ++after_next_) {
    const Point& pt = after_[after_next_];
    after_tree_.add(pt.other, {-pt.cost, -pt.cpu_cost});
  }
  for (; inside_next_ < inside_.size() && inside_[inside_next_].key < end_; ++inside_next_) {
    const Point& pt = inside_[inside_next_];
    inside_tree_.add(pt.other, {pt.cost, pt.cpu_cost});
  }
  for (; readers_next_ < readers_.size() && readers_[readers_next_].key < end_; ++readers_next_) {
    const Point& pt = readers_[readers_next_];
    reader_tree_.add(pt.other, {pt.cost});
  }
}

double SegmentCosts::memory(int begin) const {
  double shared[1];
  reader_tree_.prefix(begin + 1, shared);
  const double weights = shared[0] - reader_prefix_[begin];
  return own_memory_prefix_[end_] - own_memory_prefix_[begin] + std::max(0.0, weights);
}

SegmentLoad SegmentCosts::load(int begin) const {
  SegmentLoad s;
  s.p_acc = accCompute(begin);
  s.p_cpu = cpuCompute(begin);
  s.unsupported = last_unsupported_[end_] > begin;
  s.memory = memory(begin);
  double in_before[2], after_low[2], after_high[2], inside_low[2], inside_all[2];
  before_tree_.prefix(begin, in_before);
  after_tree_.prefix(begin, after_low);
  after_tree_.prefix(end_, after_high);
  inside_tree_.prefix(begin, inside_low);
  inside_tree_.prefix(n_ + 1, inside_all);
  double in[2], out[2];
  for (int k = 0; k < 2; ++k) {
    in[k] =
        std::max(0.0, in_before[k] - before_prefix_[k][begin]) + std::max(0.0, after_high[k] - after_low[k]);
    const double produced = produced_prefix_[k][end_] - produced_prefix_[k][begin];
    out[k] = std::max(0.0, produced - (inside_all[k] - inside_low[k]));
  }
  s.comm_in = in[0];
  s.comm_out = out[0];
  s.cpu_comm = in[1] + out[1];
  return s;
}

}  // namespace placer
