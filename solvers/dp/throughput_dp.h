// Exact max-load DP over ideals, and DPL (Tarnawski et al. 2020, §5.1.1, §5.1.2, §5.3, App. B).
//
// Input: a contracted problem, as left by the colocate, orphans and scc passes: every colocation
// class has at most one forward and one backward node, every backward node has a forward partner,
// and the forward subgraph is acyclic. The DP runs over ideals (predecessor-closed sets) of the
// forward graph; a device's block I \ I' takes the backward partners of its forward nodes with it.
//
// dp[I][c][a] = min over ideals I' ⊂ I of min( max(dp[I'][c][a-1], acc(I∖I')),
//                                              max(dp[I'][c-1][a], cpu(I∖I')) ),
// plus "leave the device unused". On a machine of several accelerator kinds (DeviceSet::kinds, up to
// dp::kDpMaxKinds) the table keeps a count per kind, dp[I][c][a₁]…[aₜ], a block on kind k costing its
// times there (OpNode::p_kinds) and fitting its memory; with one kind it is the table above.
// How it is fast (one file per part, in this folder):
//  - instance.h: units (forward node + backward partner) along a topological order, and how each
//    touches the nets and shared weights;
//  - ideal_lattice.h: ideals are generated once, breadth-first by size, with their Hasse edges (ideal
//    J, maximal node v -> id of J∖{v}), counted first so that a lattice too large is refused cheaply;
//  - block_walker.h: every sub-ideal of I is reached exactly once by a DFS that removes maximal nodes
//    in decreasing topological position, using only integer lookups, and along it the block
//    S = I∖I' grows by one node at a time, so its compute, memory and communication are updated
//    incrementally (per-net counters of members inside S, for the accelerator's link cost and the
//    CPU's boundary cost; per-weight counters of readers inside S, so a shared weight counts once),
//    O(degree) per pair instead of O(|V|+|E|); compute and memory only grow with S, so once S cannot
//    beat an upper bound (from DPL) on an accelerator nor on a CPU, its whole DFS subtree is skipped;
//  - table.h: only the entries whose ideal fits its devices and whose rest fits the others within
//    the bound are filled (solvers/capacity_relaxation.h; exact, as every split within the bound
//    passes only through them), and a row reads only the rows of its sub-ideals, so several threads
//    fill the rows whose Hasse children are done (DpOptions::threads), each row by the same code in
//    the same order: the table is bit-identical for any number of threads.
// DPL adds a DFS topological path as artificial edges, leaving |F|+1 ideals; any other topological
// order given instead is sliced the same way (SliceGraph's slicer, solvers/slicegraph/slicer.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/limits.h"

namespace placer {

struct DpOptions {
  bool linearize = false;               // DPL
  std::int64_t max_ideals = 4'000'000;  // refuse beyond this (memory and time)
  // A known achievable max-load, for pruning. Given one below the optimum, the DP answers Infeasible
  // ("no contiguous split of max-load at most ..."), never a split it could not prove optimal.
  double upper_bound = kInfinity;
  // With linearize: the forward vertices in the topological order to slice (SliceGraph's slicer:
  // the best split of the problem into contiguous runs of this order). Empty: a DFS order (DPL).
  std::vector<Vertex> order;
  // The budget's deadline and stop flag: the DP returns TimeLimit (deadline) or Interrupted (stop
  // flag) when it runs out, checked after every row of the table and every thousand ideals
  // generated. Progress is reported about twice a second on long solves. (The gap is not used.)
  Limits limits;
  // Asked after every row of the table with the rows filled and the rows in all (from any of the
  // threads filling it): false stops the DP as its deadline does (TimeLimit). auto's checkpoint
  // (solvers/auto_solver.h, continueExactDp). Null: the deadline alone.
  std::function<bool(std::int64_t done, std::int64_t total)> keep_going;
  // Seconds for generating the ideals (+inf: the deadline's): past them the DP stops as keep_going
  // does (TimeLimit, "stopped at its checkpoint while generating ideals"). auto's checkpoint: a DP
  // whose lattice is not even built by then cannot fill its table in time.
  double lattice_seconds = kInfinity;
  // Threads filling the table (0: every core). Ideals of equal size are filled in parallel; the
  // table, the answer and the statistics are the same for any count.
  int threads = 0;
};

// Checks the contracted-problem preconditions above; the message says which pass is missing.
Status checkContracted(const Problem& problem);

SolveResult solveThroughputDp(const Problem& problem, const DpOptions& options);

// DPL as a split of last resort, on a machine of one kind or several: the DP over the DFS
// linearisation on `threads` threads, never stopped by the deadline of `limits` (it is polynomial),
// only by its stop flag, reporting to its progress. The result's solver is "dpl".
SolveResult solveDplUnbounded(const Problem& problem, int threads, Limits limits);

// Ok when `order` lists every forward vertex once, each after its forward predecessors.
Status checkForwardOrder(const Problem& problem, const std::vector<Vertex>& order);

// The DFS topological order of the forward vertices DPL slices (§5.1.2: a stack, not a queue, of
// ready nodes). The problem must satisfy checkContracted.
std::vector<Vertex> dfsForwardOrder(const Problem& problem);

}  // namespace placer
