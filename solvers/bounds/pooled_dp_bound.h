// The exact DP with floating operators pooled: a lower bound on the contiguous optimum of a problem
// whose ideal lattice is too large for the exact DP (solvers/README.md, "The DP with floating
// operators pooled").
//
// Bypassing (bypass.h) the unary operators that float most leaves a graph whose lattice is small,
// and every contiguous split of max-load at most B restricts to a split of it whose every block is
// within B. The bypassed operators' accelerator time P must still be spent: on the accelerators, or
// by the CPU cores, each of which holds one convex block X taking over at most G(B) of accelerator
// time (cpu_block_bound.h), G(B) minus what X's kept operators take. So a split of max-load at most
// B, on k accelerators and l cores, gives one of the bypassed graph with
//   sum of its accelerators' loads + sum of its cores' blocks' accelerator time <= k B - P + l G(B).
// The DP over the bypassed graph's ideals finds the least left-hand side among its splits whose
// every block is within B (a sum, not a maximum: dp[I][c][a] is the least for ideal I on c cores and
// a accelerators, an unused device adding nothing). Where that least exceeds the right-hand side,
// the optimum is above B. The first B tried is the upper bound U itself, and its least f(U) already
// bounds the optimum: every B <= U that fits is at least (f(U) + P - l G(U)) / k, as f only grows
// as B shrinks; a search between that and U raises it while the budget lasts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/budget.h"
#include "core/problem.h"
#include "core/status.h"

namespace placer {

// Why the bound does not apply to `problem`, or nullopt when it does: max-load without overlap,
// one accelerator kind, no backward nodes, a contracted problem (solvers/dp/throughput_dp.h).
std::optional<std::string> pooledDpBoundDoesNotApply(const Problem& problem);

struct PooledDpOptions {
  // The bypassed graph's lattice may have at most this many ideals: the fewest operators are
  // bypassed (the most floating first) that bring it within.
  std::int64_t max_ideals = 5'000;
};

struct PooledDpBound {
  double value = 0;         // no contiguous split does better
  int bypassed = 0;         // operators bypassed
  double pool = 0;          // their accelerator time
  std::int64_t ideals = 0;  // the bypassed graph's lattice
  int rounds = 0;           // DP runs (the first at the upper bound, then bisection)
  bool cut_short = false;   // the budget ended the bisection before it converged
};

// The bound above, given `upper` (the max-load of a contiguous split of `problem`) and `cpu_take`
// (G(upper): the most accelerator time one core's convex block takes over within `upper`; ignored
// without cores). nullopt when it does not apply, no bypass brings the lattice within the limit, or
// the budget ends before the first DP run.
Expected<std::optional<PooledDpBound>> pooledDpBound(const Problem& problem, double upper, double cpu_take,
                                                     const Budget& budget,
                                                     const PooledDpOptions& options = {});

}  // namespace placer
