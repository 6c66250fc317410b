// Folding zero-cost leaves (the "trivial node" reduction of the reference DP, made safe).
//
// A forward node u with no processing time and no memory (or any memory, when the whole graph fits
// on one accelerator so memory never constrains a placement), with no
// backward partner and no edge to a backward node, whose only forward neighbour is m (u is a free
// source feeding m, or a free sink fed by m), can be moved onto m's device in any placement without
// raising a load or breaking contiguity: u's only transfer is to or from m, so moving it can only
// remove communication, and its only quotient edge becomes internal. So u is merged into m. Such
// nodes (graph inputs, labels, zero-time outputs) would otherwise each double the number of ideals.
// Repeats until no such node is left. Run after scc; keeps the graph contracted and acyclic.
#pragma once

#include "passes/pass.h"

namespace placer {

class FoldLeavesPass : public Pass {
 public:
  std::string_view name() const override { return "fold-leaves"; }
  Status run(Problem& problem, PassContext& ctx) override;
};

}  // namespace placer
