#include "solvers/auto_solver.h"

#include <atomic>
#include <chrono>
#include <iomanip>
#include <sstream>

#include "solvers/bounds/simple_bound.h"
#include "solvers/cluster_dp.h"
#include "solvers/clustering.h"
#include "solvers/dp/throughput_dp.h"
#include "solvers/mip.h"
#include "solvers/refine/refine.h"
#include "solvers/slicegraph/solve.h"

namespace placer {

bool continueExactDp(double elapsed, std::int64_t done, std::int64_t total, double remaining,
                     double checkpoint) {
  if (elapsed < checkpoint) return true;
  if (done <= 0) return false;
  const double eta = elapsed * static_cast<double>(total - done) / static_cast<double>(done);
  return eta <= remaining;
}

namespace {

using Clock = std::chrono::steady_clock;

// What auto has found so far: the best split, what proves how good it is, and the story.
class AutoSearch {
 public:
  AutoSearch(const Problem& problem, const SolveOptions& request) : problem_(problem), request_(request) {}

  // The lower bound the target ratio is judged against (the simple bound within a twentieth of the
  // budget; 0 when it fails).
  void bound() {
    const Budget& budget = request_.budget;
    const double seconds = budget.hasDeadline() ? budget.remaining() / 20 : 1.0;
    auto simple = throughputSimpleBound(problem_, budget.within(seconds), request_.mip_backend);
    if (simple) lower_ = simple->value;
  }

  // Keeps `candidate` if it is the first split or beats the best.
  void offer(SolveResult candidate, const std::string& name) {
    if (candidate.status != SolveStatus::Feasible && candidate.status != SolveStatus::Optimal) return;
    if (!best_.placement.device_of.empty() && !(candidate.value < best_.value)) return;
    best_ = std::move(candidate);
    best_.solver = name;
  }

  // Refines the best split within `budget` (solvers/refine/refine.h), contiguously.
  void refineBest(const Budget& budget) {
    RefineOptions refine;
    refine.budget = budget;
    refine.kicks = 1000;
    refine.seed = request_.seed;
    const RefineStats stats = refineResult(problem_, best_, refine);
    if (stats.after < stats.before) {
      std::ostringstream step;
      step << std::setprecision(8) << "refined " << best_.solver << "'s split: " << stats.before << " -> "
           << stats.after;
      note(step.str());
    }
  }

  // The orders SliceGraph sliced, reported whichever split answers.
  void countOrders(std::int64_t orders) { orders_ = orders; }

  bool hasSplit() const { return !best_.placement.device_of.empty(); }
  double value() const { return best_.value; }
  // The best split is within the target ratio of the lower bound.
  bool goodEnough() const {
    return hasSplit() && lower_ > 0 &&
           best_.value <= lower_ * std::max(1.0, request_.target_ratio) * (1 + 1e-9);
  }
  double goodEnoughValue() const { return lower_ * std::max(1.0, request_.target_ratio) * (1 + 1e-9); }

  void note(const std::string& step) { story_ << (story_.tellp() > 0 ? "; " : "") << step; }

  // The answer: the best split, Optimal when the lower bound meets it, the story as its message.
  SolveResult answer(std::int64_t ideals, std::int64_t ideal_pairs) {
    SolveResult out = std::move(best_);
    out.stats.ideals = ideals;
    out.stats.ideal_pairs = ideal_pairs;
    out.stats.orders = std::max(out.stats.orders, orders_);
    out.bound = std::min(lower_, out.value);
    out.gap = mip::relativeGap(out.value, out.bound);
    out.status = out.bound >= out.value * (1 - 1e-9) ? SolveStatus::Optimal : SolveStatus::Feasible;
    if (lower_ > 0) {
      std::ostringstream ratio;
      ratio << std::setprecision(4) << out.value / lower_;
      note(out.solver + "'s split answers, within " + ratio.str() + " of the simple bound");
    }
    out.message = story_.str();
    return out;
  }

