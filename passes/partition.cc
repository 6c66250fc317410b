#include "passes/partition.h"

#include <sstream>

#include "solvers/evaluate.h"
#include "solvers/throughput_dp.h"

namespace placer {

Expected<Algorithm> parseAlgorithm(std::string_view name) {
  if (name == "dp") return Algorithm::Dp;
  if (name == "dpl") return Algorithm::Dpl;
  return unsupported("unknown algorithm '" + std::string(name) + "' (expected dp or dpl)");
}

const char* toString(Algorithm algorithm) {
  return algorithm == Algorithm::Dp ? "dp" : "dpl";
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
  double total = 0;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (!g[v].supportedOnAccelerator()) {
      const bool single = g[v].members.size() == 1;
      return infeasible(what(g, v) + (single ? " is" : " include a node") +
                        " not supported on accelerators, and there are no CPUs");
    }
    if (g[v].memory > d.memory) {
      std::ostringstream msg;
      msg << what(g, v) << (g[v].members.size() == 1 ? " needs " : " need ") << g[v].memory
          << " bytes, more than one accelerator's " << d.memory << " bytes, and there are no CPUs";
      return infeasible(msg.str());
    }
    total += g[v].memory;
  }
  if (total > d.memory * d.accelerators) {
    std::ostringstream msg;
    msg << "the model needs " << total << " bytes, more than " << d.accelerators << " accelerator(s) of "
        << d.memory << " bytes hold, and there are no CPUs";
    return infeasible(msg.str());
  }
  return Status::ok();
}

Status PartitionPass::run(Problem& problem, PassContext& ctx) {
  if (Status s = checkContracted(problem); !s) return s;
  if (Status s = checkTriviallyFeasible(problem); !s) return s;
  DpOptions options;
  options.max_ideals = ctx.solver.max_ideals;
  options.progress = ctx.solver.progress;
  options.linearize = true;
  SolveResult dpl = solveThroughputDp(problem, options);
  SolveResult result = dpl;
  if (algorithm_ == Algorithm::Dp) {
    // DPL's split is contiguous in the original graph, so its max-load bounds the optimum and lets
    // the exact DP skip every block that cannot beat it.
    options.linearize = false;
    if (dpl.status == SolveStatus::Feasible) options.upper_bound = dpl.value;
    result = solveThroughputDp(problem, options);
    result.stats.seconds += dpl.stats.seconds;
  }
  if (result.status == SolveStatus::Infeasible) return infeasible(result.message);
  if (result.status == SolveStatus::Error) return unsupported(result.message);
  if (Status s = verify(problem, result.placement); !s) {
    return internalError("the " + std::string(toString(algorithm_)) +
                         " placement fails verification: " + s.message());
  }
  std::ostringstream note;
  note << toString(algorithm_) << ": " << result.stats.ideals << " ideals, " << result.stats.ideal_pairs
       << " ideal pairs, max-load " << result.value;
  ctx.note = note.str();
  ctx.solve = std::move(result);
  return Status::ok();
}

}  // namespace placer
