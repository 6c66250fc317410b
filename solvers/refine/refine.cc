#include "solvers/refine/refine.h"

#include <chrono>
#include <cmath>

#include "core/evaluate.h"
#include "core/latency.h"
#include "solvers/clustering.h"
#include "solvers/mip.h"
#include "solvers/refine/moves.h"
#include "solvers/stages.h"

namespace placer {

double refineObjective(const Problem& problem, const std::vector<int>& device_of) {
  if (problem.objective.goal == Goal::Latency) {
    auto latency = evaluateLatency(problem, device_of);
    return latency && latency->valid() ? latency->latency : kInfinity;
  }
  return problem.objective.gpipe ? gpipeObjective(problem, device_of)
                                 : evaluateThroughput(problem, device_of).max_load;
}

namespace {

// The coarsest level a V-cycle goes down to: a few units per device.
int coarsestUnits(const Problem& problem) {
  return std::max(16, 4 * problem.devices.count());
}

void refineLevel(const Problem& problem, std::vector<int>& device_of, const RefineOptions& options,
                 RefineStats& stats) {
  if (problem.objective.goal == Goal::Latency) {
    refineLatencyLevel(problem, device_of, options, stats);
  } else {
    refineThroughputLevel(problem, device_of, options, stats);
  }
}

// One graph of the V-cycle: the problem, and how its vertices map onto the next coarser one's.
struct CoarserLevel {
  Problem problem;
  std::vector<int> group_of;
};

// Refines on ever coarser graphs, clustered within devices, then back down (see refine.h).
void refineMultilevel(const Problem& problem, std::vector<int>& device_of, const RefineOptions& options,
                      RefineStats& stats) {
  std::vector<CoarserLevel> coarser;  // coarser[i] is level i+1; level 0 is `problem`
  std::vector<std::vector<int>> split_at{device_of};
  const Problem* current = &problem;
  int units = static_cast<int>(moveUnits(problem).size());
  while (units > coarsestUnits(problem) && coarser.size() < 12 && !options.budget.exhausted()) {
    ClusterOptions cluster;
    cluster.target = std::max(coarsestUnits(problem), units / 2);
    cluster.device_of = split_at.back();
    cluster.budget = options.budget;
    Clustering clustering = clusterOperators(*current, cluster);
    if (clustering.units > units * 9 / 10) break;  // the devices' units barely merge any more
    CoarserLevel level{contractClusters(*current, clustering), clustering.group_of};
    std::vector<int> coarse_split(static_cast<std::size_t>(clustering.groups), 0);
    for (std::size_t v = 0; v < clustering.group_of.size(); ++v)
      coarse_split[static_cast<std::size_t>(clustering.group_of[v])] = split_at.back()[v];
    units = clustering.units;
    coarser.push_back(std::move(level));
    split_at.push_back(std::move(coarse_split));
    current = &coarser.back().problem;
  }
  stats.levels = static_cast<int>(coarser.size()) + 1;
  // From the coarsest level down: refine, then carry the split onto the finer graph.
  std::vector<int> split = split_at.back();
  for (std::size_t i = coarser.size(); i-- > 0;) {
    refineLevel(coarser[i].problem, split, options, stats);
    std::vector<int> finer(coarser[i].group_of.size());
    for (std::size_t v = 0; v < finer.size(); ++v)
      finer[v] = split[static_cast<std::size_t>(coarser[i].group_of[v])];
    split = std::move(finer);
  }
  refineLevel(problem, split, options, stats);
  device_of = std::move(split);
}

// The iterated search after the passes (see refine.h): kicks and passes until `kicks` kicks in a row
// find nothing better.
void iterate(const Problem& problem, std::vector<int>& split, const RefineOptions& options,
             RefineStats& stats) {
  const std::vector<std::vector<Vertex>> units = moveUnits(problem);
  std::mt19937_64 rng(options.seed);
  double best = refineObjective(problem, split);
  const int kick_units = options.kick_units > 0 ? options.kick_units : options.contiguous ? 8 : 32;
  for (int fruitless = 0; fruitless < options.kicks && !options.budget.exhausted(); ++fruitless) {
    std::vector<int> trial = split;
    ++stats.kicks;
    if (!kickSplit(problem, units, trial, rng, options.contiguous, kick_units)) continue;
    refineLevel(problem, trial, options, stats);
    const double value = refineObjective(problem, trial);
    if (value > best) continue;
    if (value < best * (1 - 1e-12)) fruitless = -1;
    best = value;
    split = std::move(trial);
  }
}

}  // namespace

Refined refineSplit(const Problem& problem, const std::vector<int>& device_of, const RefineOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  Refined out;
  out.device_of = device_of;
  out.value = out.stats.before = refineObjective(problem, device_of);
  if (std::isfinite(out.value) && boost::num_vertices(problem.graph) > 0 && !options.budget.exhausted()) {
    std::vector<int> split = device_of;
    if (options.multilevel) {
      refineMultilevel(problem, split, options, out.stats);
    } else {
      refineLevel(problem, split, options, out.stats);
    }
    if (problem.objective.goal == Goal::Throughput) iterate(problem, split, options, out.stats);
    // The evaluator judges the result; the split given stands unless the result is as good.
    const double value = refineObjective(problem, split);
    if (value <= out.value) {
      out.device_of = std::move(split);
      out.value = value;
    }
  }
  out.stats.after = out.value;
  out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

RefineStats refineResult(const Problem& problem, SolveResult& result, const RefineOptions& options) {
  if (result.placement.device_of.empty()) return {};
  Refined refined = refineSplit(problem, result.placement.device_of, options);
  if (refined.device_of == result.placement.device_of) return refined.stats;
  const double value = refineObjective(problem, refined.device_of);
  result.placement.device_of = std::move(refined.device_of);
  result.placement.stage_of = stagesOrDevices(problem, result.placement.device_of);
  result.value = result.placement.value = value;
  if (result.status == SolveStatus::Optimal || result.status == SolveStatus::Feasible) {
    result.status = result.bound >= value * (1 - 1e-9) ? SolveStatus::Optimal : SolveStatus::Feasible;
  }
  result.gap = mip::relativeGap(result.value, result.bound);
  refined.stats.after = value;
  return refined.stats;
}

}  // namespace placer
