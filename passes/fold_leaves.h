// Folding zero-cost leaves (the "trivial node" reduction of the reference DP, made safe).
//
// A forward node u whose only forward neighbour is m (u is a free source feeding m, or a free sink
// fed by m) is merged into m when moving it onto m's device can never raise a load or break a
// constraint: u takes no processing time, its memory is zero (or the whole graph fits on one
// accelerator, so memory never binds), and every node u touches is m or m's backward partner. In a
// training graph u's backward partner b (if any) must also take no time, touch only m's unit, and
// merges into m's backward partner. Then every transfer of u and b becomes internal when they join
// m, and u's only pipeline edge becomes internal too. Such nodes (graph inputs, labels, zero-time
// outputs) would otherwise each double the number of ideals. Repeats until no such node is left.
// Run after scc; keeps the graph contracted and acyclic.
#pragma once

#include "passes/pass.h"

namespace placer {

class FoldLeavesPass : public Pass {
 public:
  std::string_view name() const override { return "fold-leaves"; }
  Expected<PassResult> run(Problem& problem, const PassOptions& options, PipelineState& state) override;
};

}  // namespace placer
