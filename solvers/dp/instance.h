// The exact DP's view of a contracted problem (solvers/dp/throughput_dp.h): units — a forward vertex
// with its backward partner, what one DP step moves onto a device — indexed along a topological order
// of the forward graph (a DFS order, or a given one, chained for DPL), with their predecessors and how
// each unit touches each net and each shared weight, for the incremental block costs of
// block_walker.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/problem.h"

namespace placer::dp {

// The most accelerator kinds the DP tells apart (each adds a dimension to its table).
inline constexpr int kDpMaxKinds = 4;

// A forward node with its backward partner: what one DP step moves onto a device.
struct Unit {
  double p_acc = 0;  // on kind 0, finite part; `unsupported` says whether an accelerator may hold it
  std::array<double, kDpMaxKinds - 1> p_kinds{};  // on kinds 1, 2, ... of a mixed machine, likewise
  double p_cpu = 0;
  double memory = 0;  // own memory, and shared weights no other unit reads
  bool unsupported = false;
  std::vector<Vertex> vertices;

  // The time on `kind`, and the least over the first `kinds` kinds.
  double accTime(int kind) const { return kind == 0 ? p_acc : p_kinds[static_cast<std::size_t>(kind) - 1]; }
  double fastest(int kinds) const {
    double best = p_acc;
    for (int k = 1; k < kinds; ++k)
      best = std::min(best, accTime(k));
    return best;
  }
};

// How adding a unit to the block changes one net: `members` of the net's distinct vertices join,
// and whether the net's producer is among them.
struct NetTouch {
  std::int32_t net;
  std::int32_t members;
  bool source;
};

// How adding a unit changes one shared weight: `readers` of its readers join the block. The block
// holds the weight (once) while any reader is inside.
struct WeightTouch {
  std::int32_t weight;
  std::int32_t readers;
};

// The DP's view of a contracted problem: units (forward node + backward partner) indexed along a
// topological order of the forward graph, their predecessors (with DPL's chain when linearised),
// and how each unit touches each net and each shared weight.
struct DpInstance {
  std::vector<Unit> units;
  std::vector<std::vector<int>> preds;
  std::vector<std::vector<NetTouch>> touches;
  std::vector<std::vector<WeightTouch>> weight_touches;
};

// `linearize`: re-index the units along `order` (forward vertices; empty: a DFS order, DPL's) and
// chain consecutive ones (§5.1.2). The problem must satisfy checkContracted and have at most
// kDpMaxKinds accelerator kinds.
DpInstance prepareInstance(const Problem& problem, bool linearize, const std::vector<Vertex>& order = {});

}  // namespace placer::dp
