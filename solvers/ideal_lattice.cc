#include "solvers/ideal_lattice.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <string>

namespace placer {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

Status buildLattice(const std::vector<std::vector<int>>& preds, std::int64_t max_ideals, const Budget& budget,
                    const ProgressFn& progress, IdealLattice& lattice) {
  const int n = static_cast<int>(preds.size());
  const int words = std::max(1, (n + 63) / 64);
  std::vector<std::uint64_t> pred_mask(static_cast<std::size_t>(n) * words, 0);
  for (int v = 0; v < n; ++v) {
    for (int u : preds[v])
      pred_mask[static_cast<std::size_t>(v) * words + u / 64] |= 1ULL << (u % 64);
  }
  std::mt19937_64 rng(0x5eed);
  std::vector<std::uint64_t> zobrist(n);
  for (auto& z : zobrist)
    z = rng();

  std::vector<std::uint64_t> bits(words, 0);  // ideal 0: empty set
  std::vector<std::uint64_t> hashes{0};
  std::vector<std::int32_t> table(1024, -1);
  auto row = [&](std::int64_t id) { return bits.data() + id * words; };
  auto grow_table = [&] {
    std::vector<std::int32_t> bigger(table.size() * 2, -1);
    const std::size_t mask = bigger.size() - 1;
    for (std::size_t id = 0; id < hashes.size(); ++id) {
      std::size_t slot = hashes[id] & mask;
      while (bigger[slot] != -1)
        slot = (slot + 1) & mask;
      bigger[slot] = static_cast<std::int32_t>(id);
    }
    table.swap(bigger);
  };
  table[0] = 0;

  struct DownEdge {
    std::int32_t parent, node, sub;
  };
  std::vector<DownEdge> down;
  std::vector<std::uint64_t> candidate(words);
  auto last_report = Clock::now();
  for (std::int64_t j = 0; j < static_cast<std::int64_t>(hashes.size()); ++j) {
    for (int v = 0; v < n; ++v) {
      const std::uint64_t* ideal = row(j);
      if (ideal[v / 64] >> (v % 64) & 1) continue;
      const std::uint64_t* need = pred_mask.data() + static_cast<std::size_t>(v) * words;
      bool addable = true;
      for (int w = 0; w < words && addable; ++w)
        addable = (need[w] & ~ideal[w]) == 0;
      if (!addable) continue;
      std::copy(ideal, ideal + words, candidate.begin());
      candidate[v / 64] |= 1ULL << (v % 64);
      const std::uint64_t h = hashes[j] ^ zobrist[v];
      const std::size_t mask = table.size() - 1;
      std::size_t slot = h & mask;
      std::int32_t found = -1;
      while (table[slot] != -1) {
        std::int32_t id = table[slot];
        if (hashes[id] == h && std::equal(candidate.begin(), candidate.end(), row(id))) {
          found = id;
          break;
        }
        slot = (slot + 1) & mask;
      }
      if (found == -1) {
        if (static_cast<std::int64_t>(hashes.size()) >= max_ideals) {
          return resourceLimit("the forward graph has more than " + std::to_string(max_ideals) +
                               " ideals, the most the exact DP may visit (the linearised DP, dpl, is "
                               "polynomial)");
        }
        found = static_cast<std::int32_t>(hashes.size());
        hashes.push_back(h);
        bits.insert(bits.end(), candidate.begin(), candidate.end());
        table[slot] = found;
        if (hashes.size() * 2 > table.size()) grow_table();
      }
      down.push_back({found, v, static_cast<std::int32_t>(j)});
    }
    if ((j & 1023) == 0 && budget.exhausted()) {
      if (budget.interrupted()) return interrupted("interrupted while generating ideals");
      return resourceLimit("time limit reached while generating ideals (" + std::to_string(hashes.size()) +
                           " so far)");
    }
    if (progress && (j & 1023) == 0 && Clock::now() - last_report > std::chrono::milliseconds(500)) {
      last_report = Clock::now();
      progress({"ideals", static_cast<std::int64_t>(hashes.size()), 0, "generating ideals"});
    }
  }

  const std::int64_t count = static_cast<std::int64_t>(hashes.size());
  lattice.down_begin.assign(count + 1, 0);
  for (const DownEdge& e : down)
    ++lattice.down_begin[e.parent + 1];
  for (std::int64_t i = 0; i < count; ++i)
    lattice.down_begin[i + 1] += lattice.down_begin[i];
  lattice.down_node.resize(down.size());
  lattice.down_sub.resize(down.size());
  std::vector<std::int64_t> fill(lattice.down_begin.begin(), lattice.down_begin.end() - 1);
  // `down` is generated in increasing node order per parent; store each segment in decreasing order.
  std::stable_sort(down.begin(), down.end(), [](const DownEdge& a, const DownEdge& b) {
    return a.parent != b.parent ? a.parent < b.parent : a.node > b.node;
  });
  for (const DownEdge& e : down) {
    std::int64_t at = fill[e.parent]++;
    lattice.down_node[at] = e.node;
    lattice.down_sub[at] = e.sub;
  }
  return Status::ok();
}

}  // namespace placer
