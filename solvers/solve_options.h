// The options of a solve (DESIGN.md, "Solvers"): one type for what a caller sets (the CLI's flags,
// the facade's PlaceOptions::solver), what the partition pass reads and what every solver of the
// registry (solvers/registry.h) gets.
//
// Limits (solvers/limits.h) are the part the DP, SliceGraph and the integer programs share: the
// budget, the time limit, the gap and the progress callback. SolveOptions derives from Limits so
// that those fields keep their names at the top level (options.time_limit, options.budget) and a
// solver's own options take `options.limits()` whole instead of copying the fields one by one.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/problem.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/limits.h"
#include "solvers/mip.h"

namespace placer {

// The max-load DP's split (DPL's when `linear`) of a problem on the same vertices, within a budget.
// Starting splits need the DP's own reductions, which an integer program must not see; the partition
// pass (passes/partition.cc) runs them in a nested pipeline.
using DpSplitFn = std::function<Expected<SolveResult>(const Problem&, bool linear, const Budget&)>;

struct SolveOptions : Limits {
  std::int64_t max_ideals = 4'000'000;  // the exact DP refuses larger lattices
  // The solver of every integer and linear program: the partition pass's, its certificate's and the
  // bound methods' (--mip-solver).
  mip::Backend mip_backend = mip::kDefaultBackend;
  int subgraphs_per_accelerator = 2;  // q of the non-contiguous latency IP
  std::string orders;      // SliceGraph's order phases (solvers/slicegraph/search.h); empty: the default
  std::uint64_t seed = 1;  // SliceGraph's and local search's random numbers
  int restarts = 10;       // local search's random starts (Tarnawski et al. 2020, §6: 10)
  int threads = 0;         // 0: every core
  // The cluster pass and the cluster-dp solver (solvers/clustering.h): how many clusters to leave
  // (0: defaultClusterTarget) and Parmesan's alpha, the weight of communication in a merge's score.
  int cluster_target = 0;
  double cluster_alpha = 0.001;
  // auto stops once its answer is certified within this ratio of a lower bound (1: proven optimal
  // among contiguous splits, which the exact DP proves when it finishes).
  double target_ratio = 1.0;
  // Set by the partition pass for the solver it runs; callers leave it empty (null: no such start).
  DpSplitFn dp_split;

  const Limits& limits() const { return *this; }
  Limits& limits() { return *this; }
};

}  // namespace placer
