#include "passes/partition.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/evaluate.h"
#include "core/latency.h"
#include "passes/pass_manager.h"
#include "solvers/bounds/certificate.h"

namespace placer {

namespace {

std::string memberList(const OpNode& node) {
  std::ostringstream out;
  const std::size_t shown = std::min<std::size_t>(node.members.size(), 8);
  for (std::size_t i = 0; i < shown; ++i)
    out << (i ? ", " : "") << node.members[i];
  if (node.members.size() > shown) out << ", ... (" << node.members.size() << " in all)";
  return out.str();
}

std::string describeNodeOrGroup(const OpGraph& g, Vertex v) {
  const OpNode& node = g[v];
  if (node.members.size() == 1) return describeNode(g, v);
  return "the colocated nodes {" + memberList(node) + "}";
}

}  // namespace

Status checkTriviallyFeasible(const Problem& problem) {
  const OpGraph& g = problem.graph;
  const DeviceSet& d = problem.devices;
  if (d.count() == 0) return infeasible("there are no devices (0 accelerators and 0 CPUs)");
  if (d.cpus > 0) return Status::ok();
  const std::vector<double> standalone = standaloneMemory(problem);
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (!g[v].supportedOnAccelerator()) {
      const bool single = g[v].members.size() == 1;
      return infeasible(describeNodeOrGroup(g, v) + (single ? " is" : " include a node") +
                        " not supported on accelerators, and there are no CPUs");
    }
    if (standalone[v] > d.memory) {
      std::ostringstream msg;
      msg << describeNodeOrGroup(g, v) << (g[v].members.size() == 1 ? " needs " : " need ") << standalone[v]
          << " bytes (with the weights it reads), more than one accelerator's " << d.memory
          << " bytes, and there are no CPUs";
      return infeasible(msg.str());
    }
  }
  // Each shared weight counted once: a lower bound on what the accelerators hold together.
  if (const double total = totalMemory(problem); total > d.memory * d.accelerators) {
    std::ostringstream msg;
    msg << "the model needs " << total << " bytes, more than " << d.accelerators << " accelerator(s) of "
        << d.memory << " bytes hold, and there are no CPUs";
    return infeasible(msg.str());
  }
  return Status::ok();
}

namespace {

// The max-load split of `problem` by the DP called `solver` (dp or dpl), in a nested pipeline: the
// DP needs its own reductions.
Expected<PipelineOutcome> runDp(const Problem& problem, const PassContext& ctx, const char* solver,
                                const Budget& budget, bool progress) {
  PassContext nested;
  nested.solver.max_ideals = ctx.solver.max_ideals;
  if (progress) nested.solver.progress = ctx.solver.progress;
  nested.solver.threads = ctx.solver.threads;
  nested.solver.budget = budget;
  nested.solver.certify = false;
  Problem throughput = problem;
  throughput.objective.goal = Goal::Throughput;
  throughput.objective.gpipe = false;
  return runPipeline(throughput, defaultPipeline(solver), nested);
}

// The max-load DP's split of `problem`, DPL's when the exact DP gives up on the number of ideals.
Expected<SolveResult> dpSplit(const Problem& problem, const PassContext& ctx, bool linear,
                              const Budget& budget) {
  auto outcome = runDp(problem, ctx, linear ? "dpl" : "dp", budget, true);
  if (!outcome && outcome.status().code() == StatusCode::ResourceLimit && !linear) {
    outcome = runDp(problem, ctx, "dpl", budget, true);
  }
  if (!outcome) return outcome.status();
  return outcome->solve;
}

// What a solver's status means for the pipeline: a split (possibly with a gap) goes on, the rest
// stops with the reason.
Status statusOf(const SolveResult& result, const SolverSettings& settings) {
  switch (result.status) {
    case SolveStatus::Optimal:
    case SolveStatus::Feasible:
      return Status::ok();
    case SolveStatus::Infeasible:
      return infeasible(result.message);
    case SolveStatus::Interrupted:
      return interrupted("interrupted");
    case SolveStatus::ResourceLimit:
      return resourceLimit(result.message);
    case SolveStatus::TimeLimit: {
      // Stopped by the deadline with a split in hand: the split goes on, its status says so.
      if (!result.placement.device_of.empty()) return Status::ok();
      if (!std::isfinite(settings.time_limit)) return unsupported(result.message);
      std::ostringstream msg;
      msg << "no split found within the time limit of " << settings.time_limit << " s (proven lower bound "
          << result.bound << ")";
      return unsupported(msg.str());
    }
    case SolveStatus::Error:
      break;
  }
  // The solver failed (GLPK's numerics, numbers out of its range, a broken invariant): no fallback.
  return unsupported(result.message);
}

// The log line: the solver, its status, the value, and what it proved or counted.
std::string noteOf(const SolverInfo& solver, const Problem& problem, const SolveResult& result) {
  std::ostringstream note;
  const bool latency = problem.objective.goal == Goal::Latency;
  note << solver.name << (result.solver.empty() ? "" : " -> " + result.solver) << ": "
       << toString(result.status) << ", "
       << (latency                   ? "latency "
           : problem.objective.gpipe ? "max FW + max BW "
                                     : "max-load ")
       << result.value << ", bound " << result.bound;
  if (result.stats.ideals > 0)
    note << ", " << result.stats.ideals << " ideals, " << result.stats.ideal_pairs << " ideal pairs";
  if (result.stats.mip_nodes > 0) note << ", " << result.stats.mip_nodes << " branch-and-bound nodes";
  if (result.stats.orders > 0) note << ", " << result.stats.orders << " orders";
  if (!result.message.empty() && (result.status == SolveStatus::Feasible ||
                                  result.status == SolveStatus::TimeLimit || !result.solver.empty()))
    note << " (" << result.message << ")";
  return note.str();
}

}  // namespace

