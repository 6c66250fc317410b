// Comparing a run of `onnx-placer compare` with an earlier one (--baseline OLD.json), as asv's
// `continuous` does: each case is matched by model and algorithm and marked
//   +  worse: a value above the baseline's by more than the value factor, or a time slower by more
//      than the time factor and significantly so (a two-sided Mann-Whitney U test on the repetitions,
//      as Google Benchmark's compare.py; with fewer than two runs on a side, the factor alone)
//   -  better, the same tests the other way
//   !  newly failing (or newly infeasible), or a model of the baseline that is no longer there
//   *  fixed: failing or infeasible in the baseline, a placement now
//   x  not comparable: a case only one of the runs has
// `+` and `!` are regressions: the command exits non-zero when there is one. Improvements are listed,
// never counted against the run.
#pragma once

#include <string>
#include <vector>

#include "tools/compare/results.h"

namespace placer::compare {

struct BaselineSettings {
  double value_factor = 1.0;  // worse means above baseline x factor (1: any worsening)
  double time_factor = 1.5;
  double alpha = 0.05;       // significance of the U test
  double time_floor = 0.05;  // seconds: times closer than this are never called different
};

struct Change {
  std::string model, algorithm;
  char mark = ' ';
  bool regression = false;
  std::string what;  // "value 31.2 -> 33.0 (+5.77%)", "time 0.41 s -> 0.92 s (x2.24, p = 0.008)", ...
};

struct Comparison {
  std::vector<Change> changes;       // in case order; unchanged cases are not listed
  std::vector<std::string> options;  // options that differ between the runs ("--memory: 8e9 -> 16e9")
  std::string time_test;             // how times were compared
  bool regressed = false;
};

Comparison compareWithBaseline(const Report& baseline, const Report& current,
                               const BaselineSettings& settings);

// The two-sided p-value of the Mann-Whitney U test of samples a and b: exact without ties on small
// samples, the normal approximation with tie and continuity corrections otherwise. 1 when a side is
// empty.
double mannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace placer::compare
