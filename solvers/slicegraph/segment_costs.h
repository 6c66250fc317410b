// The load of any segment of a topological order (SliceGraph, Archer et al. ICML 2024, §3.2 and
// App. A.3), for the slicer's DP.
//
// A contracted problem (solvers/dp/throughput_dp.h's preconditions) is first seen as *units*: a forward
// vertex with its backward partner, which every split keeps together. UnitGraph holds that view once
// per problem; SegmentCosts places it along one order of the units and answers, for the segment
// [begin, end) of the order, what the device holding exactly those units pays: compute on an
// accelerator and on a CPU, memory (each shared weight once), incoming and outgoing transfers (each
// net once however many of its consumers the segment holds, its cpu_cost on a CPU core), and whether
// an unsupported node rules out an accelerator.
//
// Compute, own memory and unsupported nodes are prefix sums. The transfer and shared-weight terms are
// 2-D dominance sums over points the nets and weights define (a net counts once in a segment, which
// is SliceGraph's "tensor counted once" rule): with p a net's producer position and its consumers at
// positions s_1 < s_2 < ... after p and r_1 > r_2 > ... before p (backward nodes consume earlier
// units' outputs),
//   incoming from before:  points (s_t, s_{t-1}) with s_0 = p: the net enters [b, e) iff exactly one
//                          point has s_t in [b, e) and s_{t-1} < b;
//   incoming from after:   points (r_t, r_{t-1}) with r_0 = p: one point with r_t in [b, e), r_{t-1} >= e;
//   outgoing:              nets with p in [b, e) (a prefix sum) minus those whose every member lies in
//                          [b, e): points (lo, hi) with lo >= b and hi < e;
//   shared weights:        points (u_t, u_{t-1}) over the readers' positions, u_0 = -1, as "incoming".
// The paper fills an n x n table with a 2-D Fenwick tree; that is n^2 memory (3.2 GB at n = 20,000).
// Here the right end sweeps forward instead (advance()), which is the order the slicer's DP asks in,
// and each sum is a 1-D Fenwick tree keyed by the other coordinate: O((n + P) log n) per order for P
// points (P = O(pins of the nets + readers of the weights)), O(log n) per query, O(n + P) memory.
#pragma once

#include <cstdint>
#include <vector>

#include "core/problem.h"

namespace placer {

// Units of a contracted problem, in the forward topological order of forwardTopologicalOrder.
struct UnitGraph {
  struct UnitNet {
    int source = 0;
    std::vector<int> sinks;  // distinct units other than the source's
    double cost = 0, cpu_cost = 0;
  };
  struct UnitWeight {
    std::vector<int> readers;  // distinct units, at least two
    double bytes = 0;
  };
  std::vector<std::vector<Vertex>> vertices;   // per unit: its forward vertex first, then its partner
  std::vector<double> p_acc, p_cpu, memory;    // p_acc without unsupported nodes' +inf
  std::vector<std::uint8_t> unsupported;       // some vertex of the unit cannot run on an accelerator
  std::vector<std::vector<int>> preds, succs;  // between units (forward edges), sorted, distinct
  std::vector<UnitNet> nets;                   // nets that some split can cut
  std::vector<UnitWeight> weights;             // shared weights read by two units or more
  std::vector<int> unit_of;                    // per vertex
  double memory_limit = 0;
  int accelerators = 0, cpus = 0;
  Overlap overlap = Overlap::None;

  int size() const { return static_cast<int>(vertices.size()); }
};

// The problem must satisfy checkContracted (solvers/dp/throughput_dp.h).
UnitGraph makeUnitGraph(const Problem& problem);

// What the device holding one segment pays.
struct SegmentLoad {
  double p_acc = 0, p_cpu = 0, memory = 0;
  double comm_in = 0, comm_out = 0;  // accelerator transfer costs
  double cpu_comm = 0;               // cpu_cost of the nets the segment cuts
  bool unsupported = false;

  // +inf when an accelerator cannot hold the segment (unsupported node, memory).
  double acceleratorCost(const UnitGraph& units) const;
  double cpuCost() const { return p_cpu + cpu_comm; }
};

class SegmentCosts {
 public:
  // `order` lists every unit once, each after its predecessors (the caller checks).
  SegmentCosts(const UnitGraph& units, const std::vector<int>& order);

  int size() const { return n_; }
  int end() const { return end_; }
  // Moves the segments' right end to `end` (never backwards; at most size()).
  void advance(int end);
  // The segment [begin, end()) for 0 <= begin < end().
  SegmentLoad load(int begin) const;
  double memory(int begin) const;
  // Lower bounds of the two costs that need no tree: compute alone.
  double accCompute(int begin) const { return acc_prefix_[end_] - acc_prefix_[begin]; }
  double cpuCompute(int begin) const { return cpu_prefix_[end_] - cpu_prefix_[begin]; }
  // The first position of the last unsupported unit before end() plus one: segments ending at end()
  // that an accelerator can hold start there or later.
  int acceleratorStart() const { return last_unsupported_[end_]; }

 private:
  // Fenwick tree over positions 0..n of (cost, cpu_cost) pairs or of bytes.
  template <int K>
  class Fenwick {
   public:
    explicit Fenwick(int n) : tree_(static_cast<std::size_t>(n) + 1) {}
    void add(int position, const double (&value)[K]);
    // Sum over positions < `end`.
    void prefix(int end, double (&out)[K]) const;

   private:
    struct Cell {
      double v[K] = {};
    };
    std::vector<Cell> tree_;
  };
  struct Point {
    int key;    // the coordinate the sweep inserts by (or removes by)
    int other;  // the coordinate the tree is keyed by
    double cost, cpu_cost;
  };

  int n_ = 0, end_ = 0;
  std::vector<double> acc_prefix_, cpu_prefix_, own_memory_prefix_;
  std::vector<int> last_unsupported_;
  // Prefix sums by position: cost of nets produced there, and of the "incoming from before" points
  // (for the part of their sum that does not depend on end()).
  std::vector<double> produced_prefix_[2], before_prefix_[2], reader_prefix_;
  std::vector<Point> before_, after_, inside_, readers_;  // each sorted by key for the sweep
  std::size_t before_next_ = 0, after_next_ = 0, inside_next_ = 0, readers_next_ = 0;
  Fenwick<2> before_tree_, after_tree_, inside_tree_;
  Fenwick<1> reader_tree_;
};

}  // namespace placer
