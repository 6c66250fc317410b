// Outputs all or nothing, and signals: a run that fails or is interrupted (SIGINT, SIGTERM) leaves no
// output, no temporary file and no partial stage directory, and destinations keep what they held; a
// stage directory is replaced whole (no stale stage files), a directory of other files only with
// --force; the model named as an output is refused before any work; costs that overflow are
// reported as such; the time limit covers the whole solve.
#include <gtest/gtest.h>
#include <onnx/defs/parser.h>
#include <onnx/onnx_pb.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace outputs_test {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class Outputs : public CliTest {
 protected:
  std::set<std::string> stageFiles(const fs::path& dir) const {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
      names.insert(entry.path().filename().string());
    return names;
  }

  // True once any entry of work/ has a temporary name of an output being written.
  bool writing() const {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(work_, ec)) {
      if (entry.path().filename().string().find(".tmp-") != std::string::npos) return true;
    }
    return false;
  }

  // A model with one MatMul reading a 3072 x 4096 float weight (48 MiB of initializer data), so
  // that writing its annotated copy and its stage takes long enough to be interrupted.
  std::string heavyModel() {
    onnx::ModelProto proto;
    auto status = onnx::OnnxParser::Parse(proto, R"(
      <ir_version: 8, opset_import: ["" : 13]>
      heavy (float[1, 3072] x) => (float[1, 4096] y) { y = MatMul(x, w) }
    )");
    EXPECT_TRUE(status.IsOK()) << status.ErrorMessage();
    onnx::TensorProto* w = proto.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(3072);
    w->add_dims(4096);
    w->set_raw_data(std::string(std::size_t{3072} * 4096 * 4, '\x01'));
    return write("heavy.onnx", proto.SerializeAsString());
  }
};

