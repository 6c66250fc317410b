// Exhaustive search over the splits of a tiny problem, and what makes a throughput split valid, for
// the tests of the searches that improve splits (the refinement, the regions placed by programs).
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "core/evaluate.h"
#include "solvers/refine/moves.h"
#include "solvers/refine/refine.h"
#include "solvers/stages.h"

namespace placer::testing {

// Every split of the units onto the devices that `valid` accepts, and the least objective among them
// (refineObjective: the max-load, GPipe's or the latency, as the problem says).
inline double exhaustiveOptimum(const Problem& p, const std::function<bool(const std::vector<int>&)>& valid) {
  const std::vector<std::vector<Vertex>> units = moveUnits(p);
  const int devices = p.devices.count();
  std::vector<int> choice(units.size(), 0), device_of(boost::num_vertices(p.graph), 0);
  double best = kInfinity;
  while (true) {
    for (std::size_t u = 0; u < units.size(); ++u) {
      for (Vertex v : units[u])
        device_of[v] = choice[u];
    }
    if (valid(device_of)) best = std::min(best, refineObjective(p, device_of));
    std::size_t i = 0;
    while (i < choice.size() && ++choice[i] == devices)
      choice[i++] = 0;
    if (i == choice.size()) break;
  }
  return best;
}

// A valid throughput split: contiguous, what splitViolations accepts; non-contiguous, what verify
// accepts once its pieces are ordered as a pipeline (memory, support, colocation).
inline bool throughputValid(const Problem& p, const std::vector<int>& device_of, bool contiguous) {
  if (contiguous) return splitViolations(p, device_of).empty();
  Placement placement{device_of, device_of, evaluateThroughput(p, device_of).max_load};
  auto stages = pipelineStages(p, device_of);
  if (!stages) return false;
  placement.stage_of = *stages;
  return verify(p, placement, /*contiguous=*/false).isOk();
}

}  // namespace placer::testing
