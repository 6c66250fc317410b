// SliceGraph's slicer (Archer, Fahrbach, Liu, Prabhu, ICML 2024, §3.2): the best split of a contracted
// problem into contiguous runs of one topological order of its units (forward vertex + backward
// partner), each run on one accelerator or one CPU core, with everything the exact DP models (memory
// with shared weights once per device, unsupported nodes, backward partners riding with their forward
// nodes, transfers paid once per boundary, CPU boundary costs, the overlap modes). DPL (Tarnawski et
// al. 2020, §5.1.2) is this slicer on a DFS order (dfsForwardOrder).
//
// The DP: best[c][a][j] = the least max-load of the first j units of the order on c CPU cores and a
// accelerators, over "the last run [i, j) on an accelerator / a CPU core" and "a device left unused".
// Segment loads come from SegmentCosts (O(log n) each, right end sweeping forward). The search over
// i is not a scan: a run's compute (a prefix-sum difference) bounds its load from below and grows as
// i falls, while the best of the first i units, seen through its suffix minimum (a monotone stack),
// bounds it on the other side and grows with i. max(suffix minimum, compute) is a valley; candidates
// are taken outward from its bottom in increasing order of that bound and the search stops once the
// bound reaches the best load found. Every i it skips has a lower bound no better than the answer, so
// the slicing is optimal for the order; on pipeline-like costs (compute dominating transfers) only a
// handful of i are evaluated, so an order of n units costs about O(n (k+1)(l+1) log n). Below a
// bound (the search's incumbent), only the cells whose prefix fits its devices and whose rest fits
// the others at that load (solvers/capacity_relaxation.h) are computed: prefixes near a multiple of
// the bound, where a device boundary can fall.
#pragma once

#include <cstdint>
#include <vector>

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/capacity_relaxation.h"
#include "solvers/dp/throughput_dp.h"
#include "solvers/slicegraph/segment_costs.h"

namespace placer {

// One run of the order: positions [begin, end) on an accelerator or a CPU core.
struct Run {
  int begin = 0, end = 0;
  bool accelerator = true;
};

// Slices orders of one problem's units; keeps its buffers between calls (one per thread).
class Slicer {
 public:
  explicit Slicer(const UnitGraph& units)
      : units_(units),
        relaxation_(units.p_acc, units.p_cpu, units.unsupported, units.accelerators, units.cpus),
        memory_binds_(memoryBinds(units)) {}

  // The least max-load of a slicing of `order` (units, each after its predecessors), or +inf when
  // none is below `below` (pass +inf for any) or none is feasible. With `runs`, the runs of a best
  // slicing in pipeline order.
  double slice(const std::vector<int>& order, double below = kInfinity, std::vector<Run>* runs = nullptr);

  // Segment loads evaluated by the last slice() (for benchmarks).
  std::int64_t evaluations() const { return evaluations_; }

 private:
  // Whether memory limits any run: the accelerators cannot hold everything.
  static bool memoryBinds(const UnitGraph& units);
  // Sizes the tables for `order` and empties them; below a finite bound, marks the live cells.
  void reset(const std::vector<int>& order, double below);
  // The index of the combination of c CPU cores and a accelerators in the tables.
  int combo(int c, int a) const { return c * (units_.accelerators + 1) + a; }
  // Whether cell [combo][j] is outside the bound's live cells (never without a finite bound).
  bool dead(int k, int j) const { return pruning_ && !live_[k * stride_ + j]; }
  // Position j (its cells filled) onto every combination's suffix-minimum stack.
  void pushMinima(int j);
  // The runs of the best slicing of the order whose table was just filled (of max-load `optimum`; none
  // when it is infinite), in pipeline order.
  void readRuns(double optimum, std::vector<Run>& runs) const;

  const UnitGraph& units_;
  CapacityRelaxation relaxation_;
  bool memory_binds_;
  std::size_t stride_ = 1;                // positions per combination: the order's length + 1
  bool pruning_ = false;                  // below a finite bound
  std::vector<std::uint8_t> live_;        // [combo][j], below a finite bound
  std::vector<double> best_;              // [combo][j]
  std::vector<std::int32_t> choice_;      // [combo][j]: run start, or kUnused*
  std::vector<std::uint8_t> on_acc_;      // [combo][j]: the run ending at j is on an accelerator
  std::vector<std::vector<int>> minima_;  // per combo: suffix-minimum stack over positions < j
  std::vector<double> acc_cache_, cpu_cache_;
  std::vector<int> cache_stamp_;
  std::int64_t evaluations_ = 0;
};

// The placement a slicing gives (devices numbered in pipeline order: accelerators 0.., CPUs k..).
Placement placementOfRuns(const Problem& problem, const UnitGraph& units, const std::vector<int>& order,
                          const std::vector<Run>& runs);

// The units of `vertices` (a forward order of the problem's forward vertices), or empty when it is not
// one (checkForwardOrder).
std::vector<int> unitOrder(const UnitGraph& units, const std::vector<Vertex>& vertices);

// The optimal slicing of `order` (forward vertices; checkForwardOrder must accept it, Error
// otherwise), scored by the evaluator. Feasible (optimal for the order, not for the problem), bound 0;
// Infeasible when no slicing fits the devices. Only options.upper_bound is read: a slicing is sought
// below it (within the DP's relative 1e-9), Infeasible otherwise.
SolveResult sliceOrder(const Problem& problem, const std::vector<Vertex>& order, DpOptions options = {});

}  // namespace placer
