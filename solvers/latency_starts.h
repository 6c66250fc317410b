// The split the latency integer program starts from (Tarnawski et al. 2020, §4; the segment splits
// are in the spirit of SliceGraph's slicing of topological orders).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "core/problem.h"
#include "solvers/latency_ip.h"

namespace placer {

struct LatencyStart {
  std::vector<int> device_of;
  std::vector<int> slot_of;  // the level pieces as slots: pieces of accelerator d in slots d*q+1 ..
  double latency = kInfinity;
};

// The level pieces of a valid split as slots (pieces of accelerator d in slots d*q+1 ..), with the
// split's latency; nullopt when the split is invalid, deadlocks or needs more than q pieces on some
// accelerator.
std::optional<LatencyStart> latencyStartFrom(const Problem& problem, std::vector<int> device_of, int q);

// options.start alone when given; otherwise the best, by the evaluator's latency, of the greedy
// split, options.baselines, the segment splits of block orders (the greedy's, smallest index first,
// and random topological orders while `elapsed()` is within the heuristic budget) and a local search
// from the best of them (LatencyIpOptions says how long each may take). Only splits the slots can
// represent count: valid, no deadlock, at most q level pieces per accelerator. nullopt when none is.
// `order` is the topological order the symmetry breaking labels devices by.
std::optional<LatencyStart> chooseLatencyStart(const Problem& problem, const LatencyIpOptions& options,
                                               const std::vector<Vertex>& order,
                                               const std::function<double()>& elapsed);

}  // namespace placer
