// The SliceGraph solver (Archer, Fahrbach, Liu, Prabhu, ICML 2024): DPL's DFS order sliced first,
// then the order search of search.h, and the best slicing as a placement of the contracted problem.
// Contiguous and never worse than DPL; no certificate (bounds are another solver's job).
#pragma once

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/slicegraph/search.h"

namespace placer {

// The problem must satisfy checkContracted (Error otherwise). Feasible with the best placement (bound
// 0), Interrupted when the stop flag was set, Infeasible when no order searched has a slicing that
// fits the devices (the message says how many were tried: only the exact DP proves that none exists).
// The message says how many orders were sliced, in how long, and which won; stats.orders counts them.
SolveResult solveSliceGraph(const Problem& problem, const OrderSearchOptions& options);

}  // namespace placer
