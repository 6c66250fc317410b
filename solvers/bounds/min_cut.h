// Minimum s-t cut of a small directed network with real capacities (Dinic's blocking flows), for
// the selection problems inside the bounds: which nodes a piece may hold so that its transfers and
// computation cost least (solvers/README.md, "The path bound for latency").
#pragma once

#include <cstddef>
#include <vector>

namespace placer {

class MinCut {
 public:
  static constexpr std::size_t kSource = 0;
  static constexpr std::size_t kSink = 1;

  // Forgets the network; the vertices are the source, the sink and `vertices` more (2, 3, ...).
  void reset(std::size_t vertices);
  // An arc from u to v of the given capacity (>= 0; kUnbounded for one no cut may cross).
  void arc(std::size_t u, std::size_t v, double capacity);
  // The capacity of a minimum cut (the vertices on the source side against the rest).
  double solve();
  // How many arcs the network has: the work solve() does grows with it.
  std::size_t arcs() const { return to_.size() / 2; }

  static constexpr double kUnbounded = 1e30;

 private:
  bool levels();
  double augment();

  std::vector<std::vector<std::size_t>> out_;  // arc ids leaving each vertex
  std::vector<std::size_t> to_;                // per arc id; arc id ^ 1 is its reverse
  std::vector<double> residual_;
  std::vector<int> level_;
  std::vector<std::size_t> next_;  // per vertex: the next arc to try in this phase
  std::vector<std::size_t> path_;  // the arcs of the path being walked
};

}  // namespace placer
