// The partition pass: runs the solver the registry (solvers/registry.h) knows by the pass's argument
// on the reduced problem and leaves its answer in the pipeline state (on the graph it saw; the certify
// pass proves a bound for it, the expand pass maps it back). It gives the solver what only a pass can:
// the whole solve's budget (less the certificate's share when a certify pass follows), and the
// max-load DP's split of the problem as a start (a nested pipeline, since the DP needs reductions the
// integer programs must not see). Before solving, it checks the instance can be feasible at all, so
// "memory too small" or "unsupported node and no CPU" come back as Infeasible with the node named
// instead of as an infinite max-load; after, every answer is verified independently. A solver's
// failure, or an answer that fails verification, is an Internal error; a time-out before any split
// is a TimeLimit status.
#pragma once

#include <string_view>

#include "passes/pass.h"
#include "passes/pass_manager.h"
#include "solvers/registry.h"

namespace placer {

// Feasibility checks that need no search: devices exist, every node that cannot run on an
// accelerator (unsupported, or more memory than one accelerator holds) has a CPU to go to, and
// without CPUs the total memory fits on the accelerators.
Status checkTriviallyFeasible(const Problem& problem);

// The max-load split of `problem` by the DP called `solver` (dp or dpl) within `budget`, in a nested
// pipeline with the DP's reductions and no certificate; the threads and the limit on ideals are the
// options', and so is the progress callback when `progress`.
Expected<PipelineOutcome> runDpPipeline(const Problem& problem, const PassOptions& options,
                                        std::string_view solver, const Budget& budget, bool progress);

class PartitionPass : public Pass {
 public:
  explicit PartitionPass(const SolverInfo& solver) : solver_(solver) {}
  std::string_view name() const override { return "partition"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;

 private:
  const SolverInfo& solver_;  // an entry of builtinSolvers(), which lives as long as the program
};

}  // namespace placer
