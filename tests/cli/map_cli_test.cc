// onnx-placer map: a hand-computed stage graph on a three-device line, the pipeline.json of a model
// placed on the DGX-1 mapped onto its NVLinks, and the refusals; place --topology: the stages
// mapped onto physical devices, named in every output; --replicas on partition and place.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "tests/cli/cli_fixture.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace map_cli_test {

using json = nlohmann::json;

// Devices a - b - c: a-b at 10 GB/s, b-c at 1 GB/s, each at 0.1 GB/s to the host.
const char* kLine = R"({"kinds": {"x": {"memory": 1e9, "peak_flops": 1e12, "memory_bandwidth": 1e11}},
  "devices": [{"name": "a", "kind": "x"}, {"name": "b", "kind": "x"}, {"name": "c", "kind": "x"}],
  "links": [{"between": ["a", "b"], "bandwidth": 1e10}, {"between": ["b", "c"], "bandwidth": 1e9}],
  "host": {"bandwidth": 1e8}, "cpus": {"count": 0}})";

TEST_F(CliTest, MapPutsTheHeavyEdgeOnTheFastLink) {
  spit(work_ / "line.json", kLine);
  spit(work_ / "stages.json", R"({"stages": [{"compute": 1e-3, "weight_bytes": 0}, {"compute": 1e-3, "weight_bytes": 0},
    {"compute": 1e-3, "weight_bytes": 0}], "edges": [{"from": 0, "to": 1, "bytes": 1e6}, {"from": 1, "to": 2, "bytes": 1e8}]})");
  RunResult r = run({"map", (work_ / "stages.json").string(), "--topology", (work_ / "line.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  // Consecutive: stage 1 on b pays 1 ms + 0.1 ms (1 MB at 10 GB/s) + 100 ms (100 MB at 1 GB/s).
  EXPECT_DOUBLE_EQ(out["consecutiveMaxStageTime"].get<double>(), 1e-3 + 1e-4 + 1e-1);
  // Best: stages 1 and 2 on a and b, stage 0 on c: 1 ms + 1 ms (1 MB at 1 GB/s) + 10 ms.
  EXPECT_DOUBLE_EQ(out["maxStageTime"].get<double>(), 1e-3 + 1e-3 + 1e-2);
  EXPECT_EQ(out["mapping"][0], "c");
  EXPECT_EQ((std::set<std::string>{out["mapping"][1], out["mapping"][2]}), (std::set<std::string>{"a", "b"}));
  EXPECT_EQ(out["status"], "optimal");
  EXPECT_EQ(out["cost"], "p2p");
  EXPECT_NEAR(out["speedup"].get<double>(), 0.1011 / 0.012, 1e-9);
  EXPECT_EQ(out["consecutiveMapping"], json::array({"a", "b", "c"}));

  // Refusals: no topology, a bad cost, more stages than devices.
  EXPECT_EQ(run({"map", (work_ / "stages.json").string()}).exit_code, 2);
  EXPECT_EQ(run({"map", (work_ / "stages.json").string(), "--topology", "dgx-h100", "--map-cost", "ring"}).exit_code, 2);
  r = run({"map", (work_ / "stages.json").string(), "--topology", (work_ / "line.json").string(), "--replicas", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("need 6 devices; the machine has 3"), std::string::npos) << r.err;
}

TEST_F(CliTest, MapReadsThePipelineJsonOfAPlacedModel) {
  const std::string stages = (work_ / "stages").string();
  RunResult r = run({"place", model("resnet50_light.onnx"), "--devices", "dgx1-8xv100-nvlink", "--accelerators", "4",
                     "--cpus", "0", "--algorithm", "dp", "--stages-dir", stages, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json manifest = json::parse(slurp(work_ / "stages" / "pipeline.json"));
  r = run({"map", stages + "/pipeline.json", "--topology", "dgx1-8xv100-nvlink", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["mapping"].size(), manifest["stages"].size());
  std::set<std::string> devices;
  for (const auto& d : out["mapping"]) devices.insert(d.get<std::string>());
  EXPECT_EQ(devices.size(), out["mapping"].size()) << "distinct devices";
  EXPECT_EQ(out["status"], "optimal");
  EXPECT_LE(out["maxStageTime"].get<double>(), out["consecutiveMaxStageTime"].get<double>());
  // Each stage's time is at least its compute.
  for (std::size_t s = 0; s < manifest["stages"].size(); ++s)
    EXPECT_GE(out["stageTimes"][s].get<double>(), manifest["stages"][s]["compute_seconds"].get<double>());
}

// The index of a device of the DGX-1 preset ("gpu5" -> 5: its devices are gpu0..gpu7 in order).
int dgxIndex(const std::string& name) { return std::stoi(name.substr(3)); }

TEST_F(CliTest, PlaceOnATopologyNamesThePhysicalDevices) {
  const std::string annotated = (work_ / "annotated.onnx").string();
  RunResult r = run({"place", model("resnet50_light.onnx"), "--topology", "dgx1-8xv100-nvlink", "--cpus", "0",
                     "--algorithm", "dp", "-o", annotated, "--stages-dir", (work_ / "stages").string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out);
  const json& mapping = report["mapping"];
  EXPECT_EQ(mapping["map"], "optimal");
  EXPECT_EQ(mapping["status"], "optimal");
  EXPECT_EQ(mapping["cost"], "p2p");
  EXPECT_LE(mapping["maxStageTime"].get<double>(), mapping["consecutiveMaxStageTime"].get<double>());
  ASSERT_GE(report["stages"].size(), 2u);
  ASSERT_EQ(mapping["mapping"].size(), report["stages"].size());
  std::set<std::string> names;
  std::string settings;
  const json manifest = json::parse(slurp(work_ / "stages" / "pipeline.json"));
  const std::string model_text = slurp(annotated);
  for (std::size_t s = 0; s < report["stages"].size(); ++s) {
    const json& stage = report["stages"][s];
    const std::string name = stage["device_name"];
    names.insert(name);
    // The stage runs where the mapping put it: gpu:<its index in the topology>.
    EXPECT_EQ(mapping["mapping"][s], name);
    EXPECT_EQ(stage["device"], "gpu:" + std::to_string(dgxIndex(name)));
    EXPECT_EQ(manifest["stages"][s]["device"], stage["device"]);
    EXPECT_EQ(manifest["stages"][s]["device_name"], name);
    // The annotations (ONNX Runtime's layering metadata) name it too.
    EXPECT_NE(model_text.find(stage["device"].get<std::string>()), std::string::npos) << stage["device"];
    settings += (settings.empty() ? "" : "; ") + stage["device"].get<std::string>() + "(=" +
                stage["label"].get<std::string>() + ")";
    // A stage's time on the links is at least its operators' time.
    EXPECT_GE(mapping["stageTimes"][s].get<double>(), stage["compute_seconds"].get<double>());
  }
  EXPECT_EQ(names.size(), report["stages"].size()) << "distinct physical devices";
  EXPECT_EQ(report["layer_assignment_settings"], settings);

  // --map consecutive: stage i on the topology's device i, the search's mapping never worse.
  r = run({"place", model("resnet50_light.onnx"), "--topology", "dgx1-8xv100-nvlink", "--cpus", "0", "--algorithm",
           "dp", "--map", "consecutive", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json consecutive = json::parse(r.out);
  EXPECT_EQ(consecutive["mapping"]["status"], "consecutive");
  for (std::size_t s = 0; s < consecutive["stages"].size(); ++s)
    EXPECT_EQ(consecutive["stages"][s]["device"], "gpu:" + std::to_string(s));
  EXPECT_DOUBLE_EQ(consecutive["mapping"]["maxStageTime"].get<double>(),
                   mapping["consecutiveMaxStageTime"].get<double>());
}

// bound --topology bounds the solvers' model on the topology's devices: the same as --devices with it.
TEST_F(CliTest, BoundOnATopologyIsBoundOnItsDevices) {
  const std::vector<std::string> common{"bound", model("resnet50_light.onnx"), "--cpus", "0", "--method", "simple", "-q"};
  std::vector<std::string> with_topology = common, with_devices = common;
  with_topology.insert(with_topology.end(), {"--topology", "dgx1-8xv100-nvlink"});
  with_devices.insert(with_devices.end(), {"--devices", "dgx1-8xv100-nvlink"});
  RunResult a = run(with_topology), b = run(with_devices);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(json::parse(a.out)["lowerBound"], json::parse(b.out)["lowerBound"]);
  EXPECT_GT(json::parse(a.out)["lowerBound"].get<double>(), 0);
  // Not for a workload, whose transfers are given in seconds.
  RunResult w = run({"bound", dataPath("workloads/throughput-inputs/LayerGraphs/gnmt_inference.json").string(),
                     "--topology", "dgx-h100"});
  EXPECT_EQ(w.exit_code, 2) << w.err;
}

TEST_F(CliTest, PlaceOnATopologyRefusesWhatIsNotOne) {
  // A specification of the accelerators/link form has no topology to map onto.
  RunResult r = run({"place", model("light_squeezenet.onnx"), "--topology", "pcie3-4x16gb", "-q"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--topology pcie3-4x16gb describes no topology"), std::string::npos) << r.err;
  r = run({"place", model("light_squeezenet.onnx"), "--topology", "dgx-h100", "--devices", "dgx-h100", "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--topology and --devices both name the machine"), std::string::npos) << r.err;
  EXPECT_EQ(run({"place", model("light_squeezenet.onnx"), "--topology", "dgx-h100", "--map", "best", "-q"}).exit_code, 2);
  EXPECT_EQ(run({"place", model("light_squeezenet.onnx"), "--topology", "dgx-h100", "--map-cost", "ring", "-q"}).exit_code, 2);
  EXPECT_EQ(run({"place", model("light_squeezenet.onnx"), "--topology", "dgx-h100", "--map-time-limit", "-1", "-q"}).exit_code, 2);
  // Without a topology the report has no mapping, and devices keep their plain names.
  r = run({"place", model("light_squeezenet.onnx"), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(json::parse(r.out).contains("mapping"));
}

// simulate on map's output: two stages on the line's fast link, by hand.
// A machine of two kinds: each stage names its kind and runs on a device of it; the report's stage
// graph carries the kinds, so `map` maps it again onto devices of the same kinds; --accelerators
// keeps the first devices (gpu0 is a V100, gpu1 an A100), and one kind left is a plain machine.
TEST_F(CliTest, PlaceOnAMixedMachineKeepsEachStageOnItsKind) {
  const std::string report = (work_ / "report.json").string();
  RunResult r = run({"place", model("resnet50_light.onnx"), "--topology", "mixed-2xa100-2xv100", "--cpus", "0",
                     "--report", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(slurp(report));
  const std::map<std::string, std::string> kind_of{{"gpu0", "v100"}, {"gpu1", "a100"}, {"gpu2", "v100"}, {"gpu3", "a100"}};
  std::set<std::string> kinds;
  for (const json& stage : out["stages"]) {
    EXPECT_EQ(stage["device_kind"], kind_of.at(stage["device_name"])) << stage.dump();
    kinds.insert(stage["device_kind"].get<std::string>());
  }
  EXPECT_EQ(kinds.size(), 2u);
  for (const json& stage : out["mapping"]["stageGraph"]["stages"]) EXPECT_TRUE(stage.contains("kind"));
  spit(work_ / "graph.json", out["mapping"]["stageGraph"].dump());
  r = run({"map", (work_ / "graph.json").string(), "--topology", "mixed-2xa100-2xv100", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json mapped = json::parse(r.out);
  for (std::size_t s = 0; s < mapped["mapping"].size(); ++s)
    EXPECT_EQ(kind_of.at(mapped["mapping"][s]), out["mapping"]["stageGraph"]["stages"][s]["kind"]) << s;
  // A kind the machine lacks is refused, naming the stage.
  spit(work_ / "bad.json", R"({"stages": [{"compute": 1e-3, "weight_bytes": 0, "kind": "h100"}]})");
  r = run({"map", (work_ / "bad.json").string(), "--topology", "mixed-2xa100-2xv100", "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stages[0].kind: not a device kind of the machine (\"h100\")"), std::string::npos) << r.err;

  r = run({"place", model("resnet50_light.onnx"), "--topology", "mixed-2xa100-2xv100", "--accelerators", "2",
           "--cpus", "0", "--report", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  out = json::parse(slurp(report));
  for (const json& stage : out["stages"]) EXPECT_EQ(stage["device_kind"], kind_of.at(stage["device_name"]));
  r = run({"place", model("resnet50_light.onnx"), "--topology", "mixed-2xa100-2xv100", "--accelerators", "1",
           "--cpus", "0", "--report", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  out = json::parse(slurp(report));
  ASSERT_EQ(out["stages"].size(), 1u);
  EXPECT_FALSE(out["stages"][0].contains("device_kind"));
  EXPECT_EQ(out["stages"][0]["device_name"], "gpu0");
  // SliceGraph treats every accelerator alike: refused on a mixed machine, saying which solvers price kinds.
  r = run({"place", model("resnet50_light.onnx"), "--topology", "mixed-2xa100-2xv100", "--algorithm", "slicegraph",
           "-o", (work_ / "out.onnx").string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("slicegraph treats every accelerator alike"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(work_ / "out.onnx"));
}

TEST_F(CliTest, SimulateRunsTheMappedPipelineOnTheLinks) {
  spit(work_ / "line.json", kLine);
  spit(work_ / "stages.json", R"({"stages": [{"compute": 1e-3, "weight_bytes": 0}, {"compute": 2e-3, "weight_bytes": 0}],
    "edges": [{"from": 0, "to": 1, "bytes": 1e6}]})");
  const std::string mapped = (work_ / "mapped.json").string();
  RunResult r = run({"map", (work_ / "stages.json").string(), "--topology", (work_ / "line.json").string(), "-o", mapped, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json map_out = json::parse(slurp(mapped));
  // The stages on a and b (10 GB/s): each micro-batch's 1 MB takes 0.1 ms.
  EXPECT_EQ((std::set<std::string>{map_out["mapping"][0], map_out["mapping"][1]}), (std::set<std::string>{"a", "b"}));
  r = run({"simulate", mapped, "--topology", (work_ / "line.json").string(), "--micro-batches", "4", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json sim = json::parse(r.out);
  // Stage 0's four forwards end at 1, 2, 3, 4 ms; stage 1 starts at 1.1 ms and runs 4 x 2 ms.
  EXPECT_NEAR(sim["stepTime"].get<double>(), 1.1e-3 + 8e-3, 1e-15);
  EXPECT_NEAR(sim["throughput"].get<double>(), 4 / 9.1e-3, 1e-9);
  EXPECT_EQ(sim["schedule"], "inference");
  ASSERT_EQ(sim["devices"].size(), 2u);
  EXPECT_NEAR(sim["devices"][0]["busy"].get<double>(), 4e-3, 1e-15);
  EXPECT_NEAR(sim["devices"][1]["busy"].get<double>(), 8e-3, 1e-15);
  EXPECT_NEAR(sim["devices"][1]["idle"].get<double>(), 1.1e-3, 1e-15);
  EXPECT_EQ(sim["maxStageTime"], map_out["maxStageTime"]);
  // map's own simulation is this one at 16 micro-batches: 1.1 ms + 16 x 2 ms.
  EXPECT_NEAR(map_out["simulation"]["stepTime"].get<double>(), 1.1e-3 + 32e-3, 1e-15);
  // GPipe: the backwards (2x) run after every forward; the step is longer than inference's.
  r = run({"simulate", mapped, "--topology", (work_ / "line.json").string(), "--micro-batches", "4", "--schedule",
           "gpipe", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(json::parse(r.out)["stepTime"].get<double>(), 9.1e-3 + 4 * 4e-3);

  // Refusals: no topology, a bad schedule, a file that is no mapping, a device the machine lacks.
  EXPECT_EQ(run({"simulate", mapped}).exit_code, 2);
  EXPECT_EQ(run({"simulate", mapped, "--topology", "dgx-h100", "--schedule", "zero-bubble"}).exit_code, 2);
  r = run({"simulate", (work_ / "stages.json").string(), "--topology", "dgx-h100"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("expected the output of onnx-placer map"), std::string::npos) << r.err;
  r = run({"simulate", mapped, "--topology", "dgx-h100"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("the topology has no device"), std::string::npos) << r.err;
}

// simulate on a place report: its mapping's simulation, recomputed.
TEST_F(CliTest, SimulateReadsAPlaceReportOnATopology) {
  const std::string report = (work_ / "report.json").string();
  RunResult r = run({"place", model("resnet50_light.onnx"), "--topology", "dgx1-8xv100-nvlink", "--cpus", "0",
                     "--algorithm", "dp", "--report", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json placed = json::parse(slurp(report));
  r = run({"simulate", report, "--topology", "dgx1-8xv100-nvlink", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json sim = json::parse(r.out);
  EXPECT_DOUBLE_EQ(sim["stepTime"].get<double>(), placed["mapping"]["simulation"]["stepTime"].get<double>());
  ASSERT_EQ(sim["devices"].size(), placed["stages"].size());
  for (std::size_t s = 0; s < placed["stages"].size(); ++s) {
    EXPECT_EQ(sim["devices"][s]["name"], placed["stages"][s]["device_name"]);
    // 16 micro-batches of the stage's operators.
    EXPECT_NEAR(sim["devices"][s]["busy"].get<double>(), 16 * placed["stages"][s]["compute_seconds"].get<double>(), 1e-12);
  }
}

// --replicas auto keeps the fastest of its candidates, each the value `--replicas R` gives alone, and
// its bound is the least of theirs (no other replica count beats it).
TEST_F(CliTest, ReplicasAutoKeepsTheFastestCandidate) {
  const std::string workload = workloadPath("throughput-inputs/LayerGraphs/resnet50_inference.json").string();
  RunResult r = run({"partition", workload, "--accelerators", "8", "--replicas", "auto", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  const json& candidates = out["replicas"]["candidates"];
  ASSERT_EQ(candidates.size(), 4u);  // 8 stages of 1, 4 of 2, 2 of 4, 1 of 8
  double best = std::numeric_limits<double>::infinity(), least_bound = best;
  int best_replicas = 0;
  for (const json& c : candidates) {
    const int replicas = c["replicas"];
    r = run({"partition", workload, "--accelerators", "8", "--replicas", std::to_string(replicas), "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json alone = json::parse(r.out);
    EXPECT_EQ(alone["maxLoad"], c["value"]) << replicas;
    EXPECT_EQ(alone["fpgas"].size(), static_cast<std::size_t>(8 / replicas));
    if (c["value"].get<double>() < best) {
      best = c["value"];
      best_replicas = replicas;
    }
    least_bound = std::min(least_bound, c["bound"].get<double>());
  }
  EXPECT_NE(best_replicas, 1);  // replicas pay here: the search is not a formality
  EXPECT_EQ(out["replicas"]["replicas"], best_replicas);
  EXPECT_EQ(out["maxLoad"].get<double>(), best);
  EXPECT_EQ(out["bound"].get<double>(), least_bound);
  std::set<int> accelerators;
  for (const json& fpga : out["fpgas"]) {
    ASSERT_EQ(fpga["replicas"].size(), static_cast<std::size_t>(best_replicas));
    for (int a : fpga["replicas"]) accelerators.insert(a);
  }
  EXPECT_EQ(accelerators.size(), 8u);
  EXPECT_EQ(*accelerators.rbegin(), 7);

  // Where fewer, replicated stages cannot hold the model (5 GB each, no CPU: 19.4 GB of nodes), those
  // candidates are infeasible and the search goes on without them.
  r = run({"partition", workload, "--accelerators", "8", "--cpus", "0", "--memory", "5e9", "--replicas", "auto", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json tight = json::parse(r.out);
  std::map<int, std::string> status_of;
  for (const json& c : tight["replicas"]["candidates"]) status_of[c["replicas"]] = c["status"];
  EXPECT_EQ(status_of, (std::map<int, std::string>{{1, "optimal"}, {2, "optimal"}, {4, "infeasible"}, {8, "infeasible"}}));
  EXPECT_EQ(tight["replicas"]["replicas"], 1);
  EXPECT_EQ(tight["status"], "optimal");

  r = run({"partition", workload, "--accelerators", "8", "--replicas", "9", "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("9 replicas per stage need 9 accelerators of one kind; the machine has 8"), std::string::npos)
      << r.err;
  r = run({"partition", workloadPath("throughput-inputs/LayerGraphs/resnet50_training.json").string(), "--replicas",
           "2", "-q"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("replicas of a training graph"), std::string::npos) << r.err;
  EXPECT_EQ(run({"partition", workload, "--replicas", "2", "--objective", "latency"}).exit_code, 2);
  EXPECT_EQ(run({"partition", workload, "--replicas", "0"}).exit_code, 2);
}

// Replicas of a training workload: forward a (1 ms, 1 GB of weights) -> b (1 ms), backward b' (2 ms)
// -> a' (2 ms), on two accelerators. Two replicas of one stage: (1 + 1 + 2 + 2) / 2 = 3 ms per sample,
// plus the ring all-reduce of a's gradients, 2·(2-1)/2 · 1 GB at 10 GB/s once per step of 10
// samples = 10 ms per sample: 13 ms. Two stages of one replica take 3 ms each, so auto keeps those.
TEST_F(CliTest, TrainingReplicasAddTheirAllReduce) {
  const std::string workload = write("training.json", R"({"maxSizePerFPGA": 1e10, "maxFPGAs": 2, "maxCPUs": 0,
    "nodes": [
      {"id": 0, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 0, "size": 0, "weightBytes": 1e9},
      {"id": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 1, "size": 0},
      {"id": 2, "cpuLatency": 9, "fpgaLatency": 2, "isBackwardNode": 1, "colorClass": 1, "size": 0},
      {"id": 3, "cpuLatency": 9, "fpgaLatency": 2, "isBackwardNode": 1, "colorClass": 0, "size": 0}],
    "edges": [{"sourceId": 0, "destId": 1, "cost": 0}, {"sourceId": 1, "destId": 2, "cost": 0},
              {"sourceId": 2, "destId": 3, "cost": 0}]})");
  const std::vector<std::string> step{"--samples-per-step", "10", "--allreduce-bandwidth", "1e10", "--time-unit", "1e-3",
                                      "-q"};
  auto partition = [&](const std::string& replicas) {
    std::vector<std::string> args{"partition", workload, "--replicas", replicas};
    args.insert(args.end(), step.begin(), step.end());
    RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out.empty() ? "{}" : r.out);
  };
  const json two = partition("2");
  EXPECT_DOUBLE_EQ(two["maxLoad"].get<double>(), 13.0);
  EXPECT_EQ(two["fpgas"][0]["replicas"], json::array({0, 1}));
  const json best = partition("auto");
  EXPECT_DOUBLE_EQ(best["maxLoad"].get<double>(), 3.0);
  EXPECT_EQ(best["replicas"]["replicas"], 1);
  EXPECT_DOUBLE_EQ(best["replicas"]["candidates"][1]["value"].get<double>(), 13.0);
  // Without the step's figures: refused before any solve, naming them.
  RunResult r = run({"partition", workload, "--replicas", "2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--samples-per-step"), std::string::npos) << r.err;
}

// place --replicas 2 on four accelerators: two stages of two replicas, every replica's device named
// in the report, the stage manifest and Triton's instance groups.
TEST_F(CliTest, PlaceWithReplicasNamesEveryReplica) {
  const fs::path report = work_ / "report.json", stages = work_ / "stages", triton = work_ / "triton";
  RunResult r = run({"place", model("resnet50_light.onnx"), "--cpus", "0", "--replicas", "2", "--report",
                     report.string(), "--stages-dir", stages.string(), "--emit", "triton=" + triton.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(slurp(report));
  EXPECT_EQ(out["replicas"]["replicas"], 2);
  std::vector<json> replicas;
  std::set<std::string> devices;
  for (const json& stage : out["stages"]) {
    ASSERT_EQ(stage["replicas"], 2) << stage.dump();
    EXPECT_EQ(stage["replica_devices"][0], stage["device"]);
    replicas.push_back(stage["replica_devices"]);
    for (const std::string d : stage["replica_devices"]) devices.insert(d);
  }
  ASSERT_EQ(replicas.size(), 2u);
  EXPECT_EQ(devices, (std::set<std::string>{"gpu:0", "gpu:1", "gpu:2", "gpu:3"}));
  // On a topology an inference model's replicas are mapped point to point: they exchange no gradients.
  r = run({"place", model("resnet50_light.onnx"), "--topology", "dgx1-8xv100-nvlink", "--cpus", "0", "--replicas",
           "2", "--report", (work_ / "mapped.json").string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(slurp(work_ / "mapped.json"))["mapping"]["cost"], "p2p");
  const json manifest = json::parse(slurp(stages / "pipeline.json"));
  for (std::size_t k = 0; k < replicas.size(); ++k) {
    EXPECT_EQ(manifest["stages"][k]["replica_devices"], replicas[k]);
    const std::string config = slurp(triton / ("resnet50_light_stage" + std::to_string(k)) / "config.pbtxt");
    const std::string a = replicas[k][0], b = replicas[k][1];
    EXPECT_NE(config.find("gpus: [ " + a.substr(4) + ", " + b.substr(4) + " ]"), std::string::npos) << config;
  }
}

// --cost-profile KIND=FILE: a profile recorded on one kind of a mixed machine gives that kind its
// times (inspect's per-kind totals move by exactly the measured difference); the first kind's is a
// plain profile; a prefix that names no kind (and no file) is refused with the kinds there are.
TEST_F(CliTest, AProfilePerKindTimesThatKind) {
  const std::string profile = write("gemm.json", R"({"version": 1, "unit": "ms", "nodes": {"/fc/Gemm": {"accelerator": 7}}})");
  auto totals = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args{"inspect", model("resnet50_light.onnx"), "--devices", "mixed-2xa100-2xv100", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out)["costs"];
  };
  const json base = totals({});
  const json v100 = totals({"--cost-profile", "v100=" + profile});
  const json a100 = totals({"--cost-profile", "a100=" + profile});
  auto kind = [](const json& costs, const char* name) {
    return costs["seconds_per_sample"]["one_accelerator_of_each_kind"][name].get<double>();
  };
  // The Gemm's time moved to 7 ms on the V100s only: the A100s' total is unchanged, the V100s' grew
  // by 7 ms less what the Gemm took there before (a little).
  EXPECT_EQ(kind(v100, "a100"), kind(base, "a100"));
  EXPECT_GT(kind(v100, "v100") - kind(base, "v100"), 6.9e-3);
  EXPECT_LT(kind(v100, "v100") - kind(base, "v100"), 7e-3);
  EXPECT_NE(v100["cost_sources"].dump().find("cost profile (v100): 1 of 122 operators matched"), std::string::npos)
      << v100["cost_sources"].dump();
  // On the first kind it is a plain profile: its time carried over to the V100s in proportion.
  EXPECT_GT(kind(a100, "a100") - kind(base, "a100"), 6.9e-3);
  EXPECT_GT(kind(a100, "v100") - kind(base, "v100"), 6.9e-3);
  EXPECT_NE(a100["cost_sources"].dump().find("cost profile: 1 of 122 operators matched"), std::string::npos);
  RunResult r = run({"place", model("resnet50_light.onnx"), "--devices", "mixed-2xa100-2xv100", "--cost-profile",
                     "h100=" + profile, "-o", (work_ / "out.onnx").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'h100' is not an accelerator kind of the machine (its kinds: a100, v100)"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(work_ / "out.onnx"));
}

// partition --topology: a workload's stages mapped onto the links, its times in --time-unit seconds
// and its edges' "size" in bytes. Three one-unit nodes on the line a - b - c split one per device
// (max-load 1), and the mapping is MapPutsTheHeavyEdgeOnTheFastLink's by hand: the 100 MB edge on the
// 10 GB/s link, 12 ms against the consecutive mapping's 101.1 ms.
TEST_F(CliTest, PartitionOnATopologyMapsTheWorkloadsStages) {
  spit(work_ / "line.json", kLine);
  const std::string workload = write("chain.json", R"({"maxSizePerFPGA": 1e9, "maxFPGAs": 3, "maxCPUs": 0,
    "nodes": [
      {"name": "a", "id": 0, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 0, "size": 0},
      {"name": "b", "id": 1, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 1, "size": 0},
      {"name": "c", "id": 2, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "colorClass": 2, "size": 0}],
    "edges": [{"sourceId": 0, "destId": 1, "cost": 0, "size": 1e6}, {"sourceId": 1, "destId": 2, "cost": 0, "size": 1e8}]})");
  RunResult r = run({"partition", workload, "--topology", (work_ / "line.json").string(), "--time-unit", "1e-3",
                     "--cpus", "0", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["maxLoad"], 1.0);
  const json& mapping = out["mapping"];
  EXPECT_DOUBLE_EQ(mapping["maxStageTime"].get<double>(), 1e-3 + 1e-3 + 1e-2);
  EXPECT_DOUBLE_EQ(mapping["consecutiveMaxStageTime"].get<double>(), 1e-3 + 1e-4 + 1e-1);
  EXPECT_EQ(mapping["status"], "optimal");
  // Each accelerator names its device: node a's on c, nodes b and c on a and b (the fast link).
  std::map<int, std::string> device_of_node;
  for (const json& fpga : out["fpgas"]) {
    ASSERT_EQ(fpga["nodes"].size(), 1u) << out.dump();
    device_of_node[fpga["nodes"][0]] = fpga["device"];
  }
  EXPECT_EQ(device_of_node[0], "c");
  EXPECT_EQ((std::set<std::string>{device_of_node[1], device_of_node[2]}), (std::set<std::string>{"a", "b"}));
  // Without a time unit, on a machine of two kinds, and a time unit without a topology: refused.
  EXPECT_EQ(run({"partition", workload, "--topology", (work_ / "line.json").string()}).exit_code, 2);
  r = run({"partition", workload, "--topology", "mixed-2xa100-2xv100", "--time-unit", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot be placed on a machine of several accelerator kinds"), std::string::npos) << r.err;
  EXPECT_EQ(run({"partition", workload, "--time-unit", "1"}).exit_code, 2);
}

}  // namespace map_cli_test
}  // namespace placer::testing
