// The certificate on every answer (issue 11): the placement's value, the best lower bound proven
// for the optimum of the space the solver searched, and — for a contiguous search — a bound over
// every placement too, so a report never passes a contiguous optimum off as the optimum.
#pragma once

#include <functional>
#include <optional>

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/registry.h"

namespace placer {

// `solved` is the problem the solver was given (after its reductions), `original` the user's.
// Bounds: the solver's own (the DP's optimum, an integer program's proven bound) where it holds for
// the whole space, and the simple bounds (simple_bound.h) of both problems: of `solved` for the
// solver's space (its reductions are exact there) and of `original` for every placement. A simple
// bound that fails (a node no device can hold, which the solver would have refused already) proves
// nothing and is left out.
// Time: the simple bounds get `bound_seconds` (within what is left of `budget`), at least
// kMinBoundSeconds: their relaxations take milliseconds, their packing program a tenth. When the
// answer is not proven optimal and the objective is max-load, the bottleneck program
// (bottleneck_mip.h) also runs, for `bound_seconds`, and before it, for a contiguous answer on a
// machine with CPU cores, the CPU blocks' bound (cpu_block_bound.h, "cpu-block") within three
// quarters of that, then, where the exact DP did not finish, the DP with floating operators pooled
// (pooled_dp_bound.h, "pooled-dp") with what is left of `budget` beyond the share (without a
// deadline, the share; kMinBoundSeconds at least); for a non-contiguous answer, the largest
// operators' packing (packing_bound.h, "packing") within half of the share, on `original`. The partition pass gives them kBoundShare of the time limit, kept from the solver (or,
// without a time limit, kBoundShare of the time the solve took, at least kMinBoundSeconds).
inline constexpr double kMinBoundSeconds = 0.5;
inline constexpr double kBoundShare = 0.1;
// The bounds' programs run on `backend`.
// `contiguous_optimum`, when given, finds the optimum among contiguous splits of `solved` within a
// budget (nullopt when it cannot: too many ideals, out of time). For a contiguous max-load answer
// not proven optimal it runs first, within half of `bound_seconds`: where the exact DP finishes, a
// SliceGraph, DPL or time-limited integer program answer is certified against the optimum itself
// (ratio 1 when it is optimal), and the bottleneck program gets what the DP left.
using ContiguousOptimumFn = std::function<std::optional<double>(const Budget&)>;
Certificate certify(const Problem& solved, const Problem& original, const SolverInfo& solver,
                    const SolveResult& result, const Budget& budget, double bound_seconds,
                    mip::Backend backend = mip::kDefaultBackend,
                    const ContiguousOptimumFn& contiguous_optimum = nullptr);

std::string certificateSummary(const Certificate& certificate);

// The one-line summary of an answer: certificateSummary, or for a split over the accelerators'
// memory (SolveResult::memory_violation, Scotch) by how much it exceeds it: such a split is no
// placement, and no certificate is claimed for it.
std::string answerSummary(const SolveResult& result);

}  // namespace placer
