#include "passes/pass_manager.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "passes/certify.h"
#include "passes/cluster.h"
#include "passes/colocate.h"
#include "passes/expand.h"
#include "passes/fold_leaves.h"
#include "passes/orphans.h"
#include "passes/partition.h"
#include "passes/refine.h"
#include "passes/scc_contraction.h"
#include "passes/subdivide.h"

namespace placer {

void PassRegistry::add(std::string name, std::string help, PassFactory factory) {
  entries_[std::move(name)] = Entry{std::move(help), std::move(factory)};
}

Expected<std::unique_ptr<Pass>> PassRegistry::create(std::string_view name, std::string_view argument) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [n, e] : entries_)
      known += (known.empty() ? "" : ", ") + n;
    return unsupported("unknown pass '" + std::string(name) + "' (known passes: " + known + ")");
  }
  return it->second.factory(argument);
}

std::vector<std::string> PassRegistry::describe() const {
  std::vector<std::string> lines;
  for (const auto& [name, entry] : entries_)
    lines.push_back(name + ": " + entry.help);
  return lines;
}

namespace {

template <typename P>
PassFactory noArgument() {
  return [](std::string_view argument) -> Expected<std::unique_ptr<Pass>> {
    if (!argument.empty()) {
      return unsupported("pass '" + std::string(P().name()) + "' takes no argument (got '" +
                         std::string(argument) + "')");
    }
    return std::unique_ptr<Pass>(std::make_unique<P>());
  };
}

}  // namespace

void registerBuiltinPasses(PassRegistry& registry) {
  registry.add("subdivide",
               "give every node one outgoing transfer cost by subdividing edges whose costs differ "
               "(Tarnawski et al. App. B)",
               noArgument<SubdividePass>());
  registry.add("colocate", "contract each colocation class, forward and backward sides separately (App. B)",
               noArgument<ColocatePass>());
  registry.add("orphans",
               "give backward nodes without a forward partner an artificial forward image with "
               "mirrored edges (App. B)",
               noArgument<OrphansPass>());
  registry.add("scc", "contract strongly connected components of the forward graph (App. B)",
               noArgument<SccContractionPass>());
  registry.add("fold-leaves",
               "merge zero-cost leaf nodes into their only neighbour (never changes the optimum)",
               noArgument<FoldLeavesPass>());
  registry.add("cluster",
               "merge adjacent operators into K hyper-operators, cluster=K (default: the options' cluster "
               "target), keeping the graph acyclic and within memory (Parmesan's clustering; lossy)",
               makeClusterPass);
  registry.add("partition",
               "find the placement with the solver partition=NAME (default dp): " + builtinSolvers().names() +
                   " (solvers/registry.h)",
               [](std::string_view argument) -> Expected<std::unique_ptr<Pass>> {
                 auto solver = findSolver(argument.empty() ? "dp" : argument);
                 if (!solver) return solver.status();
                 return std::unique_ptr<Pass>(std::make_unique<PartitionPass>(**solver));
               });
  registry.add("refine",
               "improve the partition pass's split by moving operators between devices (FM passes, "
               "multilevel), within its space (contiguous or not); never worse",
               noArgument<RefinePass>());
  registry.add("certify",
               "prove a lower bound for the partition pass's answer (a pipeline without certify gives no "
               "certificate)",
               noArgument<CertifyPass>());
  registry.add("expand", "map the placement back onto the original nodes", noArgument<ExpandPass>());
}

Status PassManager::parsePipeline(const PassRegistry& registry, std::string_view pipeline,
                                  const PassArguments& arguments) {
  std::size_t pos = 0;
  while (pos <= pipeline.size()) {
    std::size_t comma = pipeline.find(',', pos);
    if (comma == std::string_view::npos) comma = pipeline.size();
    std::string_view item = pipeline.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) return unsupported("empty pass name in pipeline '" + std::string(pipeline) + "'");
    std::string_view name = item, argument;
    if (auto eq = item.find('='); eq != std::string_view::npos) {
      name = item.substr(0, eq);
      argument = item.substr(eq + 1);
    }
    if (auto given = arguments.find(name); given != arguments.end()) argument = given->second;
    auto pass = registry.create(name, argument);
    if (!pass) return pass.status();
    add(std::move(*pass));
  }
  return Status::ok();
}

bool PipelineState::followedBy(std::string_view name) const {
  return std::find(later_passes_.begin(), later_passes_.end(), name) != later_passes_.end();
}

namespace {

// A pass's mapping must send every vertex it received to a vertex of the problem it left.
Status checkMapping(const VertexMapping& mapping, std::size_t before, std::size_t after) {
  if (mapping.new_of_old.size() != before) {
    return internalError("its vertex mapping has " + std::to_string(mapping.new_of_old.size()) +
                         " entries for " + std::to_string(before) + " vertices");
  }
  for (Vertex v : mapping.new_of_old) {
    if (v >= after)
      return internalError("its vertex mapping names vertex " + std::to_string(v) + " of " +
                           std::to_string(after));
  }
  return Status::ok();
}

}  // namespace

