// The mapping search of device_mapping.h: a feasibility search per target time inside a binary
// search, then a search for anything better than the best mapping found.
#include "solvers/mapping/device_mapping.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "core/infinity.h"
#include "core/threads.h"

namespace placer {

namespace {


// The request checked and flattened: slot k = s·R + r is replica r of stage s.
struct Instance {
  const MappingRequest* request = nullptr;
  const Topology* topology = nullptr;
  MapCost cost = MapCost::PointToPoint;
  int stages = 0, replicas = 1, slots = 0, devices = 0;
  std::vector<std::vector<std::pair<int, double>>> adjacent;  // per stage: (other stage, bytes)
  std::vector<double> ring_bytes;                             // per stage: 2(R-1)P/R
  std::vector<double> host_bytes;                             // per stage (P2P only)
};

Expected<Instance> instanceOf(const MappingRequest& request, const Topology& topology) {
  Instance in;
  in.request = &request;
  in.topology = &topology;
  in.cost = resolveMapCost(request);
  in.stages = request.graph.stages();
  in.replicas = request.replicas;
  in.devices = static_cast<int>(topology.devices.size());
  if (in.replicas < 1) return invalidInput("mapping: replicas must be at least 1");
  if (in.stages < 1) return invalidInput("mapping: the stage graph has no stages");
  in.slots = in.stages * in.replicas;
  const StageGraph& g = request.graph;
  if (!g.kind.empty()) {
    if (g.kind.size() != g.compute.size()) return invalidInput("mapping: one device kind per stage, or none");
    std::vector<int> wanted(topology.kinds.size(), 0), have(topology.kinds.size(), 0);
    for (const Topology::Device& device : topology.devices) ++have[device.kind];
    for (int s = 0; s < in.stages; ++s) {
      const int kind = g.kind[s];
      if (kind < 0 || kind >= static_cast<int>(topology.kinds.size()))
        return invalidInput("mapping: stage " + std::to_string(s) + " asks for a device kind the machine lacks");
      wanted[kind] += in.replicas;
    }
    for (std::size_t k = 0; k < wanted.size(); ++k) {
      if (wanted[k] > have[k]) {
        return invalidInput("mapping: the stages need " + std::to_string(wanted[k]) + " devices of kind " +
                            topology.kinds[k] + "; the machine has " + std::to_string(have[k]));
      }
    }
  }
  if (in.slots > in.devices) {
    return invalidInput("mapping: " + std::to_string(in.stages) + " stages x " + std::to_string(in.replicas) +
                        " replicas need " + std::to_string(in.slots) + " devices; the machine has " +
                        std::to_string(in.devices));
  }
  if (g.weight_bytes.size() != g.compute.size()) return invalidInput("mapping: one weight size per stage");
  if (!g.host_bytes.empty() && g.host_bytes.size() != g.compute.size())
    return invalidInput("mapping: one host transfer size per stage, or none");
  for (int s = 0; s < in.stages; ++s) {
    const double host = g.host_bytes.empty() ? 0.0 : g.host_bytes[s];
    if (!(g.compute[s] >= 0) || !std::isfinite(g.compute[s]) || !(g.weight_bytes[s] >= 0) ||
        !std::isfinite(g.weight_bytes[s]) || !(host >= 0) || !std::isfinite(host))
      return invalidInput("mapping: stage " + std::to_string(s) + " has a negative or non-finite time or size");
  }
  in.adjacent.assign(in.stages, {});
  for (const StageGraph::Edge& e : g.edges) {
    if (e.from < 0 || e.to < 0 || e.from >= in.stages || e.to >= in.stages || e.from == e.to)
      return invalidInput("mapping: an edge joins stage " + std::to_string(e.from) + " to " + std::to_string(e.to));
    if (!(e.bytes >= 0) || !std::isfinite(e.bytes)) return invalidInput("mapping: an edge has negative or non-finite bytes");
    in.adjacent[e.from].push_back({e.to, e.bytes});
    in.adjacent[e.to].push_back({e.from, e.bytes});
  }
  in.host_bytes.assign(in.stages, 0.0);
  if (in.cost == MapCost::PointToPoint && !g.host_bytes.empty()) in.host_bytes = g.host_bytes;
  for (int s = 0; s < in.stages; ++s) {
    in.ring_bytes.push_back(in.replicas > 1 ? 2.0 * (in.replicas - 1) * g.weight_bytes[s] / in.replicas : 0.0);
  }
  return in;
}

// Backtracking assignment of the slots, in order, to free devices, every replica's time kept as the
// sum (P2P) or max (AR) over the neighbours assigned so far.
class Search {
 public:
  Search(const Instance& in, const Budget& budget) : in_(in), budget_(budget) {
    device_.assign(in.slots, -1);
    used_.assign(in.devices, false);
    time_.assign(in.slots, 0.0);
    for (int k = 0; k < in.slots; ++k) time_[k] = compute(k);
    ring_.assign(in.stages, 0.0);
  }

