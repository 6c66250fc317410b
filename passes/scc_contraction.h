// Strongly connected component contraction (Tarnawski et al. 2020, App. B). After colocation
// contraction the forward graph can have cycles; every node on a cycle must share a device in any
// colocation-respecting contiguous split, so each forward SCC becomes one node, and the backward
// partners of its members become one backward node in the same (merged) class. The forward graph is
// acyclic afterwards.
#pragma once

#include "passes/pass.h"

namespace placer {

class SccContractionPass : public Pass {
 public:
  std::string_view name() const override { return "scc"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
