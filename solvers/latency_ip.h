// Integer program for single-sample latency (Tarnawski et al. 2020, §4, Figs. 3 and 4, Lemma 4.1),
// on GLPK or CBC through solvers/mip.h.
//
// Columns: 0 is all CPU cores together (the paper assumes at least as many cores as the graph is
// wide, so CPU nodes start as soon as their inputs are ready); 1..k·q are subgraph slots, slot j on
// accelerator (j-1)/q. Each slot is contiguous (z-variables (11)-(13)) and runs as one invocation:
// it starts once every input is in CPU memory (6), takes its in-transfers, its nodes' p_acc and its
// out-transfers (7), each net paid once per slot (solvers/ip_common.h addNetCommVars), and then all
// of its outputs are available (10). The slots of one accelerator run one after another (14), and
// the memory row (3*) sums over them. Colocation classes share an accelerator (any of its slots) or
// the CPU: with q = 1 they share their variables, with q > 1 the per-device sums are equal (§4.1).
//
// The products in (6) and (10) become big-M rows (Lemma 4.1) with M = H, an upper bound on the
// optimal latency: the latency of the best start, which is also imposed as TotalLatency <= H (all
// work and transfers one after another when there is no start). Times are measured in units of H,
// so every time lies in [0, 1] and the big-M coefficients are 1.
//
// GLPK alone finds little on the Table 4 workloads (from the greedy split it improved none of them
// in 60 s), so the solve starts from primal heuristics, best first, and the search then tries to
// improve on them and bounds the optimum:
// - segment splits: the greedy's blocks (colocation classes and the cycles they close) in a
//   topological order, cut into consecutive segments by an exact DP (each segment on an accelerator
//   of its own or on the CPU, minimising the sum of the segments' durations — what they take run one
//   after another), over the greedy's order, the smallest-index-first order and many random
//   topological orders (SliceGraph's slicing of orders, with the latency's own segment costs);
// - a local search from the best segment split, moving one block at a time between devices and
//   scored by the evaluator: it finds the placements where independent branches overlap;
// - the baselines the caller passes (e.g. the max-load DP's split) and the greedy of App. F.
// What makes the program itself stronger or faster:
// - TotalLatency >= SubgraphFinish_j for every slot, without big-M (an empty slot finishes no later
//   than the slot before it);
// - Latency_v >= the longest path ending at v with every node at its cheapest time (a variable
//   bound; also passed as the known bound), and Latency_v >= Latency_u + p_acc(v) when u is on the
//   CPU and v is not;
// - (6) is stated once per net and slot through CommIn (each edge's x_vj - x_uj is below it) and
//   (10) only for nodes with successors (sinks are covered by the row above);
// - identical accelerators are interchangeable: with nodes in a fixed topological order,
//   accelerator a+1 may hold a node only if accelerator a holds an earlier one (all slots of a
//   device counted together), and within an accelerator slot j+1 is used only if slot j is. On
//   random 10-12 node DAGs with 3 accelerators this proves optimality 3-4x faster; without a start
//   it slows GLPK's own search for incumbents, but the heuristics always supply one;
// - the start is injected as an incumbent (mip::Options::start), so the search prunes against it
//   from the first node and never returns anything worse; the feasibility pump, useless then, is
//   off (it overran the time limit by tens of seconds on the larger workloads).
//
// Slots versus the evaluator (core/latency.h): the evaluator splits an accelerator's nodes into
// "level" pieces, the fewest contiguous pieces, each as early as its inputs allow. For q = 1 a slot
// is exactly one level piece, so the IP's latency is the evaluator's. For q > 1 the IP may split a
// device's nodes differently — e.g. put a node with a long CPU-side input into the device's second
// subgraph instead of holding up the first — and its own schedule can be shorter than the level
// split's. The result then carries the IP's schedule: `value` is the latency of the slot schedule
// (evaluateSlotSchedule), stage_of orders the slots, and the level split's latency is reported
// beside it. When the level split is at least as good, it is what the result holds.
#pragma once

#include <functional>
#include <vector>