  // Restricts the first slots to the devices of `prefix`, and ends the search early, not as an
  // abort, once `cancel` returns true (checked with the budget).
  void restrictPrefix(std::vector<int> prefix, std::function<bool()> cancel) {
    prefix_ = std::move(prefix);
    cancel_ = std::move(cancel);
    cancelled_ = false;
  }
  bool cancelled() const { return cancelled_; }

  // A complete mapping whose largest time is at most `target` (strictly below with `strict`); false
  // when there is none, or when the budget ran out (aborted() says which).
  bool find(double target, bool strict, std::vector<int>& out) {
    return visit(target, strict, [&](const std::vector<int>& found) {
      out = found;
      return true;
    });
  }
  // Every complete mapping whose largest time is at most `target`, in search order, to `leaf` until
  // it returns true (then true), or until there are no more (false).
  bool visit(double target, bool strict, const std::function<bool(const std::vector<int>&)>& leaf) {
    target_ = target;
    strict_ = strict;
    leaf_ = &leaf;
    return place(0);
  }
  bool aborted() const { return aborted_; }
  long long nodes() const { return nodes_; }

 private:
  double compute(int slot) const { return in_.request->graph.compute[slot / in_.replicas]; }
  bool over(double value) const { return strict_ ? value >= target_ : value > target_; }
  double transfer(int a, int b, double bytes) const { return in_.topology->transferSeconds(a, b, bytes); }

  bool place(int slot) {
    if (slot == in_.slots) return (*leaf_)(device_);
    if ((++nodes_ & 1023) == 0) {
      if (budget_.exhausted()) aborted_ = true;
      if (cancel_ && cancel_()) cancelled_ = true;
    }
    if (aborted_ || cancelled_) return false;
    const int s = slot / in_.replicas, r = slot % in_.replicas;
    const std::vector<int>& kinds = in_.request->graph.kind;
    for (int d = 0; d < in_.devices; ++d) {
      if (used_[d] || (!kinds.empty() && in_.topology->devices[d].kind != kinds[s])) continue;
      if (slot < static_cast<int>(prefix_.size()) && d != prefix_[slot]) continue;
      // What assigning `d` adds: transfers to the assigned neighbours (P2P), or the ring pairs
      // closed (AR), recorded above `mark` on the undo stack.
      const std::size_t mark = undo_.size();
      bool fits = true;
      device_[slot] = d;
      if (in_.cost == MapCost::PointToPoint) {
        if (in_.host_bytes[s] > 0) add(slot, transfer(d, in_.topology->hostNode(), in_.host_bytes[s]));
        for (const auto& [other, bytes] : in_.adjacent[s]) {
          const int peer = other * in_.replicas + r;
          if (device_[peer] < 0) continue;
          const double c = transfer(d, device_[peer], bytes);
          add(slot, c);
          add(peer, c);
          fits = fits && !over(time_[slot]) && !over(time_[peer]);
        }
      } else if (in_.replicas > 1) {
        const int base = s * in_.replicas;
        for (int neighbour : {(r + 1) % in_.replicas, (r + in_.replicas - 1) % in_.replicas}) {
          if (device_[base + neighbour] < 0 || neighbour == r) continue;
          const double c = transfer(d, device_[base + neighbour], in_.ring_bytes[s]);
          if (c > ring_[s]) {
            undo_.push_back({-1 - s, ring_[s]});
            ring_[s] = c;
          }
        }
        fits = !over(in_.request->graph.compute[s] + ring_[s]);
      }
      fits = fits && !over(time_[slot]);
      bool done = false;
      if (fits) {
        used_[d] = true;
        done = place(slot + 1);  // leaves the stack as it found it
        used_[d] = false;
      }
      // Undone on success too: the next search starts from nothing assigned.
      rollBack(mark);
      device_[slot] = -1;
      if (done) return true;
      if (aborted_ || cancelled_) return false;
    }
    return false;
  }

