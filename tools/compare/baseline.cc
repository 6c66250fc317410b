#include "tools/compare/baseline.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace placer::compare {

namespace {

// Exact two-sided p of U for samples of n and m without ties: the number of orderings with each U
// (the recurrence N(n, m, u) = N(n-1, m, u-m) + N(n, m-1, u)), over C(n+m, n).
double exactP(int n, int m, double u) {
  const int max_u = n * m;
  // counts[i][j][u] built up in i; only the last layer of i is kept per j.
  std::vector<std::vector<double>> prev(static_cast<std::size_t>(m + 1)),
      cur(static_cast<std::size_t>(m + 1));
  for (int j = 0; j <= m; ++j)
    prev[j] = {1.0};  // n = 0: one ordering, U = 0
  for (int i = 1; i <= n; ++i) {
    cur[0] = {1.0};
    for (int j = 1; j <= m; ++j) {
      std::vector<double> counts(static_cast<std::size_t>(i * j + 1), 0.0);
      // the largest value is from the first sample (adds j to U) or from the second
      for (std::size_t k = 0; k < prev[j].size(); ++k)
        counts[k + static_cast<std::size_t>(j)] += prev[j][k];
      for (std::size_t k = 0; k < cur[j - 1].size(); ++k)
        counts[k] += cur[j - 1][k];
      cur[j] = std::move(counts);
    }
    std::swap(prev, cur);
  }
  const std::vector<double>& counts = prev[m];
  double total = 0, below = 0, above = 0;
  for (int k = 0; k <= max_u; ++k) {
    total += counts[k];
    if (k <= u + 1e-9) below += counts[k];
    if (k >= u - 1e-9) above += counts[k];
  }
  return std::min(1.0, 2 * std::min(below, above) / total);
}

std::string number(double v) {
  std::ostringstream out;
  out << std::setprecision(6) << v;
  return out.str();
}

std::string percent(double now, double before) {
  std::ostringstream out;
  out << std::showpos << std::fixed << std::setprecision(2) << 100 * (now / before - 1) << "%";
  return out.str();
}

bool failedOrInfeasible(Outcome o) {
  return o != Outcome::Ok;
}

void compareTimes(const CaseResult& before, const CaseResult& now, const BaselineSettings& settings,
                  std::vector<Change>& out) {
  const double a = before.time(), b = now.time();
  if (!(a > 0) || !(b > 0) || std::fabs(b - a) < settings.time_floor) return;
  const double ratio = b / a;
  const bool slower = ratio > settings.time_factor, faster = ratio < 1 / settings.time_factor;
  if (!slower && !faster) return;
  std::ostringstream what;
  what << "time " << number(a) << " s -> " << number(b) << " s (x" << std::fixed << std::setprecision(2)
       << ratio;
  if (before.times.size() >= 2 && now.times.size() >= 2) {
    const double p = mannWhitneyP(before.times, now.times);
    what << ", p = " << std::setprecision(3) << p;
    if (p >= settings.alpha) return;  // not significant: noise
  }
  what << ")";
  Change c{now.model, now.algorithm, slower ? '+' : '-', slower, what.str()};
  out.push_back(std::move(c));
}

void compareCase(const CaseResult& before, const CaseResult& now, const BaselineSettings& settings,
                 std::vector<Change>& out) {
  Change change{now.model, now.algorithm, ' ', false, ""};
  if (failedOrInfeasible(now.outcome) && !failedOrInfeasible(before.outcome)) {
    change.mark = '!';
    change.regression = true;
    change.what =
        std::string("now ") + toString(now.outcome) + (now.message.empty() ? "" : ": " + now.message);
    out.push_back(std::move(change));
    return;
  }
  if (!failedOrInfeasible(now.outcome) && failedOrInfeasible(before.outcome)) {
    change.mark = '*';
    change.what = std::string("fixed: was ") + toString(before.outcome) + ", now " + number(*now.value);
    out.push_back(std::move(change));
    return;
  }
  if (failedOrInfeasible(now.outcome)) return;  // failing before and now: nothing changed
  const double a = *before.value, b = *now.value;
  // Relative 1e-12 for values that went through text: a deterministic value compares equal.
  if (b > a * settings.value_factor * (1 + 1e-12) + 1e-300) {
    change.mark = '+';
    change.regression = true;
  } else if (b * settings.value_factor * (1 + 1e-12) < a) {
    change.mark = '-';
  }
  if (change.mark != ' ') {
    change.what = "value " + number(a) + " -> " + number(b) + " (" + percent(b, a) + ")";
    out.push_back(std::move(change));
  }
  compareTimes(before, now, settings, out);
}

// The options of two runs that differ, as "--name: old -> new" (absent: "default").
std::vector<std::string> optionDifferences(const Report& before, const Report& now) {
  std::set<std::string> names;
  for (const auto* report : {&before, &now}) {
    if (!report->options.is_object()) continue;
    for (auto it = report->options.begin(); it != report->options.end(); ++it)
      names.insert(it.key());
  }
  auto valueOf = [](const Report& r, const std::string& name) {
    if (!r.options.is_object() || !r.options.contains(name)) return std::string("default");
    const auto& v = r.options[name];
    return v.is_string() ? v.get<std::string>() : v.dump();
  };
  std::vector<std::string> out;
  for (const std::string& name : names) {
    const std::string a = valueOf(before, name), b = valueOf(now, name);
    if (a != b) out.push_back("--" + name + ": " + a + " -> " + b);
  }
  if (before.objective != now.objective)
    out.push_back("objective: " + before.objective + " -> " + now.objective);
  return out;
}

}  // namespace

