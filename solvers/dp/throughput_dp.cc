#include "solvers/dp/throughput_dp.h"

#include <chrono>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "core/threads.h"
#include "solvers/dp/ideal_lattice.h"
#include "solvers/dp/instance.h"
#include "solvers/dp/table.h"

namespace placer {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

Status checkContracted(const Problem& problem) {
  const OpGraph& g = problem.graph;
  std::map<int, Vertex> forward_of_class, backward_of_class;
  for (Vertex v = 0; v < boost::num_vertices(g); ++v) {
    if (!g[v].colocation) {
      if (g[v].backward) {
        return invalidInput(describeNode(g, v) +
                            " is a backward node with no forward partner; run the orphans pass "
                            "before partitioning");
      }
      continue;
    }
    auto& of_class = g[v].backward ? backward_of_class : forward_of_class;
    if (!of_class.emplace(*g[v].colocation, v).second) {
      return invalidInput("colocation class " + std::to_string(*g[v].colocation) + " has several " +
                          (g[v].backward ? "backward" : "forward") +
                          " nodes; run the colocate pass before partitioning");
    }
  }
  for (const auto& [cls, v] : backward_of_class) {
    if (!forward_of_class.count(cls)) {
      return invalidInput(describeNode(g, v) +
                          " is a backward node with no forward partner; run the orphans pass "
                          "before partitioning");
    }
  }
  if (auto cycle = findCycle(g, /*forward_only=*/true); !cycle.empty()) {
    return invalidInput("the forward graph has a cycle through " + describeNode(g, cycle.front()) +
                        "; run the scc pass before partitioning");
  }
  return Status::ok();
}

Status checkForwardOrder(const Problem& problem, const std::vector<Vertex>& order) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  std::vector<int> position(n, -1);
  std::size_t forward = 0;
  for (Vertex v = 0; v < n; ++v)
    forward += !g[v].backward;
  if (order.size() != forward) {
    return invalidInput("the order has " + std::to_string(order.size()) + " vertices, the forward graph " +
                        std::to_string(forward));
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Vertex v = order[i];
    if (v >= n || g[v].backward || position[v] >= 0)
      return invalidInput("the order's entry " + std::to_string(i) + " is not a new forward vertex");
    position[v] = static_cast<int>(i);
  }
  for (auto [it, end] = boost::edges(g); it != end; ++it) {
    const Vertex u = boost::source(*it, g), w = boost::target(*it, g);
    if (g[u].backward || g[w].backward) continue;
    if (position[u] > position[w]) {
      return invalidInput("the order puts " + describeNode(g, w) + " before its predecessor " +
                          describeNode(g, u));
    }
  }
  return Status::ok();
}

std::vector<Vertex> dfsForwardOrder(const Problem& problem) {
  const dp::DpInstance instance = dp::prepareInstance(problem, /*linearize=*/true);
  std::vector<Vertex> order;
  order.reserve(instance.units.size());
  for (const dp::Unit& unit : instance.units)
    order.push_back(unit.vertices.front());
  return order;
}

