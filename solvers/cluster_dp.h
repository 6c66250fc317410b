// Clustering + exact DP + refinement as one solver (`--algorithm cluster-dp`; Parmesan's phase 1):
// the problem, already in the DP's contracted form, is clustered (solvers/clustering.h) down to
// SolveOptions::cluster_target units, the exact DP finds the best contiguous split of the clusters
// (DPL's when it does not finish), the split is carried back onto the problem's vertices and refined
// there, contiguously (solvers/refine/refine.h). Without a target it starts from
// defaultClusterTarget and doubles the clusters while the DP on them finishes within a tenth of the
// time left, keeping the best split (finer clusters cut closer to the operators' own optimum). The clustering is lossy, so the DP's optimum on the
// clusters is an upper bound of the problem's, not its optimum: the answer is Feasible with bound 0,
// and the certify pass proves what it can on the problem itself.
#pragma once

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/solve_options.h"

namespace placer {

// `kicks`: the refinement's iterated search (RefineOptions::kicks).
SolveResult solveClusterDp(const Problem& problem, const SolveOptions& request, int kicks = 100);

}  // namespace placer
