// What an accelerator piece holding a run of a path pays beyond its own nodes, for the latency
// path bound (solvers/bounds/latency_path_bound.h; derivation in solvers/README.md, "Side
// branches").
//
// The nodes between the run's ends (B) are in the piece; the ancestors of the path node before the
// run and the descendants of the one after it are not. Every other ancestor of B (the in-side S: a
// parallel branch the run starts beside) is in the piece, computing, or outside, and then each net
// of it that the piece reads is transferred in; every other descendant of B (the out-side D)
// likewise, and each net of the piece it reads is transferred out. Which choice is cheapest is a
// minimum cut, one for each side; the nets they count are disjoint, as are S and D. The piece is
// convex on its sides too, a side node whose own memory does not fit beside B's stays out, and the
// joint memory is priced by Lagrange.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "core/problem.h"
#include "solvers/bounds/min_cut.h"

namespace placer {

class PieceSides {
 public:
  // The path's structure, as pathLatencyBound computes it (all kept by reference): m path nodes;
  // owner[v], the last path node that reaches v (m: none); first_reached[v], the first path node v
  // reaches (m: none); owned[a], the nodes whose owner is a; each node's nets out and in.
  PieceSides(const Problem& problem, const std::vector<bool>& can_accelerator, std::size_t m,
             const std::vector<std::size_t>& owner, const std::vector<std::size_t>& first_reached,
             const std::vector<std::vector<Vertex>>& owned, const std::vector<std::vector<std::size_t>>& nets_from,
             const std::vector<std::vector<std::size_t>>& nets_into);

  // Whether more sides may be priced: the nodes listed and the arcs of all networks so far stay under
  // a fixed allowance, so that the bound is the same on every run (past it, runs are priced without
  // their sides).
  bool affordable() const { return work_ < kWorkAllowance; }

  // For the run path[i..j-1] on one piece: transfers in + computation of B + transfers out, each
  // side at its cheapest; at least the run's plain cost.
  double cost(std::size_t i, std::size_t j);

 private:
  static constexpr std::size_t kWorkAllowance = 50'000'000;

  struct Arc {
    std::size_t u, v;
    double capacity;
  };
  // One side's network, built once per run and solved at each price of memory.
  struct Network {
    double fixed = 0;  // transfers every choice pays
    std::vector<Arc> arcs;
    std::vector<std::pair<std::size_t, Vertex>> computing;  // the arc that prices each side node's computation
    std::size_t vertices = 0;                               // besides the source and the sink
  };
  enum class Side { In, Out };

  bool reachedFromRun(Vertex v) const { return owner_[v] < m_ && owner_[v] >= i_; }
  bool inB(Vertex v) const { return reachedFromRun(v) && first_reached_[v] < j_; }
  bool inS(Vertex v) const { return first_reached_[v] >= i_ && first_reached_[v] < j_ && !reachedFromRun(v); }
  bool inD(Vertex v) const { return reachedFromRun(v) && owner_[v] < j_ && first_reached_[v] >= j_; }
  double computeCost(Vertex v) const;
  std::size_t vertexOf(Vertex v);
  std::size_t vertexOfNet(std::size_t k);
  Network inNetwork(const std::vector<Vertex>& between, const std::vector<Vertex>& in_side);
  Network outNetwork(const std::vector<Vertex>& between, const std::vector<Vertex>& out_side);
  void addSideNodes(Network& network, const std::vector<Vertex>& side, Side which);
  double solve(Network& network);

  const Problem& problem_;
  const std::vector<bool>& can_accelerator_;
  std::size_t m_;
  const std::vector<std::size_t>& owner_;
  const std::vector<std::size_t>& first_reached_;
  const std::vector<std::vector<Vertex>>& owned_;
  const std::vector<std::vector<std::size_t>>& nets_from_;
  const std::vector<std::vector<std::size_t>>& nets_into_;
  std::vector<std::vector<Vertex>> by_first_;  // the nodes whose first reached path node is path[a]
  std::vector<std::size_t> index_, stamp_, net_index_, net_stamp_;
  std::size_t round_ = 0, next_vertex_ = 2, i_ = 0, j_ = 0, work_ = 0;
  double memory_ = 0;            // B's own memory: a side node joins the piece only if it fits beside it
  double lambda_ = 0;            // the price of a byte of a side node in the piece
  std::vector<double> lambdas_;  // 0 first, then around a typical transfer cost per byte
  MinCut cut_;
};

}  // namespace placer
