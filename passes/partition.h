// The partition pass: runs the solver the registry (solvers/registry.h) knows by the pass's argument
// on the reduced problem and leaves its answer in the context (on the graph it saw; the expand pass
// maps it back). It gives the solver what only a pass can: the whole solve's budget, and the max-load
// DP's split of the problem as a start (a nested pipeline, since the DP needs reductions the integer
// programs must not see). Before solving, it checks the instance can be feasible at all, so "memory
// too small" or "unsupported node and no CPU" come back as Infeasible with the node named instead of
// as an infinite max-load; after, every answer is verified independently.
#pragma once

#include "passes/pass.h"
#include "solvers/registry.h"

namespace placer {

// Feasibility checks that need no search: devices exist, every node that cannot run on an
// accelerator (unsupported, or more memory than one accelerator holds) has a CPU to go to, and
// without CPUs the total memory fits on the accelerators.
Status checkTriviallyFeasible(const Problem& problem);

class PartitionPass : public Pass {
 public:
  explicit PartitionPass(const SolverInfo& solver) : solver_(solver) {}
  std::string_view name() const override { return "partition"; }
  Status run(Problem& problem, PassContext& ctx) override;

 private:
  const SolverInfo& solver_;  // an entry of builtinSolvers(), which lives as long as the program
};

}  // namespace placer
