// The partition pass: runs the chosen solver on the contracted problem and leaves its answer in the
// context (on the graph it saw; the expand pass maps it back). Before solving, it checks the
// instance can be feasible at all, so "memory too small" or "unsupported node and no CPU" come back
// as Infeasible with the node named instead of as an infinite max-load.
#pragma once

#include "passes/pass.h"

namespace placer {

enum class Algorithm {
  Dp,   // exact DP over ideals (§5.1.1); warm-started by DPL for pruning
  Dpl,  // DP over a linearised graph (§5.1.2)
};

Expected<Algorithm> parseAlgorithm(std::string_view name);
const char* toString(Algorithm algorithm);

// Feasibility checks that need no search: devices exist, every node that cannot run on an
// accelerator (unsupported, or more memory than one accelerator holds) has a CPU to go to, and
// without CPUs the total memory fits on the accelerators.
Status checkTriviallyFeasible(const Problem& problem);

class PartitionPass : public Pass {
 public:
  explicit PartitionPass(Algorithm algorithm) : algorithm_(algorithm) {}
  std::string_view name() const override { return "partition"; }
  Status run(Problem& problem, PassContext& ctx) override;

 private:
  Algorithm algorithm_;
};

}  // namespace placer