Status PartitionPass::run(Problem& problem, PassContext& ctx) {
  // Pin the deadline now unless the caller set one: every phase of the solve shares it.
  if (!ctx.solver.budget.hasDeadline())
    ctx.solver.budget = Budget(ctx.solver.time_limit, ctx.solver.budget.stopFlag());
  const bool latency = problem.objective.goal == Goal::Latency;
  if (latency && !solver_.latency) return unsupported(solver_.name + " does not minimise latency");
  if (!latency && !solver_.throughput) {
    return unsupported(solver_.name + " is a latency solver (" + solver_.summary +
                       "); use it with the latency objective");
  }
  if (!latency && problem.objective.gpipe && !solver_.gpipe) {
    return unsupported("the GPipe objective needs --algorithm ip or ip-noncontig");
  }
  if (solver_.precondition) {
    if (Status s = solver_.precondition(problem); !s) return s;
  }
  if (Status s = checkTriviallyFeasible(problem); !s) return s;

  SolveRequest request;
  request.max_ideals = ctx.solver.max_ideals;
  request.time_limit = ctx.solver.time_limit;
  request.mip_gap = ctx.solver.mip_gap;
  request.mip_backend = ctx.solver.mip_backend;
  request.subgraphs_per_accelerator = ctx.solver.subgraphs_per_accelerator;
  request.orders = ctx.solver.orders;
  request.seed = ctx.solver.seed;
  request.threads = ctx.solver.threads;
  // kBoundShare of the time limit stays for the certificate's bottleneck program (max-load).
  request.budget = ctx.solver.budget;
  if (ctx.solver.certify && !latency && !problem.objective.gpipe && ctx.solver.budget.hasDeadline())
    request.budget = ctx.solver.budget.within(ctx.solver.budget.remaining() * (1 - kBoundShare));
  request.progress = ctx.solver.progress;
  request.dp_split = [&ctx](const Problem& p, bool linear, const Budget& budget) {
    return dpSplit(p, ctx, linear, budget);
  };
  const auto solve_started = std::chrono::steady_clock::now();
  SolveResult result = solver_.solve(problem, request);
  const double solve_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - solve_started).count();
  if (Status s = statusOf(result, ctx.solver); !s) return s;

  if (latency) {
    if (Status s = verifyLatency(problem, result.placement); !s)
      return internalError("the " + solver_.name + " placement fails verification: " + s.message());
  } else {
    // The claimed value is checked against the evaluator's, except for the GPipe objective, which
    // the evaluator does not compute.
    Placement check = result.placement;
    if (problem.objective.gpipe) check.value = evaluateThroughput(problem, check.device_of).max_load;
    if (Status s = verify(problem, check, solver_.contiguous); !s)
      return internalError("the " + solver_.name + " placement fails verification: " + s.message());
  }
  if (ctx.solver.certify) {
    // The exact DP's optimum certifies another contiguous max-load solver's answer where it finishes
    // (auto has run it already, and its SliceGraph answers where it did not).
    ContiguousOptimumFn optimum;
    if (!latency && !problem.objective.gpipe && solver_.contiguous && solver_.name != "dp" && solver_.name != "auto") {
      optimum = [&](const Budget& budget) -> std::optional<double> {
        auto dp = runDp(problem, ctx, "dp", budget, false);
        if (dp && dp->solve.status == SolveStatus::Optimal) return dp->solve.value;
        return std::nullopt;
      };
    }
    result.certificate =
        certify(problem, ctx.original ? *ctx.original : problem, solver_, result, ctx.solver.budget,
                ctx.solver.budget.hasDeadline()
                    ? std::min(ctx.solver.budget.remaining(), kBoundShare * ctx.solver.time_limit)
                    : std::max(kMinBoundSeconds, kBoundShare * solve_seconds),
                ctx.solver.mip_backend, optimum);
  }
  ctx.note = noteOf(solver_, problem, result);
  // Latency splits may run several subgraphs on a device; so may a non-contiguous solver's.
  ctx.non_contiguous = latency || !solver_.contiguous;
  ctx.solve = std::move(result);
  return Status::ok();
}

}  // namespace placer