#include "core/problem.h"
#include "core/solve_result.h"
#include "core/status.h"
#include "solvers/limits.h"
#include "solvers/mip.h"

namespace placer {

struct LatencyIpOptions {
  int subgraphs_per_accelerator = 1;        // q, the degree of non-contiguity (§4.1)
  // limits.time_limit seconds from the call, heuristics included (GLPK may overrun it a little), or
  // until the budget's deadline if that comes first; the budget's stop flag stops it soon;
  // progress gets a line per report of the search.
  Limits limits;
  mip::Backend backend = mip::kDefaultBackend;  // the program's solver, and the simple bound's LP's
  // A split (device_of) to start from. When given, it is the only start; when empty, the heuristics'
  // splits and `baselines` are scored by the evaluator and the best one that the slots can represent
  // (valid, no deadlock, at most q level pieces per accelerator) is used.
  std::vector<int> start;
  // More candidate starts, e.g. the max-load DP's split (runPipeline(problem, defaultPipeline("dp"))
  // in passes/, which the solvers library cannot call).
  std::vector<std::vector<int>> baselines;
  // Primal heuristics before the search (when `start` is empty): the greedy split; the best
  // segmentation of block orders (the greedy's, smallest index first, and up to `random_orders`
  // random topological orders within `heuristic_time` seconds; negative: a tenth of the time limit,
  // at most 10 s); then a local search from the best of them for `local_search_time` seconds
  // (negative: a quarter of the time limit, at most 15 s; it stops earlier once it stalls).
  bool heuristics = true;
  int random_orders = 1000;
  double heuristic_time = -1;
  double local_search_time = -1;
  bool symmetry_breaking = true;
  bool feasibility_pump = true;  // GLPK's, at the root (mip::Options); only without a start
  bool cuts = true;              // mixed-integer rounding cuts (mip::Options)
  // Every report of the branch-and-cut, objective values in seconds, besides limits.progress.
  std::function<void(const mip::Progress&)> mip_progress;
  double progress_interval = 1.0;
};

// The schedule of a slot assignment, recomputed without the IP: column 0 is the CPU, slot j >= 1 is
// on accelerator (j-1)/q and the slots of an accelerator run in index order.
struct SlotSchedule {
  double latency = 0;
  std::vector<double> start, finish;  // per column (column 0 unused; empty slots: 0)
  std::vector<double> node_finish;    // per vertex: when its output is in CPU memory
};

// Fails with InvalidInput when a column is out of range or a slot is not contiguous (a path leaves
// it and comes back), and with Infeasible when the slots wait for one another.
Expected<SlotSchedule> evaluateSlotSchedule(const Problem& problem, const std::vector<int>& slot_of, int q);

struct LatencyIpSolution {
  SolveResult result;
  std::vector<int> slot_of;          // per vertex: 0 on the CPU, else its slot 1..k·q
  double level_latency = kInfinity;  // evaluateLatency of result.placement.device_of
  // TotalLatency of the program's incumbent (the start's latency when the start is returned); the
  // value is below it only when the level split of the same placement was shorter (q > 1).
  double ip_latency = kInfinity;
  double start_latency = kInfinity;  // of the start injected (+inf: none)
  double big_m = kInfinity;          // H
  double heuristic_seconds = 0;      // spent on the starts before the search
};

// Status Optimal (within mip_gap), Feasible (time limit with an incumbent), TimeLimit (no split in
// time, none to start from), Infeasible (the message names the node that fits nowhere, or says
// that the program has no solution), or Error. The placement's device_of maps slots to their
// accelerators (CPU nodes to device k); value is the latency of the schedule in `slot_of`;
// stage_of numbers the subgraphs in order of their start (CPU nodes between two subgraphs share a
// stage).
LatencyIpSolution solveLatencyIpDetailed(const Problem& problem, const LatencyIpOptions& options);

inline SolveResult solveLatencyIp(const Problem& problem, const LatencyIpOptions& options) {
  return solveLatencyIpDetailed(problem, options).result;
}

}  // namespace placer