double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return 1;
  std::vector<std::pair<double, int>> all;
  for (double v : a)
    all.emplace_back(v, 0);
  for (double v : b)
    all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first)
      ++j;
    const double t = static_cast<double>(j - i), mid_rank = (static_cast<double>(i + j) + 1) / 2;
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].second == 0) rank_sum_a += mid_rank;
    }
    i = j;
  }
  const double dn = static_cast<double>(n), dm = static_cast<double>(m);
  const double u = rank_sum_a - dn * (dn + 1) / 2;
  if (!ties && n + m <= 40) return exactP(static_cast<int>(n), static_cast<int>(m), u);
  const double mean = dn * dm / 2, total = dn + dm;
  const double variance = dn * dm / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (!(variance > 0)) return 1;
  const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
}

Comparison compareWithBaseline(const Report& baseline, const Report& current,
                               const BaselineSettings& settings) {
  Comparison out;
  out.options = optionDifferences(baseline, current);
  const bool repeated = baseline.repeat >= 2 && current.repeat >= 2;
  std::ostringstream how;
  how << "times: median over the runs; slower or faster when the ratio passes x" << settings.time_factor;
  if (repeated) {
    how << " and a two-sided Mann-Whitney U test gives p < " << settings.alpha;
  } else {
    how << " (one run on a side: the factor alone, no significance test; use --repeat N)";
  }
  how << "; times within " << settings.time_floor << " s of each other are not compared";
  out.time_test = how.str();
  std::map<std::pair<std::string, std::string>, const CaseResult*> before;
  std::set<std::string> models_now;
  for (const CaseResult& c : baseline.cases)
    before[{c.model, c.algorithm}] = &c;
  for (const CaseResult& c : current.cases)
    models_now.insert(c.model);
  std::set<std::pair<std::string, std::string>> matched;
  for (const CaseResult& now : current.cases) {
    auto it = before.find({now.model, now.algorithm});
    if (it == before.end()) {
      out.changes.push_back({now.model, now.algorithm, 'x', false, "not in the baseline"});
      continue;
    }
    matched.insert(it->first);
    compareCase(*it->second, now, settings, out.changes);
  }
  for (const CaseResult& was : baseline.cases) {
    if (matched.count({was.model, was.algorithm})) continue;
    const bool gone = !models_now.count(was.model);
    out.changes.push_back({was.model, was.algorithm, gone ? '!' : 'x', gone,
                           gone ? "the model is gone: the baseline has it, this run does not"
                                : "in the baseline, not run now"});
  }
  out.regressed =
      std::any_of(out.changes.begin(), out.changes.end(), [](const Change& c) { return c.regression; });
  return out;
}

}  // namespace placer::compare
