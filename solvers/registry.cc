#include "solvers/registry.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "core/evaluate.h"
#include "core/latency.h"
#include "solvers/auto_solver.h"
#include "solvers/baselines/local_search.h"
#include "solvers/baselines/one_accelerator.h"
#include "solvers/baselines/pipedream.h"
#include "solvers/baselines/scotch.h"
#include "solvers/cluster_dp.h"
#include "solvers/dp/throughput_dp.h"
#include "solvers/latency_greedy.h"
#include "solvers/latency_ip.h"
#include "solvers/latency_starts.h"
#include "solvers/maxload_ip.h"
#include "solvers/mip.h"
#include "solvers/refine/refine.h"
#include "solvers/slicegraph/slicer.h"
#include "solvers/slicegraph/solve.h"

namespace placer {

SolveResult dplSplit(const Problem& problem, const SolveOptions& request) {
  if (!problem.devices.mixed()) return sliceOrder(problem, dfsForwardOrder(problem));
  Limits limits;  // the stop flag only: no progress lines, as the slicer's DPL gives none
  limits.budget = Budget::unlimited(request.budget.stopFlag());
  return solveDplUnbounded(problem, request.threads, std::move(limits));
}

namespace {

// The DP's reductions: colocation classes, orphans, SCCs and zero-cost leaves contracted.
constexpr const char* kDpReductions = "subdivide,colocate,orphans,scc,fold-leaves";

SolveResult failed(SolveStatus status, std::string message) {
  SolveResult result;
  result.status = status;
  result.message = std::move(message);
  return result;
}

// The solver as one that prices accelerator kinds apart.
SolverInfo pricingKinds(SolverInfo info) {
  info.kinds = true;
  return info;
}

// The solver as one whose splits may exceed memory, reported rather than refused (Scotch).
SolverInfo exceedingMemory(SolverInfo info) {
  info.may_exceed_memory = true;
  return info;
}

// Throughput by the DP: DPL first (polynomial; it answers even when the time is spent, as the split
// everything falls back on), then, unless `linear`, the exact DP pruned by DPL's value. An exact DP
// out of time leaves DPL's split, without a certificate.
SolveResult dpThroughput(const Problem& problem, const SolveOptions& request, bool linear) {
  // DPL: SliceGraph's slicer on the DFS order (polynomial; never stopped by the deadline).
  SolveResult dpl = dplSplit(problem, request);
  if (request.budget.interrupted()) return failed(SolveStatus::Interrupted, "interrupted");
  if (linear) return dpl;
  DpOptions options;
  options.max_ideals = request.max_ideals;
  options.threads = request.threads;
  options.limits = request.limits();
  // DPL's split is contiguous in the original graph, so its max-load bounds the optimum and lets the
  // exact DP skip every block that cannot beat it.
  if (dpl.status == SolveStatus::Feasible) options.upper_bound = dpl.value;
  SolveResult exact = solveThroughputDp(problem, options);
  exact.stats.seconds += dpl.stats.seconds;
  if (exact.status == SolveStatus::TimeLimit && dpl.status == SolveStatus::Feasible) {
    // The best complete split there is: DPL's, reported as what it is (no certificate).
    dpl.status = SolveStatus::TimeLimit;
    dpl.message = exact.message + " (" + std::to_string(exact.stats.ideals) + " ideals); DPL's split";
    dpl.stats = exact.stats;
    return dpl;
  }
  return exact;
}

// Latency by the DP: the max-load DP's split scored by the latency evaluator (Table 4's baseline).
SolveResult dpLatency(const Problem& problem, const SolveOptions& request, bool linear) {
  if (!request.dp_split) return failed(SolveStatus::Error, "no DP split available for the latency objective");
  auto split = request.dp_split(problem, linear, request.budget);
  if (!split) {
    if (split.status().code() == StatusCode::Interrupted)
      return failed(SolveStatus::Interrupted, "interrupted");
    if (split.status().code() == StatusCode::ResourceLimit)
      return failed(SolveStatus::ResourceLimit, split.status().message());
    // No contiguous split fits, or none was found in time: what the DP found, not a failure of it.
    if (split.status().code() == StatusCode::Infeasible)
      return failed(SolveStatus::Infeasible, split.status().message());
    if (split.status().code() == StatusCode::TimeLimit)
      return failed(SolveStatus::TimeLimit, split.status().message());
    return failed(SolveStatus::Error, split.status().message());
  }
  SolveResult result = std::move(*split);
  auto latency = evaluateLatency(problem, result.placement.device_of);
  if (!latency) {
    return failed(SolveStatus::Error,
                  "the max-load DP's split cannot be scheduled: " + latency.status().message());
  }
  result.value = latency->latency;
  result.placement.value = result.value;
  result.bound = 0;  // the DP optimises max-load: no certificate for latency
  result.gap = result.value > 0 ? 1.0 : 0.0;
  result.status = SolveStatus::Feasible;
  return result;
}

// The throughput DP runs on the contracted problem (solvers/dp/throughput_dp.h).
Status dpPrecondition(const Problem& problem) {
  return problem.objective.goal == Goal::Latency ? Status::ok() : checkContracted(problem);
}

SolveResult sliceGraphSolve(const Problem& problem, const SolveOptions& request) {
  OrderSearchOptions options;
  auto phases = parseOrderPhases(request.orders.empty() ? kDefaultOrderPhases : request.orders);
  if (!phases) return failed(SolveStatus::Error, phases.status().message());
  options.phases = std::move(*phases);
  options.seed = request.seed;
  options.threads = request.threads;
  options.limits = request.limits();
  return solveSliceGraph(problem, options);
}

SolveResult dpSolve(const Problem& problem, const SolveOptions& request, bool linear) {
  return problem.objective.goal == Goal::Latency ? dpLatency(problem, request, linear)
                                                 : dpThroughput(problem, request, linear);
}

// The max-load integer program, started from the exact DP's split found within a third of the time
// (DPL's when the DP runs out).
SolveResult maxLoadIp(const Problem& problem, const SolveOptions& request, bool contiguous) {
  MaxLoadIpOptions options;
  options.contiguous = contiguous;
  options.gpipe = problem.objective.gpipe;
  options.limits = request.limits();
  options.backend = request.mip_backend;
  const Budget& budget = request.budget;
  if (request.dp_split) {
    auto start = request.dp_split(problem, /*linear=*/false, budget.within(budget.remaining() / 3));
    if (budget.interrupted()) return failed(SolveStatus::Interrupted, "interrupted");
    if (start) options.start = start->placement.device_of;
  }
  return solveMaxLoadIp(problem, options);
}

// The latency integer program (q = 1 contiguous, q slots per accelerator otherwise), with DPL's split
// as a further start: polynomial, so it hardly eats the time limit (the exact DP meets millions of
// ideals on some latency workloads, e.g. 3 million on layer GNMT).
SolveResult latencyIp(const Problem& problem, const SolveOptions& request, bool contiguous) {
  LatencyIpOptions options;
  options.subgraphs_per_accelerator = contiguous ? 1 : request.subgraphs_per_accelerator;
  options.limits = request.limits();
  options.backend = request.mip_backend;
  // Starting splits, kept whole: the answer falls back on them (below).
  std::vector<Placement> starts;
  if (SolveResult greedy = solveLatencyGreedy(problem); greedy.status == SolveStatus::Feasible)
    starts.push_back(greedy.placement);
  if (request.dp_split) {
    if (auto dpl = request.dp_split(problem, /*linear=*/true, request.budget)) {
      options.baselines.push_back(dpl->placement.device_of);
      starts.push_back(dpl->placement);
    }
  }
  if (request.budget.interrupted()) return failed(SolveStatus::Interrupted, "interrupted");
  // The program stops a little before the deadline, so that its incumbent is refined within it.
  if (request.budget.hasDeadline()) {
    const double polish = std::min(0.05 * request.budget.remaining(), 5.0);
    options.limits.budget = request.budget.within(request.budget.remaining() - polish);
  }
  SolveResult result = solveLatencyIp(problem, options);
  // With q > 1 the program's own slots can beat the evaluator's level split of the same placement;
  // what is written out is the placement, run as the evaluator runs it, so that is the value reported
  // (bound <= optimum <= value still holds).
  if (result.placement.device_of.empty()) return result;
  if (result.status == SolveStatus::Interrupted) return result;
  auto level = evaluateLatency(problem, result.placement.device_of);
  std::string unrunnable;
  if (!level) {
    unrunnable = level.status().message();
  } else if (!level->valid()) {
    unrunnable = level->violations.front();
  } else if (level->latency > result.value) {
    result.value = level->latency;
    result.placement.value = level->latency;
    result.gap = mip::relativeGap(result.value, result.bound);
  }
  // The program orders an accelerator's slots itself; run as level pieces its placement can even
  // deadlock. Then any start is better, and never returning worse than a start is the rule anyway:
  // run that way, the placement can be slower than the greedy's or DPL's split.
  if (!unrunnable.empty()) result.value = kInfinity;
  for (const Placement& start : starts) {
    if (!latencyStartFrom(problem, start.device_of, options.subgraphs_per_accelerator)) continue;
    auto run = evaluateLatency(problem, start.device_of);
    if (!run || !run->valid() || !(run->latency < result.value * (1 - 1e-12))) continue;
    result.placement = start;
    result.value = result.placement.value = run->latency;
    result.bound = std::min(result.bound, result.value);
    result.gap = mip::relativeGap(result.value, result.bound);
    if (result.status == SolveStatus::Optimal) result.status = SolveStatus::Feasible;
    result.message = unrunnable.empty()
                         ? "the program's placement runs slower as level pieces than a starting split, "
                           "which is returned"
                         : "the program's placement cannot run as level pieces (" + unrunnable +
                               "); a starting split is returned";
    unrunnable.clear();
  }
  if (!unrunnable.empty()) {
    return failed(SolveStatus::Error, "the integer program's placement cannot run as level pieces (" +
                                          unrunnable + "), and no starting split can stand in for it");
  }
  // The incumbent refined (solvers/refine/refine.h): moves judged by the latency evaluator, which
  // never makes it slower and keeps it runnable as level pieces.
  if (result.status == SolveStatus::Feasible || result.status == SolveStatus::TimeLimit) {
    RefineOptions refine;
    refine.budget = request.budget;
    const RefineStats refined = refineResult(problem, result, refine);
    if (refined.after < refined.before) {
      std::ostringstream note;
      note << "the program's placement " << refined.before << " refined to " << refined.after;
      result.message = result.message.empty() ? note.str() : result.message + "; " + note.str();
    }
  }
  return result;
}

SolveResult ipSolve(const Problem& problem, const SolveOptions& request, bool contiguous) {
  SolveResult result = problem.objective.goal == Goal::Latency ? latencyIp(problem, request, contiguous)
                                                               : maxLoadIp(problem, request, contiguous);
  result.stats.mip_solver = mip::toString(request.mip_backend);
  return result;
}

}  // namespace

void SolverRegistry::add(SolverInfo info) {
  solvers_.push_back(std::move(info));
}

const SolverInfo* SolverRegistry::find(std::string_view name) const {
  auto it =
      std::find_if(solvers_.begin(), solvers_.end(), [&](const SolverInfo& s) { return s.name == name; });
  return it == solvers_.end() ? nullptr : &*it;
}

std::string SolverRegistry::names() const {
  return names([](const SolverInfo&) { return true; });
}

std::string SolverRegistry::names(const std::function<bool(const SolverInfo&)>& pred) const {
  std::vector<const SolverInfo*> chosen;
  for (const SolverInfo& s : solvers_) {
    if (pred(s)) chosen.push_back(&s);
  }
  std::string out;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (i > 0) out += i + 1 == chosen.size() ? " or " : ", ";
    out += chosen[i]->name;
  }
  return out;
}