  void add(int slot, double c) {
    undo_.push_back({slot, time_[slot]});
    time_[slot] += c;
  }
  // Restores the values recorded above `mark`, newest first, and pops them.
  void rollBack(std::size_t mark) {
    while (undo_.size() > mark) {
      const auto [key, value] = undo_.back();
      if (key >= 0) time_[key] = value;
      else ring_[-1 - key] = value;
      undo_.pop_back();
    }
  }

  const Instance& in_;
  const Budget& budget_;
  std::vector<int> device_;
  std::vector<bool> used_;
  std::vector<double> time_;  // per slot: compute + transfers so far (P2P)
  std::vector<double> ring_;  // per stage: the widest ring transfer so far (AR)
  std::vector<std::pair<int, double>> undo_;  // (slot, or -1 - stage for a ring) -> old value
  double target_ = 0;
  bool strict_ = false;
  const std::function<bool(const std::vector<int>&)>* leaf_ = nullptr;
  bool aborted_ = false;
  std::vector<int> prefix_;  // the devices the first slots must take
  std::function<bool()> cancel_;
  bool cancelled_ = false;
  long long nodes_ = 0;
};

// Search::find shared among threads: one task per choice of devices for the first slots (the first
// two, on machines of up to 64 devices; the first one on larger ones), in the order one search tries
// them. The answer is the mapping found by the first task in that order that has one, which is the
// one a single search finds (it returns the first mapping it meets); a task after one that found a
// mapping is cancelled. The nodes counted are those of the tasks up to the answer's (all of them
// without one), so the count, like the answer, is the same for any number of threads.
class SharedSearch {
 public:
  SharedSearch(const Instance& in, const Budget& budget, int threads) : in_(in), budget_(budget) {
    const std::vector<int>& kinds = in.request->graph.kind;
    auto fits = [&](int slot, int d) { return kinds.empty() || in.topology->devices[d].kind == kinds[slot / in.replicas]; };
    const int depth = in.slots >= 2 && in.devices <= 64 ? 2 : 1;
    for (int a = 0; a < in.devices; ++a) {
      if (!fits(0, a)) continue;
      if (depth == 1) {
        prefixes_.push_back({a});
        continue;
      }
      for (int b = 0; b < in.devices; ++b) {
        if (b != a && fits(1, b)) prefixes_.push_back({a, b});
      }
    }
    threads_ = std::max(1, std::min(threads, static_cast<int>(prefixes_.size())));
  }

