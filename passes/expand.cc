#include "passes/expand.h"

#include <cmath>

#include "core/evaluate.h"
#include "core/latency.h"
#include "solvers/registry.h"
#include "solvers/stages.h"

namespace placer {

Placement expandPlacement(const Placement& placement, const std::vector<VertexMapping>& mappings) {
  Placement current = placement;
  for (auto it = mappings.rbegin(); it != mappings.rend(); ++it) {
    Placement earlier;
    earlier.value = current.value;
    earlier.device_of.reserve(it->new_of_old.size());
    earlier.stage_of.reserve(it->new_of_old.size());
    for (Vertex to : it->new_of_old) {
      earlier.device_of.push_back(current.device_of[to]);
      earlier.stage_of.push_back(current.stage_of[to]);
    }
    current = std::move(earlier);
  }
  return current;
}

Expected<PassResult> ExpandPass::run(Problem& problem, const PassOptions&, PipelineState& state) {
  if (!state.solve) return unsupported("nothing to expand: the pipeline has no partition pass before expand");
  if (state.original() == nullptr)
    return internalError("the pass manager did not record the original problem");
  state.solve->placement = expandPlacement(state.solve->placement, state.mappings());
  problem = *state.original();
  // The objective recomputed on the original nodes is what we report; it must match the solver's.
  Placement& placement = state.solve->placement;
  const double solver_value = state.solve->value;
  double value = 0;
  if (problem.objective.goal == Goal::Latency) {
    auto latency = evaluateLatency(problem, placement.device_of);
    if (!latency)
      return internalError("expanded placement cannot be scheduled: " + latency.status().message());
    value = latency->latency;
    placement.value = value;
    if (Status s = verifyLatency(problem, placement); !s) {
      return internalError("expanded placement fails verification: " + s.message());
    }
  } else {
    // A non-contiguous split's pipeline stages, ordered on the original nodes (on the contracted
    // graph, a colocation class around a path can leave none).
    if (state.non_contiguous) {
      auto stages = pipelineStages(problem, placement.device_of);
      if (!stages)
        return internalError("the expanded split has no pipeline order: " + stages.status().message());
      placement.stage_of = std::move(*stages);
    }
    placement.value = evaluateThroughput(problem, placement.device_of).max_load;
    // A solver that may exceed memory (Scotch) is checked for everything else, and its excess is
    // recomputed on the original nodes (shared weights are counted there as the user gave them).
    const bool over_memory_allowed = state.solver != nullptr && state.solver->may_exceed_memory;
    if (over_memory_allowed) state.solve->memory_violation = memoryExcess(problem, placement.device_of);
    if (Status s = verify(over_memory_allowed ? withUnlimitedMemory(problem) : problem, placement,
                          !state.non_contiguous);
        !s) {
      return internalError("expanded placement fails verification: " + s.message());
    }
    value = problem.objective.gpipe ? gpipeObjective(problem, placement.device_of) : placement.value;
    placement.value = value;
  }
  if (!(std::abs(value - solver_value) <= 1e-6 * std::max(1.0, std::abs(value)))) {
    return internalError("the solver's value " + std::to_string(solver_value) + " recomputes to " +
                         std::to_string(value) + " on the original nodes");
  }
  state.solve->value = value;
  PassResult result;
  result.changed = true;
  result.expanded = true;
  result.note = "placement mapped back to " + std::to_string(boost::num_vertices(problem.graph)) + " nodes";
  return result;
}

}  // namespace placer