Expected<PassResult> applyPass(Pass& pass, Problem& problem, const PassOptions& options,
                               PipelineState& state) {
  if (!state.original_) {
    state.original_ = problem;
    state.budget_ = options.solver.budget;
  }
  const std::size_t before = boost::num_vertices(problem.graph);
  auto result = pass.run(problem, options, state);
  if (!result) return result;
  if (result->mapping) {
    if (Status s = checkMapping(*result->mapping, before, boost::num_vertices(problem.graph)); !s) return s;
    state.lossy_ = state.lossy_ || !result->mapping->exact;
    state.mappings_.push_back(*result->mapping);
  }
  if (result->sets_costs) {
    if (!state.mappings_.empty()) {
      return unsupported("it changed node costs after an earlier pass changed the graph; run it first in the "
                         "pipeline, before subdivide");
    }
    state.original_ = problem;
  }
  if (result->cycles_possible) state.cycles_possible_ = *result->cycles_possible;
  if (result->expanded) state.mappings_.clear();
  return result;
}

Status PassManager::run(Problem& problem, const PassOptions& options, PipelineState& state) {
  if (!state.original_) {
    // Sums that overflow would surface later as a memory problem or an internal error.
    if (Status s = checkMagnitudes(problem); !s) return s;
  }
  for (std::size_t i = 0; i < passes_.size(); ++i) {
    Pass& pass = *passes_[i];
    state.later_passes_.clear();
    for (std::size_t j = i + 1; j < passes_.size(); ++j)
      state.later_passes_.emplace_back(passes_[j]->name());
    PassRecord record;
    record.name = std::string(pass.name());
    record.nodes_before = boost::num_vertices(problem.graph);
    record.edges_before = boost::num_edges(problem.graph);
    const auto start = std::chrono::steady_clock::now();
    auto result = applyPass(pass, problem, options, state);
    record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    record.nodes_after = boost::num_vertices(problem.graph);
    record.edges_after = boost::num_edges(problem.graph);
    if (result) {
      record.note = result->note;
      record.lossy = result->mapping && !result->mapping->exact;
    }
    log_.push_back(record);
    if (!result) return result.status().withContext("pass '" + record.name + "'");
    if (options.verify_each) {
      if (Status s = checkInvariants(problem, state.cyclesPossible()); !s) {
        return internalError("after pass '" + record.name + "': " + s.message());
      }
    }
  }
  state.later_passes_.clear();
  return Status::ok();
}

std::string defaultPipeline(std::string_view algorithm, Goal goal, bool certify) {
  const std::string partition = "partition=" + std::string(algorithm) + (certify ? ",certify" : "");
  if (goal == Goal::Latency) return "subdivide," + partition + ",expand";
  const SolverInfo* solver = builtinSolvers().find(algorithm);
  const std::string reductions = solver ? solver->reductions : builtinSolvers().find("dp")->reductions;
  return reductions + "," + partition + ",expand";
}

Expected<PipelineOutcome> runPipeline(Problem problem, std::string_view pipeline, const PassOptions& options,
                                      const PassArguments& arguments, const PassRegistry* registry) {
  PassRegistry builtin;
  if (registry == nullptr) {
    registerBuiltinPasses(builtin);
    registry = &builtin;
  }
  PassManager manager;
  if (Status s = manager.parsePipeline(*registry, pipeline, arguments); !s) return s;
  PipelineState state;
  if (Status s = manager.run(problem, options, state); !s) return s;
  if (!state.solve) return unsupported("the pipeline '" + std::string(pipeline) + "' has no partition pass");
  if (!state.mappings().empty() ||
      state.solve->placement.device_of.size() != boost::num_vertices(problem.graph)) {
    return unsupported("the pipeline '" + std::string(pipeline) + "' must end with the expand pass");
  }
  return PipelineOutcome{std::move(problem), std::move(*state.solve), manager.log(), state.lossy()};
}

Status checkInvariants(const Problem& problem, bool cycles_allowed) {
  const OpGraph& g = problem.graph;
  const std::size_t n = boost::num_vertices(g);
  for (std::size_t i = 0; i < problem.nets.size(); ++i) {
    const Net& net = problem.nets[i];
    if (net.source >= n) return internalError("net " + std::to_string(i) + " has no source vertex");
    if (net.sinks.empty()) return internalError("net " + std::to_string(i) + " has no consumer");
    for (std::size_t j = 0; j < net.sinks.size(); ++j) {
      if (net.sinks[j] >= n || net.sinks[j] == net.source || (j > 0 && net.sinks[j - 1] >= net.sinks[j])) {
        return internalError("net " + std::to_string(i) + " has malformed consumers");
      }
    }
    if (!(net.cost >= 0) || !(net.cpu_cost >= 0))
      return internalError("net " + std::to_string(i) + " has a negative cost");
  }
  for (std::size_t i = 0; i < problem.weights.size(); ++i) {
    const SharedWeight& w = problem.weights[i];
    if (w.readers.size() < 2)
      return internalError("shared weight " + std::to_string(i) + " has fewer than two readers");
    for (std::size_t j = 0; j < w.readers.size(); ++j) {
      if (w.readers[j] >= n || (j > 0 && w.readers[j - 1] >= w.readers[j]))
        return internalError("shared weight " + std::to_string(i) + " has malformed readers");
    }
    if (!(w.bytes >= 0)) return internalError("shared weight " + std::to_string(i) + " has negative size");
  }
  std::set<int> seen;
  for (Vertex v = 0; v < n; ++v) {
    for (int id : g[v].members) {
      if (!seen.insert(id).second) {
        return internalError("original node " + std::to_string(id) + " is in two vertices");
      }
    }
  }
  if (!cycles_allowed) {
    if (auto cycle = findCycle(g, /*forward_only=*/true); !cycle.empty()) {
      return internalError("the forward graph has a cycle through " + describeNode(g, cycle.front()));
    }
  }
  return Status::ok();
}

}  // namespace placer