TEST_F(Outputs, AStageDirectoryIsReplacedWholeWithoutStaleStages) {
  const fs::path stages = work_ / "stages";
  RunResult first = run({"place", model("resnet50_light.onnx"), "--accelerators", "4", "--cpus", "0",
                         "--stages-dir", stages.string(), "-q"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(stageFiles(stages), (std::set<std::string>{"pipeline.json", "stage0.onnx", "stage1.onnx",
                                                       "stage2.onnx", "stage3.onnx"}));
  RunResult second = run({"place", model("resnet50_light.onnx"), "--accelerators", "2", "--cpus", "0",
                          "--stages-dir", stages.string(), "-q"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(stageFiles(stages), (std::set<std::string>{"pipeline.json", "stage0.onnx", "stage1.onnx"}));
  EXPECT_EQ(workFiles(), (std::set<std::string>{"stages"})) << "no temporary or set-aside copies remain";
}

TEST_F(Outputs, ADirectoryOfOtherFilesIsReplacedOnlyWithForce) {
  const fs::path stages = work_ / "mine";
  fs::create_directories(stages);
  spit(stages / "notes.txt", "keep me");
  RunResult refused = run({"place", model("light_squeezenet.onnx"), "--stages-dir", stages.string(), "-o",
                           (work_ / "out.onnx").string(), "-q"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("notes.txt"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("--force"), std::string::npos) << refused.err;
  EXPECT_EQ(slurp(stages / "notes.txt"), "keep me");
  EXPECT_EQ(workFiles(), (std::set<std::string>{"mine"}));

  RunResult forced =
      run({"place", model("light_squeezenet.onnx"), "--stages-dir", stages.string(), "--force", "-q"});
  ASSERT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_FALSE(fs::exists(stages / "notes.txt"));
  EXPECT_TRUE(fs::exists(stages / "pipeline.json"));
}

TEST_F(Outputs, ADirectoryHoldingTheInputIsNeverReplaced) {
  const fs::path stages = work_ / "stages";
  fs::create_directories(stages);
  fs::copy_file(model("light_squeezenet.onnx"), stages / "model.onnx");
  RunResult r =
      run({"place", (stages / "model.onnx").string(), "--stages-dir", stages.string(), "--force", "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("input"), std::string::npos) << r.err;
  EXPECT_EQ(stageFiles(stages), (std::set<std::string>{"model.onnx"}));
}

// Refused before the model is even read (no costs line): an output naming the model, and a
// directory to replace that holds it, with or without --force.
TEST_F(Outputs, TheModelAsAnOutputIsRefusedBeforeAnyWork) {
  const fs::path input = work_ / "model.onnx";
  fs::copy_file(model("light_squeezenet.onnx"), input);
  const std::string bytes = slurp(input);
  for (const std::vector<std::string>& outputs :
       {std::vector<std::string>{"-o", input.string()}, {"--report", (work_ / "." / "model.onnx").string()},
        {"--stages-dir", work_.string(), "--force"}, {"--emit", "triton=" + work_.string(), "--force"}}) {
    std::vector<std::string> args{"place", input.string()};
    args.insert(args.end(), outputs.begin(), outputs.end());
    RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 1) << outputs[0];
    EXPECT_NE(r.err.find(outputs[0] == "-o" || outputs[0] == "--report" ? "it is an input file"
                                                                      : "it holds the input file"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("costs:"), std::string::npos) << "refused only after loading the model: " << r.err;
    EXPECT_EQ(slurp(input), bytes);
    EXPECT_EQ(workFiles(), (std::set<std::string>{"model.onnx"}));
  }
}

TEST_F(Outputs, AFailingLaterOutputLeavesEveryDestinationAsItWas) {
  const std::string out = write("out.onnx", "an earlier run's model");
  const fs::path stages = work_ / "stages";
  // The report's directory does not exist: found only after the model and stages are staged.
  RunResult r = run({"place", model("light_squeezenet.onnx"), "-o", out, "--stages-dir", stages.string(),
                     "--report", (work_ / "missing" / "report.json").string(), "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out), "an earlier run's model");
  EXPECT_EQ(workFiles(), (std::set<std::string>{"out.onnx"})) << "no stages, temporary files or copies";

  // A report path that is a directory fails the same way.
  fs::create_directories(work_ / "report.json");
  r = run({"place", model("light_squeezenet.onnx"), "-o", out, "--stages-dir", stages.string(), "--report",
           (work_ / "report.json").string(), "-q"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(slurp(out), "an earlier run's model");
  EXPECT_EQ(workFiles(), (std::set<std::string>{"out.onnx", "report.json"}));
  EXPECT_TRUE(fs::is_empty(work_ / "report.json"));
}

TEST_F(Outputs, SigintDuringTheWritePhaseLeavesNothing) {
  const std::string input = heavyModel();
  const std::string out = (work_ / "out.onnx").string(), stages = (work_ / "stages").string();
  int interrupted = 0;
  for (int attempt = 0; attempt < 5 && interrupted == 0; ++attempt) {
    Running running = start({"place", input, "--accelerators", "2", "-o", out, "--stages-dir", stages,
                             "--report", (work_ / "report.json").string(), "-q"});
    const auto t0 = Clock::now();
    while (!writing() && secondsSince(t0) < 60 && ::waitpid(running.pid, nullptr, WNOHANG) == 0)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    ::kill(running.pid, SIGINT);
    RunResult r = finish(running);
    if (r.exit_code == 0) {
      // The signal came after the commit: every output is there.
      EXPECT_EQ(workFiles(), (std::set<std::string>{"heavy.onnx", "out.onnx", "stages", "report.json"}));
      for (const char* name : {"out.onnx", "stages", "report.json"})
        fs::remove_all(work_ / name);
      continue;
    }
    ++interrupted;
    EXPECT_EQ(r.exit_code, 130) << r.err;
    EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
    EXPECT_EQ(workFiles(), (std::set<std::string>{"heavy.onnx"})) << "no output and no temporary file";
  }
  EXPECT_GT(interrupted, 0) << "every run finished before the signal";
}

TEST_F(Outputs, SigintOrSigtermDuringASolveStopsPromptlyAndWritesNothing) {
  const std::string workload =
      workloadPath("throughput-inputs/OperatorGraphs/bert_l-12_inference.json").string();
  for (int sig : {SIGINT, SIGTERM}) {
    Running running = start({"partition", workload, "--algorithm", "ip-noncontig", "--time-limit", "120",
                             "-o", (work_ / "split.json").string(), "-q"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const auto signalled = Clock::now();
    ::kill(running.pid, sig);
    RunResult r = finish(running);
    // GLPK looks at the stop flag between branch-and-cut steps; one step (a node's LP) can take a
    // few seconds on this program.
    EXPECT_LT(secondsSince(signalled), 15.0);
    EXPECT_EQ(r.exit_code, 128 + sig) << r.err;
    EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
    EXPECT_TRUE(workFiles().empty());
  }
  // place: the same during its solve, with three outputs asked for.
  Running running = start({"place", model("bert_base_l12_light.onnx"), "--algorithm", "ip-noncontig",
                           "--time-limit", "120", "-o", (work_ / "out.onnx").string(), "--stages-dir",
                           (work_ / "stages").string(), "--report", (work_ / "report.json").string(), "-q"});
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ::kill(running.pid, SIGINT);
  RunResult r = finish(running);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_TRUE(workFiles().empty());

  // bound: interrupted in its integer program, it reports nothing.
  Running bounding = start({"bound", workload, "--space", "any", "--method", "exact", "--time-limit", "120", "-o",
                            (work_ / "bound.json").string(), "-q"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(bounding.pid, SIGINT);
  RunResult b = finish(bounding);
  EXPECT_EQ(b.exit_code, 130) << b.err;
  EXPECT_NE(b.err.find("nothing was written"), std::string::npos) << b.err;
  EXPECT_TRUE(workFiles().empty());
}

TEST_F(Outputs, CostsThatOverflowAreReportedAsSuch) {
  const std::string workload =
      write("overflow.json", R"({"maxSizePerFPGA": 1e308, "maxFPGAs": 2, "maxCPUs": 0,
    "nodes": [
      {"name": "a", "id": 1, "supportedOnFpga": 1, "cpuLatency": 1e308, "fpgaLatency": 1e308, "isBackwardNode": 0, "colorClass": 1, "size": 1e3},
      {"name": "b", "id": 2, "supportedOnFpga": 1, "cpuLatency": 1e308, "fpgaLatency": 1e308, "isBackwardNode": 0, "colorClass": 2, "size": 1e3}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 1.0}]})");
  for (std::vector<std::string> extra :
       std::vector<std::vector<std::string>>{{"--algorithm", "dp"},
                                             {"--algorithm", "ip"},
                                             {"--algorithm", "ip-noncontig"},
                                             {"--objective", "latency", "--algorithm", "greedy"},
                                             {"--objective", "latency", "--algorithm", "ip"}}) {
    std::vector<std::string> args{"partition", workload, "-o", (work_ / "split.json").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = run(args);
    EXPECT_EQ(r.exit_code, 1) << extra[1] << ": " << r.err;
    EXPECT_NE(r.err.find("overflow.json: the costs overflow: the accelerator times add up"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("node 1 \"a\""), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(work_ / "split.json"));
  }
}

TEST_F(Outputs, NumbersTheMipSolverCannotTakeAreAnErrorNotAnAbort) {
  const std::string workload = write("huge.json", R"({"maxSizePerFPGA": 1e9, "maxFPGAs": 2, "maxCPUs": 0,
    "nodes": [
      {"name": "a", "id": 1, "supportedOnFpga": 1, "cpuLatency": 1e200, "fpgaLatency": 1e200, "isBackwardNode": 0, "colorClass": 1, "size": 1e3},
      {"name": "b", "id": 2, "supportedOnFpga": 1, "cpuLatency": 1e200, "fpgaLatency": 1e200, "isBackwardNode": 0, "colorClass": 2, "size": 1e3}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 1.0}]})");
  RunResult dp = run({"partition", workload});
  EXPECT_EQ(dp.exit_code, 0) << dp.err;  // the DP has no trouble with them
  RunResult ip = run({"partition", workload, "--algorithm", "ip-noncontig"});
  EXPECT_EQ(ip.exit_code, 4) << ip.err;
  EXPECT_NE(ip.err.find("outside the range the MIP solver takes"), std::string::npos) << ip.err;
}

TEST_F(Outputs, TheTimeLimitCoversTheWholeSolve) {
  // op BERT-12 inference: the DP start, the local search and the program's build used to run before
  // the clock started (12-20 s at a 10 s limit). bench/ip_bench prints the overrun on every workload;
  // here a loose bound, as the machine may be busy with other tests.
  const std::string workload =
      workloadPath("throughput-inputs/OperatorGraphs/bert_l-12_inference.json").string();
  const auto t0 = Clock::now();
  RunResult r = run({"partition", workload, "--algorithm", "ip-noncontig", "--time-limit", "3", "-q"});
  const double wall = secondsSince(t0);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(wall, 3 * 1.05 + 4) << "time limit 3 s";
  EXPECT_NE(r.out.find("\"status\": \"feasible\""), std::string::npos) << r.out.substr(0, 300);
}

}  // namespace outputs_test
}  // namespace placer::testing
