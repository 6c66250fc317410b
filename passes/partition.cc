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

Expected<PipelineOutcome> runDpPipeline(const Problem& problem, const PassOptions& options,
                                        std::string_view solver, const Budget& budget, bool progress) {
  PassOptions nested;
  nested.solver.max_ideals = options.solver.max_ideals;
  if (progress) nested.solver.progress = options.solver.progress;
  nested.solver.threads = options.solver.threads;
  nested.solver.budget = budget;
  Problem throughput = problem;
  throughput.objective.goal = Goal::Throughput;
  throughput.objective.gpipe = false;
  return runPipeline(throughput, defaultPipeline(solver, Goal::Throughput, /*certify=*/false), nested);
}

namespace {

// The max-load DP's split of `problem`, DPL's when the exact DP gives up on the number of ideals.
Expected<SolveResult> dpSplit(const Problem& problem, const PassOptions& options, bool linear,
                              const Budget& budget) {
  auto outcome = runDpPipeline(problem, options, linear ? "dpl" : "dp", budget, true);
  if (!outcome && outcome.status().code() == StatusCode::ResourceLimit && !linear) {
    outcome = runDpPipeline(problem, options, "dpl", budget, true);
  }
  if (!outcome) return outcome.status();
  return outcome->solve;
}

// What a solver's status means for the pipeline: a split (possibly with a gap) goes on, the rest
// stops with the reason.
Status statusOf(const SolveResult& result, const SolveOptions& options) {
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
      if (!std::isfinite(options.time_limit)) return timeLimit(result.message);
      std::ostringstream msg;
      msg << "no split found within the time limit of " << options.time_limit << " s (proven lower bound "
          << result.bound << ")";
      return timeLimit(msg.str());
    }
    case SolveStatus::Error:
      break;
  }
  // The solver failed (GLPK's numerics, numbers out of its range, a broken invariant): no fallback.
  return internalError(result.message);
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

// Whether the solver answers for the problem's objective at all, and the problem meets what it
// needs of its input.
Status checkSolverFits(const SolverInfo& solver, const Problem& problem) {
  const bool latency = problem.objective.goal == Goal::Latency;
  if (latency && !solver.latency) return unsupported(solver.name + " does not minimise latency");
  if (!latency && !solver.throughput) {
    return unsupported(solver.name + " is a latency solver (" + solver.summary +
                       "); use it with the latency objective");
  }
  if (!latency && problem.objective.gpipe && !solver.gpipe) {
    const std::string supporting =
        builtinSolvers().names([](const SolverInfo& s) { return s.throughput && s.gpipe; });
    return unsupported("the GPipe objective needs a solver that supports it (" + supporting + "); " +
                       solver.name + " does not");
  }
  if (problem.devices.mixed() && !solver.kinds) {
    const std::string supporting = builtinSolvers().names(
        [latency](const SolverInfo& s) { return (latency ? s.latency : s.throughput) && s.kinds; });
    return unsupported(solver.name +
                       " treats every accelerator alike; on a machine of several accelerator "
                       "kinds use " +
                       supporting);
  }
  if (solver.precondition) {
    if (Status s = solver.precondition(problem); !s) return s;
  }
  return checkTriviallyFeasible(problem);
}

// The independent check of every answer, on the graph the solver saw.
Status verifyAnswer(const SolverInfo& solver, const Problem& problem, const SolveResult& result) {
  if (!solver.may_exceed_memory) {
    const Status s = verifyForObjective(problem, result.placement, solver.contiguous);
    if (!s) return internalError("the " + solver.name + " placement fails verification: " + s.message());
    return Status::ok();
  }
  // Everything but memory is checked; the excess it reports must be the one the split has, so that
  // no split over memory is ever handed out as a valid one.
  const Status s = verifyForObjective(withUnlimitedMemory(problem), result.placement, solver.contiguous);
  if (!s) return internalError("the " + solver.name + " placement fails verification: " + s.message());
  const double excess = memoryExcess(problem, result.placement.device_of);
  if (!result.memory_violation ||
      !(std::abs(*result.memory_violation - excess) <= 1e-9 * std::max(1.0, excess))) {
    return internalError("the " + solver.name + " placement exceeds memory by " + std::to_string(excess) +
                         " bytes, but the solver reports " +
                         (result.memory_violation ? std::to_string(*result.memory_violation) : "nothing"));
  }
  return Status::ok();
}

}  // namespace

Expected<PassResult> PartitionPass::run(Problem& problem, const PassOptions& options, PipelineState& state) {
  // Every phase of the solve, and the certificate after it, shares one deadline, started now unless
  // the caller started it earlier.
  state.startClock(options.solver.time_limit);
  if (Status s = checkSolverFits(solver_, problem); !s) return s;
  const bool latency = problem.objective.goal == Goal::Latency;

  SolveOptions request = options.solver;
  request.budget = state.budget();
  // kBoundShare of the time limit stays for the certificate's bottleneck program (max-load).
  if (state.followedBy("certify") && !latency && !problem.objective.gpipe && state.budget().hasDeadline())
    request.budget = state.budget().within(state.budget().remaining() * (1 - kBoundShare));
  request.dp_split = [&options](const Problem& p, bool linear, const Budget& budget) {
    return dpSplit(p, options, linear, budget);
  };
  const auto solve_started = std::chrono::steady_clock::now();
  SolveResult result = solver_.solve(problem, request);
  const double solve_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - solve_started).count();
  if (Status s = statusOf(result, options.solver); !s) return s;
  if (Status s = verifyAnswer(solver_, problem, result); !s) return s;
  if (state.lossy()) {
    // Solved on clusters (a lossy reduction): an upper bound of the problem as given, whose optimum
    // may cut a cluster. Nothing the solver proved carries over.
    if (result.status == SolveStatus::Optimal) result.status = SolveStatus::Feasible;
    result.bound = 0;
    result.gap = result.value > 0 ? 1.0 : 0.0;
    const std::string lossy = "solved on clusters: an upper bound of the operators' optimum";
    result.message = result.message.empty() ? lossy : result.message + "; " + lossy;
  }

  PassResult out;
  out.note = noteOf(solver_, problem, result);
  // Latency splits may run several subgraphs on a device; so may a non-contiguous solver's.
  state.non_contiguous = latency || !solver_.contiguous;
  state.solver = &solver_;
  state.solve_seconds = solve_seconds;
  state.solve = std::move(result);
  return out;
}

}  // namespace placer