void registerBuiltinSolvers(SolverRegistry& registry) {
  registry.add(pricingKinds(
      {"auto",
       "the default: the exact DP when it finishes in half the time limit, SliceGraph's order search "
       "otherwise (throughput); the integer program from the greedy's and DPL's splits (latency)",
       true, true, true, false, false, /*runs_exact_dp=*/true, kDpReductions, dpPrecondition, solveAuto}));
  registry.add(pricingKinds(
      {"dp", "exact DP over ideals (§5.1.1): optimal among contiguous splits", true, true, true, true, false,
       /*runs_exact_dp=*/true, kDpReductions, dpPrecondition,
       [](const Problem& p, const SolveOptions& r) { return dpSolve(p, r, /*linear=*/false); }}));
  registry.add(pricingKinds(
      {"dpl", "DP over a DFS linearisation of the graph (§5.1.2): polynomial, not always optimal", true, true,
       true, false, false, false, kDpReductions, dpPrecondition,
       [](const Problem& p, const SolveOptions& r) { return dpSolve(p, r, /*linear=*/true); }}));
  registry.add(pricingKinds(
      {"cluster-dp",
       "clustering + exact DP + refinement (Parmesan): the DP on operator clusters (--cluster-target, "
       "--alpha), its split refined on the operators; an upper bound, fast on large graphs",
       true, false, true, false, false, false, kDpReductions, dpPrecondition,
       [](const Problem& p, const SolveOptions& r) { return solveClusterDp(p, r); }}));
  registry.add({"slicegraph",
                "SliceGraph (Archer et al. 2024): optimal slicings of many topological orders (--orders), "
                "never worse than DPL",
                true, false, true, false, false, false, kDpReductions, checkContracted, sliceGraphSolve});
  // Colocation and SCC contraction are exact for contiguous splits; an SCC need not stay together
  // when splits may be non-contiguous.
  registry.add(pricingKinds(
      {"ip", "integer program (GLPK or CBC, --mip-solver), contiguous splits (Fig. 6; Fig. 3 for latency)",
       true, true, true, true, true, false, "subdivide,colocate,scc", nullptr,
       [](const Problem& p, const SolveOptions& r) { return ipSolve(p, r, /*contiguous=*/true); }}));
  registry.add(pricingKinds(
      {"ip-noncontig",
       "integer program (GLPK or CBC), non-contiguous splits (§5.2; Fig. 4 with q subgraphs per accelerator)",
       true, true, false, true, true, false, "subdivide,colocate", nullptr,
       [](const Problem& p, const SolveOptions& r) { return ipSolve(p, r, /*contiguous=*/false); }}));
  registry.add(
      pricingKinds({"greedy", "fill accelerators in topological order (the latency baseline of App. F)",
                    false, true, false, false, false, false, "subdivide", nullptr,
                    [](const Problem& p, const SolveOptions&) { return solveLatencyGreedy(p); }}));
  // The baselines of Tarnawski et al. 2020, §6 (solvers/baselines/): what the paper's tables set its
  // algorithms against. None proves anything; scotch may exceed memory and says by how much.
  registry.add(pricingKinds(
      {"one-accelerator",
       "baseline: the whole model on one accelerator (operators it cannot run on a CPU core); infeasible "
       "when it does not fit",
       true, true, false, false, true, false, "subdivide", nullptr, solveOneAccelerator}));
  registry.add({"local-search",
                "baseline (§6): best single-node moves from a random split to a local optimum, --restarts "
                "random starts (default 10) from --seed; non-contiguous splits",
                true, false, false, false, true, false, "subdivide,colocate", nullptr, solveLocalSearch});
  registry.add(pricingKinds(
      {"pipedream",
       "baseline (§6): PipeDream's optimiser, branchings contracted so the graph is a path, then the DP "
       "over it (no replication)",
       true, false, true, false, false, false, "subdivide", nullptr, solvePipeDream}));
  registry.add(
      exceedingMemory({"scotch",
                       "baseline (§6): the Scotch graph partitioner (compute balanced, communication "
                       "cut) over the accelerators; may exceed memory, which the output reports",
                       true, false, false, false, false, false, "subdivide,colocate", nullptr, solveScotch}));
}

const SolverRegistry& builtinSolvers() {
  static const SolverRegistry registry = [] {
    SolverRegistry r;
    registerBuiltinSolvers(r);
    return r;
  }();
  return registry;
}

Expected<const SolverInfo*> findSolver(std::string_view name) {
  const SolverInfo* info = builtinSolvers().find(name);
  if (info == nullptr) {
    return unsupported("unknown algorithm '" + std::string(name) + "' (expected " + builtinSolvers().names() +
                       ")");
  }
  return info;
}

}  // namespace placer
