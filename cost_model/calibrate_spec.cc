#include "cost_model/calibrate_spec.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

#include "cost_model/qdq.h"

namespace placer {

namespace {

// Ranks from 1, ties sharing their mean rank.
std::vector<double> ranks(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> out(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
      ++j;
    for (std::size_t k = i; k <= j; ++k)
      out[order[k]] = (static_cast<double>(i + j) / 2) + 1;
    i = j + 1;
  }
  return out;
}

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0;
}

// The time the placement problem gives the node on one kind: the model's estimate plus, for an
// estimate, the specification's op_overhead (as annotate() adds it).
double predicted(const OnnxGraph& graph, int v, const DeviceSpec& spec, bool cpu) {
  const TimeEstimate t = RooflineCostModel().estimate(graph, v, spec);
  return cpu ? t.cpu.value_or(0) + spec.cpus.op_overhead
             : t.accelerator.value_or(0) + spec.accelerators.op_overhead;
}

std::optional<double> measuredTime(const OnnxGraph& graph, int v, const DeviceSpec& spec,
                                   const ProfileCostModel& resolved, bool cpu) {
  const TimeEstimate t = resolved.estimate(graph, v, spec);
  const std::optional<double> m = cpu ? t.cpu : t.accelerator;
  return m && *m > 0 && std::isfinite(*m) ? m : std::nullopt;
}

std::string rateLine(const std::string& key, const EffectiveRate& r) {
  char text[200];
  std::snprintf(text, sizeof text, "%s: %.3g GFLOP/s, %.3g GB/s, %.3g us per operator (%d operators)", key.c_str(),
                r.flops / 1e9, r.bandwidth / 1e9, r.overhead * 1e6, r.samples);
  return text;
}

}  // namespace

FitSummary compareToProfile(const OnnxGraph& graph, const DeviceSpec& spec, const ProfileCostModel& resolved,
                            bool cpu, const std::string& op_type) {
  FitSummary out;
  std::vector<double> p, m;
  double log_error = 0;
  for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
    if (!op_type.empty() && graph.nodes[v].op_type != op_type) continue;
    const std::optional<double> measured = measuredTime(graph, v, spec, resolved, cpu);
    if (!measured) continue;
    const double prediction = predicted(graph, v, spec, cpu);
    p.push_back(prediction);
    m.push_back(*measured);
    out.measured += *measured;
    out.predicted += prediction;
    log_error += std::fabs(std::log(std::max(prediction, 1e-12) / *measured));
  }
  out.operators = static_cast<int>(p.size());
  if (out.operators == 0) return out;
  out.error_factor = std::exp(log_error / out.operators);
  if (out.operators >= 2) out.spearman = pearson(ranks(p), ranks(m));
  return out;
}

