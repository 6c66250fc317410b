// The sub-ideals of an ideal I, each once, with the cost of the block I minus the sub-ideal
// (Tarnawski et al. 2020, §5.1.1; how the DP is fast, solvers/dp/throughput_dp.h): a DFS removes
// maximal nodes in decreasing unit index along the lattice's Hasse edges, and the block's compute,
// memory (each shared weight once) and communication (per net, how many members are inside) are
// updated by the one unit each step adds, O(degree) per pair. Compute and memory only grow along the
// DFS, so a block that no device could hold within the bound ends its whole subtree.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/problem.h"
#include "solvers/dp/ideal_lattice.h"
#include "solvers/dp/instance.h"

namespace placer::dp {

// Incremental cost of the block S = I∖I' while the DFS removes nodes from I'. MaxKinds: 1 on a
// machine of one accelerator kind (the state a DFS step copies stays as small as it can be),
// kDpMaxKinds on a mixed one.
template <int MaxKinds>
struct BlockState {
  double p_acc = 0, p_cpu = 0, memory = 0, comm_in = 0, comm_out = 0;
  double cpu_comm = 0;  // cpu_cost of the cut nets: what the block pays on a CPU core
  int unsupported = 0;
  std::array<double, MaxKinds - 1> p_kinds{};  // compute on kinds 1, 2, ... of a mixed machine

  double accTime(int kind) const { return kind == 0 ? p_acc : p_kinds[static_cast<std::size_t>(kind) - 1]; }
};

template <int MaxKinds>
class BlockWalker {
 public:
  // Walks the blocks some device could hold within `prune_above`; with `cpu_only`, those a CPU core
  // could (the exact DP's bound on what one core can take over, solvers/dp/table.cc).
  BlockWalker(const std::vector<Unit>& units, const std::vector<std::vector<NetTouch>>& touches,
              const std::vector<std::vector<WeightTouch>>& weight_touches, const Problem& problem,
              const IdealLattice& lattice, double prune_above, bool cpu_only = false)
      : units_(units),
        touches_(touches),
        weight_touches_(weight_touches),
        lattice_(lattice),
        devices_(problem.devices),
        prune_above_(prune_above),
        cpu_only_(cpu_only),
        inside_(problem.nets.size(), 0),
        source_inside_(problem.nets.size(), 0),
        readers_inside_(problem.weights.size(), 0),
        kinds_(MaxKinds == 1 ? 1 : problem.devices.kindCount()) {
    for (int k = 0; k < kinds(); ++k) {
      kind_memory_[k] = devices_.kindMemory(k);
      kind_used_[k] = devices_.kindSize(k) > 0;
    }
    const std::vector<Net>& nets = problem.nets;
    weight_bytes_.reserve(problem.weights.size());
    for (const SharedWeight& w : problem.weights)
      weight_bytes_.push_back(w.bytes);
    net_size_.reserve(nets.size());
    net_cost_.reserve(nets.size());
    net_cpu_cost_.reserve(nets.size());
    for (const Net& net : nets) {
      net_size_.push_back(static_cast<std::int32_t>(net.sinks.size() + 1));
      net_cost_.push_back(net.cost);
      net_cpu_cost_.push_back(net.cpu_cost);
    }
  }

  // Calls visit(sub_ideal, state) for every sub-ideal I' ⊊ I whose block I∖I' survives pruning.
  template <typename Visit>
  void walk(std::int32_t ideal, Visit&& visit) {
    recurse(ideal, std::numeric_limits<std::int32_t>::max(), BlockState<MaxKinds>{}, visit);
  }

  std::int64_t pruned() const { return pruned_; }
  // Units of the block being visited, in the order the DFS added them.
  const std::vector<int>& block() const { return block_; }

 private:
  // Communication state of a net: 0 = not cut, 1 = cut and producer outside (incoming to S),
  // 2 = cut and producer inside (outgoing from S).
  int netState(std::int32_t net) const {
    if (inside_[net] == 0 || inside_[net] == net_size_[net]) return 0;
    return source_inside_[net] ? 2 : 1;
  }

