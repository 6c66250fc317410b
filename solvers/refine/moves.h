// The single-level searches of the refinement (solvers/refine/refine.h): FM passes on a throughput
// objective, and first-improvement moves on the latency. Each improves `device_of` in place and
// counts its passes and kept moves in `stats`.
#pragma once

#include <random>
#include <vector>

#include "core/problem.h"
#include "solvers/refine/refine.h"

namespace placer {

// The units a move carries: each colocation class whole, every other vertex alone; in vertex order.
std::vector<std::vector<Vertex>> moveUnits(const Problem& problem);

// Whether every vertex of `unit` can run on device d (supported there, a finite time).
bool unitRunsOn(const Problem& problem, const std::vector<Vertex>& unit, int d);

void refineThroughputLevel(const Problem& problem, std::vector<int>& device_of, const RefineOptions& options,
                           RefineStats& stats);

// A random kick for the iterated search (refine.h): a unit of a device at the maximum and up to
// `size` - 1 units around it on that device (breadth first; `size` uniform in [1, max_units]), all
// moved to one random device that can run them, within memory and, when `contiguous`, keeping the
// pipeline acyclic. False when a few tries find no such move; device_of is then unchanged.
bool kickSplit(const Problem& problem, const std::vector<std::vector<Vertex>>& units, std::vector<int>& device_of,
               std::mt19937_64& rng, bool contiguous, int max_units);

void refineLatencyLevel(const Problem& problem, std::vector<int>& device_of, const RefineOptions& options,
                        RefineStats& stats);

}  // namespace placer
