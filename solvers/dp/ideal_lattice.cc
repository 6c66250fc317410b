#include "solvers/dp/ideal_lattice.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>

namespace placer {

namespace {

using Clock = std::chrono::steady_clock;

// The most one level of ideals (their node sets, hashes and addable nodes) may take: a graph of
// n nodes needs n/8 bytes per ideal, so on wide graphs of thousands of nodes the memory, not the
// count, is what runs out first.
constexpr std::size_t kLevelBytes = std::size_t{256} << 20;

// One level of the breadth-first generation: the ideals of one size, each with its node set (a bit
// row of `words` words), its Zobrist hash, and the nodes that can be added to it (sorted), which
// is what makes a child cheap: addable(P + v) = addable(P) - v + the successors of v whose last
// missing predecessor was v.
class Level {
 public:
  explicit Level(int words) : words_(words) {}

  std::size_t size() const { return hashes_.size(); }
  std::size_t bytes() const {
    return (bits_.capacity() + hashes_.capacity() + table_.capacity()) * 8 + addable_.capacity() * 4 +
           addable_begin_.capacity() * 8;
  }
  std::uint64_t hash(std::size_t i) const { return hashes_[i]; }
  const std::uint64_t* bits(std::size_t i) const { return bits_.data() + i * words_; }
  const std::int32_t* addableBegin(std::size_t i) const { return addable_.data() + addable_begin_[i]; }
  const std::int32_t* addableEnd(std::size_t i) const { return addable_.data() + addable_begin_[i + 1]; }

  // Appends an ideal; its addable nodes are then pushed with addAddable.
  void add(const std::uint64_t* bits, std::uint64_t hash) {
    bits_.insert(bits_.end(), bits, bits + words_);
    hashes_.push_back(hash);
    if (addable_begin_.empty()) addable_begin_.push_back(0);
    addable_begin_.push_back(addable_begin_.back());
  }
  void addAddable(std::int32_t v) {
    addable_.push_back(v);
    ++addable_begin_.back();
  }

  // The index of the ideal `base` + {v} among this level's, or -1.
  std::int64_t find(const std::uint64_t* base, int v, std::uint64_t hash) const {
    if (table_.empty()) return -1;
    const std::size_t mask = table_.size() - 1;
    for (std::size_t slot = hash & mask; table_[slot] != -1; slot = (slot + 1) & mask) {
      const std::int64_t i = table_[slot];
      if (hashes_[i] == hash && sameAsPlus(bits(i), base, v)) return i;
    }
    return -1;
  }

  // Makes find() see the last ideal added.
  void index() {
    if ((size() + 1) * 2 > table_.size()) {
      table_.assign(std::max<std::size_t>(1024, table_.size() * 2), -1);
      for (std::size_t i = 0; i + 1 < size(); ++i)
        insert(i);
    }
    insert(size() - 1);
  }

 private:
  bool sameAsPlus(const std::uint64_t* row, const std::uint64_t* base, int v) const {
    for (int w = 0; w < words_; ++w) {
      const std::uint64_t expected = w == v / 64 ? base[w] | (1ULL << (v % 64)) : base[w];
      if (row[w] != expected) return false;
    }
    return true;
  }
  void insert(std::size_t i) {
    const std::size_t mask = table_.size() - 1;
    std::size_t slot = hashes_[i] & mask;
    while (table_[slot] != -1)
      slot = (slot + 1) & mask;
    table_[slot] = static_cast<std::int64_t>(i);
  }

