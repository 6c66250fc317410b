#include "passes/partition.h"

#include <sstream>

#include <cmath>
#include <cstdio>

#include "passes/pass_manager.h"
#include "core/evaluate.h"
#include "core/latency.h"
#include "solvers/latency_greedy.h"
#include "solvers/latency_ip.h"
#include "solvers/maxload_ip.h"
#include "solvers/throughput_dp.h"

namespace placer {

Expected<Algorithm> parseAlgorithm(std::string_view name) {
  if (name == "dp") return Algorithm::Dp;
  if (name == "dpl") return Algorithm::Dpl;
  if (name == "ip") return Algorithm::Ip;
  if (name == "ip-noncontig") return Algorithm::IpNonContig;
  if (name == "greedy") return Algorithm::Greedy;
  return unsupported("unknown algorithm '" + std::string(name) +
                     "' (expected dp, dpl, ip, ip-noncontig or greedy)");
}

const char* toString(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::Dp:
      return "dp";
    case Algorithm::Dpl:
      return "dpl";
    case Algorithm::Ip:
      return "ip";
    case Algorithm::IpNonContig:
      return "ip-noncontig";
    case Algorithm::Greedy:
      return "greedy";
  }
  return "?";
}

namespace {

std::string memberList(const OpNode& node) {
  std::ostringstream out;
  const std::size_t shown = std::min<std::size_t>(node.members.size(), 8);
  for (std::size_t i = 0; i < shown; ++i)
    out << (i ? ", " : "") << node.members[i];
  if (node.members.size() > shown) out << ", ... (" << node.members.size() << " in all)";
  return out.str();
}

std::string what(const OpGraph& g, Vertex v) {
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
      return infeasible(what(g, v) + (single ? " is" : " include a node") +
                        " not supported on accelerators, and there are no CPUs");
    }
    if (standalone[v] > d.memory) {
      std::ostringstream msg;
      msg << what(g, v) << (g[v].members.size() == 1 ? " needs " : " need ") << standalone[v]
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

// The max-load DP's split of `problem` (a nested pipeline: the DP needs its own reductions), DPL's
// when the exact DP gives up on the number of ideals.
Expected<SolveResult> dpSplit(const Problem& problem, const PassContext& ctx, Algorithm algorithm,
                              const Budget& budget) {
  PassContext nested;
  nested.solver.max_ideals = ctx.solver.max_ideals;
  nested.solver.progress = ctx.solver.progress;
  nested.solver.budget = budget;
  Problem throughput = problem;
  throughput.objective.goal = Goal::Throughput;
  throughput.objective.gpipe = false;
  auto outcome = runPipeline(throughput, defaultPipeline(algorithm == Algorithm::Dpl ? "dpl" : "dp"), nested);
  if (!outcome && outcome.status().code() == StatusCode::Unsupported && algorithm != Algorithm::Dpl &&
      !budget.interrupted()) {
    outcome = runPipeline(throughput, defaultPipeline("dpl"), nested);
  }
  if (!outcome) return outcome.status();
  return outcome->solve;
}

std::function<void(const mip::Progress&)> mipProgress(const ProgressFn& progress) {
  if (!progress) return nullptr;
  return [progress](const mip::Progress& p) {
    char detail[160];
    std::snprintf(detail, sizeof detail, "nodes, incumbent %.6g, bound %.6g, gap %.2f%%", p.incumbent,
                  p.bound, std::isfinite(p.gap) ? 100 * p.gap : 100.0);
    progress(ProgressEvent{"ip", p.nodes, 0, detail});
  };
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
    case SolveStatus::TimeLimit: {
      std::ostringstream msg;
      msg << "no split found within the time limit of " << settings.time_limit << " s (proven lower bound "
          << result.bound << ")";
      return unsupported(msg.str());
    }
    case SolveStatus::Error:
      break;
  }
  return unsupported(result.message);
}

}  // namespace

