#include "solvers/bounds/packing_bound.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/infinity.h"
#include "solvers/bounds/min_cut.h"
#include "solvers/bounds/round_off.h"

namespace placer {

namespace {

// A cut at least this large crossed an arc no cut may cross: no such set S exists.
constexpr double kImpossible = 1e29;
// A bound this close to the upper bound proves it optimal: the cuts and the evaluator add the same
// times in different orders.
constexpr double kOptimalTolerance = 1e-9;

// L(X, Y) of the header: the least load of an accelerator holding every operator of X and none of Y.
// The network is built once; a query adds X's arcs from the source and Y's to the sink.
class DeviceLoadCut {
 public:
  explicit DeviceLoadCut(const Problem& problem) {
    const std::size_t n = boost::num_vertices(problem.graph);
    std::size_t next = n;
    for (Vertex v = 0; v < n; ++v) {
      const OpNode& node = problem.graph[v];
      // On the source side an operator computes here: unbounded when it cannot.
      const double time = node.supportedOnAccelerator() ? node.p_acc : MinCut::kUnbounded;
      arcs_.push_back({vertexOf(v), MinCut::kSink, time});
    }
    std::map<int, Vertex> first_of_class;
    for (Vertex v = 0; v < n; ++v) {
      const std::optional<int> colocation = problem.graph[v].colocation;
      if (!colocation) continue;
      const auto [it, fresh] = first_of_class.emplace(*colocation, v);
      if (fresh) continue;
      arcs_.push_back({vertexOf(v), vertexOf(it->second), MinCut::kUnbounded});
      arcs_.push_back({vertexOf(it->second), vertexOf(v), MinCut::kUnbounded});
    }
    // A net costs its transfer when its members fall on both sides: every member reaches the gadget's
    // first vertex and is reached from its second, and the arc between them is the net's cost.
    for (const Net& net : problem.nets) {
      if (!(net.cost > 0)) continue;
      const std::size_t a = 2 + next++, b = 2 + next++;
      arcs_.push_back({a, b, net.cost});
      for (std::size_t i = 0; i <= net.sinks.size(); ++i) {
        const Vertex member = i == 0 ? net.source : net.sinks[i - 1];
        arcs_.push_back({vertexOf(member), a, MinCut::kUnbounded});
        arcs_.push_back({b, vertexOf(member), MinCut::kUnbounded});
      }
    }
    vertices_ = next;
  }

  // +inf when no S keeps colocation (an operator of X colocated with one of Y or unsupported here).
  double least(const std::vector<Vertex>& holds, const std::vector<Vertex>& not_held) {
    cut_.reset(vertices_);
    for (const Arc& arc : arcs_)
      cut_.arc(arc.u, arc.v, arc.capacity);
    for (Vertex x : holds)
      cut_.arc(MinCut::kSource, vertexOf(x), MinCut::kUnbounded);
    for (Vertex y : not_held)
      cut_.arc(vertexOf(y), MinCut::kSink, MinCut::kUnbounded);
    ++cuts_;
    const double value = cut_.solve();
    return value >= kImpossible ? kInfinity : value;
  }

  std::int64_t cuts() const { return cuts_; }

 private:
  struct Arc {
    std::size_t u, v;
    double capacity;
  };
  static std::size_t vertexOf(Vertex v) { return 2 + v; }

  std::vector<Arc> arcs_;
  std::size_t vertices_ = 0;
  MinCut cut_;
  std::int64_t cuts_ = 0;
};

// The search over assignments of the first K large operators to the accelerators (up to their order).
class AssignmentSearch {
 public:
  // Devices 0 .. accelerators - 1 are the accelerators, the next `cores` the CPU cores.
  AssignmentSearch(const Problem& problem, const std::vector<Vertex>& large, const Budget& budget,
                   DeviceLoadCut& cut, std::unordered_map<std::uint64_t, double>& partial)
      : problem_(problem),
        large_(large),
        accelerators_(static_cast<std::size_t>(problem.devices.accelerators)),
        masks_(accelerators_ + std::min(large.size(), static_cast<std::size_t>(problem.devices.cpus)), 0),
        budget_(budget),
        cut_(cut),
        partial_(partial) {}

  // The least over assignments of K operators of their accelerators' largest L, or `upper` when it
  // is at least that; a stopped search counts each branch it did not walk at its partial bound.
  double run(std::size_t k, double upper) {
    k_ = k;
    best_ = upper;
    frontier_ = kInfinity;
    leaf_.clear();
    walk(0, 0);
    return std::min(best_, frontier_);
  }
  bool stopped() const { return stopped_; }
  std::int64_t assignments() const { return assignments_; }

 private:
  std::vector<Vertex> members(std::uint64_t mask, bool in) const {
    std::vector<Vertex> out;
    for (std::size_t i = 0; i < k_; ++i)
      if (((mask >> i) & 1) == static_cast<std::uint64_t>(in)) out.push_back(large_[i]);
    return out;
  }
  // A core's load is at least its large operators' CPU time, whatever else it holds.
  double coreLoad(std::uint64_t mask) const {
    double sum = 0;
    for (std::size_t i = 0; i < k_; ++i)
      if ((mask >> i) & 1) sum += problem_.graph[large_[i]].p_cpu;
    return sum;
  }
  // L(X, ∅): a bound for every completion of a partial assignment.
  double partialLoad(std::uint64_t mask) {
    const auto it = partial_.find(mask);
    if (it != partial_.end()) return it->second;
    return partial_[mask] = cut_.least(members(mask, true), {});
  }
  // L(X, the other K - |X|): the accelerator of a complete assignment.
  double completeLoad(std::uint64_t mask) {
    const auto it = leaf_.find(mask);
    if (it != leaf_.end()) return it->second;
    return leaf_[mask] = cut_.least(members(mask, true), members(mask, false));
  }

