// SliceGraph's slicer (Archer, Fahrbach, Liu, Prabhu, ICML 2024, §3.2): the best split of a contracted
// problem into contiguous runs of one topological order of its forward vertices, each run on one
// accelerator or one CPU core, with everything the DP models (memory with shared weights once per
// device, unsupported nodes, backward partners riding with their forward nodes, transfers paid once
// per boundary, CPU boundary costs, the overlap modes).
//
// It is the max-load DP over the ideals of the order's chain (solvers/throughput_dp.h): the prefixes
// of the order. The DP's block walk extends a run one node at a time, updating compute, memory and
// the cut nets in O(degree), and stops extending a run that cannot beat the best split known: one
// order costs O(n L d (k+1)(l+1)) for runs of at most L nodes and degree d. DPL is this slicer on a
// DFS order (dfsForwardOrder).
#pragma once

#include <vector>

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/throughput_dp.h"

namespace placer {

// The optimal slicing of `order` (checkForwardOrder must accept it; Error otherwise). The result's
// status is Feasible (optimal for the order, not for the problem) and its bound 0.
SolveResult sliceOrder(const Problem& problem, const std::vector<Vertex>& order, DpOptions options = {});

}  // namespace placer
