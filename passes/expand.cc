#include "passes/expand.h"

#include "solvers/evaluate.h"

namespace placer {

Placement expandPlacement(const Placement& placement, const std::vector<std::vector<Vertex>>& mappings) {
  Placement current = placement;
  for (auto it = mappings.rbegin(); it != mappings.rend(); ++it) {
    Placement earlier;
    earlier.value = current.value;
    earlier.device_of.reserve(it->size());
    earlier.stage_of.reserve(it->size());
    for (Vertex to : *it) {
      earlier.device_of.push_back(current.device_of[to]);
      earlier.stage_of.push_back(current.stage_of[to]);
    }
    current = std::move(earlier);
  }
  return current;
}

Status ExpandPass::run(Problem& problem, PassContext& ctx) {
  if (!ctx.solve) return unsupported("nothing to expand: the pipeline has no partition pass before expand");
  if (!ctx.original) return internalError("the pass manager did not record the original problem");
  ctx.solve->placement = expandPlacement(ctx.solve->placement, ctx.mappings);
  ctx.mappings.clear();
  problem = *ctx.original;
  // The recomputed max-load on the original nodes is what we report; it must match the solver's.
  if (Status s = verify(problem, ctx.solve->placement); !s) {
    return internalError("expanded placement fails verification: " + s.message());
  }
  ctx.solve->value = evaluateThroughput(problem, ctx.solve->placement.device_of).max_load;
  ctx.solve->placement.value = ctx.solve->value;
  ctx.note = "placement mapped back to " + std::to_string(boost::num_vertices(problem.graph)) + " nodes";
  return Status::ok();
}

}  // namespace placer
