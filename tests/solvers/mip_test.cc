// The MIP layer, on each backend (GLPK, and CBC when the build has it): small models whose optimum
// is known by enumeration, statuses, starts, the stop flag, the known bound, progress.
#include "solvers/mip.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>

namespace placer::mip {
namespace mip_test {

// 0/1 knapsack as a minimisation: minimise -value subject to weight <= capacity.
struct Knapsack {
  std::vector<double> value, weight;
  double capacity = 0;
};

Model knapsackModel(const Knapsack& k, std::vector<Var>& x) {
  Model m;
  LinExpr weight, value;
  for (size_t i = 0; i < k.value.size(); ++i) {
    x.push_back(m.addBinary("x" + std::to_string(i)));
    weight.add(x.back(), k.weight[i]);
    value.add(x.back(), k.value[i]);
  }
  m.addLe(weight, k.capacity, "capacity");
  m.minimize(-value);
  return m;
}

double bruteForce(const Knapsack& k) {
  const int n = static_cast<int>(k.value.size());
  double best = 0;
  for (int mask = 0; mask < (1 << n); ++mask) {
    double w = 0, v = 0;
    for (int i = 0; i < n; ++i) {
      if (mask >> i & 1) {
        w += k.weight[i];
        v += k.value[i];
      }
    }
    if (w <= k.capacity) best = std::max(best, v);
  }
  return -best;
}

// A market split instance (Cornuéjols and Dawande): rows of random coefficients, each to be split
// in half by a 0/1 choice, the slacks' total minimised. Small, yet far beyond what branch-and-cut
// proves in seconds; all-zero with slacks is feasible, so incumbents come at once.
// With `odd`, every coefficient is even and every right-hand side odd: each row's slacks add up to
// at least 1, which the LP relaxation (optimum 0) does not see.
Model marketSplit(int rows, int columns, unsigned seed, bool odd = false) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> coefficient(0, 99);
  Model m;
  std::vector<Var> x;
  for (int j = 0; j < columns; ++j)
    x.push_back(m.addBinary("x" + std::to_string(j)));
  LinExpr slack_total;
  for (int i = 0; i < rows; ++i) {
    LinExpr row;
    double total = 0;
    for (int j = 0; j < columns; ++j) {
      const int a = odd ? 2 * (coefficient(rng) / 2) : coefficient(rng);
      row.add(x[j], a);
      total += a;
    }
    Var over = m.addContinuous(0, kUnbounded, "over" + std::to_string(i));
    Var under = m.addContinuous(0, kUnbounded, "under" + std::to_string(i));
    const double half = std::floor(total / 2);
    m.addEq(row + LinExpr(under) - LinExpr(over), odd && std::fmod(half, 2.0) == 0 ? half + 1 : half);
    slack_total += LinExpr(over) + LinExpr(under);
  }
  m.minimize(slack_total);
  return m;
}

TEST(Mip, ExpressionsMergeTermsAndMoveConstants) {
  Model m;
  Var a = m.addContinuous(0, 10, "a"), b = m.addContinuous(0, 10, "b");
  m.addLe(2 * LinExpr(a) + 3.0 + LinExpr(b), LinExpr(a) + 7.0);  // a + b <= 4
  ASSERT_EQ(m.numConstraints(), 1);
  const auto& row = m.rows()[0];
  ASSERT_EQ(row.terms.size(), 2u);
  EXPECT_EQ(row.terms[0], (std::pair<int, double>{a.index, 1.0}));
  EXPECT_EQ(row.terms[1], (std::pair<int, double>{b.index, 1.0}));
  EXPECT_DOUBLE_EQ(row.rhs, 4.0);
  EXPECT_DOUBLE_EQ(m.maxViolation({1, 3}), 0.0);
  EXPECT_NEAR(m.maxViolation({2, 3}), 0.25, 1e-12);  // 1 over, relative to rhs 4
}

TEST(Mip, BackendNames) {
  EXPECT_STREQ(toString(Backend::Glpk), "glpk");
  EXPECT_STREQ(toString(Backend::Cbc), "cbc");
  EXPECT_EQ(parseBackend("glpk"), Backend::Glpk);
  EXPECT_EQ(parseBackend("cbc"), Backend::Cbc);
  EXPECT_EQ(parseBackend("CBC"), std::nullopt);
  EXPECT_EQ(parseBackend(""), std::nullopt);
  EXPECT_EQ(parseBackend("gurobi"), std::nullopt);
  EXPECT_TRUE(backendAvailable(Backend::Glpk));
  EXPECT_EQ(Options{}.backend, kDefaultBackend);
}

TEST(Mip, CbcRunsOrSaysWhichPackageProvidesIt) {
  Model m;
  Var x = m.addBinary("x");
  m.minimize(x);
  Options o;
  o.backend = Backend::Cbc;
  Result r = solve(m, o);
  if (backendAvailable(Backend::Cbc)) {
    EXPECT_EQ(r.status, Status::Optimal) << r.message;
    EXPECT_NEAR(r.objective, 0.0, 1e-9);
  } else {
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status, Status::Unknown);
    EXPECT_EQ(r.message, kNoCbcMessage);
  }
  // What a build without CBC says names the missing piece and the package that provides it.
  EXPECT_NE(std::string(kNoCbcMessage).find("no CBC"), std::string::npos) << kNoCbcMessage;
  EXPECT_NE(std::string(kNoCbcMessage).find("coinor-libcbc-dev"), std::string::npos) << kNoCbcMessage;
}

