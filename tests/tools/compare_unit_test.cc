// onnx-placer compare's parts on their own: the Mann-Whitney U test against enumeration, the marks
// of a comparison with a baseline, report.json read back, the JUnit text, the inputs a command line
// names, and shards.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "tools/compare/baseline.h"
#include "tools/compare/cases.h"
#include "tools/compare/reports.h"
#include "tools/compare/results.h"

namespace placer::compare {
namespace compare_unit_test {

namespace fs = std::filesystem;

// The two-sided p of U by enumerating every split of the pooled (distinct) values into samples of
// sizes n and m.
double enumeratedP(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> pooled = a;
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::sort(pooled.begin(), pooled.end());
  const std::size_t n = a.size(), total = pooled.size();
  auto uOf = [&](const std::vector<char>& in_a) {
    double rank_sum = 0;
    for (std::size_t i = 0; i < total; ++i) {
      if (in_a[i]) rank_sum += static_cast<double>(i + 1);
    }
    return rank_sum - static_cast<double>(n * (n + 1)) / 2;
  };
  std::vector<char> observed(total, 0);
  for (double v : a)
    observed[static_cast<std::size_t>(std::find(pooled.begin(), pooled.end(), v) - pooled.begin())] = 1;
  const double u = uOf(observed);
  std::vector<char> mask(total, 0);
  std::fill(mask.begin(), mask.begin() + static_cast<std::ptrdiff_t>(n), 1);
  std::sort(mask.begin(), mask.end());
  double count = 0, below = 0, above = 0;
  do {
    const double x = uOf(mask);
    ++count;
    if (x <= u + 1e-9) ++below;
    if (x >= u - 1e-9) ++above;
  } while (std::next_permutation(mask.begin(), mask.end()));
  return std::min(1.0, 2 * std::min(below, above) / count);
}

TEST(MannWhitney, ExactPEqualsEnumerationOnRandomSamples) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 6);
    const int m = 1 + static_cast<int>(rng() % 6);
    std::vector<double> pool(static_cast<std::size_t>(n + m));
    for (std::size_t i = 0; i < pool.size(); ++i)
      pool[i] = static_cast<double>(i) + 0.5;
    std::shuffle(pool.begin(), pool.end(), rng);
    const std::vector<double> a(pool.begin(), pool.begin() + n), b(pool.begin() + n, pool.end());
    EXPECT_NEAR(mannWhitneyP(a, b), enumeratedP(a, b), 1e-12) << "n = " << n << ", m = " << m;
  }
}

