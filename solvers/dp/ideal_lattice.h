// The ideals (predecessor-closed node sets) of a DAG and their Hasse edges, for the max-load DP
// (Tarnawski et al. 2020, §5.1.1): generated once, breadth-first by size, so that the DP can
// enumerate every sub-ideal of an ideal exactly once with integer lookups.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/budget.h"
#include "core/solve_result.h"
#include "core/status.h"

namespace placer {

// The ideals of the forward DAG, numbered breadth-first by size (0 = empty set, last = everything),
// and their Hasse edges in CSR form: for ideal J, entries [down_begin[J], down_begin[J+1]) list the
// maximal nodes v of J (in decreasing unit index) with the id of J∖{v}.
struct IdealLattice {
  std::vector<std::int64_t> down_begin;
  std::vector<std::int32_t> down_node;
  std::vector<std::int32_t> down_sub;
  std::int64_t size() const { return static_cast<std::int64_t>(down_begin.size()) - 1; }
};

// Generates the ideals of the DAG given by `preds` (node -> predecessors; nodes indexed in a
// topological order) breadth-first, one size at a time, with Zobrist hashing to find each one once
// among the ideals of its size. Each ideal carries the nodes that can be added to it, updated from
// its parent's (so a new ideal costs O(addable nodes + predecessors of the newly ready ones), not
// O(n)), and only two sizes' node sets are kept. A lattice of more than 4M Hasse edges is counted to
// the end without storing them, and generated again if it is within the limits, so that one too
// large is refused in little memory; a smaller one is generated once. Fails with ResourceLimit when
// there are more than `max_ideals` or two sizes' node sets would take more than 512 MiB, with
// Interrupted when the budget's stop flag is set and with ResourceLimit ("time limit") when its
// deadline passes; reports progress about twice a second.
// `recorded_edges`: the Hasse edges the first pass may store (tests lower it to reach the second).
inline constexpr std::size_t kRecordedEdges = std::size_t{4} << 20;
Status buildLattice(const std::vector<std::vector<int>>& preds, std::int64_t max_ideals, const Budget& budget,
                    const ProgressFn& progress, IdealLattice& lattice,
                    std::size_t recorded_edges = kRecordedEdges);

}  // namespace placer