class MipBackend : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (!backendAvailable(GetParam())) GTEST_SKIP() << "this build has no " << toString(GetParam());
  }
  Options options() const {
    Options o;
    o.backend = GetParam();
    return o;
  }
  Options withTimeLimit(double seconds, std::vector<double> start = {}) const {
    Options o = options();
    o.time_limit = seconds;
    o.start = std::move(start);
    return o;
  }
  Options withStart(std::vector<double> start) const {
    Options o = options();
    o.start = std::move(start);
    return o;
  }
};

TEST_P(MipBackend, KnapsacksMatchEnumeration) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> value(1, 20), weight(1, 10);
  for (int trial = 0; trial < 30; ++trial) {
    Knapsack k;
    const int n = 4 + trial % 9;
    for (int i = 0; i < n; ++i) {
      k.value.push_back(value(rng));
      k.weight.push_back(weight(rng));
    }
    k.capacity = 3 * n;
    std::vector<Var> x;
    Model m = knapsackModel(k, x);
    Result r = solve(m, options());
    ASSERT_EQ(r.status, Status::Optimal) << r.message;
    EXPECT_NEAR(r.objective, bruteForce(k), 1e-7) << "trial " << trial;
    EXPECT_NEAR(r.bound, r.objective, 1e-9);
    EXPECT_EQ(r.gap, 0.0);
    EXPECT_LE(m.maxViolation(r.values), 1e-7);
    EXPECT_NEAR(m.objectiveValue(r.values), r.objective, 1e-9);
    EXPECT_FALSE(r.interrupted);
  }
}

TEST_P(MipBackend, IntegerAndContinuousColumnsWithAllRowSenses) {
  // min 3a + 2b - c + 10, a integer in [0, 5], b binary, c continuous in [0, 4]:
  // a + b >= 2, a - c <= 0.5, a + b + c == 4.5. Enumerating a and b: c = 4.5 - a - b must lie in
  // [a - 0.5, 4] and [0, 4], so (a, b) = (1, 1) with c = 2.5 gives 3 + 2 - 2.5 + 10 = 12.5; (2, 0)
  // gives c = 2.5 and 6 - 2.5 + 10 = 13.5; (1, 0) fails a + b >= 2.
  Model m;
  Var a = m.addVar(VarType::Integer, 0, 5, "a");
  Var b = m.addBinary("b");
  Var c = m.addContinuous(0, 4, "c");
  m.addGe(LinExpr(a) + LinExpr(b), 2);
  m.addLe(LinExpr(a) - LinExpr(c), 0.5);
  m.addEq(LinExpr(a) + LinExpr(b) + LinExpr(c), 4.5);
  m.minimize(3 * LinExpr(a) + 2 * LinExpr(b) - LinExpr(c) + 10.0);
  Result r = solve(m, options());
  ASSERT_EQ(r.status, Status::Optimal) << r.message;
  EXPECT_NEAR(r.objective, 12.5, 1e-9);
  EXPECT_NEAR(r.bound, 12.5, 1e-9);
  ASSERT_EQ(r.values.size(), 3u);
  EXPECT_NEAR(r.values[a.index], 1, 1e-9);
  EXPECT_NEAR(r.values[b.index], 1, 1e-9);
  EXPECT_NEAR(r.values[c.index], 2.5, 1e-7);
}

