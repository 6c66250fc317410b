// The reports `onnx-placer compare` writes beside report.json: Markdown for people, JUnit XML for CI
// systems, and the chart's data.
#pragma once

#include <optional>
#include <string>

#include "tools/compare/baseline.h"
#include "tools/compare/results.h"

namespace placer::compare {

// The baselines, in the order their gain columns appear.
inline constexpr const char* kBaselineAlgorithms[] = {"one-accelerator", "local-search", "pipedream",
                                                      "scotch", "expert"};

// report.md: the run, the comparison with the baseline (when given), the paper-style table (per case:
// value, its ratio to the model's best, runtime, memory violation, gain over each baseline that ran,
// certified ratio) and what failed and why.
std::string markdownReport(const Report& report, const Comparison* comparison);

// report.xml: JUnit XML as Jenkins' junit-10.xsd and GitLab read it. One <testsuite> per model, one
// <testcase> per algorithm (classname = the model, name = the algorithm, time = the median run);
// infeasible cases are <skipped>, a failed solve a <failure>, a refused, crashed, out-of-memory or
// timed-out run an <error>; a regression against the baseline is a <failure> too. The schema allows
// <properties> on a testsuite only, so each model's suite carries its cases' values as properties named
// "ALGORITHM.value", "ALGORITHM.time", ...; every case's own line is in its <system-out>.
std::string junitReport(const Report& report, const Comparison* comparison);

// Text escaped for XML character data and attribute values (picture::xmlEscape: control characters
// and bytes that are not UTF-8 replaced by U+FFFD).
std::string xmlEscape(const std::string& text);

}  // namespace placer::compare
