// Starting splits for the latency integer program: the greedy and baseline splits, segment splits
// of topological orders of the greedy's blocks, and a local search from the best of them, each
// scored by the latency evaluator (core/latency.h). Split out of latency_ip.cc: they are primal
// heuristics with no GLPK in them.
#include "solvers/latency_starts.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <queue>
#include <random>
#include <utility>

#include "core/budget.h"
#include "core/latency.h"
#include "solvers/ip_common.h"
#include "solvers/latency_greedy.h"

namespace placer {

namespace {

// Segment splits (a primal heuristic, in the spirit of SliceGraph's slicing of topological orders):
// the blocks of the greedy (colocation classes and the cycles they close, contracted) are put in a
// topological order, and the order is cut into consecutive segments, each on an accelerator of its
// own (at most k) or on the CPU. A segment of a topological order is contiguous, so the split is one
// the contiguous program can represent. Run one after another, the segments take at most the sum of
// their durations (in-transfers + p_acc + out-transfers, or p_cpu on the CPU), and a DP over cut
// positions minimises that sum exactly; the real latency, with independent segments overlapping,
// is then scored by the evaluator.
class SegmentSplitter {
 public:
  explicit SegmentSplitter(const Problem& problem) : problem_(problem) {
    const OpGraph& g = problem.graph;
    blocks_ = latencyGreedyBlocks(problem);
    const int count = static_cast<int>(blocks_.size());
    block_of_.assign(boost::num_vertices(g), 0);
    for (int b = 0; b < count; ++b) {
      for (Vertex v : blocks_[b])
        block_of_[v] = b;
    }
    memory_.assign(count, 0);
    p_acc_.assign(count, 0);
    p_cpu_.assign(count, 0);
    on_accelerator_.assign(count, 1);
    for (int b = 0; b < count; ++b) {
      for (Vertex v : blocks_[b]) {
        memory_[b] += g[v].memory;
        p_acc_[b] += g[v].p_acc;
        p_cpu_[b] += g[v].p_cpu;
        if (!g[v].supportedOnAccelerator()) on_accelerator_[b] = 0;
      }
    }
    // A shared weight read by one block is that block's memory; one read by several is held once
    // by each segment that holds any of them (weights_of_).
    weights_of_.resize(count);
    for (std::size_t w = 0; w < problem.weights.size(); ++w) {
      std::vector<int> readers;
      for (Vertex r : problem.weights[w].readers)
        readers.push_back(block_of_[r]);
      std::sort(readers.begin(), readers.end());
      readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
      if (readers.size() == 1) {
        memory_[readers.front()] += problem.weights[w].bytes;
      } else {
        for (int b : readers)
          weights_of_[b].push_back(static_cast<int>(w));
      }
    }
    for (int b = 0; b < count; ++b) {
      double alone = memory_[b];
      for (int w : weights_of_[b])
        alone += problem.weights[w].bytes;
      if (alone > problem.devices.memory) on_accelerator_[b] = 0;
    }
    successors_.resize(count);
    for (auto [it, end] = boost::edges(g); it != end; ++it) {
      const int a = block_of_[boost::source(*it, g)], b = block_of_[boost::target(*it, g)];
      if (a != b) successors_[a].push_back(b);
    }
    touch_.resize(count);
    for (const Net& net : problem.nets) {
      if (net.cost == 0) continue;
      BlockNet bn;
      bn.source = block_of_[net.source];
      bn.cost = net.cost;
      std::vector<int> sinks;
      for (Vertex s : net.sinks) {
        if (block_of_[s] != bn.source) sinks.push_back(block_of_[s]);
      }
      std::sort(sinks.begin(), sinks.end());
      sinks.erase(std::unique(sinks.begin(), sinks.end()), sinks.end());
      if (sinks.empty()) continue;
      bn.sinks = static_cast<int>(sinks.size());
      const int id = static_cast<int>(nets_.size());
      nets_.push_back(bn);
      touch_[bn.source].push_back({id, true});
      for (int b : sinks)
        touch_[b].push_back({id, false});
    }
  }

  int blocks() const { return static_cast<int>(blocks_.size()); }
  const std::vector<std::vector<Vertex>>& members() const { return blocks_; }
  const std::vector<std::vector<int>>& successors() const { return successors_; }

  // The greedy's depth-first order.
  std::vector<int> greedyOrder() const {
    std::vector<int> order(blocks());
    for (int b = 0; b < blocks(); ++b)
      order[b] = b;
    return order;
  }