Status PartitionPass::run(Problem& problem, PassContext& ctx) {
  // Pin the deadline now unless the caller set one: every phase below shares it.
  if (!ctx.solver.budget.hasDeadline())
    ctx.solver.budget = Budget(ctx.solver.time_limit, ctx.solver.budget.stopFlag());
  const Goal goal = problem.objective.goal;
  if (goal == Goal::Latency) return runLatency(problem, ctx);
  if (algorithm_ == Algorithm::Greedy) {
    return unsupported("greedy is a latency baseline (App. F); use it with the latency objective");
  }
  if (algorithm_ == Algorithm::Ip || algorithm_ == Algorithm::IpNonContig) return runMaxLoadIp(problem, ctx);
  if (problem.objective.gpipe) return unsupported("the GPipe objective needs --algorithm ip or ip-noncontig");
  return runDp(problem, ctx);
}

Status PartitionPass::runMaxLoadIp(Problem& problem, PassContext& ctx) {
  if (Status s = checkTriviallyFeasible(problem); !s) return s;
  const bool contiguous = algorithm_ == Algorithm::Ip;
  MaxLoadIpOptions options;
  options.contiguous = contiguous;
  options.gpipe = problem.objective.gpipe;
  options.mip_gap = ctx.solver.mip_gap;
  options.progress = mipProgress(ctx.solver.progress);
  options.stop = ctx.solver.budget.stopFlag();
  // The exact DP's split as the start, within a third of the time (DPL's when the DP runs out).
  const Budget& budget = ctx.solver.budget;
  auto start = dpSplit(problem, ctx, Algorithm::Dp, budget.within(budget.remaining() / 3));
  if (budget.interrupted()) return interrupted("interrupted");
  if (start) options.start = start->placement.device_of;
  options.time_limit = budget.remaining();
  SolveResult result = solveMaxLoadIp(problem, options);
  if (Status s = statusOf(result, ctx.solver); !s) return s;
  Placement check = result.placement;
  check.value = evaluateThroughput(problem, check.device_of).max_load;
  if (Status s = verify(problem, check, contiguous); !s) {
    return internalError(std::string("the ") + toString(algorithm_) +
                         " placement fails verification: " + s.message());
  }
  std::ostringstream note;
  note << toString(algorithm_) << ": " << toString(result.status) << ", "
       << (options.gpipe ? "max FW + max BW " : "max-load ") << result.value << ", bound " << result.bound
       << ", " << result.stats.mip_nodes << " branch-and-bound nodes";
  ctx.note = note.str();
  ctx.non_contiguous = !contiguous;
  ctx.solve = std::move(result);
  return Status::ok();
}

