// Orphaned backward nodes (Tarnawski et al. 2020, App. B). The DP places forward blocks and takes
// each forward node's backward partner (same colocation class) along, so a backward node without a
// forward partner would never be placed. Each such node gets an artificial forward image in its
// class; for every backward edge (u', v') touching an orphan we add the mirrored artificial forward
// edge (image(v'), image(u')), so the images are ordered like the backward pass and do not multiply
// the number of ideals. Run after colocate (one node per class and side).
#pragma once

#include "passes/pass.h"

namespace placer {

class OrphansPass : public Pass {
 public:
  std::string_view name() const override { return "orphans"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