  // Kahn's algorithm taking the ready block of smallest priority first.
  std::vector<int> orderBy(const std::vector<double>& priority) const {
    std::vector<int> waiting(blocks(), 0);
    for (int b = 0; b < blocks(); ++b) {
      for (int c : successors_[b])
        ++waiting[c];
    }
    using Item = std::pair<double, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (int b = 0; b < blocks(); ++b) {
      if (waiting[b] == 0) ready.emplace(priority[b], b);
    }
    std::vector<int> order;
    while (!ready.empty()) {
      const int b = ready.top().second;
      ready.pop();
      order.push_back(b);
      for (int c : successors_[b]) {
        if (--waiting[c] == 0) ready.emplace(priority[c], c);
      }
    }
    return order;
  }

  // The first vertex of each block (Kahn by it: the smallest-index-first order).
  std::vector<double> firstVertices() const {
    std::vector<double> first(blocks());
    for (int b = 0; b < blocks(); ++b)
      first[b] = static_cast<double>(blocks_[b].front());
    return first;
  }

  // The best segmentation of `order` (device_of; empty when none fits).
  std::vector<int> split(const std::vector<int>& order) {
    const DeviceSet& devices = problem_.devices;
    const int count = blocks(), k = devices.accelerators;
    const bool cpu = devices.cpus > 0;
    // best[j][a]: cheapest sum of durations of the first j blocks with a accelerator segments.
    std::vector<std::vector<double>> best(count + 1, std::vector<double>(k + 1, kInfinity));
    std::vector<std::vector<int>> from(count + 1, std::vector<int>(k + 1, -1));  // segment start; -1 CPU
    best[0][0] = 0;
    std::vector<int> inside(nets_.size(), 0);
    std::vector<char> source_in(nets_.size(), 0);
    std::vector<int> touched;
    std::vector<char> held(problem_.weights.size(), 0);  // shared weights on the current segment
    std::vector<int> held_list;
    auto contribution = [&](int t) {
      const BlockNet& bn = nets_[t];
      const bool out = source_in[t] && inside[t] < bn.sinks, in = !source_in[t] && inside[t] > 0;
      return bn.cost * ((out ? 1 : 0) + (in ? 1 : 0));
    };
    for (int i = 0; i < count; ++i) {
      // CPU blocks: p_cpu adds up, so single-block CPU segments are enough.
      const int b0 = order[i];
      if (cpu && std::isfinite(p_cpu_[b0])) {
        for (int a = 0; a <= k; ++a) {
          if (best[i][a] + p_cpu_[b0] < best[i + 1][a]) {
            best[i + 1][a] = best[i][a] + p_cpu_[b0];
            from[i + 1][a] = -1;
          }
        }
      }
      if (k == 0) continue;
      double memory = 0, compute = 0, comm = 0;
      for (int t : touched) {
        inside[t] = 0;
        source_in[t] = 0;
      }
      touched.clear();
      for (int w : held_list)
        held[w] = 0;
      held_list.clear();
      for (int j = i + 1; j <= count; ++j) {
        const int b = order[j - 1];
        if (!on_accelerator_[b]) break;
        memory += memory_[b];
        for (int w : weights_of_[b]) {
          if (held[w]) continue;
          held[w] = 1;
          held_list.push_back(w);
          memory += problem_.weights[w].bytes;
        }
        if (memory > devices.memory) break;
        compute += p_acc_[b];
        for (const auto& [t, is_source] : touch_[b]) {
          const double before = contribution(t);
          if (inside[t] == 0 && !source_in[t]) touched.push_back(t);
          if (is_source) {
            source_in[t] = 1;
          } else {
            ++inside[t];
          }
          comm += contribution(t) - before;
        }
        const double duration = compute + std::max(comm, 0.0);
        for (int a = 0; a < k; ++a) {
          if (best[i][a] + duration < best[j][a + 1]) {
            best[j][a + 1] = best[i][a] + duration;
            from[j][a + 1] = i;
          }
        }
      }
    }
    int used = 0;
    for (int a = 0; a <= k; ++a) {
      if (best[count][a] < best[count][used]) used = a;
    }
    if (!std::isfinite(best[count][used])) return {};
    std::vector<int> device_of(block_of_.size(), k);
    for (int j = count, a = used; j > 0;) {
      const int i = from[j][a];
      if (i < 0) {
        --j;  // a CPU block: device k
        continue;
      }
      --a;
      for (int p = i; p < j; ++p) {
        for (Vertex v : blocks_[order[p]])
          device_of[v] = a;
      }
      j = i;
    }
    return device_of;
  }

