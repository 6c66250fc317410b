// `auto`, the default solver: the best answer the time budget allows, exact wherever exactness is
// affordable, and an answer on every model whatever its size.
//
// Throughput, in the order that makes each step cheaper than the last:
//  1. a lower bound (the simple bound, within a twentieth of the budget) and DPL's split (SliceGraph's
//     slicer on a DFS order: milliseconds, and the answer if nothing else finishes);
//  2. a quick upper bound: clustering + DP + refinement (solvers/cluster_dp.h) within a tenth of the
//     budget, whose split is contiguous, so it prunes the exact DP from a tighter incumbent than DPL's;
//  3. the exact DP over ideals, pruned by the best so far and refusing more than max_ideals ideals. It
//     always runs until its checkpoint, half of the budget left when it starts; after it, it goes on
//     while its own estimate of the time it still needs (linear in the rows of its table) fits in the
//     budget left (continueExactDp). If it finishes, its split is optimal among contiguous splits;
//  4. otherwise (one kind of accelerator) SliceGraph's order search (solvers/slicegraph/) with half of
//     the rest of the budget, from DPL's order, and the best split refined with the last half
//     (solvers/refine/refine.h: contiguous, with its iterated search).
// It stops as soon as its best split is within SolveOptions::target_ratio of the lower bound (1:
// proven optimal), at any step. The answer is the best split found; the result's `solver` names what
// produced it and `message` why ("more than 4000000 ideals: slicegraph, 37000 orders in 8 s").
// On a machine of several accelerator kinds, which SliceGraph does not price, step 4 is left out and
// the DP has no checkpoint (the whole budget).
//
// Latency: the integer program's path (the greedy and DPL's split as starts, then the program within
// the budget), which never returns worse than its starts.
#pragma once

#include <cstdint>

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/registry.h"

namespace placer {

// The default time budget of auto, in seconds, when the caller gives none: a compiler pass that runs
// on every build must answer in seconds, and `place` must finish (load, costs, solve, certificate,
// writing) within 10 s on 2 cores. The exact DP finishes well within 8 s on every bundled model, the
// scale fixtures it can run on and the 16 Table 1 workloads; beyond it, clustering + DP, SliceGraph
// and the refinement answer (bench/README.md, "Default place").
inline constexpr double kAutoTimeLimit = 8;

// Whether auto's exact DP goes on, `elapsed` seconds after it started, with `done` of the `total` rows
// of its table filled and `remaining` seconds left of auto's budget: always before `checkpoint`
// seconds; after it, while its estimate of the time it still needs, elapsed × (total − done) / done,
// fits in `remaining`. A pure function of its arguments, so that a test drives it without a clock.
bool continueExactDp(double elapsed, std::int64_t done, std::int64_t total, double remaining,
                     double checkpoint);

SolveResult solveAuto(const Problem& problem, const SolveOptions& request);

}  // namespace placer
