// The ideal lattice against brute force on tiny random DAGs: every predecessor-closed subset appears
// exactly once, ids grow with size, and each ideal's Hasse edges list exactly its maximal nodes (in
// decreasing order) with the id of the ideal without that node. Lattices too large are refused by
// count and by memory, as resource limits.
#include "solvers/dp/ideal_lattice.h"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <set>

namespace placer::testing {
namespace ideal_lattice_test {

std::vector<std::vector<int>> randomPreds(std::mt19937& rng, int n) {
  std::vector<std::vector<int>> preds(n);
  for (int v = 1; v < n; ++v) {
    for (int u = 0; u < v; ++u) {
      if (rng() % 4 == 0) preds[v].push_back(u);
    }
  }
  return preds;
}

TEST(IdealLattice, EveryIdealOnceWithItsHasseEdges) {
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    const int n = 1 + static_cast<int>(seed % 12);
    const auto preds = randomPreds(rng, n);
    std::set<std::uint32_t> expected;
    for (std::uint32_t set = 0; set < (1u << n); ++set) {
      bool closed = true;
      for (int v = 0; v < n && closed; ++v) {
        if (!(set >> v & 1)) continue;
        for (int u : preds[v])
          closed = closed && (set >> u & 1);
      }
      if (closed) expected.insert(set);
    }
    IdealLattice lattice;
    ASSERT_TRUE(buildLattice(preds, 1'000'000, Budget(), nullptr, lattice).isOk());
    ASSERT_EQ(lattice.size(), static_cast<std::int64_t>(expected.size())) << "seed " << seed;
    // Each ideal's node set, rebuilt from its first Hasse edge (ideal 0 is the empty set).
    std::vector<std::uint32_t> set(lattice.size(), 0);
    std::set<std::uint32_t> seen{0};
    for (std::int64_t j = 1; j < lattice.size(); ++j) {
      const std::int64_t first = lattice.down_begin[j];
      ASSERT_LT(first, lattice.down_begin[j + 1]) << "seed " << seed << ": ideal " << j << " has no edge";
      ASSERT_LT(lattice.down_sub[first], j) << "seed " << seed;
      set[j] = set[lattice.down_sub[first]] | (1u << lattice.down_node[first]);
      EXPECT_TRUE(seen.insert(set[j]).second) << "seed " << seed << ": ideal " << j << " twice";
      EXPECT_TRUE(expected.count(set[j])) << "seed " << seed << ": not an ideal";
      EXPECT_GE(std::popcount(set[j]), std::popcount(set[j - 1])) << "ids must grow with size";
    }
    for (std::int64_t j = 1; j < lattice.size(); ++j) {
      std::vector<int> maximal;  // nodes of J no other node of J needs, in decreasing order
      for (int v = n - 1; v >= 0; --v) {
        if (!(set[j] >> v & 1)) continue;
        bool needed = false;
        for (int w = 0; w < n && !needed; ++w) {
          if (set[j] >> w & 1) {
            for (int u : preds[w])
              needed = needed || u == v;
          }
        }
        if (!needed) maximal.push_back(v);
      }
      std::vector<int> listed;
      for (std::int64_t e = lattice.down_begin[j]; e < lattice.down_begin[j + 1]; ++e) {
        listed.push_back(lattice.down_node[e]);
        EXPECT_EQ(set[lattice.down_sub[e]], set[j] & ~(1u << lattice.down_node[e])) << "seed " << seed;
      }
      EXPECT_EQ(listed, maximal) << "seed " << seed << ", ideal " << j;
    }
  }
}

// Beyond `recorded_edges` Hasse edges the lattice is counted to the end first and generated again:
// the same lattice as in one pass.
TEST(IdealLattice, CountingFirstGivesTheSameLattice) {
  for (unsigned seed = 1; seed <= 30; ++seed) {
    std::mt19937 rng(seed);
    const auto preds = randomPreds(rng, 4 + static_cast<int>(seed % 9));
    IdealLattice once, twice;
    ASSERT_TRUE(buildLattice(preds, 1'000'000, Budget(), nullptr, once).isOk());
    ASSERT_TRUE(buildLattice(preds, 1'000'000, Budget(), nullptr, twice, /*recorded_edges=*/3).isOk());
    EXPECT_EQ(once.down_begin, twice.down_begin) << "seed " << seed;
    EXPECT_EQ(once.down_node, twice.down_node) << "seed " << seed;
    EXPECT_EQ(once.down_sub, twice.down_sub) << "seed " << seed;
  }
  // Refused by count on the counting pass, with nothing stored.
  IdealLattice lattice;
  EXPECT_EQ(buildLattice(std::vector<std::vector<int>>(30), 5000, Budget(), nullptr, lattice, 3).code(),
            StatusCode::ResourceLimit);
}

TEST(IdealLattice, TooManyIdealsAreRefusedByCountAndByMemory) {
  // 40 independent nodes: 2^40 ideals.
  IdealLattice lattice;
  Status s = buildLattice(std::vector<std::vector<int>>(40), 5000, Budget(), nullptr, lattice);
  EXPECT_EQ(s.code(), StatusCode::ResourceLimit);
  EXPECT_NE(s.message().find("more than 5000 ideals"), std::string::npos) << s.message();
  // 20,000 independent nodes: 2.5 KB per node set; the second size alone has 2 * 10^8 ideals.
  s = buildLattice(std::vector<std::vector<int>>(20000), 1'000'000'000, Budget(), nullptr, lattice);
  EXPECT_EQ(s.code(), StatusCode::ResourceLimit);
  EXPECT_NE(s.message().find("MiB"), std::string::npos) << s.message();
}

TEST(IdealLattice, AChainHasOneIdealPerPrefix) {
  std::vector<std::vector<int>> preds(500);
  for (int v = 1; v < 500; ++v)
    preds[v] = {v - 1};
  IdealLattice lattice;
  ASSERT_TRUE(buildLattice(preds, 1000, Budget(), nullptr, lattice).isOk());
  EXPECT_EQ(lattice.size(), 501);
}

}  // namespace ideal_lattice_test
}  // namespace placer::testing
