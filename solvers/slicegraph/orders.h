// Topological orders from node priorities (SliceGraph, Archer et al. ICML 2024, §3.3, Algorithm 3):
// Kahn's algorithm takes the ready unit of highest priority first, so every topological order is the
// image of some priority vector and a search over orders becomes a search over vectors of reals
// (random vectors, BRKGA's chromosomes). Also the minimum-linear-arrangement objective (§5.3, "MLA")
// that the mla orders minimise, and the counter-based random numbers the search draws, which make
// every order a pure function of (seed, stream) whatever thread computes it.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/slicegraph/segment_costs.h"

namespace placer {

// A small counter-based generator (SplitMix64): the same (seed, stream) gives the same numbers on
// every platform and in every thread.
class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::uint64_t stream)
      : state_(seed * 0x9E3779B97F4A7C15ull ^ (stream + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for n > 0.
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t state_;
};

// Kahn's algorithm with priorities over the units of a UnitGraph (a binary heap of ready units; ties
// go to the smaller unit index). Keeps its buffers between calls: one per thread.
class KahnOrderer {
 public:
  explicit KahnOrderer(const UnitGraph& units) : units_(units) {}
  // The order for `priority` (one value per unit; higher first).
  const std::vector<int>& order(const std::vector<double>& priority);

 private:
  const UnitGraph& units_;
  std::vector<int> indegree_, heap_, order_;
};

// The priorities under which Kahn's algorithm returns `order` (a topological order of the units).
std::vector<double> prioritiesOf(const std::vector<int>& order);

// Random priorities: each unit's draw from RandomStream(seed, stream).
void randomPriorities(std::uint64_t seed, std::uint64_t stream, std::vector<double>& priority);

// The linear-arrangement cost of an order: the sum over the units' forward edges of the distance
// between their positions, each weighted by the cost of the nets that carry data along it
// (mla-weighted; at least a tiny positive number, so every edge counts) or by 1 (mla).
class ArrangementCost {
 public:
  ArrangementCost(const UnitGraph& units, bool weighted);
  // `position` is a buffer (resized as needed).
  double operator()(const std::vector<int>& order, std::vector<int>& position) const;

 private:
  const UnitGraph& units_;
  std::vector<std::vector<double>> weight_;  // aligned with units.succs
};

}  // namespace placer
