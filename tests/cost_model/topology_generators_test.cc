// The topology generators: grids and tori with the links their shape has, two-level clusters whose
// transfers between nodes are as wide as the inter-node link, random bandwidths in their ranges and
// the same for a seed, and the refusals of bad sizes.
#include "cost_model/topology_generators.h"

#include <gtest/gtest.h>

#include <string>

namespace placer::testing {
namespace topology_generators_test {

DeviceSpec base() {
  auto spec = devicePreset("pcie3-4x16gb");
  EXPECT_TRUE(spec) << spec.status().message();
  return *spec;
}

// Links between devices (not to the host or a switch).
int deviceLinks(const Topology& t) {
  int n = 0;
  for (const TopologyLink& l : t.links) n += l.a < static_cast<int>(t.devices.size()) && l.b < static_cast<int>(t.devices.size());
  return n;
}

TopologyRequest grid(const std::string& shape, std::vector<int> dims) {
  TopologyRequest r;
  r.shape = shape;
  r.dims = std::move(dims);
  r.bandwidth = 1e11;
  r.latency = 1e-6;
  return r;
}

TEST(TopologyGenerators, GridsHaveTheirShapesLinks) {
  // A x B mesh: A(B-1) + B(A-1) links; a torus joins the ends of axes longer than 2.
  const std::vector<std::tuple<std::string, std::vector<int>, int>> cases = {
      {"mesh", {4, 4}, 24}, {"torus", {4, 4}, 32}, {"mesh", {2, 2, 2}, 12}, {"torus", {2, 2, 2}, 12},
      {"torus", {4, 4, 4}, 192}, {"mesh", {1, 8}, 7}, {"torus", {3, 4}, 24}};
  for (const auto& [shape, dims, links] : cases) {
    auto spec = generateTopology(grid(shape, dims), base());
    ASSERT_TRUE(spec) << spec.status().message();
    ASSERT_TRUE(spec->topology.has_value());
    EXPECT_EQ(deviceLinks(*spec->topology), links) << shape << " " << dims.size();
    int count = 1;
    for (int d : dims) count *= d;
    EXPECT_EQ(spec->deviceSet().accelerators, count);
    EXPECT_EQ(spec->accelerators.peak_flops, base().accelerators.peak_flops) << "the base's device kind";
    EXPECT_EQ(spec->cpus, base().cpus);
  }
  // In a 4x4 mesh, gpu0 (corner) to gpu15 (opposite corner) is 6 links away; in the torus, 2.
  auto mesh = generateTopology(grid("mesh", {4, 4}), base());
  auto torus = generateTopology(grid("torus", {4, 4}), base());
  ASSERT_TRUE(mesh && torus);
  EXPECT_EQ(mesh->topology->hops(0, 15), 6);
  EXPECT_DOUBLE_EQ(mesh->topology->latency(0, 15), 6e-6);
  EXPECT_EQ(torus->topology->hops(0, 15), 2);
}

TEST(TopologyGenerators, ClusterTransfersBetweenNodesAreAsWideAsTheInterNodeLink) {
  TopologyRequest r;
  r.shape = "cluster";
  r.nodes = 4;
  r.gpus = 4;
  r.bandwidth = 3e11;
  r.inter_bandwidth = 2.5e10;
  r.latency = 2e-6;
  auto spec = generateTopology(r, base());
  ASSERT_TRUE(spec) << spec.status().message();
  const Topology& t = *spec->topology;
  EXPECT_EQ(t.devices.size(), 16u);
  EXPECT_EQ(t.bandwidth(0, 3), 3e11);   // one node
  EXPECT_EQ(t.hops(0, 3), 2);           // through its switch
  EXPECT_EQ(t.bandwidth(0, 4), 2.5e10);  // two nodes
  EXPECT_EQ(t.hops(0, 4), 4);
  EXPECT_DOUBLE_EQ(t.latency(0, 15), 8e-6);
}

TEST(TopologyGenerators, RandomBandwidthsStayInTheirRangesAndFollowTheSeed) {
  TopologyRequest r;
  r.shape = "random-block";
  r.devices = 16;
  r.block = 4;
  r.bandwidth = 1e11;
  r.min_bandwidth = 1e9;
  r.seed = 7;
  auto a = generateTopology(r, base());
  auto b = generateTopology(r, base());
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b) << "the same seed, the same machine";
  EXPECT_EQ(deviceLinks(*a->topology), 16 * 15 / 2);
  for (const TopologyLink& l : a->topology->links) {
    if (l.b == a->topology->hostNode()) continue;
    if (l.a / 4 == l.b / 4) {
      EXPECT_GE(l.bandwidth, 5e10);
      EXPECT_LT(l.bandwidth, 1e11);
    } else {
      EXPECT_GE(l.bandwidth, 1e9);
      EXPECT_LT(l.bandwidth, 2e9);
    }
  }
  r.seed = 8;
  auto c = generateTopology(r, base());
  ASSERT_TRUE(c);
  EXPECT_NE(*a, *c);

  r.shape = "uniform";
  auto u = generateTopology(r, base());
  ASSERT_TRUE(u);
  for (const TopologyLink& l : u->topology->links) {
    if (l.b == u->topology->hostNode()) continue;
    EXPECT_GE(l.bandwidth, 1e9);
    EXPECT_LT(l.bandwidth, 1e11);
  }
}

TEST(TopologyGenerators, BadRequestsAreRefusedNamingTheOption) {
  auto refused = [](const TopologyRequest& r, const std::string& what) {
    auto spec = generateTopology(r, base());
    ASSERT_FALSE(spec) << what;
    EXPECT_NE(spec.status().message().find(what), std::string::npos) << spec.status().message();
  };
  refused(grid("mesh", {4}), "--dims needs 2 or 3 sizes");
  TopologyRequest no_bandwidth = grid("torus", {2, 2});
  no_bandwidth.bandwidth = 0;
  refused(no_bandwidth, "--bandwidth must be a number > 0");
  TopologyRequest cluster;
  cluster.shape = "cluster";
  cluster.nodes = 2;
  cluster.bandwidth = 1;
  cluster.inter_bandwidth = 1;
  refused(cluster, "--gpus must be in 1..1024 (got 0)");
  refused(grid("ring", {2, 2}), "unknown shape \"ring\"");
  EXPECT_FALSE(parseGridDims("4x"));
  EXPECT_FALSE(parseGridDims("4x0"));
  EXPECT_FALSE(parseGridDims("4x4x4x4"));
  EXPECT_EQ(*parseGridDims("4x4x2"), (std::vector<int>{4, 4, 2}));
}

}  // namespace topology_generators_test
}  // namespace placer::testing
