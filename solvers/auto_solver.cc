#include "solvers/auto_solver.h"

#include <chrono>
#include <sstream>

#include "solvers/dp/throughput_dp.h"
#include "solvers/slicegraph/solve.h"

namespace placer {

namespace {

SolveResult autoThroughput(const Problem& problem, const SolveOptions& request) {
  const Budget& budget = request.budget;
  OrderSearchOptions search;
  search.seed = request.seed;
  search.threads = request.threads;
  search.limits = request.limits();
  auto phases = parseOrderPhases(request.orders.empty() ? kDefaultOrderPhases : request.orders);
  if (!phases) {
    SolveResult failed;
    failed.status = SolveStatus::Error;
    failed.message = phases.status().message();
    return failed;
  }
  // DPL: the slicer on the DFS order, with no budget (it is the answer of last resort).
  search.limits.budget = Budget::unlimited(budget.stopFlag());
  SolveResult dpl = solveSliceGraph(problem, search);
  dpl.solver = "dpl";
  if (dpl.status != SolveStatus::Feasible) return dpl;  // interrupted, infeasible on its order, error

  DpOptions exact_options;
  exact_options.max_ideals = request.max_ideals;
  exact_options.upper_bound = dpl.value;
  exact_options.threads = request.threads;
  exact_options.limits = request.limits();
  exact_options.limits.budget = budget.within(budget.remaining() / 2);
  SolveResult exact = solveThroughputDp(problem, exact_options);
  std::ostringstream why;
  switch (exact.status) {
    case SolveStatus::Optimal:
      exact.solver = "dp";
      why << "dp: " << exact.stats.ideals << " ideals, optimal";
      exact.message = why.str();
      return exact;
    case SolveStatus::Infeasible:  // proven: no contiguous split exists
    case SolveStatus::Interrupted:
    case SolveStatus::Error:
      exact.solver = "dp";
      return exact;
    case SolveStatus::ResourceLimit:  // "more than N ideals; ...", "ideals over 512 MiB after N; ..."
      why << exact.message.substr(0, exact.message.find(';'));
      break;
    default:
      why << "the exact DP did not finish in half the time limit (" << exact.message;
      if (exact.stats.ideals > 0) why << ", " << exact.stats.ideals << " ideals";
      why << ")";
      break;
  }
  // The order search with what is left, from DPL's order (so never worse than DPL).
  search.phases = *phases;
  search.limits.budget = budget;
  SolveResult searched = solveSliceGraph(problem, search);
  if (searched.status == SolveStatus::Interrupted) return searched;
  SolveResult& best =
      searched.status == SolveStatus::Feasible && searched.value <= dpl.value ? searched : dpl;
  best.solver = &best == &searched ? "slicegraph" : "dpl";
  best.stats.ideals = exact.stats.ideals;
  best.stats.ideal_pairs = exact.stats.ideal_pairs;
  best.message = why.str() + ": slicegraph, " + searched.message;
  return best;
}

// On a mixed machine, which SliceGraph does not price: DPL (the DP over the DFS linearisation), then
// the exact DP pruned by it with the whole budget; DPL's split when the DP does not finish.
SolveResult autoMixedKinds(const Problem& problem, const SolveOptions& request) {
  SolveResult dpl = solveDplUnbounded(problem, request.threads, request.limits());
  if (dpl.status != SolveStatus::Feasible) return dpl;

  DpOptions exact_options;
  exact_options.max_ideals = request.max_ideals;
  exact_options.upper_bound = dpl.value;
  exact_options.threads = request.threads;
  exact_options.limits = request.limits();
  SolveResult exact = solveThroughputDp(problem, exact_options);
  exact.solver = "dp";
  std::ostringstream why;
  switch (exact.status) {
    case SolveStatus::Optimal:
      why << "dp: " << exact.stats.ideals << " ideals, optimal";
      exact.message = why.str();
      return exact;
    case SolveStatus::Infeasible:
    case SolveStatus::Interrupted:
    case SolveStatus::Error:
      return exact;
    default:
      break;
  }
  why << "the exact DP did not finish (" << exact.message.substr(0, exact.message.find(';'))
      << "); SliceGraph does not price accelerator kinds apart: dpl";
  dpl.message = why.str();
  dpl.stats.ideals = exact.stats.ideals;
  dpl.stats.ideal_pairs = exact.stats.ideal_pairs;
  return dpl;
}

}  // namespace

SolveResult solveAuto(const Problem& problem, const SolveOptions& request) {
  if (problem.objective.goal == Goal::Throughput && !problem.objective.gpipe) {
    return problem.devices.mixed() ? autoMixedKinds(problem, request) : autoThroughput(problem, request);
  }
  const SolverInfo* ip = builtinSolvers().find("ip");
  SolveResult result = ip->solve(problem, request);
  result.solver = "ip";
  return result;
}

}  // namespace placer
