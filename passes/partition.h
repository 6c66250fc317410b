// The partition pass: runs the chosen solver on the contracted problem and leaves its answer in the
// context (on the graph it saw; the expand pass maps it back). For the latency goal, dp and dpl give
// the max-load DP's split scored by latency (Table 4's "max-load DP" baseline). The integer programs
// start from the DP's split (throughput) or the better of the greedy and DPL splits (latency), so
// they never return anything worse. Before solving, it checks the
// instance can be feasible at all, so "memory too small" or "unsupported node and no CPU" come back
// as Infeasible with the node named instead of as an infinite max-load.
#pragma once

#include "passes/pass.h"

namespace placer {

enum class Algorithm {
  Dp,           // exact DP over ideals (§5.1.1); warm-started by DPL for pruning
  Dpl,          // DP over a linearised graph (§5.1.2)
  Ip,           // integer program, contiguous (Fig. 6 for throughput, Fig. 3 for latency)
  IpNonContig,  // integer program, non-contiguous (§5.2; Fig. 4 with q subgraphs per accelerator)
  Greedy,       // latency baseline of App. F
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
  Status runDp(Problem& problem, PassContext& ctx);
  Status runMaxLoadIp(Problem& problem, PassContext& ctx);
  Status runLatency(Problem& problem, PassContext& ctx);

  Algorithm algorithm_;
};

}  // namespace placer