SolveResult solveThroughputDp(const Problem& problem, const DpOptions& options) {
  const auto start = Clock::now();
  SolveResult result;
  auto finish = [&](SolveStatus status, std::string message = {}) {
    result.status = status;
    result.message = std::move(message);
    result.stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  if (Status s = checkContracted(problem); !s) return finish(SolveStatus::Error, s.message());
  if (problem.devices.kindCount() > dp::kDpMaxKinds) {
    return finish(SolveStatus::Error, "the DP tells at most " + std::to_string(dp::kDpMaxKinds) +
                                          " accelerator kinds apart, the machine has " +
                                          std::to_string(problem.devices.kindCount()));
  }

  if (!options.order.empty()) {
    if (!options.linearize) return finish(SolveStatus::Error, "an order to slice needs the linearised DP");
    if (Status s = checkForwardOrder(problem, options.order); !s)
      return finish(SolveStatus::Error, s.message());
  }
  const dp::DpInstance instance = dp::prepareInstance(problem, options.linearize, options.order);
  IdealLattice lattice;
  auto outOfBudget = [&](const std::string& phase) {
    if (options.limits.budget.interrupted())
      return finish(SolveStatus::Interrupted, "interrupted while " + phase);
    return finish(SolveStatus::TimeLimit, "time limit reached while " + phase);
  };
  const Budget lattice_budget = options.limits.budget.within(options.lattice_seconds);
  if (Status s = buildLattice(instance.preds, options.max_ideals, lattice_budget, options.limits.progress, lattice);
      !s) {
    if (options.limits.budget.exhausted()) return outOfBudget("generating ideals");
    if (lattice_budget.exhausted())
      return finish(SolveStatus::TimeLimit, "stopped at its checkpoint while generating ideals");
    return finish(SolveStatus::ResourceLimit, s.message());
  }
  result.stats.ideals = lattice.size();

  const dp::TableResult table =
      dp::fillTable(problem, instance, lattice, options.upper_bound, threadCount(options.threads),
                    options.limits.progress, options.limits.budget, options.keep_going, result.stats);
  if (!table.complete) {
    if (!options.limits.budget.exhausted())
      return finish(SolveStatus::TimeLimit, "stopped at its checkpoint while filling the DP table");
    return outOfBudget("filling the DP table");
  }
  const double optimum = table.optimum;
  const DeviceSet& devices = problem.devices;
  if (options.upper_bound < kInfinity && !(optimum <= dp::pruneAbove(options.upper_bound))) {
    // Pruned by a bound below the optimum: what is left proves only that nothing is at or below it.
    std::ostringstream message;
    message << "no contiguous split of max-load at most " << std::setprecision(10) << options.upper_bound
            << " (the bound the DP was pruned by) exists";
    return finish(SolveStatus::Infeasible, message.str());
  }
  if (!(optimum < kInfinity)) {
    std::ostringstream message;
    message << "no contiguous split onto " << devices.accelerators << " accelerator(s) of "
            << (devices.mixed() ? "up to " : "") << devices.memory << " bytes and " << devices.cpus
            << " CPU(s) exists";
    return finish(SolveStatus::Infeasible, message.str());
  }
  const std::optional<std::vector<dp::Block>>& blocks = table.blocks;
  if (!blocks) return finish(SolveStatus::Error, "the DP table could not be traced back");

  // Accelerators (of each kind) and CPUs are numbered in pipeline order.
  Placement& placement = result.placement;
  const std::size_t n_vertices = boost::num_vertices(problem.graph);
  placement.device_of.assign(n_vertices, -1);
  placement.stage_of.assign(n_vertices, -1);
  std::vector<int> next_acc(devices.kindCount());  // per kind, the next of its accelerators
  for (int k = 0; k < devices.kindCount(); ++k)
    next_acc[k] = devices.firstOfKind(k);
  int next_cpu = devices.accelerators;
  for (std::size_t stage = 0; stage < blocks->size(); ++stage) {
    const dp::Block& block = (*blocks)[stage];
    const int device = block.accelerator ? next_acc[block.kind]++ : next_cpu++;
    for (int u : block.units) {
      for (Vertex v : instance.units[u].vertices) {
        placement.device_of[v] = device;
        placement.stage_of[v] = static_cast<int>(stage);
      }
    }
  }
  placement.value = optimum;
  result.value = optimum;
  result.bound = options.linearize ? 0 : optimum;  // DPL is a heuristic: no certificate
  result.gap = options.linearize && optimum > 0 ? 1.0 : 0.0;
  return finish(options.linearize ? SolveStatus::Feasible : SolveStatus::Optimal);
}

SolveResult solveDplUnbounded(const Problem& problem, int threads, Limits limits) {
  DpOptions options;
  options.linearize = true;
  options.threads = threads;
  limits.budget = Budget::unlimited(limits.budget.stopFlag());
  options.limits = std::move(limits);
  SolveResult dpl = solveThroughputDp(problem, options);
  dpl.solver = "dpl";
  return dpl;
}

}  // namespace placer
