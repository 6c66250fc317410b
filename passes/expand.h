// Expand-back: carries the partition pass's placement through every recorded vertex mapping to the
// graph the user gave, and restores that graph as the problem. Artificial vertices (subdivision
// nodes, orphan images) have no pre-image and simply vanish.
#pragma once

#include "passes/pass.h"

namespace placer {

// Maps a placement on the graph after all `mappings` to the graph before the first of them.
Placement expandPlacement(const Placement& placement, const std::vector<std::vector<Vertex>>& mappings);

class ExpandPass : public Pass {
 public:
  std::string_view name() const override { return "expand"; }
  Status run(Problem& problem, PassContext& ctx) override;
};

}  // namespace placer