 private:
  const Problem& problem_;
  const SolveOptions& request_;
  SolveResult best_;
  double lower_ = 0;
  std::int64_t orders_ = 0;
  std::ostringstream story_;
};

// The exact DP pruned by `upper_bound`, going on past its checkpoint while its ETA fits (see
// auto_solver.h); with `checkpointed` false it has the whole budget.
// `past_checkpoint` is set when the DP went on past its checkpoint because its estimate fit.
SolveResult exactDp(const Problem& problem, const SolveOptions& request, double upper_bound,
                    bool checkpointed, std::atomic<bool>& past_checkpoint) {
  const Budget& budget = request.budget;
  DpOptions options;
  options.max_ideals = request.max_ideals;
  options.upper_bound = upper_bound;
  options.threads = request.threads;
  options.limits = request.limits();
  if (checkpointed && budget.hasDeadline()) {
    const auto started = Clock::now();
    const double checkpoint = budget.remaining() / 2;
    options.lattice_seconds = checkpoint;
    options.keep_going = [started, checkpoint, budget, &past_checkpoint](std::int64_t done,
                                                                         std::int64_t total) {
      const double elapsed = secondsSince(started);
      const bool go_on = continueExactDp(elapsed, done, total, budget.remaining(), checkpoint);
      if (go_on && elapsed >= checkpoint) past_checkpoint = true;
      return go_on;
    };
  }
  return solveThroughputDp(problem, options);
}

// Why the exact DP gave no optimum, for the story.
std::string whyNotExact(const SolveResult& exact) {
  std::ostringstream why;
  if (exact.status == SolveStatus::ResourceLimit) {  // "more than N ideals; ..."
    why << exact.message.substr(0, exact.message.find(';'));
  } else {
    why << "the exact DP did not finish (" << exact.message;
    if (exact.stats.ideals > 0) why << ", " << exact.stats.ideals << " ideals";
    why << ")";
  }
  return why.str();
}

SolveResult autoThroughput(const Problem& problem, const SolveOptions& request) {
  const Budget& budget = request.budget;
  const bool mixed = problem.devices.mixed();
  AutoSearch search(problem, request);
  search.bound();
  // DPL: polynomial and never stopped by the deadline (the answer of last resort).
  SolveResult dpl = dplSplit(problem, request);
  if (dpl.status != SolveStatus::Feasible) {
    dpl.solver = "dpl";
    return dpl;  // interrupted, infeasible on its order, error
  }
  search.offer(dpl, "dpl");
  if (search.goodEnough()) return search.answer(0, 0);

  // A quick upper bound from the clusters, so that the exact DP prunes from a tight incumbent; on a
  // graph of few more units than clusters it would be the exact DP itself, run next anyway.
  if (countClusterUnits(problem) > 2 * defaultClusterTarget(problem)) {
    SolveOptions quick = request;
    quick.budget = budget.within(budget.hasDeadline() ? budget.remaining() / 10 : 5.0);
    SolveResult clustered = solveClusterDp(problem, quick, /*kicks=*/20);
    if (budget.interrupted()) {
      clustered.status = SolveStatus::Interrupted;  // whatever it found is not to be used
      clustered.message = "interrupted";
      return clustered;
    }
    search.offer(clustered, "cluster-dp");
    if (search.goodEnough()) return search.answer(0, 0);
  }

  std::atomic<bool> past_checkpoint{false};
  SolveResult exact = exactDp(problem, request, search.value(), !mixed, past_checkpoint);
  switch (exact.status) {
    case SolveStatus::Optimal: {
      exact.solver = "dp";
      std::ostringstream why;
      why << "dp: " << exact.stats.ideals << " ideals, optimal";
      if (past_checkpoint) why << " (it went on past half the time limit: its estimate fit)";
      exact.message = why.str();
      return exact;
    }
    case SolveStatus::Interrupted:
    case SolveStatus::Error:
      exact.solver = "dp";
      return exact;
    case SolveStatus::Infeasible:
      // Pruned by a split found above: none is better. The best so far is optimal (its own value is
      // the bound the DP could not beat).
      search.note("dp: nothing better than " + std::to_string(search.value()) + " exists");
      return [&] {
        SolveResult out = search.answer(exact.stats.ideals, exact.stats.ideal_pairs);
        out.bound = out.value;
        out.gap = 0;
        out.status = SolveStatus::Optimal;
        return out;
      }();
    default:
      break;
  }
  search.note(whyNotExact(exact));
  if (!mixed && !budget.exhausted()) {
    // The order search with what is left, from DPL's order (so never worse than DPL).
    OrderSearchOptions orders;
    auto phases = parseOrderPhases(request.orders.empty() ? kDefaultOrderPhases : request.orders);
    if (!phases) {
      SolveResult bad;
      bad.message = phases.status().message();
      return bad;
    }
    orders.phases = *phases;
    orders.seed = request.seed;
    orders.threads = request.threads;
    orders.limits = request.limits();
    orders.good_enough = search.goodEnoughValue();
    // Half of what is left: the refinement below takes the rest.
    if (budget.hasDeadline()) orders.limits.budget = budget.within(budget.remaining() / 2);
    SolveResult searched = solveSliceGraph(problem, orders);
    if (searched.status == SolveStatus::Interrupted) return searched;
    search.note("slicegraph, " + searched.message);
    search.countOrders(searched.stats.orders);
    search.offer(searched, "slicegraph");
  }
  // The rest of the budget refines the best split (contiguously, with the iterated search until the
  // deadline or 1,000 kicks in a row without a better split).
  if (!search.goodEnough() && !budget.exhausted()) search.refineBest(budget);
  return search.answer(exact.stats.ideals, exact.stats.ideal_pairs);
}

}  // namespace

SolveResult solveAuto(const Problem& problem, const SolveOptions& request) {
  if (problem.objective.goal == Goal::Throughput && !problem.objective.gpipe)
    return autoThroughput(problem, request);
  const SolverInfo* ip = builtinSolvers().find("ip");
  SolveResult result = ip->solve(problem, request);
  result.solver = "ip";
  return result;
}

}  // namespace placer
