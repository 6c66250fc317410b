// Operator clustering (Parmesan, §3 of /work/shared/papers.md): coarsens a problem before a solver
// whose cost grows with the graph (the exact DP's lattice of ideals), and coarsens a split for the
// multilevel refinement (solvers/refine/refine.h).
//
// The clustering works on *units*: a colocation class (every vertex sharing OpNode::colocation,
// forward and backward) or a single vertex without a class, since whatever the clustering does, a
// class stays on one device. Starting with every unit on its own, it repeatedly merges the adjacent
// pair (U, V) (some edge joins them) with the smallest c(U) + c(V) − α·comm(U, V), where c is the
// units' compute (p_acc, p_cpu for nodes an accelerator cannot run) and comm the cost of the nets
// running between them (each net once), until K units remain. A merge must keep the graph convex:
// the quotient of the forward graph over the units gains no cycle, nor does the backward graph's
// (an input with cycles already keeps them, but no unit joins one it was not on). It must fit the
// largest accelerator's memory (memoryOfSet: a shared weight counted once), must not mix a unit an
// accelerator cannot run with one it can run entirely (CPU-only operators stay apart), and with a
// given placement must join units on the same device. Ties go to the smallest (first vertex of U,
// first vertex of V); the result depends on the input alone.
//
// A merged unit becomes two clusters, its forward vertices and its backward vertices (a contraction
// never mixes the two sides), which contractClusters gives one colocation class: the contracted
// problem is in the exact DP's form (checkContracted, solvers/dp/throughput_dp.h) when the input was.
// The clustering is lossy: an optimal split may cut a cluster, so a bound proven on the clusters is
// no bound of the input.
#pragma once

#include <vector>

#include "core/budget.h"
#include "core/problem.h"

namespace placer {

inline constexpr double kDefaultClusterAlpha = 0.001;  // Parmesan's default α

struct ClusterOptions {
  int target = 0;  // K: stop when K clusters remain; <= 0: defaultClusterTarget(problem)
  double alpha = kDefaultClusterAlpha;
  // Non-empty (one device per vertex): only merge units this placement puts on one device.
  std::vector<int> device_of;
  Budget budget;  // when exhausted, stop merging and return the clustering so far
};

struct Clustering {
  // Per vertex of the input problem, its cluster, 0..groups-1, every cluster non-empty; numbered in
  // the order of each cluster's first vertex. A unit's forward vertices share a cluster, and so do
  // its backward vertices.
  std::vector<int> group_of;
  int groups = 0;
  int units = 0;  // how many units remain (<= groups; what K counts)
  // Per cluster, its unit, 0..units-1, numbered in the order of each unit's first vertex: a unit's
  // forward and backward clusters share it. (Empty in a Clustering put together by hand: then
  // contractClusters joins the clusters that hold one input unit's vertices.)
  std::vector<int> unit_of_group;
};

// The units of `problem` (colocation classes and vertices without one).
int countClusterUnits(const Problem& problem);

// min(units, max(64, 16 * problem.devices.count())): enough clusters per device for the DP to
// balance the loads, few enough for its lattice of ideals.
int defaultClusterTarget(const Problem& problem);

Clustering clusterOperators(const Problem& problem, const ClusterOptions& options);

// contractGroups(problem, clustering.group_of, clustering.groups), with the clusters of each unit
// (its forward and its backward cluster) in one colocation class: a class of its members (the first
// forward member's with one, else the first backward member's), a new class when none has one and
// the unit has both sides, none for a classless unit of one side. So the result passes
// checkContracted (solvers/dp/throughput_dp.h) whenever the input did.
Problem contractClusters(const Problem& problem, const Clustering& clustering);

}  // namespace placer
