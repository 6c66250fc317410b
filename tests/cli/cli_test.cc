// End-to-end tests of the onnx-placer command line: the real binary is run on small workloads
// written into a fresh temporary directory, and each test checks the exact exit status and that
// standard error names what is at fault (the file, the node id / edge index / line, the field).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_fixture.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace cli_test {

using nlohmann::json;

// A node object; `extra` is appended verbatim (e.g. R"(, "colorClass": 7)").
std::string node(int id, double cpu = 1, double fpga = 1, double size = 1, const std::string& extra = "") {
  std::ostringstream s;
  s << R"({"id": )" << id << R"(, "cpuLatency": )" << cpu << R"(, "fpgaLatency": )" << fpga << R"(, "size": )"
    << size << R"(, "supportedOnFpga": 1, "isBackwardNode": 0)" << extra << "}";
  return s.str();
}

std::string edge(int from, int to, double cost = 1) {
  std::ostringstream s;
  s << R"({"sourceId": )" << from << R"(, "destId": )" << to << R"(, "cost": )" << cost << "}";
  return s.str();
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ",\n    " : "") + items[i];
  return out;
}

std::string workload(const std::vector<std::string>& nodes, const std::vector<std::string>& edges,
                     double memory = 100, int accelerators = 2, int cpus = 1) {
  std::ostringstream s;
  s << "{\n  \"maxSizePerFPGA\": " << memory << ",\n  \"maxFPGAs\": " << accelerators
    << ",\n  \"maxCPUs\": " << cpus << ",\n  \"nodes\": [\n    " << joined(nodes)
    << "\n  ],\n  \"edges\": [\n    " << joined(edges) << "\n  ]\n}\n";
  return s.str();
}

// A valid three-node chain 1 -> 2 -> 3.
std::string chainWorkload() {
  return workload({node(1), node(2), node(3)}, {edge(1, 2), edge(2, 3)});
}

json parseOutput(const std::string& text) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(parsed.is_discarded()) << "not JSON:\n" << text;
  return parsed;
}

double maxLoadOf(const std::string& text) {
  json out = parseOutput(text);
  if (!out.is_object() || !out.contains("maxLoad") || !out["maxLoad"].is_number()) {
    ADD_FAILURE() << "no numeric \"maxLoad\" in:\n" << text;
    return std::nan("");
  }
  return out["maxLoad"].get<double>();
}

const std::string kBert = "throughput-inputs/LayerGraphs/bert24_inference.json";
const std::string kBertExpert = "human-experts/bert24_inference_expert.json";

// Asserts the exit code and that standard error contains every one of `parts`.
#define EXPECT_RUN(result, code, ...)                                                                        \
  do {                                                                                                       \
    const RunResult& r_ = (result);                                                                          \
    EXPECT_EQ(r_.exit_code, code) << "stderr: " << r_.err << "\nstdout: " << r_.out;                         \
    for (const std::string& part_ : std::initializer_list<std::string>{__VA_ARGS__}) {                       \
      EXPECT_TRUE(r_.err.find(part_) != std::string::npos) << "stderr lacks '" << part_ << "':\n" << r_.err; \
    }                                                                                                        \
  } while (0)

// ---- 1. malformed JSON -------------------------------------------------------------------------

TEST_F(CliTest, MalformedJsonNamesFileAndLine) {
  // Line 3 lacks the comma between two members.
  const std::string path = write("malformed.json",
                                 "{\n"
                                 "  \"maxSizePerFPGA\": 100,\n"
                                 "  \"maxFPGAs\": 1 \"maxCPUs\": 1,\n"
                                 "  \"nodes\": [], \"edges\": []\n"
                                 "}\n");
  RunResult r = run({"partition", path});
  EXPECT_RUN(r, 1, path + ":3:", "malformed JSON");
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CliTest, EmptyFileIsMalformedJson) {
  const std::string path = write("empty.json", "");
  EXPECT_RUN(run({"partition", path}), 1, path + ":1:", "malformed JSON");
}