TEST_P(MipBackend, LinearProgramWithoutIntegers) {
  Model m;
  Var a = m.addContinuous(0, kUnbounded, "a"), b = m.addContinuous(-kUnbounded, 3, "b");
  m.addGe(LinExpr(a) + LinExpr(b), 5);
  m.minimize(2 * LinExpr(a) - LinExpr(b) + 1.0);  // b = 3, a = 2: 4 - 3 + 1
  Result r = solve(m, options());
  ASSERT_EQ(r.status, Status::Optimal) << r.message;
  EXPECT_NEAR(r.objective, 2.0, 1e-9);
  EXPECT_NEAR(r.values[a.index], 2.0, 1e-9);
  EXPECT_NEAR(r.values[b.index], 3.0, 1e-9);

  Model unbounded;
  Var u = unbounded.addContinuous(-kUnbounded, 0, "u");
  unbounded.minimize(u);
  EXPECT_FALSE(solve(unbounded, options()).ok());
}

TEST_P(MipBackend, InfeasibleRelaxationAndInfeasibleIntegerModel) {
  {
    Model m;
    Var a = m.addContinuous(0, 1, "a");
    m.addGe(a, 2);
    m.minimize(a);
    EXPECT_EQ(solve(m, options()).status, Status::Infeasible);
  }
  {
    Model m;
    Var a = m.addBinary("a"), b = m.addBinary("b");
    m.addGe(LinExpr(a) + LinExpr(b), 3);
    m.minimize(a);
    EXPECT_EQ(solve(m, options()).status, Status::Infeasible);
  }
  {
    // 2x = 1 has a fractional solution only.
    Model m;
    Var x = m.addVar(VarType::Integer, 0, 5, "x");
    m.addEq(2 * LinExpr(x), 1);
    m.minimize(x);
    Result r = solve(m, options());
    EXPECT_EQ(r.status, Status::Infeasible) << r.message;
    EXPECT_TRUE(r.values.empty());
  }
}

TEST_P(MipBackend, ZeroTimeLimitReportsNoSolutionOrTheStart) {
  Knapsack k{{5, 4, 3}, {4, 3, 2}, 5};
  std::vector<Var> x;
  Model m = knapsackModel(k, x);
  Result none = solve(m, withTimeLimit(0));
  EXPECT_EQ(none.status, Status::NoSolution);
  EXPECT_TRUE(none.values.empty());
  EXPECT_EQ(toString(none.status), std::string("no-solution"));

  Result with_start = solve(m, withTimeLimit(0, {1, 0, 0}));
  ASSERT_EQ(with_start.status, Status::Feasible);
  EXPECT_DOUBLE_EQ(with_start.objective, -5.0);
  EXPECT_TRUE(with_start.start_feasible);
  EXPECT_TRUE(with_start.start_used);
  EXPECT_EQ(with_start.values, (std::vector<double>{1, 0, 0}));
}

TEST_P(MipBackend, StartIsCompletedAndNeverBeaten) {
  // min L s.t. L >= 3 x0 + 2 x1, L >= 4 (1 - x0) + 2 (1 - x1) ... a two-machine balance; the start
  // gives the integer part only, L is completed by the LP.
  Model m;
  Var x0 = m.addBinary("x0"), x1 = m.addBinary("x1"), x2 = m.addBinary("x2");
  Var load = m.addContinuous(0, kUnbounded, "L");
  m.addGe(load, 3 * LinExpr(x0) + 2 * LinExpr(x1) + 4 * LinExpr(x2));
  m.addGe(load, 3 * (1 - LinExpr(x0)) + 2 * (1 - LinExpr(x1)) + 4 * (1 - LinExpr(x2)));
  m.minimize(load);
  Result r = solve(m, withStart({1, 1, 0, 0}));
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_DOUBLE_EQ(r.objective, 5.0);
  EXPECT_TRUE(r.start_feasible);

  Result bad = solve(m, withStart({1, 1}));
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message.find("2 values for 4 variables"), std::string::npos);
}

