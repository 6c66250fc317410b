// Combinatorial lower bounds on the optimum of a placement problem (solvers/README.md, "Lower
// bounds", derives them): the SliceGraph paper's Lemma 4.2 (some block has at least the average
// work, and at least the largest node's), adapted to our devices — accelerators and CPU cores with
// different times, accelerator memory, shared weights, colocation, unsupported nodes — by solving
// the linear relaxation of "put every node on some kind of device so that no device computes for
// longer than T" rather than dividing one total by k.
//
// Both bounds only use each node's computation and memory, never communication or contiguity, so
// they hold for every placement, contiguous or not: they bound the optimum of every solver's space.
#pragma once

#include <string>

#include "core/budget.h"
#include "core/problem.h"
#include "core/status.h"
#include "solvers/mip.h"

namespace placer {

struct SimpleBound {
  double value = 0;  // proven: no placement does better
  // Which part gave the value, for reports: "work" (the work relaxation), "node" (one node's or
  // colocation class's cheapest time), "path" (latency: the longest path of cheapest times with the
  // accelerators' share of the work), "transfers" (latency: one path cut into CPU and accelerator
  // runs, each accelerator run paying its transfers and within one accelerator's memory),
  // "pigeonhole" (throughput: how many whole units a device can compute within T), "packing"
  // (throughput: the relaxation with its large units kept whole, a small integer program),
  // "boundaries" (throughput: the relaxation with the accelerators' boundary floors; the throughput
  // "transfers" is along a path, as below).
  std::string reason;
  bool cut_short = false;  // the budget ran out before a relaxation (or the latency path's sides) finished
  // Throughput: in every placement some device computes (communication aside) for at least this —
  // the value before the "boundaries" and "transfers" parts, which also count communication. What the bottleneck
  // programs take as their threshold. 0 for latency.
  double compute = 0;
};

// Throughput objectives (max-load in every overlap mode, and the GPipe objective, which is at
// least the largest device's FW + BW computation): the largest of
//   - the smallest T for which a fractional split of every node between accelerators and CPUs
//     exists with the accelerators' work <= k T, the CPUs' work <= l T and the accelerators' memory
//     (each shared weight once) <= k M;
//   - per node (colocation class), its cheapest time on a device kind that can hold it;
//   - pigeonhole: for the n units of largest time, the least T at which k accelerators and l CPUs
//     can each hold as many whole units as their smallest times allow within T, all n together;
//   - packing: the relaxation with the large units kept whole on individual devices (an integer
//     program given a tenth of the budget, 1 s without a limit; its proven bound when the time
//     runs out);
//   - boundaries: the work relaxation with what the accelerators pay at least at their boundaries
//     added to their work (solvers/bounds/boundary_floors.h); overlap None only, not GPipe;
//   - transfers: a path cut into runs, each device paying the transfers at its runs' ends
//     (solvers/bounds/path_runs_bound.h); not for the GPipe objective.
// All but the last two bound every device's computation alone (`compute`).
// Fails (Infeasible) when no kind of device can run some node.
Expected<SimpleBound> throughputSimpleBound(const Problem& problem, const Budget& budget = Budget::unlimited(),
                                            mip::Backend backend = mip::kDefaultBackend);

// Single-sample latency (core/latency.h: CPU nodes never wait for a core): the larger of
//   - the smallest T of a fractional split for which some schedule of the fractional times along
//     every path fits in T and the accelerators' work fits in k T (one accelerator runs one node at
//     a time), within their memory;
//   - the path bound (solvers/bounds/latency_path_bound.h): the transfers at the boundaries of the
//     accelerator runs a path must be cut into, with the memory that forces the cuts.
Expected<SimpleBound> latencySimpleBound(const Problem& problem, const Budget& budget = Budget::unlimited(),
                                         mip::Backend backend = mip::kDefaultBackend);

// The work relaxation (the first part of the throughput bound), with the accelerator work the CPU
// cores take over at most `per_cpu` a core (kInfinity: the relaxation as above; a finite limit
// holds for contiguous splits only, solvers/bounds/cpu_block_bound.h), and with the boundaries part
// where it applies. nullopt when the budget ran out first.
Expected<std::optional<double>> workBound(const Problem& problem, double per_cpu, const Budget& budget,
                                          mip::Backend backend = mip::kDefaultBackend);

// The one for the problem's objective.
//
// The relaxation is a linear program (on `backend`: GLPK's simplex or CBC's Clp) that stops with the
// budget; stopped before its optimum it proves nothing, and the bound falls back on the per-node part
// (reason "node").
Expected<SimpleBound> simpleBound(const Problem& problem, const Budget& budget = Budget::unlimited(),
                                  mip::Backend backend = mip::kDefaultBackend);

}  // namespace placer
