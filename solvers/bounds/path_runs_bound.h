// A max-load lower bound that sees communication on every device, not only on one block
// (solvers/README.md, the simple bound's "transfers along a path"). It holds for every placement,
// contiguous or not.
//
// Take a path of the graph. Any placement cuts it into runs: maximal stretches of consecutive path
// nodes on one device. Where the path changes device between u and v, u's device sends and v's
// receives at least the cheapest net from u that v reads, and since the runs' ends are distinct
// nodes, no device pays one net twice for two of its runs. So, with T the max-load:
//   - each run alone: its device's load is at least the run's computation with the transfers at its
//     two ends, combined per the overlap mode (an accelerator's run also fits in its memory);
//   - all runs together: the devices' loads, summed, are at least the runs' computations and
//     transfers plus every other node's computation, and at most (k + l) T.
// Weighing the CPU cores' loads by λ and, under overlap, the computation and the transfers by
// μ and ν (a load max(compute, in + out) is at least μ compute + (1 - μ)(in + out)), a dynamic
// program over the path's prefixes finds the cheapest cut into runs that each fit in T; T is
// infeasible when that cut and the other nodes' cheapest work exceed (k + λ l) T. Colocated
// consecutive path nodes are never cut apart. The least feasible T, found by bisection, is a bound
// for each λ, μ; the bound is the largest over a few of them and a few heavy paths.
//
// The argument needs a path of data edges that visits each node once, not an acyclic graph: on a
// graph with cycles (a contracted colocation class with a path between its members leaving it)
// the paths follow an order that breaks them (solvers/bounds/paths.h). Not for the GPipe objective
// (max FW + max BW sums two devices' loads): the floor there.
#pragma once

#include <vector>

#include "core/budget.h"
#include "core/problem.h"

namespace placer {

struct PathRunsBound {
  double value = 0;        // proven: no placement has a lower max-load
  bool cut_short = false;  // the budget ran out before every path, λ and μ was tried
};

// can_accelerator[v] / can_cpu[v]: which kinds of device may hold v (the simple bound's units:
// supported and fitting an accelerator alone; a CPU core exists and runs it). `floor` is a bound
// already proven: the search starts from it, and the result is at least it.
PathRunsBound pathRunsBound(const Problem& problem, const std::vector<bool>& can_accelerator,
                            const std::vector<bool>& can_cpu, double floor,
                            const Budget& budget = Budget::unlimited());

}  // namespace placer
