#include "passes/certify.h"

#include <algorithm>

#include "passes/partition.h"
#include "solvers/bounds/certificate.h"

namespace placer {

namespace {

// Seconds for the bounds beyond the simple one: what the partition pass left of the deadline, at most
// kBoundShare of the time limit; without a deadline, kBoundShare of the time the solve took.
double boundSeconds(const PassOptions& options, const PipelineState& state) {
  const Budget& budget = state.budget();
  if (budget.hasDeadline()) return std::min(budget.remaining(), kBoundShare * options.solver.time_limit);
  return std::max(kMinBoundSeconds, kBoundShare * state.solve_seconds);
}

}  // namespace

Expected<PassResult> CertifyPass::run(Problem& problem, const PassOptions& options, PipelineState& state) {
  if (!state.solve || state.solver == nullptr)
    return unsupported("nothing to certify: the pipeline has no partition pass before certify");
  PassResult out;
  if (state.lossy()) {
    out.note = "no certificate: a lossy reduction ran before partition";
    return out;
  }
  const SolverInfo& solver = *state.solver;
  const bool max_load = problem.objective.goal == Goal::Throughput && !problem.objective.gpipe;
  // The exact DP's optimum certifies another contiguous max-load solver's answer where it finishes
  // (a solver that runs the DP itself has tried already).
  ContiguousOptimumFn optimum;
  if (max_load && solver.contiguous && !solver.runs_exact_dp) {
    optimum = [&](const Budget& budget) -> std::optional<double> {
      auto dp = runDpPipeline(problem, options, "dp", budget, false);
      if (dp && dp->solve.status == SolveStatus::Optimal) return dp->solve.value;
      return std::nullopt;
    };
  }
  const Problem& original = state.original() != nullptr ? *state.original() : problem;
  state.solve->certificate = certify(problem, original, solver, *state.solve, state.budget(),
                                     boundSeconds(options, state), options.solver.mip_backend, optimum);
  out.note = answerSummary(*state.solve);
  return out;
}

}  // namespace placer
