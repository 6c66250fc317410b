// Refinement of any split (issue 31; Parmesan's iterative refinement, with Fiduccia–Mattheyses'
// passes): moves of units — a node, or a whole colocation class — between devices that keep every
// accelerator within its memory, unsupported nodes off accelerators, colocation classes together and,
// for a contiguous split, every device one block of an acyclic pipeline (the quotient graph over
// devices of the forward edges acyclic, and of the backward edges when it was), and that lower the
// objective: the max-load, GPipe's max FW + max BW, or the single-sample latency.
//
// Throughput (max-load and GPipe): a pass moves, one at a time, the unit whose move leaves the best
// state (objective, then the sum of the squared device loads, so that taking load off one of two
// devices at the maximum counts before the maximum drops) among the unlocked units of the devices at
// the maximum, to any device that can take it, or of their neighbours onto them (which can save
// them a transfer) — only units at the edge of their device's block when the split must stay
// contiguous — even when the move makes the state worse; the unit is then locked for the pass. After
// `patience` moves without a new best, the pass rolls back to its best prefix. Passes repeat until
// one finds nothing better; then swaps of two units (one on a device at the maximum) are tried, first
// improvement, and the passes resume after one. Every candidate's state is computed exactly and
// incrementally (SplitLoads: O(nets of the unit + devices) per move), which is what FM's gain
// buckets approximate for cut objectives; a max-load gain depends on every device's load, so it is
// recomputed rather than bucketed.
//
// Multilevel (a V-cycle, as in multilevel graph partitioners): the graph is coarsened by clustering
// (solvers/clustering.h) restricted to units on one device, halving the units per level, the split is
// refined on the coarsest graph, where a move carries a whole cluster, and then on every finer one.
//
// Iterated search (throughput): once the passes find nothing better, a kick moves a random group of
// units (a unit of a device at the maximum and up to `kick_units` - 1 of its neighbours there) to
// another device, the passes run again from there, and the result is kept when it is no worse,
// until `kicks` kicks in a row bring nothing better. It is what lets the search leave the local
// optimum a contiguous start sits in (op BERT-12 inference: 147.48 to 130.04, against the paper's
// 130.03).
//
// Latency: first-improvement moves of boundary units to a neighbour's device or a CPU, each judged by
// the latency evaluator (core/latency.h) over the whole graph; deadlocking or invalid splits are
// refused.
//
// It never returns a worse split than it was given (the evaluator judges the result, and the given
// split is returned when the result is not at least as good), and it stops at the budget's deadline
// or stop flag with the best split so far.
#pragma once

#include <cstdint>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"

namespace placer {

struct RefineOptions {
  // Throughput: keep every device one contiguous block (false: a device may run several stages).
  bool contiguous = true;
  Budget budget;
  bool multilevel = true;
  int max_passes = 64;  // FM passes per level
  int patience = 50;    // moves without a new best before a pass rolls back and ends
  // Throughput: after the passes, an iterated search: a random group of units moved off a device at
  // the maximum (a kick), the passes again, the result kept when it is no worse; it ends after
  // `kicks` kicks in a row without a better split (0: none). The same seed gives the same split.
  int kicks = 100;
  // The most units one kick moves (it moves 1 to kick_units, uniformly); 0: 8 for a contiguous split,
  // where a larger group seldom leaves the pipeline acyclic, and 32 otherwise. Measured on Table 1's
  // non-contiguous splits (bench/README.md, refine_bench): 32 against 8 leaves none worse and takes
  // op BERT-6 inference from 29.38 to 28.74 and op BERT-6 training out of its 72.47 local optimum.
  int kick_units = 0;
  std::uint64_t seed = 1;
};

struct RefineStats {
  double before = 0;  // the objective of the split given
  double after = 0;   // of the split returned
  int passes = 0;     // FM passes (throughput) or rounds (latency), over every level
  int moves = 0;      // moves kept
  int kicks = 0;      // kicks tried
  int levels = 1;     // graphs refined on (1: no coarsening)
  double seconds = 0;
};

struct Refined {
  std::vector<int> device_of;
  double value = 0;
  RefineStats stats;
};

// The objective the refinement minimises for `problem`: max-load, max FW + max BW (objective.gpipe)
// or latency; +inf for a latency split that does not run (invalid, deadlocked).
double refineObjective(const Problem& problem, const std::vector<int>& device_of);

// The refined split; device_of must be a valid split (memory, support, colocation; contiguous when
// options.contiguous and the objective is throughput).
Refined refineSplit(const Problem& problem, const std::vector<int>& device_of, const RefineOptions& options);

// Refines a solver's answer in place: placement, stage_of, value, gap and status (Optimal when the
// value meets the bound). Returns the statistics; nothing changes when the answer has no placement.
RefineStats refineResult(const Problem& problem, SolveResult& result, const RefineOptions& options);

}  // namespace placer
