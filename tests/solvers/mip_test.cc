// The GLPK layer: small models whose optimum is known by enumeration, statuses, starts, progress.
#include "solvers/mip.h"

#include <gtest/gtest.h>

#include <random>

namespace placer::mip {
namespace {

Options withTimeLimit(double seconds, std::vector<double> start = {}) {
  Options o;
  o.time_limit = seconds;
  o.start = std::move(start);
  return o;
}

Options withStart(std::vector<double> start) {
  Options o;
  o.start = std::move(start);
  return o;
}

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

TEST(Mip, KnapsacksMatchEnumeration) {
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
    Result r = solve(m);
    ASSERT_EQ(r.status, Status::Optimal) << r.message;
    EXPECT_NEAR(r.objective, bruteForce(k), 1e-7) << "trial " << trial;
    EXPECT_NEAR(r.bound, r.objective, 1e-9);
    EXPECT_EQ(r.gap, 0.0);
    EXPECT_LE(m.maxViolation(r.values), 1e-7);
    EXPECT_NEAR(m.objectiveValue(r.values), r.objective, 1e-9);
  }
}

TEST(Mip, InfeasibleRelaxationAndInfeasibleIntegerModel) {
  {
    Model m;
    Var a = m.addContinuous(0, 1, "a");
    m.addGe(a, 2);
    m.minimize(a);
    EXPECT_EQ(solve(m).status, Status::Infeasible);
  }
  {
    // 2x = 1 has a fractional solution only.
    Model m;
    Var x = m.addVar(VarType::Integer, 0, 5, "x");
    m.addEq(2 * LinExpr(x), 1);
    m.minimize(x);
    Result r = solve(m);
    EXPECT_EQ(r.status, Status::Infeasible) << r.message;
    EXPECT_TRUE(r.values.empty());
  }
}

TEST(Mip, ZeroTimeLimitReportsNoSolutionOrTheStart) {
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
}

TEST(Mip, StartIsCompletedAndNeverBeaten) {
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
  EXPECT_EQ(bad.status, Status::Error);
  EXPECT_NE(bad.message.find("2 values for 4 variables"), std::string::npos);
}

TEST(Mip, InfeasibleStartIsIgnored) {
  Knapsack k{{5, 4, 3}, {4, 3, 2}, 5};
  std::vector<Var> x;
  Model m = knapsackModel(k, x);
  Result r = solve(m, withStart({1, 1, 1}));  // weight 9 > 5
  EXPECT_FALSE(r.start_feasible);
  EXPECT_FALSE(r.start_used);
  ASSERT_EQ(r.status, Status::Optimal);
  EXPECT_DOUBLE_EQ(r.objective, -7.0);  // items 1 and 2
}

TEST(Mip, ProgressReportsIncumbentBoundAndGap) {
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
  Options o;
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

}  // namespace
}  // namespace placer::mip
