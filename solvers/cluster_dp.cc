#include "solvers/cluster_dp.h"

#include <chrono>
#include <iomanip>
#include <sstream>

#include "core/evaluate.h"
#include "solvers/clustering.h"
#include "solvers/dp/throughput_dp.h"
#include "solvers/refine/refine.h"
#include "solvers/stages.h"

namespace placer {

namespace {

// The best split of the clusters the DP finds within the budget: its optimum, DPL's split when it
// runs out of time or ideals, or what went wrong.
SolveResult splitClusters(const Problem& clustered, const SolveOptions& request) {
  SolveResult dpl = solveDplUnbounded(clustered, request.threads, request.limits());
  if (dpl.status != SolveStatus::Feasible) return dpl;
  DpOptions exact;
  exact.max_ideals = request.max_ideals;
  exact.threads = request.threads;
  exact.limits = request.limits();
  exact.upper_bound = dpl.value;
  SolveResult dp = solveThroughputDp(clustered, exact);
  if (dp.status == SolveStatus::Optimal || dp.status == SolveStatus::Interrupted) return dp;
  dpl.stats.ideals = dp.stats.ideals;
  dpl.message = "the DP on the clusters did not finish (" + dp.message.substr(0, dp.message.find(';')) +
                "): DPL's split of them";
  return dpl;
}

}  // namespace

SolveResult solveClusterDp(const Problem& problem, const SolveOptions& request, int kicks) {
  const auto started = std::chrono::steady_clock::now();
  const Budget& budget = request.budget;
  const int units = countClusterUnits(problem);
  std::ostringstream how;
  SolveResult best;
  best.status = SolveStatus::Infeasible;
  std::string no_split;
  // K clusters, then 2K, 4K, ... (without a target given) while the DP on them finishes in a
  // fraction of the time left: more clusters cut closer to the operators' own optimum.
  for (int target = request.cluster_target > 0 ? request.cluster_target : defaultClusterTarget(problem);;
       target *= 2) {
    const auto round_started = std::chrono::steady_clock::now();
    ClusterOptions cluster;
    cluster.target = target;
    cluster.alpha = request.cluster_alpha;
    cluster.budget = budget;
    const Clustering clustering = clusterOperators(problem, cluster);
    const Problem clustered = contractClusters(problem, clustering);
    SolveResult on_clusters = splitClusters(clustered, request);
    if (on_clusters.status == SolveStatus::Interrupted) return on_clusters;
    const double seconds = secondsSince(round_started);
    how << (best.placement.device_of.empty() && no_split.empty() ? "" : "; ") << units << " -> "
        << clustering.units << " units: ";
    if (on_clusters.status == SolveStatus::Optimal || on_clusters.status == SolveStatus::Feasible) {
      std::vector<int> device_of(clustering.group_of.size(), 0);
      for (std::size_t v = 0; v < device_of.size(); ++v)
        device_of[v] = on_clusters.placement.device_of[clustering.group_of[v]];
      const double value = evaluateThroughput(problem, device_of).max_load;
      how << std::setprecision(8) << (on_clusters.status == SolveStatus::Optimal ? "dp " : "dpl ") << value
          << std::setprecision(3) << " (" << seconds << " s)";
      if (best.placement.device_of.empty() || value < best.value) {
        best = std::move(on_clusters);
        best.placement.device_of = std::move(device_of);
        best.value = best.placement.value = value;
      }
    } else {
      no_split = on_clusters.message;
      how << "no split (" << no_split << ")";
    }
    const bool finished = on_clusters.status == SolveStatus::Optimal;
    if (request.cluster_target > 0 || clustering.units >= units || !finished || budget.exhausted() ||
        seconds > 0.1 * budget.remaining())
      break;
  }
  if (best.placement.device_of.empty()) {
    // No contiguous split of the clusters fits (a cluster too big for what is left of the memory):
    // DPL's split of the problem itself, which the refinement starts from instead.
    best = solveDplUnbounded(problem, request.threads, request.limits());
    if (best.status != SolveStatus::Feasible) return best;
    how << "; DPL's split of the operators";
  }
  SolveResult& result = best;
  result.placement.stage_of = stagesOrDevices(problem, result.placement.device_of);
  result.status = SolveStatus::Feasible;
  result.bound = 0;
  result.gap = 1;
  result.solver = "cluster-dp";

  const auto refine_started = std::chrono::steady_clock::now();
  RefineOptions refine;
  refine.contiguous = true;
  refine.budget = budget;
  refine.kicks = kicks;
  const RefineStats refined = refineResult(problem, result, refine);
  how << "; refine: " << std::setprecision(8) << refined.before << " -> " << refined.after << " ("
      << std::setprecision(3) << secondsSince(refine_started) << " s)";
  result.message = "cluster " + how.str();
  result.stats.seconds = secondsSince(started);
  return result;
}

}  // namespace placer