  const int words_;
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint64_t> hashes_;
  std::vector<std::int64_t> addable_begin_;
  std::vector<std::int32_t> addable_;
  std::vector<std::int64_t> table_;  // open addressing over this level's indices
};

struct DownEdge {
  std::int32_t parent, node, sub;
};

// Generates the ideals breadth-first, keeping two levels' node sets only, and counts them in
// `count`; with `down`, records every Hasse edge there as long as they are at most `record_limit`
// (beyond, `down` is left empty and the ideals are only counted, in little memory).
Status generate(const std::vector<std::vector<int>>& preds, std::int64_t max_ideals, const Budget& budget,
                const ProgressFn& progress, std::vector<DownEdge>* down, std::size_t record_limit,
                std::int64_t& count) {
  const int n = static_cast<int>(preds.size());
  const int words = std::max(1, (n + 63) / 64);
  std::vector<std::vector<std::int32_t>> succs(n);
  for (int v = 0; v < n; ++v) {
    for (int u : preds[v])
      succs[u].push_back(v);
  }
  for (auto& s : succs) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  std::mt19937_64 rng(0x5eed);
  std::vector<std::uint64_t> zobrist(n);
  for (auto& z : zobrist)
    z = rng();

  auto level = std::make_unique<Level>(words);
  const std::vector<std::uint64_t> empty(words, 0);
  level->add(empty.data(), 0);
  for (int v = 0; v < n; ++v) {
    if (preds[v].empty()) level->addAddable(v);
  }
  level->index();
  std::int64_t first_id = 0;  // ids of the current level: [first_id, first_id + size)
  std::int64_t processed = 0;
  count = 1;
  std::vector<std::uint64_t> candidate(words);
  std::vector<std::int32_t> merged;
  auto last_report = Clock::now();
  while (level->size() > 0) {
    auto next = std::make_unique<Level>(words);
    for (std::size_t j = 0; j < level->size(); ++j, ++processed) {
      const std::uint64_t* ideal = level->bits(j);
      const std::int32_t* addable_begin = level->addableBegin(j);
      const std::int32_t* addable_end = level->addableEnd(j);
      for (const std::int32_t* it = addable_begin; it != addable_end; ++it) {
        const int v = *it;
        const std::uint64_t h = level->hash(j) ^ zobrist[v];
        std::int64_t found = next->find(ideal, v, h);
        if (found == -1) {
          if (count >= max_ideals) {
            return resourceLimit("more than " + std::to_string(max_ideals) +
                                 " ideals; the exact DP visits at most that many (the linearised DP, dpl, "
                                 "is polynomial)");
          }
          std::copy(ideal, ideal + words, candidate.begin());
          candidate[v / 64] |= 1ULL << (v % 64);
          next->add(candidate.data(), h);
          // addable(ideal + v): the others that were addable, and the successors of v now ready.
          merged.clear();
          for (const std::int32_t* a = addable_begin; a != addable_end; ++a) {
            if (*a != v) merged.push_back(*a);
          }
          for (std::int32_t w : succs[v]) {
            bool ready = true;
            for (int u : preds[w]) {
              if (!(candidate[u / 64] >> (u % 64) & 1)) {
                ready = false;
                break;
              }
            }
            if (ready) merged.push_back(w);
          }
          std::sort(merged.begin(), merged.end());
          for (std::int32_t w : merged)
            next->addAddable(w);
          next->index();
          found = static_cast<std::int64_t>(next->size()) - 1;
          ++count;
          if (next->size() % 4096 == 0 && level->bytes() + next->bytes() > 2 * kLevelBytes) {
            return resourceLimit("ideals over " + std::to_string(2 * kLevelBytes >> 20) + " MiB after " +
                                 std::to_string(count) +
                                 "; the exact DP keeps their node sets within that (the linearised DP, dpl, "
                                 "is polynomial)");
          }
        }
        if (down != nullptr) {
          const std::int64_t parent = first_id + static_cast<std::int64_t>(level->size()) + found;
          down->push_back({static_cast<std::int32_t>(parent), static_cast<std::int32_t>(v),
                           static_cast<std::int32_t>(first_id + static_cast<std::int64_t>(j))});
          if (down->size() > record_limit) {  // large: count on without them, record afterwards
            std::vector<DownEdge>().swap(*down);
            down = nullptr;
          }
        }
      }
      if ((processed & 1023) == 0 && budget.exhausted()) {
        if (budget.interrupted()) return interrupted("interrupted while generating ideals");
        return resourceLimit("time limit reached while generating ideals (" + std::to_string(count) +
                             " so far)");
      }
      if (progress && (processed & 1023) == 0 &&
          Clock::now() - last_report > std::chrono::milliseconds(500)) {
        last_report = Clock::now();
        progress({"ideals", count, 0, down != nullptr ? "generating ideals" : "counting ideals"});
      }
    }
    first_id += static_cast<std::int64_t>(level->size());
    level = std::move(next);
  }
  return Status::ok();
}

}  // namespace

Status buildLattice(const std::vector<std::vector<int>>& preds, std::int64_t max_ideals, const Budget& budget,
                    const ProgressFn& progress, IdealLattice& lattice, std::size_t recorded_edges) {
  // A large lattice is counted first, with the cap, in little memory, so that one too large is
  // refused before its Hasse edges (tens of bytes per ideal) are stored; a small one is generated
  // once.
  std::int64_t count = 0;
  std::vector<DownEdge> down;
  if (Status s = generate(preds, max_ideals, budget, progress, &down, recorded_edges, count); !s) return s;
  if (down.empty() && count > 1) {
    if (Status s = generate(preds, max_ideals, budget, progress, &down, SIZE_MAX, count); !s) return s;
  }

  // Hasse edges grouped by the larger ideal (counting sort), each group in decreasing node order.
  lattice.down_begin.assign(count + 1, 0);
  for (const DownEdge& e : down)
    ++lattice.down_begin[e.parent + 1];
  for (std::int64_t i = 0; i < count; ++i)
    lattice.down_begin[i + 1] += lattice.down_begin[i];
  lattice.down_node.resize(down.size());
  lattice.down_sub.resize(down.size());
  std::vector<std::int64_t> fill(lattice.down_begin.begin(), lattice.down_begin.end() - 1);
  for (const DownEdge& e : down) {
    const std::int64_t at = fill[e.parent]++;
    lattice.down_node[at] = e.node;
    lattice.down_sub[at] = e.sub;
  }
  std::vector<std::pair<std::int32_t, std::int32_t>> group;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t b = lattice.down_begin[i], e = lattice.down_begin[i + 1];
    group.clear();
    for (std::int64_t k = b; k < e; ++k)
      group.emplace_back(lattice.down_node[k], lattice.down_sub[k]);
    std::sort(group.begin(), group.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (std::int64_t k = b; k < e; ++k) {
      lattice.down_node[k] = group[k - b].first;
      lattice.down_sub[k] = group[k - b].second;
    }
  }
  return Status::ok();
}

}  // namespace placer