  bool find(double target, bool strict, std::vector<int>& out) {
    const int tasks = static_cast<int>(prefixes_.size());
    std::atomic<int> answer{tasks};  // the lowest task that found a mapping
    std::vector<std::vector<int>> found(tasks);
    std::vector<long long> nodes(tasks, 0);
    std::vector<char> aborted(tasks, 0);
    // Each thread's search is built by that thread, from its own allocations: searches whose state
    // shared cache lines ran slower on two threads than on one.
    std::vector<std::unique_ptr<Search>> searches(threads_);
    parallelFor(threads_, tasks, [&](int worker, int task) {
      if (answer.load() < task) return;  // an earlier task has a mapping already
      if (!searches[worker]) searches[worker] = std::make_unique<Search>(in_, budget_);
      Search& search = *searches[worker];
      const long long before = search.nodes();
      search.restrictPrefix(prefixes_[task], [&answer, task] { return answer.load() < task; });
      if (search.find(target, strict, found[task])) {
        for (int seen = answer.load(); task < seen && !answer.compare_exchange_weak(seen, task);) {
        }
      } else {
        found[task].clear();
      }
      nodes[task] = search.nodes() - before;
      aborted[task] = search.aborted();
    });
    const int last = std::min(answer.load(), tasks - 1);
    for (int task = 0; task <= last; ++task) {
      nodes_ += nodes[task];
      aborted_ = aborted_ || aborted[task];
    }
    if (answer.load() == tasks) return false;
    out = found[answer.load()];
    return true;
  }
  bool aborted() const { return aborted_; }
  long long nodes() const { return nodes_; }

