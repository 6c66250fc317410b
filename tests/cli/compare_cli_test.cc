// onnx-placer compare end to end: the reports over a small zoo (Markdown, JSON, JUnit XML checked
// against the schema's rules, SVG parsed and rendered), --baseline's marks and exit status for an
// injected value regression, slowdown and failure, cases that crash, hang or run out of memory, and
// shards merged back into the whole run.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_fixture.h"

namespace placer::testing {
namespace compare_cli_test {

const fs::path kData = ONNX_PLACER_TEST_DATA_DIR;

// Runs a program through the shell; its exit status.
int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class CompareTest : public CliTest {
 protected:
  // A zoo of two models and two workloads (one with an expert split).
  fs::path makeZoo() {
    const fs::path zoo = work_ / "zoo";
    fs::create_directories(zoo / "models");
    fs::create_directories(zoo / "workloads/throughput-inputs/LayerGraphs");
    fs::create_directories(zoo / "workloads/human-experts");
    fs::copy_file(kData / "models/light_squeezenet.onnx", zoo / "models/light_squeezenet.onnx");
    fs::copy_file(kData / "models/light_bvlc_alexnet.onnx", zoo / "models/light_bvlc_alexnet.onnx");
    for (const char* w : {"bert24_inference.json", "resnet50_inference.json"}) {
      fs::copy_file(kData / "workloads/throughput-inputs/LayerGraphs" / w,
                    zoo / "workloads/throughput-inputs/LayerGraphs" / w);
    }
    fs::copy_file(kData / "workloads/human-experts/bert24_inference_expert.json",
                  zoo / "workloads/human-experts/bert24_inference_expert.json");
    return zoo;
  }

  // A stand-in for onnx-placer that misbehaves on the inputs whose names say so, and runs the real
  // one on the others.
  std::string wrapper(const std::string& extra_cases = "") {
    const std::string path =
        write("placer.sh", "#!/bin/bash\ncase \"$2\" in\n" + extra_cases + "esac\nexec '" +
                               std::string(ONNX_PLACER_CLI) + "' \"$@\"\n");
    chmod(path.c_str(), 0755);
    return path;
  }

  nlohmann::json readJson(const fs::path& path) { return nlohmann::json::parse(slurp(path)); }

  // (model, algorithm, outcome, value) of each case, in order.
  std::vector<std::string> caseKeys(const nlohmann::json& report) {
    std::vector<std::string> keys;
    for (const auto& c : report["cases"])
      keys.push_back(c["model"].get<std::string>() + " " + c["algorithm"].get<std::string>() + " " +
                     c["outcome"].get<std::string>() + " " + c["value"].dump());
    return keys;
  }
};

TEST_F(CompareTest, WritesEveryReportOverAZoo) {
  const fs::path zoo = makeZoo();
  const RunResult r = run({"compare", zoo.string(), "--algorithms", "dp,dpl", "--jobs", "2", "--time-limit",
                           "20", "--out-dir", (work_ / "out").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = readJson(work_ / "out/report.json");
  // 4 inputs x 2 algorithms, and the expert's split of layer BERT-24.
  ASSERT_EQ(report["cases"].size(), 9u) << report.dump(1);
  for (const auto& c : report["cases"]) {
    EXPECT_EQ(c["outcome"], "ok") << c.dump();
    EXPECT_GT(c["value"].get<double>(), 0) << c.dump();
  }
  EXPECT_EQ(report["cases"][0]["model"], "models/light_bvlc_alexnet.onnx");
  EXPECT_EQ(report["cases"][1]["algorithm"], "dpl");
  bool saw_expert = false;
  for (const auto& c : report["cases"]) {
    if (c["algorithm"] != "expert") continue;
    saw_expert = true;
    EXPECT_EQ(c["model"], "workloads/throughput-inputs/LayerGraphs/bert24_inference.json");
    EXPECT_NEAR(c["value"].get<double>(), 20.084, 5e-3);  // the evaluator's value of Table 1's expert split
  }
  EXPECT_TRUE(saw_expert);
  // The DP's optimum is certified, and it is never above DPL's.
  for (std::size_t i = 0; i + 1 < report["cases"].size(); ++i) {
    const auto& a = report["cases"][i];
    const auto& b = report["cases"][i + 1];
    if (a["algorithm"] == "dp" && b["algorithm"] == "dpl") {
      EXPECT_LE(a["value"], b["value"]);
    }
  }
  const std::string md = slurp(work_ / "out/report.md");
  EXPECT_NE(md.find("| model | algorithm | value | vs best | time (s) | memory over | gain over expert |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("9 cases: 9 placed"), std::string::npos) << md;
  EXPECT_EQ(shell("python3 " + (kData.parent_path() / "tools/check_junit.py").string() + " " +
                  (work_ / "out/report.xml").string()),
            0);
  const std::string xml = slurp(work_ / "out/report.xml");
  EXPECT_NE(
      xml.find("classname=\"workloads/throughput-inputs/LayerGraphs/resnet50_inference.json\" name=\"dp\""),
      std::string::npos);
  const std::string svg = (work_ / "out/chart.svg").string();
  EXPECT_EQ(shell("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' " + svg), 0);
  EXPECT_EQ(shell("rsvg-convert -o " + (work_ / "chart.png").string() + " " + svg), 0);
  EXPECT_GT(fs::file_size(work_ / "chart.png"), 1000u);
  EXPECT_NE(r.err.find("case 9 of 9"), std::string::npos) << r.err;
}

TEST_F(CompareTest, BaselineFlagsInjectedRegressionsAndPassesAnIdenticalRun) {
  const fs::path zoo = makeZoo();
  fs::remove_all(zoo / "models");
  const std::vector<std::string> common{"--algorithms", "dp", "--no-expert", "--jobs", "2"};
  auto compare = [&](const std::string& out, const std::vector<std::string>& extra) {
    std::vector<std::string> args{"compare", zoo.string(), "--out-dir", (work_ / out).string()};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  ASSERT_EQ(compare("first", {}).exit_code, 0);
  const std::string first = (work_ / "first/report.json").string();
  // The same report against itself: no mark, exit 0.
  const RunResult same = run({"compare", "--merge", (work_ / "first").string(), "--baseline", first,
                              "--out-dir", (work_ / "same").string()});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(slurp(work_ / "same/report.md").find("No regression."), std::string::npos);
  // The same run again: the same values (times vary on a loaded machine: a generous factor for them).
  const RunResult again = compare("again", {"--baseline", first, "--time-factor", "50"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(slurp(work_ / "again/report.md").find("No regression."), std::string::npos);

  // A baseline whose BERT-24 value was better: this run is worse there.
  nlohmann::json better = readJson(first);
  for (auto& c : better["cases"]) {
    if (c["model"].get<std::string>().find("bert24") != std::string::npos)
      c["value"] = c["value"].get<double>() * 0.9;
  }
  spit(work_ / "better.json", better.dump());
  const RunResult worse = compare("worse", {"--baseline", (work_ / "better.json").string()});
  EXPECT_EQ(worse.exit_code, 5) << worse.err;
  const std::string md = slurp(work_ / "worse/report.md");
  EXPECT_NE(md.find("| `+` | workloads/throughput-inputs/LayerGraphs/bert24_inference.json | dp | value"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("resnet50_inference.json | dp | value"), std::string::npos) << md;
  EXPECT_NE(slurp(work_ / "worse/report.xml").find("<failure type=\"regression\""), std::string::npos);

  // A slowdown of 1.5 s on ResNet-50 and a failure on BERT-24, by a stand-in executable.
  const std::string placer =
      wrapper("  *resnet50*) sleep 1.5 ;;\n  *bert24*) echo 'onnx-placer: error: injected' >&2; exit 4 ;;\n");
  const RunResult bad = compare("bad", {"--baseline", first, "--placer", placer});
  EXPECT_EQ(bad.exit_code, 5) << bad.err;
  const std::string bad_md = slurp(work_ / "bad/report.md");
  EXPECT_NE(
      bad_md.find("| `+` | workloads/throughput-inputs/LayerGraphs/resnet50_inference.json | dp | time"),
      std::string::npos)
      << bad_md;
  EXPECT_NE(bad_md.find("| `!` | workloads/throughput-inputs/LayerGraphs/bert24_inference.json | dp | now "
                        "failed: error: injected"),
            std::string::npos)
      << bad_md;
  EXPECT_NE(bad_md.find("one run on a side: the factor alone"), std::string::npos);
  // The baseline itself is an input: never written over.
  const RunResult over = compare("first", {"--baseline", first});
  EXPECT_EQ(over.exit_code, 1) << over.err;
  EXPECT_EQ(readJson(first)["cases"].size(), 2u);

  // A damaged or missing baseline is refused before any case runs (a stand-in that leaves a mark
  // when it is run), and nothing is written.
  spit(work_ / "damaged.json", "{\"cases\": [");
  const fs::path ran = work_ / "ran";
  const std::string marking = wrapper("  *) touch '" + ran.string() + "' ;;\n");
  const RunResult damaged =
      compare("damaged", {"--baseline", (work_ / "damaged.json").string(), "--placer", marking});
  EXPECT_EQ(damaged.exit_code, 1) << damaged.err;
  EXPECT_NE(damaged.err.find("damaged.json: not JSON"), std::string::npos) << damaged.err;
  const RunResult missing =
      compare("missing", {"--baseline", (work_ / "none.json").string(), "--placer", marking});
  EXPECT_NE(missing.exit_code, 0) << missing.err;
  EXPECT_NE(missing.err.find("none.json: cannot be read"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(ran));
  EXPECT_FALSE(fs::exists(work_ / "damaged"));
  EXPECT_FALSE(fs::exists(work_ / "missing"));
}

TEST_F(CompareTest, CrashHangAndOutOfMemoryAreThatCasesOutcome) {
  const fs::path zoo = work_ / "zoo";
  fs::create_directories(zoo);
  const fs::path workload = kData / "workloads/throughput-inputs/LayerGraphs/resnet50_inference.json";
  for (const char* name : {"crash", "hang", "hog", "fine"})
    fs::copy_file(workload, zoo / (std::string(name) + ".json"));
  const std::string placer = wrapper("  *crash*) kill -SEGV $$ ;;\n  *hang*) sleep 600 ;;\n  *hog*) exec '" +
                                     std::string(ONNX_PLACER_MEMORY_HOG) + "' ;;\n");
  const auto started = std::chrono::steady_clock::now();
  const RunResult r =
      run({"compare", zoo.string(), "--algorithms", "dp", "--jobs", "2", "--placer", placer, "--case-timeout",
           "3", "--case-memory", "256", "--out-dir", (work_ / "out").string()});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 300);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> outcome;
  const nlohmann::json report = readJson(work_ / "out/report.json");
  for (const auto& c : report["cases"])
    outcome[c["model"].get<std::string>()] = c["outcome"].get<std::string>();
  EXPECT_EQ(outcome["crash.json"], "crashed");
  EXPECT_EQ(outcome["hang.json"], "timeout");
  EXPECT_EQ(outcome["hog.json"], "out-of-memory");
  EXPECT_EQ(outcome["fine.json"], "ok");
  const std::string xml = (work_ / "out/report.xml").string();
  EXPECT_EQ(shell("python3 " + (kData.parent_path() / "tools/check_junit.py").string() + " " + xml), 0);
  EXPECT_NE(slurp(xml).find("<error type=\"timeout\""), std::string::npos);
  EXPECT_NE(slurp(work_ / "out/report.md").find("SIGSEGV"), std::string::npos);
}

TEST_F(CompareTest, ShardsMergeIntoTheWholeRun) {
  const fs::path zoo = makeZoo();
  const std::vector<std::string> common{"--algorithms", "dp,dpl", "--jobs", "2"};
  auto compare = [&](std::vector<std::string> args) {
    args.insert(args.end(), common.begin(), common.end());
    return run(args);
  };
  ASSERT_EQ(compare({"compare", zoo.string(), "--out-dir", (work_ / "whole").string()}).exit_code, 0);
  for (const char* shard : {"1/3", "2/3", "3/3"}) {
    const std::string dir = (work_ / ("shard" + std::string(1, shard[0]))).string();
    ASSERT_EQ(compare({"compare", zoo.string(), "--shard", shard, "--out-dir", dir}).exit_code, 0);
    EXPECT_LT(readJson(fs::path(dir) / "report.json")["cases"].size(), 9u);
  }
  const RunResult merged =
      run({"compare", "--merge", (work_ / "shard2").string(), (work_ / "shard1").string(),
           (work_ / "shard3").string(), "--out-dir", (work_ / "merged").string()});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(caseKeys(readJson(work_ / "merged/report.json")),
            caseKeys(readJson(work_ / "whole/report.json")));
  // A shard merged twice is refused.
  const RunResult twice = run({"compare", "--merge", (work_ / "shard1").string(), (work_ / "shard1").string(),
                               "--out-dir", (work_ / "twice").string()});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("is in two shards"), std::string::npos) << twice.err;
  EXPECT_FALSE(fs::exists(work_ / "twice"));
}

TEST_F(CompareTest, AnInterruptedRunLeavesNothingBehind) {
  const fs::path zoo = work_ / "zoo";
  fs::create_directories(zoo);
  fs::create_directories(work_ / "tmp");
  fs::copy_file(kData / "workloads/throughput-inputs/LayerGraphs/resnet50_inference.json", zoo / "hang.json");
  const std::string placer = wrapper("  *hang*) sleep 600 ;;\n");
  setenv("TMPDIR", (work_ / "tmp").c_str(), 1);  // where compare keeps its cases' outputs
  const Running running = start({"compare", zoo.string(), "--algorithms", "dp,dpl", "--placer", placer,
                                 "--out-dir", (work_ / "out").string()});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(running.pid, SIGINT);
  const RunResult r = finish(running);
  unsetenv("TMPDIR");
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_FALSE(fs::exists(work_ / "out"));
  EXPECT_TRUE(fs::is_empty(work_ / "tmp"));
}

TEST_F(CompareTest, BadCommandLinesAndInputs) {
  EXPECT_EQ(run({"compare", (kData / "models").string()}).exit_code, 2);  // no --out-dir
  const RunResult shard = run({"compare", (kData / "models").string(), "--shard", "4/3", "--out-dir", "x"});
  EXPECT_EQ(shard.exit_code, 2);
  EXPECT_NE(shard.err.find("--shard must be I/N"), std::string::npos) << shard.err;
  const RunResult algorithm =
      run({"compare", (kData / "models").string(), "--algorithms", "dp,nope", "--out-dir", "x"});
  EXPECT_EQ(algorithm.exit_code, 2);
  EXPECT_NE(algorithm.err.find("unknown algorithm 'nope'"), std::string::npos) << algorithm.err;
  const RunResult greedy =
      run({"compare", (kData / "models").string(), "--algorithms", "greedy", "--out-dir", "x"});
  EXPECT_EQ(greedy.exit_code, 2);
  EXPECT_NE(greedy.err.find("greedy does not minimise the throughput"), std::string::npos) << greedy.err;
  const RunResult missing =
      run({"compare", (work_ / "nothing").string(), "--out-dir", (work_ / "out").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no such file or directory"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(work_ / "out"));
}

}  // namespace compare_cli_test
}  // namespace placer::testing
