// Expand-back: carries the partition pass's placement through every vertex mapping the pass
// manager recorded (PipelineState::mappings) to the graph the user gave, and restores that graph as
// the problem; its result says so (PassResult::expanded), and the manager drops the spent mappings.
// Artificial vertices (subdivision nodes, orphan images) have no pre-image and simply vanish.
#pragma once

#include "passes/pass.h"

namespace placer {

// Maps a placement on the graph after all `mappings` to the graph before the first of them.
Placement expandPlacement(const Placement& placement, const std::vector<VertexMapping>& mappings);

class ExpandPass : public Pass {
 public:
  std::string_view name() const override { return "expand"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
