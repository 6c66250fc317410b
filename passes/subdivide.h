// Edge subdivision (Tarnawski et al. 2020, App. B): the paper's model gives each node u a single
// transfer cost c_u, but an input may give u's outgoing edges different costs (different parts of its
// output go to different consumers). For such a u, each of its outputs (nets) w_j gets a new
// zero-cost node colocated with u that carries the net's cost; u itself then sends to the w_j only,
// which are always on u's device, so that transfer is never paid (we give it cost 0).
// Afterwards every node has exactly one outgoing net and out_cost is that net's cost. Placements
// keep their loads: the new nodes are artificial and disappear on expansion.
#pragma once

#include "passes/pass.h"

namespace placer {

class SubdividePass : public Pass {
 public:
  std::string_view name() const override { return "subdivide"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
