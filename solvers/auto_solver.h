// `auto`, the default solver: the best answer the time budget allows, exact wherever exactness is
// affordable, and an answer on every model whatever its size.
//
// Throughput: DPL's split first (SliceGraph's slicer on a DFS order: milliseconds, and the answer if
// nothing else finishes); then the exact DP over ideals, pruned by DPL's value, given half of what is
// left of the budget and refusing more than max_ideals ideals: if it finishes, its split is optimal
// among contiguous splits and is the answer; otherwise SliceGraph's order search (solvers/slicegraph/)
// runs with the rest of the budget from DPL's order, and its best split is the answer. The result's
// `solver` names the solver that produced the placement and `message` why ("more than 4000000 ideals:
// slicegraph, 37000 orders in 58 s").
//
// Latency: the integer program's path (the greedy and DPL's split as starts, then the program within
// the budget), which never returns worse than its starts.
#pragma once

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/registry.h"

namespace placer {

// The default time budget of auto, in seconds, when the caller gives none.
inline constexpr double kAutoTimeLimit = 60;

SolveResult solveAuto(const Problem& problem, const SolveOptions& request);

}  // namespace placer