TEST(MannWhitney, KnownValuesAndTheNormalApproximation) {
  // Complete separation of 5 and 5: 2 / C(10, 5).
  EXPECT_NEAR(mannWhitneyP({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mannWhitneyP({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  EXPECT_EQ(mannWhitneyP({}, {1, 2}), 1.0);
  // Ties: the normal approximation; identical samples are as alike as can be.
  EXPECT_GT(mannWhitneyP({1, 1, 2, 2}, {1, 1, 2, 2}), 0.9);
  // 30 against 30, shifted by a tenth of their spread, then by their whole spread.
  std::vector<double> a, b, c;
  for (int i = 0; i < 30; ++i) {
    a.push_back(i);
    b.push_back(i + 3);
    c.push_back(i + 30);
  }
  EXPECT_GT(mannWhitneyP(a, b), 0.2);
  EXPECT_LT(mannWhitneyP(a, c), 1e-6);
  EXPECT_NEAR(mannWhitneyP(a, b), mannWhitneyP(b, a), 1e-12);
}

CaseResult okCase(const std::string& model, const std::string& algorithm, double value,
                  std::vector<double> times) {
  CaseResult c;
  c.model = model;
  c.kind = "workload";
  c.algorithm = algorithm;
  c.outcome = Outcome::Ok;
  c.value = value;
  c.times = std::move(times);
  return c;
}

Report reportOf(std::vector<CaseResult> cases, int repeat = 1) {
  Report r;
  r.objective = "throughput";
  r.options = {{"time-limit", "10"}};
  r.algorithms = {"dp", "dpl"};
  r.repeat = repeat;
  r.cases = std::move(cases);
  return r;
}

const Change* changeOf(const Comparison& c, const std::string& model, const std::string& algorithm) {
  for (const Change& change : c.changes) {
    if (change.model == model && change.algorithm == algorithm) return &change;
  }
  return nullptr;
}

TEST(Baseline, AnIdenticalRunPasses) {
  const Report r = reportOf({okCase("a", "dp", 10, {1.0}), okCase("a", "dpl", 11, {0.5})});
  const Comparison c = compareWithBaseline(r, r, {});
  EXPECT_FALSE(c.regressed);
  EXPECT_TRUE(c.changes.empty());
  EXPECT_TRUE(c.options.empty());
}

TEST(Baseline, EveryMarkForWhatItMeans) {
  CaseResult failing = okCase("b", "dp", 0, {1.0});
  failing.outcome = Outcome::Crashed;
  failing.value.reset();
  const Report before = reportOf(
      {okCase("a", "dp", 10, {1.0}), okCase("a", "dpl", 11, {1.0}), failing, okCase("gone", "dp", 3, {1.0})});
  Report now = reportOf({okCase("a", "dp", 10.5, {1.0}), okCase("a", "dpl", 10, {1.0}), failing,
                         okCase("new", "dp", 1, {1.0})});
  now.options["memory"] = "8e9";
  const Comparison c = compareWithBaseline(before, now, {});
  ASSERT_NE(changeOf(c, "a", "dp"), nullptr);
  EXPECT_EQ(changeOf(c, "a", "dp")->mark, '+');
  EXPECT_TRUE(changeOf(c, "a", "dp")->regression);
  EXPECT_EQ(changeOf(c, "a", "dpl")->mark, '-');
  EXPECT_FALSE(changeOf(c, "a", "dpl")->regression);
  EXPECT_EQ(changeOf(c, "gone", "dp")->mark, '!');
  EXPECT_TRUE(changeOf(c, "gone", "dp")->regression);
  EXPECT_EQ(changeOf(c, "new", "dp")->mark, 'x');
  EXPECT_FALSE(changeOf(c, "new", "dp")->regression);
  EXPECT_EQ(changeOf(c, "b", "dp"), nullptr);  // failing before and now: no change
  EXPECT_TRUE(c.regressed);
  ASSERT_EQ(c.options.size(), 1u);
  EXPECT_EQ(c.options[0], "--memory: default -> 8e9");
}

TEST(Baseline, NewlyFailingAndFixed) {
  CaseResult crashed = okCase("m", "dp", 0, {1.0});
  crashed.outcome = Outcome::Timeout;
  crashed.value.reset();
  const Report ok = reportOf({okCase("m", "dp", 4, {1.0})});
  const Report bad = reportOf({crashed});
  const Comparison worse = compareWithBaseline(ok, bad, {});
  ASSERT_EQ(worse.changes.size(), 1u);
  EXPECT_EQ(worse.changes[0].mark, '!');
  EXPECT_TRUE(worse.regressed);
  const Comparison fixed = compareWithBaseline(bad, ok, {});
  ASSERT_EQ(fixed.changes.size(), 1u);
  EXPECT_EQ(fixed.changes[0].mark, '*');
  EXPECT_FALSE(fixed.regressed);
}

TEST(Baseline, ValueFactorAndTimesWithAndWithoutRepetitions) {
  const Report before = reportOf({okCase("m", "dp", 100, {1.0})});
  BaselineSettings loose;
  loose.value_factor = 1.05;
  EXPECT_FALSE(compareWithBaseline(before, reportOf({okCase("m", "dp", 104, {1.0})}), loose).regressed);
  EXPECT_TRUE(compareWithBaseline(before, reportOf({okCase("m", "dp", 106, {1.0})}), loose).regressed);
  // One run a side: the factor alone.
  EXPECT_TRUE(compareWithBaseline(before, reportOf({okCase("m", "dp", 100, {1.6})}), {}).regressed);
  EXPECT_FALSE(compareWithBaseline(before, reportOf({okCase("m", "dp", 100, {1.4})}), {}).regressed);
  // Faster is listed, not a regression.
  const Comparison faster = compareWithBaseline(before, reportOf({okCase("m", "dp", 100, {0.5})}), {});
  ASSERT_EQ(faster.changes.size(), 1u);
  EXPECT_EQ(faster.changes[0].mark, '-');
  EXPECT_FALSE(faster.regressed);
  // Five runs a side: twice as slow and cleanly apart is significant; a median twice as slow from
  // overlapping runs is not.
  const Report five = reportOf({okCase("m", "dp", 100, {1.0, 1.1, 0.9, 1.05, 0.95})}, 5);
  EXPECT_TRUE(
      compareWithBaseline(five, reportOf({okCase("m", "dp", 100, {2.0, 2.1, 1.9, 2.05, 1.95})}, 5), {})
          .regressed);
  EXPECT_FALSE(
      compareWithBaseline(five, reportOf({okCase("m", "dp", 100, {0.9, 2.1, 1.0, 2.05, 1.95})}, 5), {})
          .regressed);
}

TEST(ReportJson, ReadsBackWhatItWrote) {
  CaseResult failed = okCase("x/y.json", "ip", 0, {2.5, 2.0});
  failed.outcome = Outcome::OutOfMemory;
  failed.value.reset();
  failed.message = "exceeded its memory limit";
  CaseResult placed = okCase("x/y.json", "dp", 31.25, {0.25});
  placed.ratio = 1.0;
  placed.lower_bound = 31.25;
  placed.memory_violation = 12.5;
  placed.solver = "dp";
  Report r = reportOf({placed, failed});
  r.shard = "1/3";
  auto back = reportFromJson(nlohmann::json::parse(toJson(r).dump()), "r.json");
  ASSERT_TRUE(back) << back.status().message();
  EXPECT_EQ(toJson(*back).dump(), toJson(r).dump());
  auto broken = reportFromJson(nlohmann::json{{"tool", "onnx-placer compare"}, {"cases", {{{"model", "m"}}}}},
                               "b.json");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.status().message().find("b.json: cases[0]"), std::string::npos)
      << broken.status().message();
  EXPECT_FALSE(reportFromJson(nlohmann::json::object(), "c.json"));
}

TEST(Junit, CountsMatchTheCasesAndTextIsEscaped) {
  CaseResult skipped = okCase("m<&>", "one-accelerator", 0, {0.1});
  skipped.outcome = Outcome::Infeasible;
  skipped.value.reset();
  CaseResult failed = okCase("m<&>", "ip", 0, {1.0});
  failed.outcome = Outcome::Failed;
  failed.value.reset();
  failed.message = "no split \"within\" the limit";
  CaseResult crashed = okCase("m<&>", "scotch", 0, {1.0});
  crashed.outcome = Outcome::Crashed;
  crashed.value.reset();
  const Report r = reportOf({okCase("m<&>", "dp", 1, {0.5}), skipped, failed, crashed});
  const std::string xml = junitReport(r, nullptr);
  EXPECT_NE(xml.find("<testsuites name=\"onnx-placer compare\" tests=\"4\" failures=\"1\" errors=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("classname=\"m&lt;&amp;&gt;\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped type=\"infeasible\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"failed\" message=\"no split &quot;within&quot; the limit\""),
            std::string::npos);
  EXPECT_NE(xml.find("<error type=\"crashed\""), std::string::npos);
  EXPECT_NE(xml.find("<property name=\"dp.value\" value=\"1\"/>"), std::string::npos);
  EXPECT_EQ(xmlEscape(std::string("a\x01"
                                  "b\tc")),
            "a\xEF\xBF\xBD"
            "b\tc");
}

class Inputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("onnx-placer-compare-unit-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    const fs::path data = fs::path(ONNX_PLACER_TEST_DATA_DIR) / "workloads";
    fs::create_directories(dir_ / "zoo/throughput-inputs/LayerGraphs");
    fs::create_directories(dir_ / "zoo/throughput-inputs/OperatorGraphs");
    fs::create_directories(dir_ / "zoo/human-experts");
    fs::copy_file(data / "throughput-inputs/LayerGraphs/resnet50_inference.json",
                  dir_ / "zoo/throughput-inputs/LayerGraphs/resnet50_inference.json");
    fs::copy_file(data / "throughput-inputs/OperatorGraphs/resnet50_inference.json",
                  dir_ / "zoo/throughput-inputs/OperatorGraphs/resnet50_inference.json");
    fs::copy_file(data / "human-experts/resnet50_inference_expert.json",
                  dir_ / "zoo/human-experts/resnet50_inference_expert.json");
    std::ofstream(dir_ / "zoo/notes.json") << "{\"not\": \"a workload\"}";
    std::ofstream(dir_ / "zoo/readme.md") << "text";
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Inputs, DirectoriesListsNamesAndExpertSplits) {
  auto found = findInputs({(dir_ / "zoo").string()});
  ASSERT_TRUE(found) << found.status().message();
  ASSERT_EQ(found->size(), 2u);  // notes.json and readme.md passed over, the expert split too
  EXPECT_EQ((*found)[0].name, "throughput-inputs/LayerGraphs/resnet50_inference.json");
  EXPECT_EQ((*found)[1].name, "throughput-inputs/OperatorGraphs/resnet50_inference.json");
  // The expert's split is of the layer graph: the operator graph's forward nodes are not all in it.
  EXPECT_EQ((*found)[0].expert.filename(), "resnet50_inference_expert.json");
  EXPECT_TRUE((*found)[1].expert.empty());
  const std::vector<Case> cases = makeCases(*found, {"dp", "dpl"}, true);
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[2].algorithm, "expert");

  std::ofstream(dir_ / "zoo.txt")
      << "# the zoo\nzoo/throughput-inputs/LayerGraphs/resnet50_inference.json  # layer\n\n";
  auto listed = findInputs({(dir_ / "zoo.txt").string()});
  ASSERT_TRUE(listed) << listed.status().message();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, "zoo/throughput-inputs/LayerGraphs/resnet50_inference.json");

  std::ofstream(dir_ / "bad.txt") << "zoo/missing.json\n";
  auto bad = findInputs({(dir_ / "bad.txt").string()});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.status().message().find("bad.txt:1"), std::string::npos) << bad.status().message();
  auto not_workload = findInputs({(dir_ / "zoo/notes.json").string()});
  ASSERT_FALSE(not_workload);
  EXPECT_NE(not_workload.status().message().find("not a workload"), std::string::npos);
}

TEST(Shards, EveryCaseInExactlyOneShardInOrder) {
  std::vector<Input> inputs;
  for (int i = 0; i < 7; ++i)
    inputs.push_back({"m" + std::to_string(i), "m.json", InputKind::Workload, {}});
  const std::vector<Case> all = makeCases(inputs, {"dp", "dpl", "slicegraph"}, false);
  for (int count = 1; count <= 5; ++count) {
    std::vector<int> seen(all.size(), 0);
    for (int index = 1; index <= count; ++index) {
      const std::vector<Case> shard = shardCases(all, index, count);
      for (std::size_t k = 1; k < shard.size(); ++k)
        EXPECT_LT(shard[k - 1].index, shard[k].index);
      for (const Case& c : shard)
        ++seen[static_cast<std::size_t>(c.index)];
    }
    EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](int s) { return s == 1; })) << count << " shards";
  }
  EXPECT_TRUE(parseShard("2/3"));
  EXPECT_FALSE(parseShard("0/3"));
  EXPECT_FALSE(parseShard("4/3"));
  EXPECT_FALSE(parseShard("1/x"));
  EXPECT_FALSE(parseShard("13"));
}

}  // namespace compare_unit_test
}  // namespace placer::compare
