// The command line of the order search and of auto: generate writes a workload partition reads, the
// same seed gives the same output whatever --threads, auto is the default and says what answered,
// and bad --orders, --seed, --threads and generate options are usage errors (exit 2) naming them.
#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace search_cli_test {

nlohmann::ordered_json parse(const std::string& text) {
  return nlohmann::ordered_json::parse(text);
}

TEST_F(CliTest, GenerateWritesAWorkloadThatPartitions) {
  const fs::path graph = write("graph.json", "");
  RunResult r = run({"generate", "--model", "ba", "--nodes", "300", "--seed", "4", "-o", graph.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult again = run({"generate", "--model", "ba", "--nodes", "300", "--seed", "4"});
  EXPECT_EQ(again.out, slurp(graph));
  r = run({"partition", graph.string(), "--algorithm", "dpl", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(parse(r.out)["maxLoad"].get<double>(), 0.0);
  for (std::vector<std::string> bad : {std::vector<std::string>{"--nodes", "1"},
                                       {"--model", "gnp"},
                                       {"--degree", "0"},
                                       {"--nodes", "5", "--degree", "9"},
                                       {"extra.json"}}) {
    std::vector<std::string> args{"generate"};
    args.insert(args.end(), bad.begin(), bad.end());
    RunResult e = run(args);
    EXPECT_EQ(e.exit_code, 2) << bad.front() << ": " << e.err;
  }
}

TEST_F(CliTest, SliceGraphIsReproducibleAcrossThreadCounts) {
  const fs::path graph = write("graph.json", "");
  ASSERT_EQ(run({"generate", "--nodes", "400", "--seed", "2", "-o", graph.string()}).exit_code, 0);
  std::string first;
  for (const char* threads : {"1", "2", "3"}) {
    RunResult r = run({"partition", graph.string(), "--algorithm", "slicegraph", "--orders",
                       "mla,random:64,brkga:20:5", "--seed", "9", "--threads", threads, "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    if (first.empty()) first = r.out;
    EXPECT_EQ(r.out, first) << threads << " threads";
  }
  nlohmann::ordered_json j = parse(first);
  EXPECT_EQ(j["status"], "feasible");
  EXPECT_EQ(j["solver"]["algorithm"], "slicegraph");
  EXPECT_GT(j["solver"]["orders"].get<int>(), 100);
}

TEST_F(CliTest, AutoIsTheDefaultAndSaysWhatAnswered) {
  RunResult r =
      run({"partition", workloadPath("throughput-inputs/LayerGraphs/bert24_inference.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = parse(r.out);
  EXPECT_NEAR(j["maxLoad"].get<double>(), 17.78990625, 1e-9);
  EXPECT_EQ(j["status"], "optimal");
  EXPECT_EQ(j["solver"]["algorithm"], "auto");
  EXPECT_EQ(j["solver"]["chosen"], "dp");
  EXPECT_NE(r.err.find("auto -> dp"), std::string::npos) << r.err;
}

TEST_F(CliTest, AnExactDpOutOfTimeAnswersWithDplsSplitAndSaysSo) {
  // Layer InceptionV3 training: 36,596 ideals, seconds of DP; a quarter of a second is not enough.
  const std::string w = workloadPath("throughput-inputs/LayerGraphs/inceptionv3_training.json").string();
  RunResult r = run({"partition", w, "--algorithm", "dp", "--time-limit", "0.25", "--threads", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = parse(r.out);
  EXPECT_EQ(j["status"], "time-limit");
  RunResult dpl = run({"partition", w, "--algorithm", "dpl", "-q"});
  ASSERT_EQ(dpl.exit_code, 0) << dpl.err;
  EXPECT_EQ(j["maxLoad"], parse(dpl.out)["maxLoad"]) << "DPL's split, the best complete one at hand";
  EXPECT_NE(r.err.find("time-limit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("DPL's split"), std::string::npos) << r.err;
}

TEST_F(CliTest, SearchOptionsAreCheckedOnTheCommandLine) {
  const std::string w = workloadPath("throughput-inputs/LayerGraphs/bert24_inference.json").string();
  for (std::vector<std::string> bad : {std::vector<std::string>{"--orders", "random"},
                                       {"--orders", "brkga:10"},
                                       {"--seed", "-1"},
                                       {"--threads", "0"},
                                       {"--algorithm", "slicegraphs"}}) {
    std::vector<std::string> args{"partition", w};
    args.insert(args.end(), bad.begin(), bad.end());
    RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << bad.front();
    EXPECT_NE(r.err.find(bad.front()), std::string::npos) << r.err;
  }
}

}  // namespace search_cli_test
}  // namespace placer::testing

namespace placer::testing {
namespace search_cli_test {

// Issue 31's options: cluster-dp as an algorithm, the refine and cluster passes in a pipeline, and the
// checks of --target-ratio, --cluster-target and --alpha.
TEST_F(CliTest, ClusterDpRefineAndTheirOptionsOnTheCommandLine) {
  const std::string w = workloadPath("throughput-inputs/OperatorGraphs/bert_l-6_training.json").string();
  RunResult r =
      run({"partition", w, "--algorithm", "cluster-dp", "--cluster-target", "80", "--alpha", "0.01"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::ordered_json j = parse(r.out);
  EXPECT_EQ(j["solver"]["algorithm"], "cluster-dp");
  EXPECT_EQ(j["status"], "feasible");
  EXPECT_GE(j["maxLoad"].get<double>(), 72.8649663224 * (1 - 1e-9));  // never below the DP's optimum
  EXPECT_LE(j["maxLoad"].get<double>(), 72.8649663224 * 1.03);
  EXPECT_GT(j["lowerBound"].get<double>(), 0);  // its reductions are exact: certified as any solver

  // A pipeline that refines ip-noncontig's split, and one with the lossy cluster pass: no certificate.
  RunResult refined = run({"partition", w, "--time-limit", "2", "--pipeline",
                           "subdivide,colocate,partition=ip-noncontig,refine,certify,expand", "--log"});
  ASSERT_EQ(refined.exit_code, 0) << refined.err;
  EXPECT_NE(refined.err.find("refine"), std::string::npos) << refined.err;
  EXPECT_LE(parse(refined.out)["maxLoad"].get<double>(), 72.8649663224 * (1 + 1e-9));
  RunResult lossy =
      run({"partition", w, "--pipeline",
           "subdivide,colocate,orphans,scc,fold-leaves,cluster=60,partition=dp,certify,expand"});
  ASSERT_EQ(lossy.exit_code, 0) << lossy.err;
  EXPECT_EQ(parse(lossy.out)["status"], "feasible");

  for (std::vector<std::string> bad : {std::vector<std::string>{"--target-ratio", "0.9"},
                                       {"--target-ratio", "inf"},
                                       {"--cluster-target", "0"},
                                       {"--alpha", "-1"}}) {
    std::vector<std::string> args{"partition", w};
    args.insert(args.end(), bad.begin(), bad.end());
    RunResult e = run(args);
    EXPECT_EQ(e.exit_code, 2) << bad.front();
    EXPECT_NE(e.err.find(bad.front()), std::string::npos) << e.err;
  }
  // The default time limit is auto's 8 s, and a looser --target-ratio is accepted.
  RunResult quick = run({"partition", w, "--target-ratio", "1.5", "-q"});
  ASSERT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_LE(parse(quick.out)["maxLoad"].get<double>(),
            1.5 * parse(quick.out)["lowerBound"].get<double>() + 1e-9);
}

}  // namespace search_cli_test
}  // namespace placer::testing