TEST_P(MipBackend, StartIsUsedAndNeverWorseWhenTheSearchIsCutShort) {
  // A market split instance from its all-zero start (objective: every row's half), stopped at the
  // first progress report after a tenth of a second: the incumbent is at most the start's.
  Model m = marketSplit(4, 30, 11);
  std::vector<double> start(m.numVars(), 0.0);
  Options o = withStart(start);
  std::atomic<bool> stop{false};
  o.stop = &stop;
  o.progress_interval = 0;
  o.progress = [&](const Progress& p) {
    if (p.seconds > 0.1) stop = true;
  };
  Result r = solve(m, o);
  ASSERT_TRUE(r.status == Status::Feasible || r.status == Status::Optimal) << toString(r.status) << r.message;
  EXPECT_TRUE(r.start_feasible);
  EXPECT_TRUE(r.start_used);
  ASSERT_FALSE(r.values.empty());
  // With every x at 0 each row's slack is its right-hand side.
  double start_objective = 0;
  for (const auto& row : m.rows())
    start_objective += row.rhs;
  EXPECT_LE(r.objective, start_objective + 1e-9);
  EXPECT_LE(m.maxViolation(r.values), 1e-6);
  EXPECT_NEAR(m.objectiveValue(r.values), r.objective, 1e-9);
  EXPECT_LE(r.bound, r.objective + 1e-9);
}

TEST_P(MipBackend, InfeasibleStartIsIgnored) {
  Knapsack k{{5, 4, 3}, {4, 3, 2}, 5};
  std::vector<Var> x;
  Model m = knapsackModel(k, x);
  Result r = solve(m, withStart({1, 1, 1}));  // weight 9 > 5
  EXPECT_FALSE(r.start_feasible);
  EXPECT_FALSE(r.start_used);
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_DOUBLE_EQ(r.objective, -7.0);  // items 1 and 2
}

TEST_P(MipBackend, StopFlagSetBeforeTheCallAndDuringTheSearch) {
  Model m = marketSplit(4, 40, 5);
  std::atomic<bool> stop{true};
  Options before = options();
  before.stop = &stop;
  Result r = solve(m, before);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.status, Status::NoSolution);

  // Set from the progress callback: the search stops soon after (the callback runs in the search).
  stop = false;
  Options during = options();
  during.stop = &stop;
  during.progress_interval = 0;
  double set_at = -1;
  during.progress = [&](const Progress& p) {
    if (p.seconds > 0.3 && set_at < 0) {
      set_at = p.seconds;
      stop = true;
    }
  };
  r = solve(m, during);
  ASSERT_GE(set_at, 0) << "the search ended before the flag was set: " << toString(r.status);
  EXPECT_TRUE(r.interrupted);
  EXPECT_LT(r.seconds, set_at + 1.0);
  ASSERT_EQ(r.status, Status::Feasible) << r.message;
  EXPECT_LE(m.maxViolation(r.values), 1e-6);
  EXPECT_LE(r.bound, r.objective);
  EXPECT_NEAR(r.gap, relativeGap(r.objective, r.bound), 1e-12);
}

TEST_P(MipBackend, TimeLimitStopsTheSearch) {
  Model m = marketSplit(4, 40, 9);
  Result r = solve(m, withTimeLimit(0.5));
  EXPECT_FALSE(r.interrupted);
  EXPECT_LT(r.seconds, 1.5);
  ASSERT_EQ(r.status, Status::Feasible) << r.message;
  EXPECT_GT(r.gap, 0.0);
  EXPECT_LE(r.bound, r.objective);
}