 private:
  struct BlockNet {
    int source = 0;
    int sinks = 0;  // distinct sink blocks other than the source's
    double cost = 0;
  };
  const Problem& problem_;
  std::vector<std::vector<Vertex>> blocks_;
  std::vector<int> block_of_;
  std::vector<double> memory_, p_acc_, p_cpu_;
  std::vector<std::vector<int>> weights_of_;  // per block: shared weights it reads with other blocks
  std::vector<char> on_accelerator_;
  std::vector<std::vector<int>> successors_;
  std::vector<BlockNet> nets_;
  std::vector<std::vector<std::pair<int, bool>>> touch_;  // per block: (net, block is its source)
};

// Local search (simulated annealing) over placements, scored by the evaluator: a move sends one
// block (colocation class, or the cycle it closes) to the device of a neighbouring block, to the
// CPU or to an accelerator at random, and placements that are invalid, deadlock or need more than
// q pieces on an accelerator are rejected. Segment splits run their segments nearly one after
// another; this finds the moves that let independent branches overlap on other devices. Stops after
// when the budget runs out or once `patience` moves in a row have not improved the best placement.
std::vector<int> anneal(const Problem& problem, const SegmentSplitter& splitter, std::vector<int> current,
                        int q, const Budget& budget, std::uint32_t seed) {
  const DeviceSet& devices = problem.devices;
  const int k = devices.accelerators;
  auto score = [&](const std::vector<int>& device_of) {
    Expected<LatencyEvaluation> e = evaluateLatency(problem, device_of);
    if (!e || !e->valid()) return kInfinity;
    for (const LatencySubgraph& s : e->subgraphs) {
      if (s.piece >= q) return kInfinity;
    }
    return e->latency;
  };
  const std::vector<std::vector<Vertex>>& blocks = splitter.members();
  const int count = splitter.blocks();
  if (count == 0 || devices.count() < 2) return current;
  std::vector<std::vector<int>> neighbours(count);
  for (int b = 0; b < count; ++b) {
    for (int c : splitter.successors()[b]) {
      neighbours[b].push_back(c);
      neighbours[c].push_back(b);
    }
  }
  double value = score(current);
  if (!std::isfinite(value)) return current;
  std::vector<int> best = current;
  double best_value = value;
  const std::int64_t patience = std::max<std::int64_t>(20000, 200 * static_cast<std::int64_t>(count));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  for (std::int64_t move = 0, since_best = 0; since_best < patience; ++move, ++since_best) {
    if (move % 256 == 0 && budget.exhausted()) break;
    const int b = static_cast<int>(rng() % count);
    const int from = current[blocks[b].front()];
    const int pick = static_cast<int>(rng() % 10);
    int to;
    if (pick < 6 && !neighbours[b].empty()) {
      to = current[blocks[neighbours[b][rng() % neighbours[b].size()]].front()];
    } else if (pick < 8 && devices.cpus > 0) {
      to = k;
    } else {
      to = k > 0 ? static_cast<int>(rng() % k) : k;
    }
    if (to == from) continue;
    for (Vertex v : blocks[b])
      current[v] = to;
    const double next = score(current);
    // A low, constant temperature: a thousandth of the best latency.
    if (next <= value ||
        (std::isfinite(next) && uniform(rng) < std::exp(-(next - value) / (1e-3 * best_value)))) {
      value = next;
      if (value < best_value * (1 - 1e-12)) {
        best_value = value;
        best = current;
        since_best = 0;
      }
    } else {
      for (Vertex v : blocks[b])
        current[v] = from;
    }
  }
  return best;
}

// The machine cut down to one kind of a mixed machine's accelerators (with that kind's times and
// memory) and the CPUs, and per device of it the device of the whole machine: the heuristics, which
// treat every accelerator alike, find splits there that are valid on the whole machine.
struct KindRestriction {
  Problem problem;
  std::vector<int> device;
  std::vector<int> lift(const std::vector<int>& device_of) const {
    std::vector<int> out;
    for (int d : device_of) {
      if (d < 0 || d >= static_cast<int>(device.size())) return {};
      out.push_back(device[d]);
    }
    return out;
  }
};

KindRestriction restrictToKind(const Problem& problem, int kind) {
  const DeviceSet& devices = problem.devices;
  KindRestriction out{problem, {}};
  out.problem.devices = DeviceSet{devices.kindSize(kind), devices.kindMemory(kind), devices.cpus};
  for (Vertex v = 0; v < boost::num_vertices(out.problem.graph); ++v) {
    OpNode& node = out.problem.graph[v];
    node.p_acc = node.accTime(kind);
    node.p_kinds.clear();
  }
  for (int a = 0; a < devices.kindSize(kind); ++a)
    out.device.push_back(devices.firstOfKind(kind) + a);
  for (int c = 0; c < devices.cpus; ++c)
    out.device.push_back(devices.accelerators + c);
  return out;
}

}  // namespace

// The level pieces of a valid split as slots (pieces of accelerator d in slots d·q+1 ..), or
// nullopt when the split is invalid, deadlocks or needs more than q pieces on some accelerator.
std::optional<LatencyStart> latencyStartFrom(const Problem& problem, std::vector<int> device_of, int q) {
  const DeviceSet& devices = problem.devices;
  if (device_of.size() != boost::num_vertices(problem.graph)) return std::nullopt;
  for (int& d : device_of) {
    if (d < 0 || d >= devices.count()) return std::nullopt;
  }
  Expected<LatencyEvaluation> eval = evaluateLatency(problem, device_of);
  if (!eval || !eval->valid() || !std::isfinite(eval->latency)) return std::nullopt;
  LatencyStart s;
  s.slot_of.assign(device_of.size(), 0);
  for (const LatencySubgraph& piece : eval->subgraphs) {
    if (piece.piece >= q) return std::nullopt;
    for (Vertex v : piece.nodes)
      s.slot_of[v] = piece.device * q + piece.piece + 1;
  }
  s.latency = eval->latency;
  s.device_of = std::move(device_of);
  return s;
}

std::optional<LatencyStart> chooseLatencyStart(const Problem& problem, const LatencyIpOptions& options,
                                               const std::vector<Vertex>& order,
                                               const std::function<double()>& elapsed) {
  const std::size_t n = boost::num_vertices(problem.graph);
  const DeviceSet& devices = problem.devices;
  const int q = options.subgraphs_per_accelerator;
  std::vector<std::vector<int>> candidates;
  if (!options.start.empty()) {
    candidates.push_back(options.start);
  } else {
    if (options.heuristics) {
      SolveResult greedy = solveLatencyGreedy(problem);
      if (!greedy.placement.device_of.empty() && greedy.status == SolveStatus::Feasible) {
        candidates.push_back(greedy.placement.device_of);
      }
    }
    candidates.insert(candidates.end(), options.baselines.begin(), options.baselines.end());
  }
  std::optional<LatencyStart> start;
  auto consider = [&](std::vector<int> labels) {
    if (labels.empty()) return;
    if (options.symmetry_breaking && labels.size() == n &&
        std::all_of(labels.begin(), labels.end(), [&](int d) { return d >= 0 && d < devices.count(); })) {
      labels = canonicalLabels(problem, labels, order);
    }
    std::optional<LatencyStart> s = latencyStartFrom(problem, std::move(labels), q);
    if (s && (!start || s->latency < start->latency)) start = std::move(s);
  };
  for (const std::vector<int>& candidate : candidates)
    consider(candidate);
  if (options.start.empty() && options.heuristics) {
    SegmentSplitter splitter(problem);
    consider(splitter.split(splitter.greedyOrder()));
    consider(splitter.split(splitter.orderBy(splitter.firstVertices())));
    // On a machine of several kinds the splits above may not fit a smaller kind: the same heuristics
    // on each kind alone give splits that do.
    for (int kind = 0; devices.mixed() && kind < devices.kindCount(); ++kind) {
      if (devices.kindSize(kind) == 0) continue;
      const KindRestriction restricted = restrictToKind(problem, kind);
      SolveResult greedy = solveLatencyGreedy(restricted.problem);
      if (greedy.status == SolveStatus::Feasible) consider(restricted.lift(greedy.placement.device_of));
      SegmentSplitter alone(restricted.problem);
      consider(restricted.lift(alone.split(alone.greedyOrder())));
    }
    const double budget = options.heuristic_time >= 0 ? options.heuristic_time
                                                      : std::min(0.1 * options.limits.time_limit, 10.0);
    std::mt19937 rng(12345);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::vector<double> priority(splitter.blocks());
    const Budget stop_only = Budget::unlimited(options.limits.budget.stopFlag());
    for (int i = 0; i < options.random_orders && elapsed() < budget && !stop_only.interrupted(); ++i) {
      for (double& p : priority)
        p = uniform(rng);
      consider(splitter.split(splitter.orderBy(priority)));
    }
    if (start) {
      const double search = options.local_search_time >= 0 ? options.local_search_time
                                                           : std::min(0.25 * options.limits.time_limit, 15.0);
      const double left = std::max(0.0, options.limits.time_limit - elapsed());
      consider(anneal(problem, splitter, start->device_of, q,
                      Budget(std::min(search, left), options.limits.budget.stopFlag()), 2020));
    }
  }
  return start;
}

}  // namespace placer