Status PartitionPass::runLatency(Problem& problem, PassContext& ctx) {
  if (Status s = checkTriviallyFeasible(problem); !s) return s;
  SolveResult result;
  switch (algorithm_) {
    case Algorithm::Greedy:
      result = solveLatencyGreedy(problem);
      break;
    case Algorithm::Dp:
    case Algorithm::Dpl: {
      auto split = dpSplit(problem, ctx, algorithm_, ctx.solver.budget);
      if (!split) return split.status();
      result = std::move(*split);
      auto latency = evaluateLatency(problem, result.placement.device_of);
      if (!latency)
        return internalError("the max-load DP's split cannot be scheduled: " + latency.status().message());
      result.value = latency->latency;
      result.placement.value = result.value;
      result.bound = 0;  // the DP optimises max-load: no certificate for latency
      result.gap = result.value > 0 ? 1.0 : 0.0;
      result.status = SolveStatus::Feasible;
      break;
    }
    case Algorithm::Ip:
    case Algorithm::IpNonContig: {
      LatencyIpOptions options;
      options.subgraphs_per_accelerator =
          algorithm_ == Algorithm::Ip ? 1 : ctx.solver.subgraphs_per_accelerator;
      options.mip_gap = ctx.solver.mip_gap;
      options.progress = mipProgress(ctx.solver.progress);
      options.stop = ctx.solver.budget.stopFlag();
      // DPL's split as a further start: polynomial, so it hardly eats the time limit (the exact DP
      // meets millions of ideals on some latency workloads, e.g. 3 million on layer GNMT).
      if (auto dpl = dpSplit(problem, ctx, Algorithm::Dpl, ctx.solver.budget))
        options.baselines.push_back(dpl->placement.device_of);
      if (ctx.solver.budget.interrupted()) return interrupted("interrupted");
      options.time_limit = ctx.solver.budget.remaining();
      result = solveLatencyIp(problem, options);
      // With q > 1 the program's own slots can beat the evaluator's level split of the same
      // placement; what we write out is the placement, run as the evaluator runs it, so that is
      // the value we report (never below the proven bound's meaning: bound <= optimum <= value).
      if (!result.placement.device_of.empty()) {
        auto level = evaluateLatency(problem, result.placement.device_of);
        if (level && level->latency > result.value) {
          result.value = level->latency;
          result.placement.value = level->latency;
          result.gap = mip::relativeGap(result.value, result.bound);
        }
      }
      break;
    }
  }
  if (Status s = statusOf(result, ctx.solver); !s) return s;
  if (Status s = verifyLatency(problem, result.placement); !s) {
    return internalError(std::string("the ") + toString(algorithm_) +
                         " placement fails verification: " + s.message());
  }
  std::ostringstream note;
  note << toString(algorithm_) << ": " << toString(result.status) << ", latency " << result.value
       << ", bound " << result.bound;
  ctx.note = note.str();
  ctx.non_contiguous = true;  // several subgraphs per device are allowed in latency splits
  ctx.solve = std::move(result);
  return Status::ok();
}

Status PartitionPass::runDp(Problem& problem, PassContext& ctx) {
  if (Status s = checkContracted(problem); !s) return s;
  if (Status s = checkTriviallyFeasible(problem); !s) return s;
  DpOptions options;
  options.max_ideals = ctx.solver.max_ideals;
  options.progress = ctx.solver.progress;
  // DPL (polynomial) answers even when the time is spent: it is the split everything falls back on.
  options.budget = Budget::unlimited(ctx.solver.budget.stopFlag());
  options.linearize = true;
  SolveResult dpl = solveThroughputDp(problem, options);
  options.budget = ctx.solver.budget;
  SolveResult result = dpl;
  std::string fallback;
  if (algorithm_ == Algorithm::Dp && dpl.status != SolveStatus::Interrupted) {
    // DPL's split is contiguous in the original graph, so its max-load bounds the optimum and lets
    // the exact DP skip every block that cannot beat it.
    options.linearize = false;
    if (dpl.status == SolveStatus::Feasible) options.upper_bound = dpl.value;
    result = solveThroughputDp(problem, options);
    result.stats.seconds += dpl.stats.seconds;
    // Out of time: DPL's split stands, without a certificate.
    if (result.status == SolveStatus::TimeLimit && dpl.status == SolveStatus::Feasible) {
      fallback = " (" + result.message + "; DPL's split)";
      dpl.stats = result.stats;
      result = std::move(dpl);
    }
  }
  if (result.status == SolveStatus::Interrupted) return interrupted("interrupted");
  if (result.status == SolveStatus::TimeLimit) return unsupported(result.message);
  if (result.status == SolveStatus::Infeasible) return infeasible(result.message);
  if (result.status == SolveStatus::Error) return unsupported(result.message);
  if (Status s = verify(problem, result.placement); !s) {
    return internalError("the " + std::string(toString(algorithm_)) +
                         " placement fails verification: " + s.message());
  }
  std::ostringstream note;
  note << toString(algorithm_) << ": " << result.stats.ideals << " ideals, " << result.stats.ideal_pairs
       << " ideal pairs, max-load " << result.value << fallback;
  ctx.note = note.str();
  ctx.solve = std::move(result);
  return Status::ok();
}

}  // namespace placer