TEST_F(CliTest, MissingFileIsBadInput) {
  const std::string path = (work_ / "does-not-exist.json").string();
  EXPECT_RUN(run({"partition", path}), 1, path, "cannot open");
}

// ---- 2. structure and required fields -------------------------------------------------------------

TEST_F(CliTest, WorkloadMustBeAnObject) {
  const std::string path = write("array.json", "[1, 2, 3]\n");
  EXPECT_RUN(run({"partition", path}), 1, path, "JSON object");
}

TEST_F(CliTest, MissingNodesField) {
  const std::string path =
      write("no-nodes.json", R"({"maxSizePerFPGA": 100, "maxFPGAs": 1, "maxCPUs": 1, "edges": []})");
  EXPECT_RUN(run({"partition", path}), 1, path, "\"nodes\"", "missing");
}

TEST_F(CliTest, MissingRequiredNodeFieldNamesNodeAndField) {
  const std::string path = write(
      "no-cpu-latency.json", workload({node(1), R"({"id": 7, "fpgaLatency": 1, "size": 1})"}, {edge(1, 7)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "node 7", "nodes[1]", "\"cpuLatency\"", "missing");
}

TEST_F(CliTest, WrongFieldTypeNamesNodeAndField) {
  const std::string path =
      write("string-latency.json", workload({R"({"id": 4, "cpuLatency": "3", "fpgaLatency": 1})"}, {}));
  EXPECT_RUN(run({"partition", path}), 1, path, "node 4", "\"cpuLatency\"", "number");
}

// ---- 3. cycles ------------------------------------------------------------------------------------

TEST_F(CliTest, CycleIsReportedWithItsNodes) {
  const std::string path =
      write("cycle.json", workload({node(1), node(2), node(3)}, {edge(1, 2), edge(2, 3), edge(3, 1)}));
  RunResult r = run({"partition", path});
  EXPECT_RUN(r, 1, path, "cycle");
  // Any rotation of the cycle is a fine report.
  const bool lists_cycle = r.err.find("1 -> 2 -> 3 -> 1") != std::string::npos ||
                           r.err.find("2 -> 3 -> 1 -> 2") != std::string::npos ||
                           r.err.find("3 -> 1 -> 2 -> 3") != std::string::npos;
  EXPECT_TRUE(lists_cycle) << r.err;
}

// ---- 4. dangling edges ----------------------------------------------------------------------------

TEST_F(CliTest, EdgeToMissingNodeNamesEdgeAndId) {
  const std::string path =
      write("dangling.json", workload({node(1), node(2), node(3)}, {edge(1, 2), edge(2, 42)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "edges[1]", "42", "destId");
}

TEST_F(CliTest, EdgeFromMissingNodeNamesEdgeAndId) {
  const std::string path = write("dangling-source.json", workload({node(1), node(2)}, {edge(77, 2)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "edges[0]", "77", "sourceId");
}

// ---- 5. negative values ---------------------------------------------------------------------------

TEST_F(CliTest, NegativeEdgeCost) {
  const std::string path =
      write("neg-cost.json", workload({node(1), node(2), node(3)}, {edge(1, 2), edge(2, 3, -1)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "edges[1]", "\"cost\"", "negative");
}

TEST_F(CliTest, NegativeCpuLatency) {
  const std::string path = write("neg-cpu.json", workload({node(1), node(5, -2)}, {edge(1, 5)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "node 5", "\"cpuLatency\"", "negative");
}

TEST_F(CliTest, NegativeSize) {
  const std::string path = write("neg-size.json", workload({node(5, 1, 1, -3), node(6)}, {edge(5, 6)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "node 5", "\"size\"", "negative");
}

TEST_F(CliTest, NegativeMemory) {
  const std::string path = write("neg-memory.json", workload({node(1)}, {}, -5));
  EXPECT_RUN(run({"partition", path}), 1, path, "\"maxSizePerFPGA\"", "negative");
}

// ---- 6. graph structure -----------------------------------------------------------------------------

TEST_F(CliTest, DuplicateNodeId) {
  const std::string path =
      write("duplicate.json", workload({node(1), node(2), node(3), node(2)}, {edge(1, 2)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "duplicate", "node 2", "nodes[3]");
}

TEST_F(CliTest, SelfLoop) {
  const std::string path = write("self-loop.json", workload({node(1), node(2)}, {edge(1, 2), edge(2, 2)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "self-loop", "edges[1]", "node 2");
}

TEST_F(CliTest, BackwardNodeFeedingForwardNode) {
  const std::string path = write(
      "backward.json",
      workload({node(1), node(2, 1, 1, 1, R"(, "isBackwardNode": 1)"), node(3)}, {edge(1, 2), edge(2, 3)}));
  EXPECT_RUN(run({"partition", path}), 1, path, "edges[1]", "backward node 2", "forward node 3");
}

// ---- 7. infeasible instances --------------------------------------------------------------------------

TEST_F(CliTest, NodeLargerThanMemoryWithoutCpus) {
  const std::string path = write(
      "too-big.json", workload({node(1), node(9, 1, 1, 500), node(3)}, {edge(1, 9), edge(9, 3)}, 100, 2, 0));
  RunResult r = run({"partition", path});
  EXPECT_RUN(r, 3, "infeasible", "node 9", "500", "100");
  EXPECT_TRUE(r.out.empty());
}

TEST_F(CliTest, UnsupportedNodeWithoutCpus) {
  const std::string path =
      write("unsupported.json",
            workload({node(1), node(9, 1, 1, 1, R"(, "supportedOnFpga": 0)")}, {edge(1, 9)}, 100, 2, 0));
  EXPECT_RUN(run({"partition", path}), 3, "infeasible", "node 9", "not supported");
}

TEST_F(CliTest, MemoryOverrideMakesInstanceInfeasible) {
  const std::string path = write("chain.json", chainWorkload());
  EXPECT_RUN(run({"partition", path, "--cpus", "0", "--memory", "0.5"}), 3, "infeasible", "node 1");
}

TEST_F(CliTest, ZeroDevices) {
  const std::string path = write("chain.json", chainWorkload());
  EXPECT_RUN(run({"partition", path, "--accelerators", "0", "--cpus", "0"}), 3, "infeasible", "no devices");
}

// ---- 8. usage errors --------------------------------------------------------------------------------

TEST_F(CliTest, UsageErrors) {
  const std::string path = write("chain.json", chainWorkload());
  struct Case {
    std::vector<std::string> args;
    std::string mentions;
  };
  const std::vector<Case> cases{
      {{"frobnicate", path}, "frobnicate"},
      {{"partition", path, "--bogus"}, "--bogus"},
      {{"partition", path, "-x"}, "-x"},
      {{"partition", path, "--algorithm", "foo"}, "foo"},
      {{"partition", path, "--overlap", "foo"}, "foo"},
      {{"evaluate", path, "--split", path, "--overlap", "foo"}, "foo"},
      {{"partition", path, "--accelerators", "-1"}, "--accelerators"},
      {{"partition", path, "--cpus", "5000"}, "--cpus"},
      {{"partition", path, "--accelerators", "2x"}, "--accelerators"},
      {{"partition", path, "--memory", "-5"}, "--memory"},
      {{"partition", path, "--max-ideals", "0"}, "--max-ideals"},
      {{"partition", path, "--accelerators"}, "--accelerators"},
      {{"partition", path, "--quiet=1"}, "--quiet"},
      {{"partition", path, "--cpus", "1", "--cpus", "2"}, "twice"},
      {{"partition"}, "WORKLOAD"},
      {{"partition", path, path}, "WORKLOAD"},
      {{"evaluate"}, "WORKLOAD"},
      {{"evaluate", path}, "--split"},
      {{"help", "frobnicate"}, "frobnicate"},
      {{}, "Usage"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    RunResult r = run(c.args);
    EXPECT_RUN(r, 2, c.mentions);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// ---- 9. nothing is lost -------------------------------------------------------------------------------

TEST_F(CliTest, FailingRunLeavesNoOutputFile) {
  const std::string bad = write("cycle.json", workload({node(1), node(2)}, {edge(1, 2), edge(2, 1)}));
  const std::string infeasible =
      write("too-big.json", workload({node(1), node(9, 1, 1, 500)}, {edge(1, 9)}, 100, 2, 0));
  const std::string out = (work_ / "OUT.json").string();
  EXPECT_RUN(run({"partition", bad, "-o", out}), 1, "cycle");
  EXPECT_RUN(run({"partition", infeasible, "--output", out}), 3, "infeasible");
  EXPECT_RUN(run({"partition", infeasible, "-o", out, "--overlap", "foo"}), 2, "foo");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(workFiles(), (std::set<std::string>{"cycle.json", "too-big.json"}));
}

TEST_F(CliTest, OutputOntoInputIsRefused) {
  const std::string text = chainWorkload();
  const std::string path = write("chain.json", text);
  RunResult r = run({"partition", path, "-o", path});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_EQ(slurp(path), text);
  // The same file under another spelling.
  const std::string other = (work_ / "." / "chain.json").string();
  EXPECT_NE(run({"partition", path, "--output", other}).exit_code, 0);
  EXPECT_EQ(slurp(path), text);
  EXPECT_EQ(workFiles(), (std::set<std::string>{"chain.json"}));
}

TEST_F(CliTest, EvaluateOutputOntoSplitIsRefused) {
  const std::string path = write("chain.json", chainWorkload());
  const std::string split_text = R"({"fpgas": [{"nodes": [1, 2]}, {"nodes": [3]}], "cpus": []})";
  const std::string split = write("split.json", split_text);
  EXPECT_NE(run({"evaluate", path, "--split", split, "-o", split}).exit_code, 0);
  EXPECT_EQ(slurp(split), split_text);
  EXPECT_EQ(workFiles(), (std::set<std::string>{"chain.json", "split.json"}));
}

TEST_F(CliTest, OutputIsWrittenAndDeterministic) {
  const std::string input = (work_ / "bert24_inference.json").string();
  fs::copy_file(workloadPath(kBert), input);
  const std::string out1 = (work_ / "OUT.json").string(), out2 = (work_ / "OUT2.json").string();
  RunResult r = run({"partition", input, "-o", out1});
  EXPECT_RUN(r, 0);
  EXPECT_TRUE(r.out.empty()) << r.out;
  ASSERT_TRUE(fs::exists(out1));
  const std::string first = slurp(out1);
  json parsed = parseOutput(first);
  EXPECT_TRUE(parsed.contains("maxLoad")) << first;
  EXPECT_EQ(fs::status(out1).permissions() & fs::perms::others_read, fs::perms::others_read);

  EXPECT_RUN(run({"partition", input, "-o", out2, "-q"}), 0);
  EXPECT_EQ(slurp(out2), first);
  // Overwriting an existing output gives the same bytes again.
  EXPECT_RUN(run({"partition", input, "-o", out1, "-q"}), 0);
  EXPECT_EQ(slurp(out1), first);
  // And standard output carries exactly what the file does.
  EXPECT_EQ(run({"partition", input, "-q"}).out, first);
  EXPECT_EQ(workFiles(), (std::set<std::string>{"bert24_inference.json", "OUT.json", "OUT2.json"}));
}

// ---- 10. successful partition ------------------------------------------------------------------------

TEST_F(CliTest, PartitionBert24) {
  const std::string input = workloadPath(kBert).string();
  RunResult r = run({"partition", input});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = parseOutput(r.out);
  ASSERT_TRUE(out.is_object());
  const double expected = 17.78990625;
  const double max_load = out.value("maxLoad", 0.0);
  EXPECT_NEAR(max_load, expected, 1e-9 * expected);
  ASSERT_TRUE(out.contains("fpgas") && out["fpgas"].is_array());
  ASSERT_TRUE(out.contains("cpus") && out["cpus"].is_array());
  EXPECT_EQ(out["fpgas"].size(), 6u);
  EXPECT_EQ(out["cpus"].size(), 1u);
  EXPECT_NE(r.err.find("max-load"), std::string::npos) << r.err;

  // Every workload node is placed exactly once, and the max-load is the largest device load.
  json workload_json = json::parse(slurp(input));
  std::multiset<int> placed;
  double largest = 0;
  for (const char* kind : {"fpgas", "cpus"}) {
    for (const json& device : out[kind]) {
      largest = std::max(largest, device.value("load", 0.0));
      for (const json& id : device["nodes"])
        placed.insert(id.get<int>());
    }
  }
  std::multiset<int> ids;
  for (const json& n : workload_json["nodes"])
    ids.insert(n["id"].get<int>());
  EXPECT_EQ(placed, ids);
  EXPECT_NEAR(largest, max_load, 1e-9 * expected);
}

TEST_F(CliTest, PartitionOptionsOnBert24) {
  const std::string input = workloadPath(kBert).string();
  const double dp = maxLoadOf(run({"partition", input, "-q"}).out);

  RunResult dpl = run({"partition", input, "--algorithm", "dpl"});
  ASSERT_EQ(dpl.exit_code, 0) << dpl.err;
  EXPECT_GE(maxLoadOf(dpl.out), dp * (1 - 1e-12));  // dp is optimal
  EXPECT_EQ(parseOutput(dpl.out)["solver"].value("algorithm", ""), "dpl");

  RunResult overlap = run({"partition", input, "--overlap", "max", "-q"});
  ASSERT_EQ(overlap.exit_code, 0) << overlap.err;
  EXPECT_LE(maxLoadOf(overlap.out), dp * (1 + 1e-12));

  RunResult duplex = run({"partition", input, "--overlap=duplex", "-q"});
  ASSERT_EQ(duplex.exit_code, 0) << duplex.err;
  EXPECT_LE(maxLoadOf(duplex.out), maxLoadOf(overlap.out) * (1 + 1e-12));

  RunResult two = run({"partition", input, "--accelerators", "2", "-q"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_GE(maxLoadOf(two.out), dp * (1 - 1e-12));
  EXPECT_EQ(parseOutput(two.out)["fpgas"].size(), 2u);

  RunResult quiet = run({"partition", input, "--quiet"});
  EXPECT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err, "");
  EXPECT_NEAR(maxLoadOf(quiet.out), dp, 1e-12 * dp);

  RunResult logged = run({"partition", input, "--log", "--verify-each", "--max-ideals", "1000000"});
  EXPECT_EQ(logged.exit_code, 0) << logged.err;
  EXPECT_NE(logged.err.find("pass"), std::string::npos) << logged.err;
  EXPECT_NEAR(maxLoadOf(logged.out), dp, 1e-12 * dp);
}

// ---- 11. evaluate ---------------------------------------------------------------------------------------

// Nodes 1 and 2 are colocated (class 7); 2 and 3 do not fit on one accelerator together.
std::string evaluateWorkload() {
  return workload({node(1, 1, 1, 1, R"(, "colorClass": 7)"), node(2, 1, 1, 60, R"(, "colorClass": 7)"),
                   node(3, 1, 1, 60)},
                  {edge(1, 2), edge(2, 3)});
}

TEST_F(CliTest, EvaluateValidSplit) {
  const std::string path = write("w.json", evaluateWorkload());
  const std::string split =
      write("split.json", R"({"fpgas": [{"nodes": [1, 2]}, {"nodes": [3]}], "cpus": []})");
  RunResult r = run({"evaluate", path, "--split", split});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = parseOutput(r.out);
  EXPECT_EQ(out.value("valid", false), true);
  EXPECT_TRUE(out["violations"].is_array() && out["violations"].empty());
  EXPECT_NEAR(out.value("maxLoad", 0.0), 3.0, 1e-12);
}

TEST_F(CliTest, EvaluateSplitWithUnknownNode) {
  const std::string path = write("w.json", evaluateWorkload());
  const std::string split = write("split.json", R"({"fpgas": [{"nodes": [1, 2]}, {"nodes": [3, 99]}]})");
  EXPECT_RUN(run({"evaluate", path, "--split", split}), 1, split, "fpgas[1]", "99");
}

TEST_F(CliTest, EvaluateSplitListingNodeTwice) {
  const std::string path = write("w.json", evaluateWorkload());
  const std::string split = write("split.json", R"({"fpgas": [{"nodes": [1, 2]}, {"nodes": [3, 2]}]})");
  EXPECT_RUN(run({"evaluate", path, "--split", split}), 1, split, "node 2", "twice");
}

TEST_F(CliTest, EvaluateSplitWithTooManyAccelerators) {
  const std::string path = write("w.json", evaluateWorkload());
  const std::string split =
      write("split.json", R"({"fpgas": [{"nodes": [1, 2]}, {"nodes": []}, {"nodes": [3]}]})");
  EXPECT_RUN(run({"evaluate", path, "--split", split}), 1, split, "fpgas[2]", "2");
  // The same split is fine with a third accelerator.
  EXPECT_RUN(run({"evaluate", path, "--split", split, "--accelerators", "3", "-q"}), 0);
}

TEST_F(CliTest, EvaluateSplitSeparatingColocatedNodes) {
  const std::string path = write("w.json", evaluateWorkload());
  const std::string split =
      write("split.json", R"({"fpgas": [{"nodes": [1]}, {"nodes": [2]}], "cpus": [{"nodes": [3]}]})");
  RunResult r = run({"evaluate", path, "--split", split});
  EXPECT_RUN(r, 3, "violation", "node 2", "node 1");
  json out = parseOutput(r.out);
  EXPECT_EQ(out.value("valid", true), false);
  ASSERT_TRUE(out["violations"].is_array());
  ASSERT_EQ(out["violations"].size(), 1u) << out.dump();
  EXPECT_NE(out["violations"][0].get<std::string>().find("separated"), std::string::npos);
}

TEST_F(CliTest, EvaluateSplitExceedingMemory) {
  const std::string path = write("w.json", evaluateWorkload());
  const std::string split = write("split.json", R"({"fpgas": [{"nodes": [1, 2, 3]}], "cpus": []})");
  const std::string out_path = (work_ / "result.json").string();
  RunResult r = run({"evaluate", path, "--split", split, "-o", out_path});
  EXPECT_RUN(r, 3, "violation", "accelerator 0");
  // An invalid split is still reported in full.
  ASSERT_TRUE(fs::exists(out_path));
  json out = parseOutput(slurp(out_path));
  EXPECT_EQ(out.value("valid", true), false);
  ASSERT_TRUE(out["violations"].is_array());
  ASSERT_EQ(out["violations"].size(), 1u) << out.dump();
  EXPECT_NE(out["violations"][0].get<std::string>().find("bytes"), std::string::npos);
}

TEST_F(CliTest, EvaluateHumanExpertSplit) {
  RunResult r =
      run({"evaluate", workloadPath(kBert).string(), "--split", workloadPath(kBertExpert).string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = parseOutput(r.out);
  EXPECT_EQ(out.value("valid", false), true);
  EXPECT_NEAR(out.value("maxLoad", 0.0), 20.084, 1e-4 * 20.084);
  // No better than the optimum.
  EXPECT_GE(out.value("maxLoad", 0.0), 17.78990625);
}

// ---- 12. help and version ------------------------------------------------------------------------------

TEST_F(CliTest, HelpAndVersion) {
  const std::vector<std::string> partition_options{
      "--algorithm", "ip-noncontig", "--objective", "--time-limit", "--mip-gap", "--subgraphs-per-accelerator",
      "--gpipe", "--overlap", "none|max|duplex", "--accelerators", "--cpus",
      "--memory",    "-o",     "--output",  "--pipeline",      "--max-ideals",   "--verify-each",
      "--log",       "-q",     "--quiet"};
  const std::vector<std::string> evaluate_options{
      "--split", "--objective", "--overlap", "--accelerators", "--cpus", "--memory", "-o", "--output", "-q", "--quiet"};
  const std::vector<std::string> main_topics{"partition", "evaluate", "help", "--version", "Exit status"};
  struct Case {
    std::vector<std::string> args;
    const std::vector<std::string>* mentions;
  };
  const std::vector<Case> cases{
      {{"help"}, &main_topics},
      {{"--help"}, &main_topics},
      {{"-h"}, &main_topics},
      {{"help", "partition"}, &partition_options},
      {{"partition", "--help"}, &partition_options},
      {{"help", "evaluate"}, &evaluate_options},
      {{"evaluate", "--help"}, &evaluate_options},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    RunResult r = run(c.args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
    for (const std::string& option : *c.mentions) {
      EXPECT_NE(r.out.find(option), std::string::npos) << "help lacks " << option << ":\n" << r.out;
    }
  }
  RunResult version = run({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("onnx-placer ", 0), 0u) << version.out;
  EXPECT_NE(version.out.find_first_of("0123456789"), std::string::npos) << version.out;
}

// ---- Known product bugs (see the report); enable once fixed ------------------------------------------

// parseSplit reads node ids with get<int>(), so 4294967297 wraps to 1 and is accepted as node 1.
TEST_F(CliTest, SplitNodeIdBeyondIntIsRejected) {
  const std::string path = write("w.json", evaluateWorkload());
  const std::string split = write("split.json", R"({"fpgas": [{"nodes": [4294967297, 2]}, {"nodes": [3]}]})");
  EXPECT_RUN(run({"evaluate", path, "--split", split}), 1, split, "4294967297");
}

// FieldReader::integer accepts booleans for every integer field, so "id": true is node 1.
TEST_F(CliTest, BooleanNodeIdIsRejected) {
  const std::string path =
      write("bool-id.json", workload({R"({"id": true, "cpuLatency": 1, "fpgaLatency": 1})"}, {}));
  EXPECT_RUN(run({"partition", path}), 1, path, "\"id\"", "integer");
}

// "maxFPGAs": 1e20 is cast to long long out of range (undefined behaviour); the message says
// "must be non-negative" instead of naming the 4096 limit.
TEST_F(CliTest, HugeDeviceCountNamesTheLimit) {
  const std::string path = write(
      "huge.json", R"({"maxSizePerFPGA": 100, "maxFPGAs": 1e20, "maxCPUs": 1, "nodes": [], "edges": []})");
  EXPECT_RUN(run({"partition", path}), 1, path, "maxFPGAs", "4096");
}

// Option values (--overlap, --accelerators, ...) are only checked after the workload is read, so a
// bad command line with a missing workload exits 1 instead of 2.
TEST_F(CliTest, BadOptionValueIsUsageErrorEvenWithMissingWorkload) {
  const std::string missing = (work_ / "missing.json").string();
  EXPECT_RUN(run({"partition", missing, "--overlap", "foo"}), 2, "foo");
  EXPECT_RUN(run({"partition", missing, "--accelerators", "-1"}), 2, "--accelerators");
}

// An unknown pass in --pipeline is a command-line error but exits 4 (solver failure).
TEST_F(CliTest, UnknownPassIsUsageError) {
  const std::string path = write("chain.json", chainWorkload());
  EXPECT_RUN(run({"partition", path, "--pipeline", "bogus"}), 2, "bogus");
}

}  // namespace cli_test
}  // namespace placer::testing
