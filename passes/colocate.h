// Colocation contraction (Tarnawski et al. 2020, App. B): every colocation class C is contracted
// into one node per side, C_FW and C_BW, so the DP cannot separate colocated nodes. The forward
// graph may get cycles (u -> v -> w with u, w colocated); the scc pass removes them.
#pragma once

#include "passes/pass.h"

namespace placer {

class ColocatePass : public Pass {
 public:
  std::string_view name() const override { return "colocate"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
