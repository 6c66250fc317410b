// Random computation graphs for tests and benchmarks, in the style of SliceGraph's App. B.1 (Archer et
// al., ICML 2024), which follows REGAL (Paliwal et al. 2020, App. A.1.4): an undirected graph from a
// classic random-graph model, oriented along a random permutation (so it is a DAG), every node's
// output tensor of a size drawn from a normal distribution, and every node's cost the sum of its
// input and output tensor sizes plus a random fraction of the total tensor size.
//
// Models: Erdős–Rényi G(n, p) with p = degree / (n - 1) (geometric skipping, O(n + m)); Barabási–Albert
// preferential attachment, each new node joining degree / 2 earlier nodes; Watts–Strogatz, a ring
// lattice of `degree` neighbours with every edge rewired with probability 0.1. Sizes: N(1, 0.25)
// clamped to at least 0.05; the random fraction r of the total is uniform in [0, 2 / n), about one
// tensor's size on average. An accelerator runs a node in its cost, a CPU core in 10 times that;
// moving a tensor across a boundary costs 0.25 x its size (once per boundary, as every net).
//
// Deterministic for a seed on every platform: one SplitMix64 stream, our own uniform and normal
// draws (the standard library's distributions are not specified bit-exactly), our own shuffle.
#pragma once

#include <cstdint>
#include <string>

#include "core/problem.h"
#include "core/status.h"

namespace placer {

enum class RandomGraphModel { ErdosRenyi, BarabasiAlbert, WattsStrogatz };

struct SyntheticOptions {
  RandomGraphModel model = RandomGraphModel::ErdosRenyi;
  int nodes = 100;
  double degree = 4;  // average undirected degree
  std::uint64_t seed = 1;
  DeviceSet devices{4, 1e18, 0};
};

// "er", "ba", "ws" (or the models' full names); InvalidInput listing them otherwise.
Expected<RandomGraphModel> parseRandomGraphModel(const std::string& name);

// InvalidInput for nodes outside [2, 10,000,000] or a degree outside (0, nodes - 1].
Expected<Problem> makeSyntheticProblem(const SyntheticOptions& options);

}  // namespace placer