TEST_P(MipBackend, KnownBoundFloorsTheReportedBound) {
  // The odd market split's optimum is at least 4 (one per row), its LP bound 0: a floor known from
  // elsewhere is the reported bound whenever the search's own is lower. With no time at all, the
  // floor is all there is.
  Model m = marketSplit(4, 40, 9, /*odd=*/true);
  Options o = withTimeLimit(0.5);
  o.known_bound = 4;
  Result r = solve(m, o);
  ASSERT_TRUE(r.status == Status::Feasible || r.status == Status::Optimal) << r.message;
  EXPECT_GE(r.bound, 4.0);
  EXPECT_GE(r.objective, 4.0 - 1e-9);
  EXPECT_LE(r.bound, r.objective);

  Options floor0 = withTimeLimit(0);
  floor0.known_bound = 4.0;
  Result none = solve(m, floor0);
  EXPECT_EQ(none.status, Status::NoSolution);
  EXPECT_EQ(none.bound, 4.0);
}

TEST_P(MipBackend, GapToleranceStopsEarly) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> value(10, 99), weight(10, 99);
  Knapsack k;
  for (int i = 0; i < 40; ++i) {
    k.value.push_back(value(rng));
    k.weight.push_back(weight(rng));
  }
  k.capacity = 1000;
  std::vector<Var> x;
  Model m = knapsackModel(k, x);
  Options o = options();
  o.mip_gap = 0.05;
  Result r = solve(m, o);
  ASSERT_EQ(r.status, Status::Optimal) << r.message;
  EXPECT_LE(r.gap, 0.05 + 1e-9);
  EXPECT_LE(r.bound, r.objective);
  Result exact = solve(m, options());
  ASSERT_EQ(exact.status, Status::Optimal);
  EXPECT_LE(r.bound, exact.objective + 1e-9);
  EXPECT_GE(r.objective, exact.objective - 1e-9);
}

TEST_P(MipBackend, ProgressReportsIncumbentBoundAndGap) {
  // A knapsack big enough for several callbacks; interval 0 reports on every one.
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> value(10, 99), weight(10, 99);
  Knapsack k;
  for (int i = 0; i < 40; ++i) {
    k.value.push_back(value(rng));
    k.weight.push_back(weight(rng));
  }
  k.capacity = 1000;
  std::vector<Var> x;
  Model m = knapsackModel(k, x);
  std::vector<Progress> seen;
  Options o = options();
  o.progress = [&](const Progress& p) { seen.push_back(p); };
  o.progress_interval = 0;
  Result r = solve(m, o);
  ASSERT_EQ(r.status, Status::Optimal);
  ASSERT_FALSE(seen.empty());
  for (const Progress& p : seen) {
    EXPECT_LE(p.bound, r.objective + 1e-6);
    if (std::isfinite(p.incumbent)) {
      EXPECT_GE(p.incumbent, r.objective - 1e-6);
      EXPECT_NEAR(p.gap, relativeGap(p.incumbent, p.bound), 1e-12);
    }
  }
}

TEST_P(MipBackend, ProgressOnALongerSearchIsMonotoneEnough) {
  // On the market split, reports keep coming every interval with incumbents that never get worse,
  // bounds never above them, and node counts that never go down.
  Model m = marketSplit(4, 40, 21);
  Options o = withTimeLimit(1.0);
  o.progress_interval = 0.1;
  std::vector<Progress> seen;
  o.progress = [&](const Progress& p) { seen.push_back(p); };
  Result r = solve(m, o);
  ASSERT_EQ(r.status, Status::Feasible) << r.message;
  ASSERT_GE(seen.size(), 3u);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_LE(seen[i].bound, seen[i].incumbent + 1e-9);
    EXPECT_GE(seen[i].incumbent, r.objective - 1e-9);
    if (i > 0) {
      EXPECT_LE(seen[i].incumbent, seen[i - 1].incumbent + 1e-9);
      EXPECT_GE(seen[i].nodes, seen[i - 1].nodes);
      EXPECT_GE(seen[i].seconds - seen[i - 1].seconds, 0.1 - 1e-9);
    }
  }
  EXPECT_GE(r.nodes, seen.back().nodes);
}

INSTANTIATE_TEST_SUITE_P(Backends, MipBackend, ::testing::Values(Backend::Glpk, Backend::Cbc),
                         [](const ::testing::TestParamInfo<Backend>& info) { return std::string(toString(info.param)); });

}  // namespace mip_test
}  // namespace placer::mip
