// The loads of a split kept up to date move by move, for the refinement pass (solvers/refine/refine.h).
//
// Moving one node changes the loads of a few devices only: its compute leaves one device for another,
// and each net it produces or consumes may start or stop being paid by the devices at its ends. With
// every net's sinks counted per device, a move costs O(nets of the node + shared weights it reads),
// and the objective after it O(devices), instead of the evaluator's pass over the whole graph. The
// rules are the evaluator's (core/evaluate.h): a net is paid once by its producer's device when some
// sink is elsewhere, and once by every other device that holds a sink; memory counts every shared
// weight once per device. Loads are kept per pass (forward, backward), so that the same state answers
// for the max-load (both passes together) and for GPipe's max FW + max BW.
//
// Sums updated by + and - drift by rounding; a refinement round rebuilds the state from scratch, and
// its result is judged by the evaluator, not by these sums.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/infinity.h"
#include "core/problem.h"

namespace placer {

// A state of a search over splits: the objective, then the sum of squared loads that makes it up
// (the tie-breaker that rewards taking load off the busiest devices); lower is better in both. Used
// by the refinement's moves and by the local-search baseline.
struct LoadScore {
  double value = kInfinity;
  double spread = kInfinity;
  bool better(const LoadScore& o) const {
    const double eps = 1e-12 * std::max(1.0, std::abs(o.value));
    if (value < o.value - eps) return true;
    if (value > o.value + eps) return false;
    return spread < o.spread - 1e-12 * std::max(1.0, std::abs(o.spread));
  }
};

class SplitLoads {
 public:
  SplitLoads(const Problem& problem, std::vector<int> device_of);

  // Moves vertex v to device `to` (any device id; checks are the caller's).
  void move(Vertex v, int to);

  const std::vector<int>& deviceOf() const { return device_of_; }
  int devices() const { return devices_; }
  // The load of device d: both passes together (max-load), or one pass (0 forward, 1 backward).
  double load(int d) const;
  double partLoad(int part, int d) const;
  double memory(int d) const { return memory_[d]; }
  // Every accelerator within its memory (relative 1e-12, as verify allows).
  bool memoryFits(int d) const;
  // The max-load, or with `gpipe` max FW + max BW; `spread` is the sum of the squared loads it is
  // made of (the tie-breaker that rewards taking load off the busiest devices).
  double objective(bool gpipe, double* spread = nullptr) const;
  // Per device, whether it is at the maximum (of either pass with `gpipe`): the devices a move off
  // which can lower the objective.
  std::vector<char> critical(bool gpipe) const;

  // The quotient graphs over devices: forward edges (between forward nodes), backward edges (between
  // backward nodes). Acyclic forward quotient = a contiguous split (each device one pipeline stage).
  bool forwardAcyclic() const { return acyclic(forward_edges_); }
  bool backwardAcyclic() const { return acyclic(backward_edges_); }

 private:
  bool acyclic(const std::vector<int>& edges) const;
  void addNode(Vertex v, int d, int sign);
  void payNet(std::size_t net, int sign);  // adds (+1) or removes (-1) the net's payments
  void countEdges(Vertex v, int sign);

  const Problem& problem_;
  int devices_ = 0;
  std::vector<int> device_of_;
  // [part * devices + d]
  std::vector<double> compute_, in_, out_;
  std::vector<double> memory_;
  // [net * devices + d]: sinks of the net on d.
  std::vector<int> sinks_on_;
  std::vector<std::vector<std::size_t>> produced_, consumed_;  // per vertex: nets
  // [weight * devices + d]: readers of the weight on d.
  std::vector<int> readers_on_;
  std::vector<std::vector<int>> weights_of_;         // per vertex
  std::vector<int> forward_edges_, backward_edges_;  // [a * devices + b]: edges from device a to b
};

}  // namespace placer
