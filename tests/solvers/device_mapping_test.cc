// The device mapping search against exhaustive search over every assignment of stage replicas to
// devices (random stage graphs with skip edges; random, grid and DGX-1 machines of up to 8 devices;
// both costs), never worse than the consecutive mapping, and a hand-computed case.
#include "solvers/mapping/device_mapping.h"
#include "solvers/mapping/pipeline_simulator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <limits>
#include <random>
#include <set>
#include <string>

namespace placer::testing {
namespace device_mapping_test {

Topology finished(Topology t) {
  EXPECT_TRUE(t.finish());
  return t;
}

// `devices` devices, every pair linked with probability 1/2 at 1..50 GB/s, each on a slow host link
// of 1..4 GB/s.
Topology randomMachine(int devices, std::mt19937& rng) {
  Topology t;
  t.kinds = {"a"};
  for (int i = 0; i < devices; ++i) t.devices.push_back({"d" + std::to_string(i), 0});
  for (int i = 0; i < devices; ++i) t.links.push_back({i, devices, 1e9 * (1 + rng() % 4), 1e-5});
  for (int a = 0; a < devices; ++a) {
    for (int b = a + 1; b < devices; ++b) {
      if (rng() % 2) t.links.push_back({a, b, 1e9 * (1 + rng() % 50), 1e-6});
    }
  }
  return finished(t);
}

// A 2 x 4 mesh at 10 GB/s.
Topology mesh2x4() {
  Topology t;
  t.kinds = {"a"};
  for (int i = 0; i < 8; ++i) t.devices.push_back({"d" + std::to_string(i), 0});
  for (int i = 0; i < 8; ++i) t.links.push_back({i, 8, 1e9, 1e-5});
  for (int i = 0; i < 8; ++i) {
    if (i % 4 != 3) t.links.push_back({i, i + 1, 1e10, 1e-6});
    if (i < 4) t.links.push_back({i, i + 4, 1e10, 1e-6});
  }
  return finished(t);
}

// A chain of `stages` with skip edges, random times, tensors and weights; half of them exchange data
// with the host (a CPU stage) at both ends.
StageGraph randomStages(int stages, std::mt19937& rng) {
  StageGraph g;
  for (int s = 0; s < stages; ++s) {
    g.compute.push_back(1e-3 * (1 + rng() % 20));
    g.weight_bytes.push_back(1e6 * (rng() % 200));
  }
  for (int s = 0; s + 1 < stages; ++s) g.edges.push_back({s, s + 1, 1e5 * (1 + rng() % 300)});
  for (int s = 0; s + 2 < stages; ++s) {
    if (rng() % 3 == 0) g.edges.push_back({s, s + 2 + static_cast<int>(rng() % (stages - s - 2)), 1e5 * (rng() % 100)});
  }
  if (rng() % 2) {
    g.host_bytes.assign(stages, 0.0);
    g.host_bytes.front() += 1e5 * (1 + rng() % 300);
    g.host_bytes.back() += 1e5 * (1 + rng() % 300);
  }
  return g;
}

// The smallest max over every injective assignment of the S·R replicas to devices (of their stage's
// kind, when the stages have kinds).
double exhaustive(const MappingRequest& request, const Topology& t) {
  const int S = request.graph.stages(), R = request.replicas, D = static_cast<int>(t.devices.size());
  std::vector<int> slot(S * R, -1);
  std::vector<bool> used(D, false);
  double best = std::numeric_limits<double>::infinity();
  std::function<void(int)> go = [&](int k) {
    if (k == S * R) {
      std::vector<std::vector<int>> device(S);
      for (int i = 0; i < S * R; ++i) device[i / R].push_back(slot[i]);
      best = std::min(best, evaluateMapping(request, t, device).max_stage_time);
      return;
    }
    for (int d = 0; d < D; ++d) {
      if (used[d]) continue;
      if (!request.graph.kind.empty() && t.devices[d].kind != request.graph.kind[k / R]) continue;
      used[d] = true;
      slot[k] = d;
      go(k + 1);
      used[d] = false;
    }
  };
  go(0);
  return best;
}

// Checks the search against exhaustive search; true when it beats the consecutive mapping.
bool checkOptimal(const MappingRequest& request, const Topology& t, const std::string& what) {
  auto found = optimalMapping(request, t, Budget::unlimited());
  auto consecutive = consecutiveMapping(request, t);
  if (!found || !consecutive) {
    ADD_FAILURE() << what << ": " << (found ? consecutive.status() : found.status()).message();
    return false;
  }
  EXPECT_TRUE(found->optimal) << what;
  const double truth = exhaustive(request, t);
  EXPECT_NEAR(found->max_stage_time, truth, 1e-12 * truth) << what;
  EXPECT_LE(found->max_stage_time, consecutive->max_stage_time) << what;
  // The mapping it reports has the time it reports, on distinct devices.
  EXPECT_DOUBLE_EQ(evaluateMapping(request, t, found->device).max_stage_time, found->max_stage_time) << what;
  std::vector<int> all;
  for (const auto& replicas : found->device) all.insert(all.end(), replicas.begin(), replicas.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end()) << what;
  return found->max_stage_time < consecutive->max_stage_time;
}

TEST(DeviceMapping, EqualsExhaustiveSearchOnRandomInstances) {
  int improved = 0, cases = 0;
  for (int seed = 0; seed < 60; ++seed) {
    std::mt19937 rng(seed);
    const int devices = 3 + static_cast<int>(rng() % 6);  // 3..8
    const Topology t = seed % 3 == 2 ? mesh2x4() : randomMachine(devices, rng);
    const int D = static_cast<int>(t.devices.size());
    MappingRequest request;
    request.replicas = seed % 4 == 3 ? 2 : 1;
    const int stages = std::max(1, static_cast<int>(1 + rng() % D) / request.replicas);
    request.graph = randomStages(stages, rng);
    for (MapCost cost : {MapCost::PointToPoint, MapCost::AllReduce}) {
      request.cost = cost;
      improved += checkOptimal(request, t, "seed " + std::to_string(seed) + (cost == MapCost::AllReduce ? " AR" : " P2P"));
      ++cases;
    }
  }
  // The instances are not ones the consecutive mapping already solves.
  EXPECT_GT(improved, cases / 3) << improved << " of " << cases;
}

// The search on several threads answers what it answers on one: the same mapping, times, node
// count and ranking, on random machines with and without kinds.
TEST(DeviceMapping, ThreadsChangeNothingButTheTime) {
  for (int seed = 0; seed < 24; ++seed) {
    std::mt19937 rng(seed + 100);
    const int devices = 4 + static_cast<int>(rng() % 5);  // 4..8
    Topology t = randomMachine(devices, rng);
    MappingRequest request;
    const int stages = 2 + static_cast<int>(rng() % (devices - 1));
    request.graph = randomStages(stages, rng);
    if (seed % 2) {  // two kinds, the stages' kinds fitting the devices'
      t.kinds = {"a", "b"};
      for (int d = 0; d < devices; ++d) t.devices[d].kind = d % 2;
      t = finished(t);
      // The first ceil(D/2) stages on kind a, the rest (at most floor(D/2): stages <= D) on b.
      for (int s = 0; s < stages; ++s) request.graph.kind.push_back(s < (devices + 1) / 2 ? 0 : 1);
    }
    request.cost = seed % 3 == 0 ? MapCost::AllReduce : MapCost::PointToPoint;
    MappingRanking ranking;
    ranking.rank = [](const Mapping& m) { return m.stage_time.empty() ? 0.0 : m.stage_time.front(); };
    request.threads = 1;
    auto one = optimalMapping(request, t, Budget::unlimited(), &ranking);
    ASSERT_TRUE(one) << one.status().message();
    for (int threads : {2, 3, 5}) {
      request.threads = threads;
      auto many = optimalMapping(request, t, Budget::unlimited(), &ranking);
      ASSERT_TRUE(many);
      const std::string what = "seed " + std::to_string(seed) + ", " + std::to_string(threads) + " threads";
      EXPECT_EQ(many->device, one->device) << what;
      EXPECT_EQ(many->max_stage_time, one->max_stage_time) << what;
      EXPECT_EQ(many->nodes, one->nodes) << what;
      EXPECT_EQ(many->tied, one->tied) << what;
      EXPECT_TRUE(many->optimal) << what;
    }
  }
}

// On a machine of two kinds, stages placed for a kind go to devices of that kind: the search equals
// the exhaustive search over such assignments, and the consecutive mapping takes each stage's first
// free device of its kind.
TEST(DeviceMapping, StagesOfAKindGoToDevicesOfThatKind) {
  int cases = 0;
  for (int seed = 0; seed < 30; ++seed) {
    std::mt19937 rng(seed);
    const int devices = 3 + static_cast<int>(rng() % 6);  // 3..8
    Topology t = randomMachine(devices, rng);
    t.kinds = {"a", "b"};
    std::vector<int> free_of(2, 0);
    for (Topology::Device& device : t.devices) ++free_of[device.kind = static_cast<int>(rng() % 2)];
    t = finished(t);
    MappingRequest request;
    const int stages = 1 + static_cast<int>(rng() % devices);
    request.graph = randomStages(stages, rng);
    for (int s = 0; s < stages; ++s) {  // a kind with a device left
      int kind = static_cast<int>(rng() % 2);
      if (free_of[kind] == 0) kind = 1 - kind;
      --free_of[kind];
      request.graph.kind.push_back(kind);
    }
    for (MapCost cost : {MapCost::PointToPoint, MapCost::AllReduce}) {
      request.cost = cost;
      const std::string what = "seed " + std::to_string(seed);
      checkOptimal(request, t, what);
      ++cases;
      auto found = optimalMapping(request, t, Budget::unlimited());
      auto consecutive = consecutiveMapping(request, t);
      ASSERT_TRUE(found && consecutive) << what;
      std::vector<bool> taken(t.devices.size(), false);
      for (int s = 0; s < stages; ++s) {
        EXPECT_EQ(t.devices[found->device[s][0]].kind, request.graph.kind[s]) << what;
        const int d = consecutive->device[s][0];
        EXPECT_EQ(t.devices[d].kind, request.graph.kind[s]) << what;
        for (int e = 0; e < d; ++e)  // the first free one of its kind
          EXPECT_TRUE(taken[e] || t.devices[e].kind != request.graph.kind[s]) << what;
        taken[d] = true;
      }
    }
  }
  EXPECT_EQ(cases, 60);
  // More stages of a kind than devices of it: refused, naming the kind.
  std::mt19937 machine_rng(1);
  Topology t = randomMachine(3, machine_rng);
  t.kinds = {"a", "b"};
  t.devices[0].kind = 1;
  t = finished(t);
  MappingRequest request;
  std::mt19937 rng(2);
  request.graph = randomStages(2, rng);
  request.graph.kind = {1, 1};
  auto refused = optimalMapping(request, t, Budget::unlimited());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find("the stages need 2 devices of kind b; the machine has 1"), std::string::npos)
      << refused.status().message();
}

// Three stages in a chain on a line of three devices a - b - c whose a-b link is fast and b-c slow;
// the consecutive mapping puts the heavy edge (stage 1 -> 2) on b-c, the best mapping on a-b.
TEST(DeviceMapping, HandComputedLine) {
  Topology t;
  t.kinds = {"a"};
  for (const char* name : {"a", "b", "c"}) t.devices.push_back({name, 0});
  t.links = {{0, 1, 1e10, 0}, {1, 2, 1e9, 0}, {0, 3, 1e8, 0}, {1, 3, 1e8, 0}, {2, 3, 1e8, 0}};
  ASSERT_TRUE(t.finish());
  MappingRequest request;
  request.graph.compute = {1e-3, 1e-3, 1e-3};
  request.graph.weight_bytes = {0, 0, 0};
  request.graph.edges = {{0, 1, 1e6}, {1, 2, 1e8}};
  request.cost = MapCost::PointToPoint;
  auto consecutive = consecutiveMapping(request, t);
  ASSERT_TRUE(consecutive);
  // Stage 1 on b: 1 ms + 1 MB at 10 GB/s (0.1 ms) + 100 MB at 1 GB/s (100 ms).
  EXPECT_DOUBLE_EQ(consecutive->max_stage_time, 1e-3 + 1e-4 + 1e-1);
  auto best = optimalMapping(request, t, Budget::unlimited());
  ASSERT_TRUE(best);
  // Stages 1 and 2 on a and b (either way round), stage 0 on c: the 100 MB at 10 GB/s (10 ms);
  // stage 0's 1 MB crosses c-b (1 GB/s, 1 ms) or c-b-a.
  EXPECT_DOUBLE_EQ(best->max_stage_time, 1e-3 + 1e-3 + 1e-2);
  EXPECT_TRUE(best->optimal);
}

// Host traffic goes to the device with the widest route to the host: two devices joined by a fast
// link, one on a slow host link (1 MB/s) and one on a fast one (1 GB/s); the stage that talks to the
// host goes on the second.
TEST(DeviceMapping, HostTransfersGoOverTheWidestRouteToTheHost) {
  Topology t;
  t.kinds = {"a"};
  for (const char* name : {"slow", "fast"}) t.devices.push_back({name, 0});
  t.links = {{0, 1, 1e11, 0}, {0, 2, 1e6, 0}, {1, 2, 1e9, 0}};
  ASSERT_TRUE(t.finish());
  MappingRequest request;
  request.graph.compute = {1e-3, 1e-3};
  request.graph.weight_bytes = {0, 0};
  request.graph.host_bytes = {1e6, 0};  // stage 0 reads 1 MB from the host
  request.graph.edges = {{0, 1, 1e5}};
  request.cost = MapCost::PointToPoint;
  auto consecutive = consecutiveMapping(request, t);
  ASSERT_TRUE(consecutive);
  // Stage 0 on "slow": its 1 MB goes over the widest route, slow - fast - host, at 1 GB/s (1 ms),
  // whichever device it is on; the edge's 100 KB at 100 GB/s.
  EXPECT_DOUBLE_EQ(consecutive->max_stage_time, 1e-3 + 1e-3 + 1e-6);
  request.graph.host_bytes = {1e6, 0};
  t.links = {{0, 1, 1e8, 0}, {0, 2, 1e6, 0}, {1, 2, 1e9, 0}};  // now the route through "fast" is 100 MB/s
  ASSERT_TRUE(t.finish());
  auto best = optimalMapping(request, t, Budget::unlimited());
  ASSERT_TRUE(best);
  EXPECT_EQ(best->device, (std::vector<std::vector<int>>{{1}, {0}}));
  // On "fast": 1 ms + 1 MB at 1 GB/s + 100 KB at 100 MB/s.
  EXPECT_DOUBLE_EQ(best->max_stage_time, 1e-3 + 1e-3 + 1e-3);
  EXPECT_TRUE(best->optimal);
  // Host bytes count only for the point-to-point cost, and must be one per stage.
  request.graph.host_bytes = {1e6};
  EXPECT_FALSE(optimalMapping(request, t, Budget::unlimited()));
}

// Ties ranked: stage 2 (10 ms, no traffic) sets the largest stage time of every mapping, so all
// tie; a simulated inference step still prefers stages 0 and 1 (which exchange 100 KB) on the one
// fast link, where the pipeline fills 1 ms sooner. Devices d0..d3 reach each other through the host
// at 100 MB/s; d2 - d3 also directly at 100 GB/s.
TEST(DeviceMapping, TiesAreRankedByTheSimulatedStep) {
  Topology t;
  t.kinds = {"a"};
  for (int i = 0; i < 4; ++i) t.devices.push_back({"d" + std::to_string(i), 0});
  for (int i = 0; i < 4; ++i) t.links.push_back({i, 4, 1e8, 0});
  t.links.push_back({2, 3, 1e11, 0});
  ASSERT_TRUE(t.finish());
  MappingRequest request;
  request.graph.compute = {1e-3, 1e-3, 1e-2};
  request.graph.weight_bytes = {0, 0, 0};
  request.graph.edges = {{0, 1, 1e5}};
  request.cost = MapCost::PointToPoint;
  auto step = [&](const Mapping& m) {
    SimulatedPipeline p;
    for (const auto& replicas : m.device) p.device.push_back(replicas.front());
    p.forward = request.graph.compute;
    p.bytes = {1e5, 0};
    auto result = simulatePipeline(p, t, 4, PipelineSchedule::Inference);
    return result ? result->step_time : 1e9;
  };
  auto plain = optimalMapping(request, t, Budget::unlimited());
  ASSERT_TRUE(plain);
  EXPECT_DOUBLE_EQ(plain->max_stage_time, 1e-2);
  // The first mapping the search meets: stage 0 on d0, stage 1 on d1, over the host (1 ms).
  EXPECT_EQ(plain->device, (std::vector<std::vector<int>>{{0}, {1}, {2}}));
  // Its 100 KB cross the host at 100 MB/s (1 ms each), and stage 1's sends to stage 2 wait for the
  // host link stage 0's transfers hold: at least 1 ms of fill more than on the fast link.
  EXPECT_GE(step(*plain), 1e-3 + 1e-3 + 1e-3 + 4 * 1e-2 - 1e-12);
  const MappingRanking ranking{step, 64};
  auto ranked = optimalMapping(request, t, Budget::unlimited(), &ranking);
  ASSERT_TRUE(ranked);
  EXPECT_DOUBLE_EQ(ranked->max_stage_time, 1e-2);
  EXPECT_TRUE(ranked->optimal);
  EXPECT_GT(ranked->tied, 1);
  EXPECT_EQ((std::set<int>{ranked->device[0][0], ranked->device[1][0]}), (std::set<int>{2, 3}));
  EXPECT_NEAR(step(*ranked), 1e-3 + 1e-6 + 1e-3 + 4 * 1e-2, 1e-12);
}

// Stopped by the budget (an instance far too large to search in a millisecond, or a stop flag set
// before the call): the best mapping so far, never worse than the consecutive one, not claimed
// optimal.
TEST(DeviceMapping, StoppedEarlyItKeepsTheBestSoFarAndSaysSo) {
  std::mt19937 rng(11);
  Topology t;
  t.kinds = {"a"};
  const int devices = 24;
  for (int i = 0; i < devices; ++i) t.devices.push_back({"d" + std::to_string(i), 0});
  for (int i = 0; i < devices; ++i) t.links.push_back({i, devices, 1e9, 1e-5});
  for (int a = 0; a < devices; ++a) {
    for (int b = a + 1; b < devices; ++b) t.links.push_back({a, b, 1e9 * (1 + rng() % 50), 1e-6});
  }
  ASSERT_TRUE(t.finish());
  MappingRequest request;
  request.graph = randomStages(24, rng);
  request.cost = MapCost::PointToPoint;
  auto consecutive = consecutiveMapping(request, t);
  ASSERT_TRUE(consecutive);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::atomic<bool> stop{attempt == 1};
    auto found = optimalMapping(request, t, Budget(attempt == 0 ? 1e-3 : 60, &stop));
    ASSERT_TRUE(found) << found.status().message();
    EXPECT_FALSE(found->optimal);
    EXPECT_LE(found->max_stage_time, consecutive->max_stage_time);
  }
}