  void walk(std::size_t i, double bound) {
    // Every step asks the clock: a step may have solved a cut, which on a large graph takes
    // milliseconds.
    if (stopped_ || budget_.exhausted()) {
      stopped_ = true;
      frontier_ = std::min(frontier_, bound);
      return;
    }
    if (i == k_) {
      ++assignments_;
      double value = bound;
      for (std::size_t d = 0; d < accelerators_; ++d) {
        if (masks_[d] != 0) value = std::max(value, completeLoad(masks_[d]));
        if (value >= best_) return;
      }
      best_ = value;
      return;
    }
    // The devices operator i may join, the least loaded after it first (a balanced assignment early
    // lowers best_, which prunes the rest); empty accelerators are interchangeable, so the first
    // stands for all, and so are empty cores.
    std::vector<std::pair<double, std::size_t>> options;
    bool tried_empty_accelerator = false, tried_empty_core = false;
    for (std::size_t d = 0; d < masks_.size(); ++d) {
      const bool core = d >= accelerators_;
      if (masks_[d] == 0) {
        bool& tried = core ? tried_empty_core : tried_empty_accelerator;
        if (tried) continue;
        tried = true;
      }
      const std::uint64_t with = masks_[d] | (std::uint64_t{1} << i);
      const double next = std::max(bound, core ? coreLoad(with) : partialLoad(with));
      if (next < best_) options.emplace_back(next, d);
    }
    std::stable_sort(options.begin(), options.end());
    for (const auto& [next, d] : options) {
      if (next >= best_) break;
      masks_[d] |= std::uint64_t{1} << i;
      walk(i + 1, next);
      masks_[d] &= ~(std::uint64_t{1} << i);
    }
  }

  const Problem& problem_;
  const std::vector<Vertex>& large_;
  std::size_t accelerators_;
  std::vector<std::uint64_t> masks_;  // per device: the large operators it holds
  const Budget& budget_;
  DeviceLoadCut& cut_;
  std::unordered_map<std::uint64_t, double>& partial_;  // L(X, ∅) by X, whatever K
  std::unordered_map<std::uint64_t, double> leaf_;      // L(X, K \ X) by X, for this K
  std::size_t k_ = 0;
  double best_ = 0;
  double frontier_ = 0;
  std::int64_t assignments_ = 0;
  bool stopped_ = false;
};

// The operators an accelerator can run, one per colocation class (the cut keeps a class together
// anyway): first those no core runs within `upper`, which must be on an accelerator below it, then the
// others, each group largest first.
std::vector<Vertex> largeOperators(const Problem& problem, double upper) {
  std::vector<Vertex> all;
  for (Vertex v = 0; v < boost::num_vertices(problem.graph); ++v) {
    const OpNode& node = problem.graph[v];
    if (node.supportedOnAccelerator() && node.p_acc > 0) all.push_back(v);
  }
  auto forced = [&](Vertex v) { return problem.devices.cpus == 0 || !(problem.graph[v].p_cpu < upper); };
  std::stable_sort(all.begin(), all.end(), [&](Vertex a, Vertex b) {
    if (forced(a) != forced(b)) return forced(a);
    return problem.graph[a].p_acc > problem.graph[b].p_acc;
  });
  std::vector<Vertex> out;
  std::map<int, bool> class_taken;
  for (Vertex v : all) {
    const std::optional<int> colocation = problem.graph[v].colocation;
    if (!colocation || class_taken.emplace(*colocation, true).second) out.push_back(v);
  }
  return out;
}

}  // namespace

std::optional<std::string> packingBoundDoesNotApply(const Problem& problem) {
  if (problem.objective.goal != Goal::Throughput) return "it bounds max-load, not latency";
  if (problem.objective.gpipe) return "it bounds max-load, not GPipe's max FW + max BW";
  if (problem.objective.overlap != Overlap::None) return "it needs loads that add transfers to computation";
  if (problem.devices.mixed()) return "it needs one accelerator kind (relax the machine first)";
  if (problem.devices.accelerators < 1) return "the machine has no accelerator";
  return std::nullopt;
}

Expected<std::optional<PackingBound>> packingBound(const Problem& problem, double upper, const Budget& budget,
                                                   const PackingBoundOptions& options) {
  if (const std::optional<std::string> why = packingBoundDoesNotApply(problem)) {
    return invalidInput("the packing bound does not apply: " + *why);
  }
  std::vector<Vertex> large = largeOperators(problem, upper);
  const std::size_t most =
      std::min<std::size_t>(large.size(), static_cast<std::size_t>(std::clamp(options.max_large, 1, 63)));
  if (most == 0 || !(upper > 0) || !std::isfinite(upper)) return std::optional<PackingBound>();
  large.resize(most);
  DeviceLoadCut cut(problem);
  std::unordered_map<std::uint64_t, double> partial;
  AssignmentSearch search(problem, large, budget, cut, partial);
  PackingBound out;
  // K grows by two from four: every search is a bound, and the small ones take milliseconds.
  for (std::size_t k = std::min<std::size_t>(4, most);; k = std::min(most, k + 2)) {
    const double value = search.run(k, upper);
    if (value > out.value) {
      out.value = value;
      out.large = static_cast<int>(k);
    }
    if (search.stopped() || value >= upper || k == most) break;
  }
  out.reaches_upper = out.value >= upper * (1 - kOptimalTolerance);
  out.value *= 1 - kBoundSafety;
  out.assignments = search.assignments();
  out.cuts = cut.cuts();
  out.cut_short = search.stopped();
  if (budget.interrupted()) return interrupted("interrupted");
  return std::optional<PackingBound>(out);
}

}  // namespace placer
