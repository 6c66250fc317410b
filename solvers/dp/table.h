// The table dp[I][c][a] of the exact DP (Tarnawski et al. 2020, §5.1.1): the best max-load for
// placing ideal I on c CPU cores and a accelerators, filled over the lattice on several threads and
// traced back into the blocks of an optimal split. How and why it is fast and exact: the opening
// comment of solvers/dp/throughput_dp.h.
#pragma once

#include <functional>

#include <optional>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/capacity_relaxation.h"
#include "solvers/dp/ideal_lattice.h"
#include "solvers/dp/instance.h"

namespace placer::dp {

// A block of an optimal split: the units one device holds.
struct Block {
  std::vector<int> units;
  bool accelerator = false;
  int kind = 0;  // the accelerator's kind
};

struct TableResult {
  bool complete = false;       // false: the budget ran out before the table was filled
  double optimum = kInfinity;  // dp[all][cpus][accelerators]; +inf when no split exists
  // The blocks of an optimal split in pipeline order (when complete and finite); nullopt if the table
  // could not be traced back, which would be a bug.
  std::optional<std::vector<Block>> blocks;
};

// The load above which the table leaves entries out for `upper_bound`: the bound, with room for the
// rounding of sums of costs in another order.
inline double pruneAbove(double upper_bound) {
  return upper_bound * (1 + 1e-9) + 1e-12;
}

// The capacity relaxation (solvers/capacity_relaxation.h) of the instance's units, each at its fastest
// kind's time on a mixed machine: which entries of a table can lie on a split within a bound. The
// exact DP's rows and the DP with floating operators pooled (solvers/bounds/pooled_dp_bound.h) prune
// with it.
CapacityRelaxation unitsRelaxation(const DpInstance& instance, const DeviceSet& devices);

// What each ideal of `lattice` asks of the devices (its units' work, each at its fastest kind's time),
// built along each ideal's first Hasse edge.
std::vector<CapacityRelaxation::Work> workOfIdeals(const DpInstance& instance, const IdealLattice& lattice,
                                                   const DeviceSet& devices);

// Fills the table of `instance` over `lattice` on `threads` threads, entries above `upper_bound`
// (an achievable max-load, or +inf) left out, and traces an optimal split back. Only a split of
// max-load at most the bound is sure to be optimal: a larger optimum (the bound was below the
// optimum) is the best of what pruning left. Adds the pairs walked and the subtrees pruned to
// `stats`.
// `keep_going` (null: always) is asked after every row with the rows filled and in all; false stops
// the fill as the budget's deadline does.
TableResult fillTable(const Problem& problem, const DpInstance& instance, const IdealLattice& lattice,
                      double upper_bound, int threads, const ProgressFn& progress, const Budget& budget,
                      const std::function<bool(std::int64_t, std::int64_t)>& keep_going, SolveStats& stats);

}  // namespace placer::dp
