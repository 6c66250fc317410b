// The largest operators' packing (solvers/bounds/packing_bound.h): never above the optimum over every
// placement, found by exhaustive search on random tiny problems (and equal to it on many); on four
// Table 1 workloads equal to the max-load of a stored non-contiguous split, which is therefore
// optimal; a stopped search still gives a bound; and where it does not apply it says why.
#include <gtest/gtest.h>

#include <atomic>
#include <random>

#include "core/evaluate.h"
#include "onnx_io/workload_json.h"
#include "solvers/bounds/packing_bound.h"
#include "tests/solvers/exhaustive_split.h"
#include "tests/solvers/random_contracted.h"
#include "tests/test_util.h"

namespace placer::testing {
namespace packing_bound_test {

double packing(const Problem& p, double upper, const Budget& budget = Budget::unlimited()) {
  auto bound = packingBound(p, upper, budget);
  EXPECT_TRUE(bound.hasValue()) << bound.status().message();
  if (!bound || !*bound) return 0;
  return (*bound)->value;
}

// Random problems of 4-7 operators (training ones with a colocated backward partner each) on two or
// three accelerators, with or without a core and with tight memory or none: the bound is at most
// the exhaustive optimum over every valid placement, whose memory it does not see.
TEST(PackingBound, NeverAboveTheOptimumOfEveryPlacement) {
  std::mt19937 rng(2024);
  int cases = 0, exact = 0;
  for (int round = 0; round < 160; ++round) {
    const bool training = round % 4 == 3;
    const int n = training ? 3 + static_cast<int>(rng() % 2) : 4 + static_cast<int>(rng() % 4);
    const DeviceSet devices(2 + static_cast<int>(rng() % 2), round % 3 == 0 ? 60 : 1e9,
                            static_cast<int>(rng() % 2));
    Problem p = randomContracted(rng, n, training, devices);
    p.objective.overlap = Overlap::None;
    const double optimum = exhaustiveOptimum(
        p, [&](const std::vector<int>& device_of) { return throughputValid(p, device_of, false); });
    if (!std::isfinite(optimum)) continue;
    ++cases;
    for (double upper : {optimum, 1.3 * optimum}) {
      const double bound = packing(p, upper);
      EXPECT_LE(bound, optimum * (1 + 1e-9)) << "round " << round << " upper " << upper;
      if (upper == optimum && bound >= optimum * (1 - 1e-6)) ++exact;
    }
  }
  EXPECT_GE(cases, 100);
  // Where one or two operators dominate, the assignment of the large ones decides the optimum (60
  // of 120 when this test was written).
  EXPECT_GE(exact, cases / 4) << exact << " of " << cases;
}

// The reference tool's split format, read back: the stored split's max-load is the bound.
double splitMaxLoad(const Problem& p, const std::string& split) {
  auto device_of = readSplit(dataPath("splits/" + split), p);
  EXPECT_TRUE(device_of.hasValue()) << device_of.status().message();
  if (!device_of) return 0;
  return evaluateThroughput(p, *device_of).max_load;
}

// Table 1 of Tarnawski et al. 2020, non-contiguous: the paper prints 130.03, 31.68, 88.47 and 54.21.
// The integer program's splits (tests/data/splits) are optimal over every placement: no accelerator
// can hold three of BERT-12's attention context products, or its language-model head and two of
// them, within 130.0381, and so on.
TEST(PackingBound, ProvesTheIntegerProgramsSplitsOfTable1Optimal) {
  struct Case {
    const char* workload;
    const char* split;
    double max_load;
  };
  for (const Case& c :
       {Case{"OperatorGraphs/bert_l-12_inference.json", "bert_l-12_inference.json", 130.0380954},
        Case{"LayerGraphs/gnmt_inference.json", "gnmt_inference.json", 31.6873105},
        Case{"LayerGraphs/gnmt_training.json", "gnmt_training.json", 88.4622421},
        Case{"OperatorGraphs/bert_l-3_training.json", "bert_l-3_training.json", 54.2073991}}) {
    SCOPED_TRACE(c.workload);
    const Problem p = loadWorkload(std::string("throughput-inputs/") + c.workload);
    const double split = splitMaxLoad(p, c.split);
    EXPECT_NEAR(split, c.max_load, 1e-6);
    auto bound = packingBound(p, split, Budget::unlimited());
    ASSERT_TRUE(bound.hasValue()) << bound.status().message();
    ASSERT_TRUE(*bound);
    EXPECT_TRUE((*bound)->reaches_upper) << (*bound)->value;
    EXPECT_FALSE((*bound)->cut_short);
    EXPECT_LE((*bound)->value, split);
    EXPECT_GE((*bound)->value, split * (1 - 1e-8));
  }
}

// A search stopped by its deadline still bounds the optimum: at most what the full search proves.
TEST(PackingBound, AStoppedSearchStillGivesABound) {
  const Problem p = loadWorkload("throughput-inputs/OperatorGraphs/bert_l-12_inference.json");
  auto stopped = packingBound(p, 130.0380954, Budget(0, nullptr));
  ASSERT_TRUE(stopped.hasValue());
  ASSERT_TRUE(*stopped);
  EXPECT_TRUE((*stopped)->cut_short);
  EXPECT_LE((*stopped)->value, 130.0380954);
  std::atomic<bool> stop{true};
  auto interrupted = packingBound(p, 130.0380954, Budget(10, &stop));
  ASSERT_FALSE(interrupted.hasValue());
  EXPECT_EQ(interrupted.status().code(), StatusCode::Interrupted);
}

TEST(PackingBound, SaysWhereItDoesNotApply) {
  std::mt19937 rng(5);
  Problem p = randomContracted(rng, 5, false, DeviceSet(2, 1e9, 1));
  p.objective.overlap = Overlap::Max;
  EXPECT_NE(packingBoundDoesNotApply(p), std::nullopt);
  EXPECT_FALSE(packingBound(p, 10, Budget::unlimited()).hasValue());
  p.objective.overlap = Overlap::None;
  EXPECT_EQ(packingBoundDoesNotApply(p), std::nullopt);
  p.objective.gpipe = true;
  EXPECT_NE(packingBoundDoesNotApply(p), std::nullopt);
  p.objective.gpipe = false;
  p.objective.goal = Goal::Latency;
  EXPECT_NE(packingBoundDoesNotApply(p), std::nullopt);
}

}  // namespace packing_bound_test
}  // namespace placer::testing