TEST(DeviceMapping, AutoPicksTheCostWithMoreTraffic) {
  MappingRequest request;
  request.replicas = 2;
  request.graph.compute = {1, 1};
  request.graph.weight_bytes = {1e6, 1e6};  // all-reduce: 2 x 2(2-1)/2 x 1 MB = 2 MB
  request.graph.edges = {{0, 1, 1e5}};
  EXPECT_EQ(resolveMapCost(request), MapCost::AllReduce);
  request.graph.edges = {{0, 1, 1e7}};
  EXPECT_EQ(resolveMapCost(request), MapCost::PointToPoint);
}

TEST(DeviceMapping, RefusesWhatCannotBeMapped) {
  MappingRequest request;
  request.graph.compute = {1, 1, 1};
  request.graph.weight_bytes = {0, 0, 0};
  Topology two = uniformTopology(2, 1e9, 0);
  ASSERT_TRUE(two.finish());
  auto refused = optimalMapping(request, two, Budget::unlimited());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.status().message().find("need 3 devices; the machine has 2"), std::string::npos);
  request.graph.compute = {1, 1};
  request.graph.weight_bytes = {0, 0};
  request.graph.edges = {{0, 0, 1}};
  EXPECT_FALSE(optimalMapping(request, two, Budget::unlimited()));
}

}  // namespace device_mapping_test
}  // namespace placer::testing