 private:
  const Instance& in_;
  const Budget& budget_;
  std::vector<std::vector<int>> prefixes_;  // the first slots' devices: one task each
  int threads_ = 1;
  bool aborted_ = false;
  long long nodes_ = 0;
};

// A bound no mapping beats: every transfer at least the smallest latency plus bytes over the widest
// bandwidth between two devices.
double lowerBound(const Instance& in) {
  double widest = 0, quickest = kInfinity;
  for (int a = 0; a < in.devices; ++a) {
    for (int b = 0; b < in.devices; ++b) {
      if (a == b) continue;
      widest = std::max(widest, in.topology->bandwidth(a, b));
      quickest = std::min(quickest, in.topology->latency(a, b));
    }
  }
  if (in.devices < 2) return 0;
  auto least = [&](double bytes) { return bytes > 0 ? quickest + bytes / widest : 0.0; };
  double bound = 0;
  for (int s = 0; s < in.stages; ++s) {
    double t = in.request->graph.compute[s];
    if (in.cost == MapCost::PointToPoint) {
      for (const auto& [other, bytes] : in.adjacent[s]) t += least(bytes);
      if (in.host_bytes[s] > 0) {
        double host = kInfinity;
        for (int d = 0; d < in.devices; ++d)
          host = std::min(host, in.topology->transferSeconds(d, in.topology->hostNode(), in.host_bytes[s]));
        t += host;
      }
    } else if (in.replicas > 1) {
      t += least(in.ring_bytes[s]);
    }
    bound = std::max(bound, t);
  }
  return bound;
}

std::vector<std::vector<int>> bySlot(const Instance& in, const std::vector<int>& device) {
  std::vector<std::vector<int>> out(in.stages);
  for (int k = 0; k < in.slots; ++k) out[k / in.replicas].push_back(device[k]);
  return out;
}

}  // namespace

std::optional<MapCost> parseMapCost(std::string_view text) {
  if (text == "p2p") return MapCost::PointToPoint;
  if (text == "allreduce") return MapCost::AllReduce;
  if (text == "auto") return MapCost::Auto;
  return std::nullopt;
}

MapCost resolveMapCost(const MappingRequest& request) {
  if (request.cost != MapCost::Auto) return request.cost;
  const int R = std::max(1, request.replicas);
  double all_reduce = 0, between = 0;
  for (double p : request.graph.weight_bytes) all_reduce += 2.0 * (R - 1) * p / R;
  for (const StageGraph::Edge& e : request.graph.edges) between += e.bytes;
  return all_reduce > between ? MapCost::AllReduce : MapCost::PointToPoint;
}

Mapping evaluateMapping(const MappingRequest& request, const Topology& topology, std::vector<std::vector<int>> device) {
  Mapping out;
  out.cost = resolveMapCost(request);
  const StageGraph& g = request.graph;
  const int R = request.replicas;
  out.stage_time.assign(g.stages(), 0.0);
  for (int s = 0; s < g.stages(); ++s) {
    double ring = 0;
    if (out.cost == MapCost::AllReduce && R > 1) {
      const double bytes = 2.0 * (R - 1) * g.weight_bytes[s] / R;
      for (int r = 0; r < R; ++r) ring = std::max(ring, topology.transferSeconds(device[s][r], device[s][(r + 1) % R], bytes));
    }
    for (int r = 0; r < R; ++r) {
      double t = g.compute[s] + ring;
      if (out.cost == MapCost::PointToPoint) {
        if (!g.host_bytes.empty() && g.host_bytes[s] > 0)
          t += topology.transferSeconds(device[s][r], topology.hostNode(), g.host_bytes[s]);
        for (const StageGraph::Edge& e : g.edges) {
          if (e.from == s) t += topology.transferSeconds(device[s][r], device[e.to][r], e.bytes);
          if (e.to == s) t += topology.transferSeconds(device[s][r], device[e.from][r], e.bytes);
        }
      }
      out.stage_time[s] = std::max(out.stage_time[s], t);
    }
    out.max_stage_time = std::max(out.max_stage_time, out.stage_time[s]);
  }
  out.device = std::move(device);
  return out;
}

Expected<Mapping> consecutiveMapping(const MappingRequest& request, const Topology& topology) {
  auto in = instanceOf(request, topology);
  if (!in) return in.status();
  std::vector<int> device(in->slots);
  const std::vector<int>& kinds = request.graph.kind;
  std::vector<bool> used(in->devices, false);
  for (int k = 0; k < in->slots; ++k) {
    int d = kinds.empty() ? k : 0;
    while (!kinds.empty() && (used[d] || topology.devices[d].kind != kinds[k / in->replicas])) ++d;
    device[k] = d;
    used[d] = true;
  }
  return evaluateMapping(request, topology, bySlot(*in, device));
}

Expected<Mapping> optimalMapping(const MappingRequest& request, const Topology& topology, const Budget& budget,
                                 const MappingRanking* ranking, const Mapping* consecutive) {
  auto in = instanceOf(request, topology);
  if (!in) return in.status();
  auto best = consecutive != nullptr ? Expected<Mapping>(*consecutive) : consecutiveMapping(request, topology);
  if (!best) return best.status();
  SharedSearch search(*in, budget, threadCount(request.threads));
  double low = lowerBound(*in), high = best->max_stage_time;
  std::vector<int> found;
  // Targets between the bounds, halving the interval, while it is wider than rounding.
  for (int step = 0; step < 64 && high - low > 1e-9 * high && !search.aborted(); ++step) {
    const double target = low + (high - low) / 2;
    if (search.find(target, false, found)) {
      Mapping mapping = evaluateMapping(request, topology, bySlot(*in, found));
      high = mapping.max_stage_time;
      if (mapping.max_stage_time < best->max_stage_time) *best = std::move(mapping);
    } else if (!search.aborted()) {
      low = target;
    }
  }
  // Anything strictly better than the best found? None proves it optimal.
  while (!search.aborted()) {
    if (!search.find(best->max_stage_time, true, found)) break;
    Mapping mapping = evaluateMapping(request, topology, bySlot(*in, found));
    if (!(mapping.max_stage_time < best->max_stage_time)) break;  // rounding: as good, not better
    *best = std::move(mapping);
  }
  best->optimal = !search.aborted();
  // Mappings as good as the best, ranked: the first `candidates` the search meets, the best kept.
  long long ranking_nodes = 0;
  if (ranking != nullptr && ranking->rank && best->optimal) {
    const double tie = best->max_stage_time;
    double best_rank = ranking->rank(*best);
    int seen = 0;
    Search ranked(*in, budget);
    ranked.visit(tie, false, [&](const std::vector<int>& found) {
      Mapping mapping = evaluateMapping(request, topology, bySlot(*in, found));
      if (!(mapping.max_stage_time > tie)) {
        ++seen;
        const double rank = ranking->rank(mapping);
        if (rank < best_rank) {
          best_rank = rank;
          *best = std::move(mapping);
          best->optimal = true;
        }
      }
      return seen >= ranking->candidates;
    });
    best->tied = seen;
    ranking_nodes = ranked.nodes();
  }
  best->nodes = search.nodes() + ranking_nodes;
  return best;
}

}  // namespace placer
