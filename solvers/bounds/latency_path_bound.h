// A latency lower bound along one path that sees what the fractional critical path cannot: the
// transfers at every boundary of an accelerator's piece, and the memory that forces a path onto
// several pieces (solvers/README.md, "The path bound").
//
// In the latency model (core/latency.h) a path meets each accelerator piece in one run of
// consecutive nodes, and since a piece is convex it also holds every node between the run's ends.
// The piece starts only once the path's previous node's output is in CPU memory, transfers it in,
// computes all its nodes and transfers the output the path's next node reads out; a CPU node starts
// once its inputs are there. So for any placement the latency is at least
//     min over cuts of the path into runs of  sum( CPU run: its nodes' p_cpu;
//                                                  accelerator run: in + p_acc of every node
//                                                  between its ends + out )
// where an accelerator run's nodes between its ends are all supported and their own memory fits in
// one accelerator. A dynamic program over the path's prefixes finds that minimum in O(|P| (V + E)).
// A run beside parallel branches also pays for them: each is in the piece (computing, its inputs
// transferred in) or outside (its output transferred in, or the piece's output out to it), the
// cheaper priced by a minimum cut per side (solvers/bounds/piece_sides.h), within a fixed allowance
// of work. Where two consecutive path nodes are colocated, the runs on either side of them share a
// device: both on a CPU, or two pieces of one accelerator whose memory fits it together. Shared
// weights and the other nodes are left out, so the value never exceeds the optimum of any placement.
#pragma once

#include <vector>

#include "core/budget.h"
#include "core/problem.h"

namespace placer {

struct PathBound {
  double value = 0;        // proven: no placement has a lower latency
  bool cut_short = false;  // the budget ran out first: the runs after it were priced without their sides
};

// The path's bound (0 for an empty path). can_accelerator[v] / can_cpu[v]: which kinds of device may
// hold v. `path` must follow edges of the graph. Once the budget is past its deadline the remaining
// runs are priced without their sides (the plain dynamic program, O(|P| (V + E)) at worst, when
// the runs are long), which still proves a bound; an interruption returns 0 at once.
PathBound pathLatencyBound(const Problem& problem, const std::vector<Vertex>& path,
                           const std::vector<bool>& can_accelerator, const std::vector<bool>& can_cpu,
                           const Budget& budget = Budget::unlimited());

// The largest pathLatencyBound over a few heaviest paths of the acyclic graph (by cheapest time, by
// accelerator time with transfers, by CPU time, by memory), the paths after a cut-short one left
// out; 0 on a graph with cycles.
PathBound latencyPathBound(const Problem& problem, const std::vector<bool>& can_accelerator,
                           const std::vector<bool>& can_cpu, const Budget& budget = Budget::unlimited());

}  // namespace placer