Expected<Calibration> calibrate(const OnnxGraph& graph, const DeviceSpec& datasheet,
                                const std::vector<std::filesystem::path>& profiles) {
  auto profile = loadProfile(profiles);
  if (!profile) return profile.status();
  ProfileCostModel::Match match;
  const ProfileCostModel resolved = profile->resolvedFor(graph, datasheet, match);
  Calibration out;
  out.spec = datasheet;
  out.notes.push_back(std::to_string(resolved.matchedNodes(graph)) + " of " + std::to_string(graph.nodes.size()) +
                      " operators have a measured time in the profile");
  std::string sources;
  for (const auto& p : profiles)
    sources += (sources.empty() ? "" : ", ") + p.filename().string();
  for (const bool cpu : {true, false}) {
    std::vector<CalibrationSample> samples;
    for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
      const std::optional<double> measured = measuredTime(graph, v, datasheet, resolved, cpu);
      if (!measured || qdqRole(graph, v) == QdqRole::Absorbed) continue;
      const OpShapeInfo info = costedShapeInfo(graph, v);
      const OpWork work = estimateWork(info);
      const PeakFlopsByType& peaks = cpu ? datasheet.cpus.peak_flops_by_type : datasheet.accelerators.peak_flops_by_type;
      samples.push_back({opClass(info), rateType(computeType(info), peaks), work.flops,
                         work.bytes_read + work.bytes_written, *measured, info.op_type});
    }
    if (static_cast<int>(samples.size()) < kMinSamples) continue;
    const EffectiveRate start = cpu ? EffectiveRate{datasheet.cpus.peak_flops, datasheet.cpus.memory_bandwidth,
                                                    datasheet.cpus.op_overhead, 0}
                                    : EffectiveRate{datasheet.accelerators.peak_flops,
                                                    datasheet.accelerators.memory_bandwidth,
                                                    datasheet.accelerators.op_overhead, 0};
    const CalibratedRates rates = fitRates(samples, start);
    if (cpu) {
      out.spec.cpus.calibrated = rates;
      out.spec.cpus.op_overhead = 0;
    } else {
      out.spec.accelerators.calibrated = rates;
      out.spec.accelerators.op_overhead = 0;
    }
    CalibrationReport report;
    report.kind = cpu ? "cpu" : "accelerator";
    report.before = compareToProfile(graph, datasheet, resolved, cpu);
    report.after = compareToProfile(graph, out.spec, resolved, cpu);
    std::map<std::string, int> types;
    for (const OnnxNode& node : graph.nodes)
      ++types[node.op_type];
    for (const auto& [type, count] : types) {
      OpTypeFit fit{type, compareToProfile(graph, datasheet, resolved, cpu, type),
                    compareToProfile(graph, out.spec, resolved, cpu, type)};
      if (fit.before.operators > 0) report.op_types.push_back(std::move(fit));
    }
    for (const auto& [key, rate] : rates)
      report.rates.push_back(rateLine(key, rate));
    for (int v = 0; v < static_cast<int>(graph.nodes.size()); ++v) {
      if (const std::optional<double> measured = measuredTime(graph, v, datasheet, resolved, cpu)) {
        report.operators.push_back({graph.nodes[v].name, graph.nodes[v].op_type, *measured,
                                    predicted(graph, v, datasheet, cpu), predicted(graph, v, out.spec, cpu)});
      }
    }
    out.reports.push_back(std::move(report));
  }
  if (out.reports.empty()) {
    return invalidInput(sources + ": fewer than " + std::to_string(kMinSamples) +
                        " operators of " + graph.path + " have a measured time; nothing to calibrate");
  }
  out.spec.name = datasheet.name + ", calibrated to " + sources;
  return out;
}

double afterError(const OperatorFit& op) {
  const double p = std::max(op.after, 1e-12), m = std::max(op.measured, 1e-12);
  return std::max(p / m, m / p);
}

nlohmann::ordered_json toJson(const CalibrationReport& report) {
  auto summary = [](const FitSummary& f) {
    return nlohmann::ordered_json{{"operators", f.operators},     {"measured_seconds", f.measured},
                                  {"predicted_seconds", f.predicted}, {"error_factor", f.error_factor},
                                  {"spearman", f.spearman}};
  };
  nlohmann::ordered_json out;
  out["kind"] = report.kind;
  out["before"] = summary(report.before);
  out["after"] = summary(report.after);
  nlohmann::ordered_json types = nlohmann::ordered_json::array();
  for (const OpTypeFit& fit : report.op_types)
    types.push_back({{"op_type", fit.op_type}, {"before", summary(fit.before)}, {"after", summary(fit.after)}});
  out["op_types"] = std::move(types);
  out["rates"] = report.rates;
  nlohmann::ordered_json operators = nlohmann::ordered_json::array();
  for (const OperatorFit& op : report.operators) {
    operators.push_back({{"node", op.node},
                         {"op_type", op.op_type},
                         {"measured_seconds", op.measured},
                         {"datasheet_seconds", op.before},
                         {"calibrated_seconds", op.after}});
  }
  out["operators"] = std::move(operators);
  return out;
}

}  // namespace placer