  // No device could hold the block within the bound, nor any block the DFS grows it into: every
  // kind of accelerator lacks the memory or the time (or there is none), and so does a CPU core.
  // With cpu_only, only a CPU core counts.
  bool hopeless(const BlockState<MaxKinds>& s) const {
    if (devices_.cpus > 0 && s.p_cpu <= prune_above_) return false;
    if (cpu_only_) return true;
    if (s.unsupported > 0) return true;
    for (int k = 0; k < kinds(); ++k) {
      if (kind_used_[k] && s.memory <= kind_memory_[k] && s.accTime(k) <= prune_above_) return false;
    }
    return true;
  }
  // The machine's kinds (a constant 1 where MaxKinds is, so that the loops over kinds fold away).
  int kinds() const { return MaxKinds == 1 ? 1 : kinds_; }

  template <typename Visit>
  void recurse(std::int32_t ideal, std::int32_t below, const BlockState<MaxKinds>& state, Visit& visit) {
    const std::int64_t end = lattice_.down_begin[ideal + 1];
    for (std::int64_t e = lattice_.down_begin[ideal]; e < end; ++e) {
      const std::int32_t node = lattice_.down_node[e];
      if (node >= below) continue;
      const Unit& unit = units_[node];
      BlockState<MaxKinds> next = state;
      next.p_acc += unit.p_acc;
      for (int k = 1; k < kinds(); ++k)
        next.p_kinds[k - 1] += unit.p_kinds[k - 1];
      next.p_cpu += unit.p_cpu;
      next.memory += unit.memory;
      next.unsupported += unit.unsupported;
      for (const WeightTouch& t : weight_touches_[node]) {
        if (readers_inside_[t.weight] == 0) next.memory += weight_bytes_[t.weight];
        readers_inside_[t.weight] += t.readers;
      }
      if (hopeless(next)) {
        for (const WeightTouch& t : weight_touches_[node])
          readers_inside_[t.weight] -= t.readers;
        ++pruned_;
        continue;
      }
      double delta_in = 0, delta_out = 0, delta_cpu = 0;
      for (const NetTouch& t : touches_[node]) {
        const int before = netState(t.net);
        inside_[t.net] += t.members;
        if (t.source) source_inside_[t.net] = 1;
        const int after = netState(t.net);
        if (before != after) {
          const double c = net_cost_[t.net];
          if (before == 1) delta_in -= c;
          if (before == 2) delta_out -= c;
          if (after == 1) delta_in += c;
          if (after == 2) delta_out += c;
          delta_cpu += net_cpu_cost_[t.net] * ((after != 0) - (before != 0));
        }
      }
      next.comm_in += delta_in;
      next.comm_out += delta_out;
      next.cpu_comm += delta_cpu;
      const std::int32_t sub = lattice_.down_sub[e];
      block_.push_back(node);
      visit(sub, next);
      recurse(sub, node, next, visit);
      block_.pop_back();
      for (const NetTouch& t : touches_[node]) {
        inside_[t.net] -= t.members;
        if (t.source) source_inside_[t.net] = 0;
      }
      for (const WeightTouch& t : weight_touches_[node])
        readers_inside_[t.weight] -= t.readers;
    }
  }

  const std::vector<Unit>& units_;
  const std::vector<std::vector<NetTouch>>& touches_;
  const std::vector<std::vector<WeightTouch>>& weight_touches_;
  const IdealLattice& lattice_;
  const DeviceSet& devices_;
  const double prune_above_;
  const bool cpu_only_;
  std::vector<std::int32_t> inside_;
  std::vector<std::uint8_t> source_inside_;
  std::vector<std::int32_t> net_size_;
  std::vector<double> net_cost_;
  std::vector<double> net_cpu_cost_;
  std::vector<std::int32_t> readers_inside_;
  std::vector<double> weight_bytes_;
  const int kinds_;
  std::array<double, MaxKinds> kind_memory_{};
  std::array<bool, MaxKinds> kind_used_{};
  std::int64_t pruned_ = 0;
  std::vector<int> block_;
};

}  // namespace placer::dp
